#!/usr/bin/env bash
# Makes the Debian package from the Release build in build/ (building what is missing first):
# CPack's DEB generator, with the runtime dependencies found by dpkg-shlibdeps.
# Prints the path of the .deb. Install it with: apt-get install ./build/accumlab_<version>_<arch>.deb
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh >&2
(cd build && cpack -G DEB --config CPackConfig.cmake >&2)
ls -t "$PWD"/build/accumlab_*.deb | head -1
