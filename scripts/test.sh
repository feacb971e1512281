#!/usr/bin/env bash
# orogen's whole test suite: unit, integration, CLI and the viewer's
# screenshot test. The screenshot test renders under Xvfb with Mesa's
# software Vulkan; when run as root and those packages are missing, this
# script installs them first (as CI does on a fresh machine).
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
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    echo "installing rendering packages: ${need[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq "${need[@]}" >/dev/null
  else
    echo "note: missing ${need[*]}; the viewer screenshot test will be skipped (run as root to install)" >&2
  fi
fi

cargo test --workspace "$@"
