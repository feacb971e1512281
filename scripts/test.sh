#!/usr/bin/env bash
# orogen's whole test suite: unit, integration, CLI and the viewer's
# screenshot test, then the release-mode drainage tier (the eroded
# presets judged by fastscapelib at 2049² and 4097²). The screenshot
# test renders under Xvfb with Mesa's software Vulkan, and the outside-readers test reads the exports back with
# GDAL (gdal-bin) and Python (pillow, OpenEXR, numpy); when run as root and
# those packages are missing, this script installs them first (as CI does
# on a fresh machine).
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
command -v xvfb-run >/dev/null 2>&1 || need+=(xvfb xauth)
[ -e /usr/share/vulkan/icd.d/lvp_icd.x86_64.json ] || [ -n "$(ls /usr/share/vulkan/icd.d/lvp_icd* 2>/dev/null)" ] || need+=(mesa-vulkan-drivers)
ldconfig -p 2>/dev/null | grep -q libvulkan.so.1 || need+=(libvulkan1)
ldconfig -p 2>/dev/null | grep -q libxkbcommon-x11.so.0 || need+=(libxkbcommon-x11-0)
ldconfig -p 2>/dev/null | grep -q libXcursor.so.1 || need+=(libxcursor1)
ldconfig -p 2>/dev/null | grep -q libXi.so.6 || need+=(libxi6)
ldconfig -p 2>/dev/null | grep -q libXrandr.so.2 || need+=(libxrandr2)
ldconfig -p 2>/dev/null | grep -q libX11-xcb.so.1 || need+=(libx11-xcb1)
ldconfig -p 2>/dev/null | grep -q "libX11.so.6 " || need+=(libx11-6)
command -v gdal_translate >/dev/null 2>&1 || need+=(gdal-bin)
command -v parallel >/dev/null 2>&1 || need+=(parallel)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    echo "installing test packages: ${need[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq "${need[@]}" >/dev/null
  else
    echo "note: missing ${need[*]}; the viewer screenshot or outside-readers test will be skipped (run as root to install)" >&2
  fi
fi

# Python readers for the outside-readers test, fastscapelib for the
# drainage test and landlab for the sediment test (PyPI packages).
if command -v python3 >/dev/null 2>&1 && ! python3 -c "import PIL, OpenEXR, numpy, fastscapelib, landlab" >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then
    echo "installing python packages: pillow OpenEXR numpy fastscapelib landlab==2.9.2"
    python3 -m pip install -q --retries 5 --timeout 60 pillow OpenEXR numpy fastscapelib landlab==2.9.2 ||
      python3 -m pip install -q --retries 5 --timeout 60 --break-system-packages pillow OpenEXR numpy fastscapelib landlab==2.9.2
  else
    echo "note: missing python packages pillow, OpenEXR, numpy, fastscapelib or landlab; the outside-readers, drainage and sediment tests will skip them (run as root to install)" >&2
  fi
fi

cargo test --workspace "$@"

# A world as 16 windows built by GNU parallel, stitched and compared bit
# for bit with the whole map (about half a minute each).
if command -v parallel >/dev/null 2>&1 && python3 -c "import numpy, PIL" >/dev/null 2>&1; then
  ./scripts/farm-check.sh
  # An eroded world too: fluvial erosion by blocks (from 2049²), 16
  # windows against the whole map, bit for bit.
  RECIPE=eroded-mountains ./scripts/farm-check.sh 2049 4 2
else
  echo "note: GNU parallel, numpy or pillow missing; skipping scripts/farm-check.sh" >&2
fi

# The drainage checks at 2049² and 4097², in release mode (a few minutes).
./scripts/drainage-tier.sh
