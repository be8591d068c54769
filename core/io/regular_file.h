// One reader for every file the programs read (checkpoints, presets, imported curves, the
// window's settings): only a regular file, and no more than a bound. Opened with O_NONBLOCK (a
// FIFO's open would otherwise wait for a writer), checked with fstat on the descriptor (so a
// rename in between cannot swap in a device), read to at most the bound plus one byte (a file
// that grows while it is read is still cut at the bound). /dev/zero, a FIFO, a folder or a
// sparse file of a terabyte is refused before any read could block or exhaust memory.
// Each caller words the refusal in its own terms (a checkpoint's code, the window's tr()).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

namespace accumlab {

enum class ReadRefusal {
    None,       // `bytes` holds the whole file
    System,     // open, fstat or read failed: `error` is errno
    NotRegular, // a FIFO, a device, a socket or a folder
    TooLarge,   // more than the bound (announced by fstat, or found while reading)
};

struct FileBytes {
    std::string bytes;
    ReadRefusal refusal = ReadRefusal::None;
    int error = 0;      // errno, for ReadRefusal::System
    uint64_t size = 0;  // the size fstat reported
};

FileBytes readRegularFile(const std::filesystem::path &path, uint64_t maxBytes);
// The first `prefixBytes` bytes of a regular file (all of it when it is shorter), checked as
// readRegularFile checks it; `size` is the whole file's. For a header read before the size the
// whole file may have is known (a checkpoint's rank file: its manifest says which run it is).
FileBytes readRegularFilePrefix(const std::filesystem::path &path, uint64_t prefixBytes);

} // namespace accumlab
