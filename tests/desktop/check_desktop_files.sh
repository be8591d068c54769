#!/usr/bin/env bash
# The desktop entry and the AppStream metainfo as a software centre reads them:
#   - desktop-file-validate and `appstreamcli validate --no-net` accept both files;
#   - they agree with what is installed: Exec runs `accumlab`, Icon names the installed icon,
#     the metainfo's launchable is the desktop file and its release is the project's version;
#   - each check can fail: copies with planted faults (no Name; an unregistered category; no
#     component id; another version) must be refused, so a validator that accepts anything
#     cannot pass this test. (desktop-file-validate 0.26 accepts an entry without Exec, so the
#     Exec line is checked here by name.)
# Usage: check_desktop_files.sh DESKTOP_FILE METAINFO_FILE VERSION
set -euo pipefail
desktop=$1
metainfo=$2
version=$3
id=$(basename "$desktop" .desktop)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# Accepted as they are (hints and pedantic notes are not faults).
desktop-file-validate "$desktop" || fail "desktop-file-validate refused $desktop"
appstreamcli validate --no-net --no-color "$metainfo" || fail "appstreamcli refused $metainfo"

# Consistent with the installed layout and the version.
grep -qx 'Exec=accumlab %f' "$desktop" || fail "Exec does not run accumlab"
grep -qx "Icon=$id" "$desktop" || fail "Icon is not $id"
grep -q "<launchable type=\"desktop-id\">$id.desktop</launchable>" "$metainfo" || fail "launchable is not $id.desktop"
grep -q "<id>$id</id>" "$metainfo" || fail "component id is not $id"
first_release=$(grep -o '<release version="[^"]*"' "$metainfo" | head -1 | cut -d'"' -f2)
[[ $first_release == "$version" ]] || fail "newest release is '$first_release', the project is $version"

# Planted faults are refused.
grep -v '^Name=' "$desktop" >"$tmp/$id.desktop"
if desktop-file-validate "$tmp/$id.desktop" >/dev/null 2>&1; then
  fail "desktop-file-validate accepted a desktop file without Name"
fi
sed 's/^Categories=.*/Categories=Classroom;/' "$desktop" >"$tmp/$id.desktop"
if desktop-file-validate "$tmp/$id.desktop" >/dev/null 2>&1; then
  fail "desktop-file-validate accepted an unregistered category"
fi
sed 's|<id>[^<]*</id>||' "$metainfo" >"$tmp/$id.metainfo.xml"
if appstreamcli validate --no-net "$tmp/$id.metainfo.xml" >/dev/null 2>&1; then
  fail "appstreamcli accepted metainfo without a component id"
fi
sed "s|<release version=\"$version\"|<release version=\"$version.1\"|" "$metainfo" >"$tmp/other.metainfo.xml"
other=$(grep -o '<release version="[^"]*"' "$tmp/other.metainfo.xml" | head -1 | cut -d'"' -f2)
[[ $other != "$version" ]] || fail "the version check cannot tell $other from $version"
echo "desktop entry and metainfo: valid, consistent with version $version, planted faults refused"
