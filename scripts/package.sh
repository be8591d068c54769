#!/usr/bin/env bash
# Makes the Debian package from the Release build in build/ (building what is missing first):
# CPack's DEB generator, with the runtime dependencies found by dpkg-shlibdeps.
# The packaged programs are built without the test-only fault hooks (ACCUMLAB_FAULT_HOOKS=OFF:
# one small file of core recompiles and the two programs relink), and the package is refused if
# one of its programs still carries them; build/ then gets its own setting back, so the tests
# there keep their hooks.
# Prints the path of the .deb. Install it with: apt-get install ./build/accumlab_<version>_<arch>.deb
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)
scripts/build.sh >&2
hooks=$(sed -n 's/^ACCUMLAB_FAULT_HOOKS:BOOL=//p' build/CMakeCache.txt)
programs() { cmake --build build -j"$jobs" --target accumlab-cli $(grep -q '^ACCUMLAB_BUILD_GUI:BOOL=ON' build/CMakeCache.txt && echo accumlab) >&2; }
restore() {
  cmake -S . -B build -DACCUMLAB_FAULT_HOOKS="${hooks:-ON}" -DCMAKE_SKIP_INSTALL_ALL_DEPENDENCY=OFF >/dev/null
  programs
}
trap restore EXIT
# Only the programs are rebuilt: CPack's install step would otherwise relink every test first.
cmake -S . -B build -DACCUMLAB_FAULT_HOOKS=OFF -DCMAKE_SKIP_INSTALL_ALL_DEPENDENCY=ON >/dev/null
programs
(cd build && cpack -G DEB --config CPackConfig.cmake >&2)
deb=$(ls -t "$PWD"/build/accumlab_*.deb | head -1)
unpacked=$(mktemp -d)
dpkg-deb -x "$deb" "$unpacked"
cmake -DEXPECT=OFF "-DPROGRAMS=$(ls -d "$unpacked"/usr/bin/* | paste -sd";")" -P cmake/check_fault_hooks.cmake >&2 ||
  { rm -rf "$unpacked" "$deb"; exit 1; }
rm -rf "$unpacked"
echo "$deb"
