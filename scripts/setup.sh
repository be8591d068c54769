#!/usr/bin/env bash
# Installs the Debian 12 packages AccumLab builds, tests and packages against, if any are missing,
# on a fresh machine with nothing installed beforehand (the clean-room stage, scripts/cleanroom.sh,
# proves it on every CI run).
# Safe to run again: it only calls apt-get when something is absent.
set -euo pipefail

packages=(
  cmake g++ make pkg-config
  ninja-build ccache     # every build: Ninja, and ccache so a build another build compiled hits (scripts/lib/build-env.sh)
  qt6-base-dev qt6-charts-dev qt6-tools-dev qt6-l10n-tools qt6-translations-l10n
  libqt6opengl6-dev      # Qt6Charts' CMake package needs Qt6OpenGL (only a Recommends of qt6-base-dev)
  libtorch-dev libgloo-dev nlohmann-json3-dev libcli11-dev
  libopenblas0-pthread   # LibTorch's small matmuls run ~6x slower on the reference BLAS
  libopenblas0-openmp    # the apps' OpenBLAS: the same kernels on LibTorch's OpenMP threads (docs/measurements.md, Speed)
  libtcmalloc-minimal4   # the apps' allocator: LibTorch's many small per-op allocations (docs/measurements.md, Speed)
  libgl-dev              # Qt6Gui's CMake package needs the OpenGL headers
  fonts-dejavu-core      # a Latin fallback font for offscreen screenshots
  clang libclang-rt-14-dev  # libFuzzer and its sanitizer runtimes (scripts/fuzz.sh)
  libgtest-dev           # the portable core + CLI suite (tests/portable), which needs no Qt
  locales                # locale sources: tests/portable/gtest_locale builds a comma-decimal one
  dpkg-dev file          # CPack's .deb and its dependencies from dpkg-shlibdeps (scripts/package.sh)
  desktop-file-utils appstream  # validate the .desktop file and the AppStream metainfo (tests)
  fortunes fortunes-min  # the text model's corpus: short texts with '%' between them (core/data/text_corpus.h)
)
if [[ "${ACCUMLAB_SETUP_EXTRA:-}" != "" ]]; then
  read -r -a extra <<<"$ACCUMLAB_SETUP_EXTRA"
  packages+=("${extra[@]}")
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo=()
  [[ $(id -u) -eq 0 ]] || sudo=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  "${sudo[@]}" apt-get update -q
  "${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
