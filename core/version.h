// AccumLab's version, from project(VERSION ...) in the top-level CMakeLists.txt: the one place
// it is written. Both programs' --version, the About box, the JSON's environment and the
// Debian package read it from here (CPack takes the same PROJECT_VERSION).
#pragma once

namespace accumlab {

extern const char *const kVersion; // e.g. "0.1.0"

} // namespace accumlab
