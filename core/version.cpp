// Defines kVersion from the ACCUMLAB_VERSION the build passes (core/CMakeLists.txt).
#include "core/version.h"

#ifndef ACCUMLAB_VERSION
#error "ACCUMLAB_VERSION must come from the build (project(VERSION ...))"
#endif

namespace accumlab {

const char *const kVersion = ACCUMLAB_VERSION;

} // namespace accumlab
