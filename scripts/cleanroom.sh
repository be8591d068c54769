#!/usr/bin/env bash
# The clean-room stage: proves the README's set-up on a Debian 12 root that has never seen
# the project, so a package that only happens to be installed on a developer's or CI's machine
# makes it fail.
#   1. debootstrap a minimal bookworm root (build-cleanroom/build); copy in the project's files
#      (what git tracks, and untracked files it does not ignore);
#   2. inside it: scripts/setup.sh from nothing, scripts/build.sh --all (through the host's
#      compiler cache), a quick subset of the suite
#      (ACCUMLAB_CLEANROOM_TESTS, a ctest -R regex), the headless main job through
#      scripts/run.sh, and the Debian package through scripts/package.sh;
#   3. a second fresh root (build-cleanroom/install): apt-get installs only that .deb (and the
#      runtime packages it depends on, no Recommends), then runs the installed accumlab-cli
#      main job, --version of both programs and an offscreen `accumlab --screenshot` in both
#      languages from the installed paths.
# The roots take the host's apt sources and settings (its mirror and any proxy), nothing else.
# Needs root (chroot, mounts). Each step prints how long it took; the roots are removed at
# the end unless ACCUMLAB_CLEANROOM_KEEP=1. Screenshots are left in build-cleanroom/.
# Usage: scripts/cleanroom.sh [all|prepare|finish]   (default: all)
#   prepare  step 1 and the set-up inside the build root, which it leaves in build-cleanroom/
#            (network and disk: scripts/test.sh runs it in the background while it compiles)
#   finish   the rest, on the root that prepare left
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD
phase=${1:-all}
[[ $phase =~ ^(all|prepare|finish)$ ]] || { echo "cleanroom: unknown phase '$phase' (all, prepare or finish)" >&2; exit 2; }
top=$src/build-cleanroom
suite=${ACCUMLAB_CLEANROOM_TESTS:-'^(portable\.|tst_translations$|tst_autorun$)'}
stage_start=$SECONDS
step_start=$SECONDS
log() { echo "[cleanroom $(date +%H:%M:%S)] $*"; }
step() {
  log "$1 took $((SECONDS - step_start)) s"
  step_start=$SECONDS
}

[[ $(id -u) -eq 0 ]] || { echo "cleanroom: needs root (debootstrap, chroot, mounts)" >&2; exit 2; }
if ! command -v debootstrap >/dev/null; then
  log "installing debootstrap on the host"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends debootstrap >/dev/null ||
    { apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends debootstrap >/dev/null; }
fi

