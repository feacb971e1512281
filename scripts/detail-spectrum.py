#!/usr/bin/env python3
"""How much fine detail a heightmap holds against the roughness of its
coarser wavelengths: the radially averaged power spectrum of the heights
(plane removed, Hann window), a power law fitted over the wavelengths a
coarser map resolves, and the mean power in a band of short wavelengths
against that law's extension, in dB (0: as rough as the law says,
negative: smoother).

    scripts/detail-spectrum.py MAP.f32 SIZE EXTENT [--fit-cells 513] [--band 4 16]

MAP.f32 is raw little-endian float32, SIZE x SIZE cells, north row first
(`cargo run --release -p orogen-core --example float_heights -- PRESET
MAP.f32 SIZE`); EXTENT is the world's side in world units. The fit runs
from EXTENT/4 down to 4 cells of a --fit-cells map; the band is in cells
of this map. Prints one line:

    detail_db D fit_slope B band_cells LO-HI
"""
import argparse
import sys

import numpy as np


def radial_spectrum(z, cell):
    n = z.shape[0]
    y, x = np.mgrid[0:n, 0:n]
    # The best-fitting plane off, then a Hann window against edge leakage.
    a = np.c_[x.ravel(), y.ravel(), np.ones(n * n)]
    coef, *_ = np.linalg.lstsq(a, z.ravel(), rcond=None)
    z = z - (a @ coef).reshape(n, n)
    w = np.hanning(n)
    z = z * np.outer(w, w)
    p = np.abs(np.fft.rfft2(z)) ** 2
    ky = np.fft.fftfreq(n, d=cell)
    kx = np.fft.rfftfreq(n, d=cell)
    k = np.hypot(*np.meshgrid(kx, ky))
    # Logarithmic bins in wavenumber.
    edges = np.geomspace(1.0 / (n * cell), 0.5 / cell, 80)
    idx = np.digitize(k.ravel(), edges)
    pk = np.bincount(idx, weights=p.ravel(), minlength=len(edges) + 1)
    cnt = np.bincount(idx, minlength=len(edges) + 1)
    centres = np.sqrt(edges[:-1] * edges[1:])
    power = pk[1:len(edges)] / np.maximum(cnt[1:len(edges)], 1)
    keep = cnt[1:len(edges)] > 0
    return centres[keep], power[keep]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("map")
    ap.add_argument("size", type=int)
    ap.add_argument("extent", type=float)
    ap.add_argument("--fit-cells", type=int, default=513)
    ap.add_argument("--band", type=float, nargs=2, default=(4.0, 16.0))
    args = ap.parse_args()
    z = np.fromfile(args.map, dtype="<f4")
    if z.size != args.size * args.size:
        sys.exit(f"detail-spectrum: {args.map} holds {z.size} values, not {args.size}²")
    z = z.reshape(args.size, args.size).astype(np.float64)
    cell = args.extent / (args.size - 1)
    k, p = radial_spectrum(z, cell)
    wavelength = 1.0 / k
    fit_cell = args.extent / (args.fit_cells - 1)
    fit = (wavelength <= args.extent / 4) & (wavelength >= 4 * fit_cell)
    slope, intercept = np.polyfit(np.log10(k[fit]), np.log10(p[fit]), 1)
    lo, hi = args.band
    band = (wavelength >= lo * cell) & (wavelength <= hi * cell)
    if not band.any() or fit.sum() < 3:
        sys.exit("detail-spectrum: the map resolves no band or too few fit wavelengths")
    law = slope * np.log10(k[band]) + intercept
    db = 10.0 * np.mean(np.log10(p[band]) - law)
    print(f"detail_db {db:.1f} fit_slope {slope:.2f} band_cells {lo:g}-{hi:g}")


if __name__ == "__main__":
    main()
