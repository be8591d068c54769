#!/usr/bin/env bash
# Gathers the header-only dependencies (nlohmann_json, CLI11) and GoogleTest's sources (the
# portable suite, tests/portable) from this machine's Debian packages into a folder that can
# travel to a GPU machine that has only a PyTorch wheel.
# Usage: scripts/gpu-deps.sh [folder]   (default: .gpu-deps)
set -euo pipefail
cd "$(dirname "$0")/.."
dest=${1:-.gpu-deps}
scripts/setup.sh
mkdir -p "$dest/include"
cp -r /usr/include/nlohmann /usr/include/CLI "$dest/include/"
rm -rf "$dest/googletest"
cp -r /usr/src/googletest "$dest/googletest"
echo "$dest/include"
