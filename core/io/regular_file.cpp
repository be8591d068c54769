// The one bounded reader of regular files (core/io/regular_file.h).
#include "core/io/regular_file.h"

#include <algorithm>
#include <cerrno>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace accumlab {

namespace {

// Reads at most `maxBytes` (refused beyond them), or with `prefix` the first `maxBytes` only.
FileBytes readBounded(const std::filesystem::path &path, uint64_t maxBytes, bool prefix)
{
    FileBytes out;
    const auto fail = [&out](ReadRefusal why, int error = 0) {
        out.bytes.clear();
        out.refusal = why;
        out.error = error;
        return out;
    };
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return fail(ReadRefusal::System, errno);
    struct Closer {
        int fd;
        ~Closer() { ::close(fd); }
    } closer{fd};
    struct stat st {};
    if (::fstat(fd, &st) != 0)
        return fail(ReadRefusal::System, errno);
    if (!S_ISREG(st.st_mode))
        return fail(ReadRefusal::NotRegular);
    out.size = uint64_t(st.st_size);
    if (!prefix && out.size > maxBytes)
        return fail(ReadRefusal::TooLarge);
    // A whole file is read to one byte more than fstat announced (a file that grew is found out,
    // up to the bound plus one); a prefix to the bound at most.
    const uint64_t most = prefix ? maxBytes : maxBytes + 1;
    out.bytes.resize(size_t(std::min(prefix ? out.size : out.size + 1, most)));
    size_t got = 0;
    while (got < out.bytes.size()) {
        const ssize_t n = ::read(fd, out.bytes.data() + got, out.bytes.size() - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return fail(ReadRefusal::System, errno);
        if (n == 0)
            break;
        got += size_t(n);
        if (got > maxBytes) // never for a prefix: its buffer holds at most the bound
            return fail(ReadRefusal::TooLarge);
        if (!prefix && got == out.bytes.size()) // it grew while read: read on, up to the bound
            out.bytes.resize(size_t(std::min<uint64_t>(most, out.bytes.size() * 2)));
    }
    out.bytes.resize(got);
    return out;
}

} // namespace

FileBytes readRegularFile(const std::filesystem::path &path, uint64_t maxBytes)
{
    return readBounded(path, maxBytes, /*prefix=*/false);
}

FileBytes readRegularFilePrefix(const std::filesystem::path &path, uint64_t prefixBytes)
{
    return readBounded(path, prefixBytes, /*prefix=*/true);
}

} // namespace accumlab