# The host's Debian mirror: the first URI of a bookworm "deb" source.
mirror=$(
  {
    grep -hs -E '^URIs:' /etc/apt/sources.list.d/*.sources | awk '{print $2}' || true
    grep -hs -E '^deb[[:space:]]' /etc/apt/sources.list /etc/apt/sources.list.d/*.list | awk '{for (i = 2; i <= NF; i++) if ($i !~ /^\[/ && $i !~ /\]$/) { print $i; break }}' || true
  } | { grep -v -- '-security' || true; } | head -1
)
[[ -n $mirror ]] || { echo "cleanroom: no Debian mirror found in the host's apt sources" >&2; exit 1; }

mounted=()
unmount_all() {
  local i
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
    umount -l "${mounted[i]}" 2>/dev/null || true
  done
  mounted=()
}
trap unmount_all EXIT
remove_root() {
  local root=$1
  if grep -q " $root/" /proc/mounts; then
    echo "cleanroom: $root still has mounts; not removing it" >&2
    exit 1
  fi
  rm -rf --one-file-system "$root"
}

# A fresh minimal root with the host's apt sources and settings.
make_root() {
  local root=$1
  remove_root "$root"
  if [[ -f $top/base.tar ]]; then
    mkdir -p "$root"
    tar -C "$root" -xf "$top/base.tar"
  else
    mkdir -p "$top/base"
    debootstrap --variant=minbase bookworm "$top/base" "$mirror" >"$top/debootstrap.log" 2>&1 ||
      { tail -20 "$top/debootstrap.log"; exit 1; }
    tar -C "$top/base" -cf "$top/base.tar" .
    rm -rf --one-file-system "$top/base"
    mkdir -p "$root"
    tar -C "$root" -xf "$top/base.tar"
  fi
  rm -f "$root/etc/apt/sources.list"
  cp -a /etc/apt/sources.list "$root/etc/apt/" 2>/dev/null || true
  cp -a /etc/apt/sources.list.d/. "$root/etc/apt/sources.list.d/" 2>/dev/null || true
  cp -a /etc/apt/apt.conf.d/. "$root/etc/apt/apt.conf.d/" 2>/dev/null || true
  cp -L /etc/resolv.conf "$root/etc/resolv.conf"
  cp /etc/hosts "$root/etc/hosts"
  # No service starts inside the root when a package is installed.
  printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
  chmod +x "$root/usr/sbin/policy-rc.d"
}

# /proc, /dev and /dev/pts inside a root, until the script exits.
mount_root() {
  local root=$1
  mount -t proc proc "$root/proc" && mounted+=("$root/proc")
  mount --bind /dev "$root/dev" && mounted+=("$root/dev")
  mount --bind /dev/pts "$root/dev/pts" && mounted+=("$root/dev/pts")
}

# Runs a command inside a root with a clean environment (CI stays set where it is set; the
# build root's compiler cache is the host's, below).
in_root() {
  local root=$1
  shift
  chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    TERM=dumb CI="${CI:-}" CCACHE_DIR=/ccache /bin/bash -c "$*"
}

build_root=$top/build
prepared=$build_root/.accumlab-prepared
if [[ $phase != finish ]]; then
  mkdir -p "$top"
  rm -f "$top/base.tar" "$top"/*.deb "$top"/*.png
  log "1/3 a minimal Debian 12 root from $mirror"
  make_root "$build_root"
  mount_root "$build_root"
  step "debootstrap"
  mkdir -p "$build_root/src"
  git ls-files -z --cached --others --exclude-standard | while IFS= read -r -d '' f; do
    [[ -e $f ]] && printf '%s\0' "$f"
  done | tar -C "$src" --null -T - -cf - | tar -C "$build_root/src" -xf -
  step "copying the project in"
  log "2/3 the README's set-up inside it"
  in_root "$build_root" "cd /src && scripts/setup.sh" >"$top/setup.log" 2>&1 || { tail -40 "$top/setup.log"; exit 1; }
  step "scripts/setup.sh from nothing"
  touch "$prepared"
  if [[ $phase == prepare ]]; then
    unmount_all
    log "the build root is prepared in $((SECONDS - stage_start)) s"
    exit 0
  fi
else
  [[ -f $prepared ]] || { echo "cleanroom: no prepared root in $build_root (scripts/cleanroom.sh prepare)" >&2; exit 1; }
  mount_root "$build_root"
  log "2/3 the build root that scripts/cleanroom.sh prepare left"
fi
# The host's compiler cache, so the root recompiles only what the host's Release build has not
# compiled (scripts/lib/build-env.sh makes its paths relative to the project, /src here). It
# caches compiler output only: the root's own set-up still has to install every header and
# library, or its configure, preprocessing or link fails.
host_cache=$(ccache -k cache_dir 2>/dev/null || true)
if [[ -n $host_cache ]]; then
  mkdir -p "$host_cache" "$build_root/ccache"
  mount --bind "$host_cache" "$build_root/ccache" && mounted+=("$build_root/ccache")
fi

in_root "$build_root" "cd /src && ccache -z >/dev/null && scripts/build.sh --all && ccache -s" >"$top/build.log" 2>&1 ||
  { grep -E -m30 'error|Error|not found|Could NOT' "$top/build.log"; tail -20 "$top/build.log"; exit 1; }
grep -E '^ *(Hits|Misses):' "$top/build.log" | head -2 | sed 's/^ */cleanroom: compiler cache /' || true
step "scripts/build.sh --all"
in_root "$build_root" "cd /src && ctest --test-dir build --output-on-failure --timeout 600 -j$(nproc) -R '$suite'" >"$top/ctest.log" 2>&1 ||
  { cat "$top/ctest.log"; exit 1; }
grep -E '^[0-9]+% tests passed' "$top/ctest.log"
step "the quick suite ($suite)"
in_root "$build_root" "cd /src && scripts/run.sh --no-write --accum-grid 1,2,4 --num-steps 10" 2>"$top/run.log" | tail -6 ||
  { tail -20 "$top/run.log"; exit 1; }
step "scripts/run.sh --no-write (headless main job)"
deb=$(in_root "$build_root" "cd /src && scripts/package.sh" 2>"$top/package.log") ||
  { tail -30 "$top/package.log"; exit 1; }
cp "$build_root$deb" "$top/"
deb_name=$(basename "$deb")
dpkg-deb -I "$top/$deb_name" | grep -E '^ (Package|Version|Depends|Recommends):'
step "scripts/package.sh ($deb_name)"
unmount_all
remove_root "$build_root"

log "3/3 the package in a second fresh root"
install_root=$top/install
make_root "$install_root"
mount_root "$install_root"
cp "$top/$deb_name" "$install_root/tmp/"
in_root "$install_root" "apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends /tmp/$deb_name" \
  >"$top/install.log" 2>&1 || { tail -30 "$top/install.log"; exit 1; }
if in_root "$install_root" "dpkg-query -W -f='\${Package}\n' | grep -E -- '-dev\$'"; then
  echo "cleanroom: the package pulled in development packages (above)" >&2
  exit 1
fi
step "apt-get install ./$deb_name"
version=$(in_root "$install_root" "accumlab-cli --version")
gui_version=$(in_root "$install_root" "accumlab --version")
log "installed: $version; $gui_version"
[[ $version == "accumlab-cli $(sed -n 's/^project(AccumLab VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)" ]] ||
  { echo "cleanroom: accumlab-cli --version says '$version'" >&2; exit 1; }
[[ $gui_version == "accumlab ${version#accumlab-cli }" ]] || { echo "cleanroom: accumlab --version says '$gui_version'" >&2; exit 1; }
in_root "$install_root" "mkdir -p /tmp/lesson && cd /tmp/lesson && accumlab-cli --accum-grid 1,2,4 --num-steps 10 && test -s outputs/accum-curve.json && test -s outputs/skill-gradient-accumulation.md" | tail -6
for lang in en fa; do
  in_root "$install_root" "cd /tmp && QT_QPA_PLATFORM=offscreen accumlab --lang $lang --window-size 1366x768 --screenshot /tmp/installed-$lang.png --quit" 2>"$top/screenshot-$lang.log" ||
    { cat "$top/screenshot-$lang.log"; exit 1; }
  cp "$install_root/tmp/installed-$lang.png" "$top/"
  head -c 8 "$top/installed-$lang.png" | od -An -tx1 | grep -q '89 50 4e 47 0d 0a 1a 0a' ||
    { echo "cleanroom: the installed app's $lang screenshot is not a PNG" >&2; exit 1; }
done
step "the installed programs (main job, --version, screenshots)"
unmount_all
if [[ ${ACCUMLAB_CLEANROOM_KEEP:-} != 1 ]]; then
  remove_root "$install_root"
  rm -f "$top/base.tar"
fi
log "passed in $((SECONDS - stage_start)) s; screenshots of the installed app: $top/installed-{en,fa}.png"
