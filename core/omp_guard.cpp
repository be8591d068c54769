// The .preinit_array check of OMP_NUM_THREADS (see omp_guard.h). It runs before libc's own
// initialisers may have set up getenv, so it walks the envp it is handed and writes only into
// that string and a static buffer: no allocation, no libc state.
#include "core/omp_guard.h"

#include <cstddef>

namespace accumlab {

namespace {

char g_rejected[128];
bool g_wasRejected = false;

// `entry` starts with `prefix`.
bool startsWith(const char *entry, const char *prefix)
{
    for (; *prefix; ++prefix, ++entry)
        if (*entry != *prefix)
            return false;
    return true;
}

void checkOmpNumThreads(int, char **, char **envp)
{
    static const char kName[] = "OMP_NUM_THREADS=";
    for (char **e = envp; e && *e; ++e) {
        if (!startsWith(*e, kName))
            continue;
        char *value = *e + sizeof kName - 1;
        if (validOmpNumThreads(value))
            return;
        for (size_t i = 0; i + 1 < sizeof g_rejected && value[i]; ++i)
            g_rejected[i] = value[i];
        g_wasRejected = true;
        if (value[0] != '\0') { // "1" fits where at least one character and its terminator were
            value[0] = '1';
            value[1] = '\0';
        } // an empty value is left: libgomp ignores it with a warning
        return;
    }
}

} // namespace

// Runs before the shared libraries' initialisers (libgomp's reads OMP_NUM_THREADS).
__attribute__((section(".preinit_array"), used)) void (*const kPreinitOmpCheck)(int, char **, char **) =
    &checkOmpNumThreads;

bool validOmpNumThreads(const char *text)
{
    if (!text || !*text)
        return false;
    for (const char *p = text;;) {
        long v = 0;
        int digits = 0;
        while (*p >= '0' && *p <= '9') {
            if (++digits > 5)
                return false;
            v = v * 10 + (*p++ - '0');
        }
        if (digits == 0 || v < 1 || v > kMaxOmpThreads)
            return false;
        if (*p == '\0')
            return true;
        if (*p++ != ',')
            return false;
    }
}

std::optional<std::string> rejectedOmpNumThreads()
{
    if (!g_wasRejected)
        return std::nullopt;
    return std::string(g_rejected);
}

} // namespace accumlab
