"""Medians of scripts/peer-bench.sh's timing lines, as a Markdown table."""

import statistics
import sys
from collections import defaultdict

# (row label, wgen's name, orogen's name, which occurrence in orogen's run)
ROWS = [
    ("hills: 600 paraboloids, radius 25–140 cells", "hills", "hills-and-pits", 0),
    ("normalize to 0..1", "normalize", "normalize", 0),
    ("midpoint / diamond-square, H = 1", "diamond-square", "diamond-square", 0),
    ("fBm, 6 octaves", "fbm", "noise", 0),
    ("mudslide / thermal, 5 passes", "thermal", "thermal-erosion", 0),
    ("water / hydraulic erosion, per droplet step", "hydraulic", "hydraulic-erosion", 0),
]


def load(path):
    """times[side][(kind, name, occurrence)] = [values per run]."""
    times = defaultdict(lambda: defaultdict(list))
    seen = defaultdict(lambda: defaultdict(int))
    for line in open(path):
        side, kind, name, value = line.split()
        if name == "total":
            seen[side].clear()
            continue
        key = (kind, name)
        occurrence = seen[side][key] % 2 if name == "normalize" else 0
        seen[side][key] += 1
        times[side][(kind, name, occurrence)].append(float(value))
    return times


def median(times, side, kind, name, occurrence=0):
    values = times[side].get((kind, name, occurrence))
    return statistics.median(values) if values else None


def main():
    times = load(sys.argv[1])
    cores = sys.argv[2]
    runs = len(times["wgen"][("timing", "hills", 0)])
    print(f"| stage | wgen | orogen ({cores} threads) | wgen / orogen | orogen 1 thread |")
    print("|---|---|---|---|---|")
    for label, peer, ours, occurrence in ROWS:
        w = median(times, "wgen", "timing", peer)
        o = median(times, "orogen", "timing", ours, occurrence)
        o1 = median(times, "orogen1", "timing", ours, occurrence)
        if peer == "hydraulic":
            # Per step: each side's time over the steps it simulated.
            ws = median(times, "wgen", "steps", peer)
            os_ = median(times, "orogen", "steps", ours)
            os1 = median(times, "orogen1", "steps", ours)
            w, o, o1 = w * 1e6 / ws, o * 1e6 / os_, o1 * 1e6 / os1
            unit = "ns/step"
            note = f" ({ws / 1e6:.1f} M / {os_ / 1e6:.1f} M steps)"
        else:
            unit, note = "ms", ""
        print(
            f"| {label}{note} | {w:.1f} {unit} | {o:.1f} {unit} | **{w / o:.1f}×** | {o1:.1f} {unit} |"
        )
    print(f"\nMedians of {runs} cold runs of each side at 1025².")


if __name__ == "__main__":
    main()
