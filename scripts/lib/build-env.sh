# Sourced by every script that configures a build of AccumLab (build.sh, sanitize.sh,
# torch2-check.sh, fuzz.sh, and inside the clean room): one place for how a build is made.
#
# - Ninja, whose .ninja_log gives every unit's compile time (scripts/build-times.sh reads it).
# - ccache where it is installed (scripts/setup.sh installs it), with paths under the project
#   rewritten relative (CCACHE_BASEDIR), so a build folder of another name, a fresh clone in
#   another folder or the clean room's copy of the project hits what an earlier build compiled.
#   Precompiled headers are cached too (the sloppiness ccache's manual asks for them); the
#   working folder is left out of the hash of units with debug line tables (the sanitizer
#   builds), so a clone elsewhere still hits.
#
# build_env_cmake_args BUILD_DIR   prints the CMake arguments, one a line
# build_env_cmake_args only names the generator for a folder not configured yet: a folder that
# an older checkout configured with Makefiles keeps its generator.

export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
export CCACHE_SLOPPINESS=${CCACHE_SLOPPINESS:-pch_defines,time_macros,include_file_mtime,include_file_ctime}
export CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-1}

build_env_cmake_args() {
  local dir=$1
  if [[ ! -f $dir/CMakeCache.txt ]] && command -v ninja >/dev/null; then
    echo "-GNinja"
  fi
  if command -v ccache >/dev/null; then
    echo "-DCMAKE_CXX_COMPILER_LAUNCHER=ccache"
  fi
}
