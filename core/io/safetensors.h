// The safetensors file format (huggingface/safetensors), written: an 8-byte little-endian
// header length, a JSON header naming each tensor's dtype, shape and byte range (and a
// "__metadata__" object of strings), padded with spaces to 8 bytes, then the tensors' bytes
// back to back. `safetensors.torch.load_file` and `safe_open` read it, and the tensors go into
// `model.load_state_dict` by name. AccumLab writes its trained parameters this way
// (core/training.h, `accumlab-cli train --export-model`).
// Not here: torch (callers pass raw bytes) and Qt.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace accumlab {

// One tensor to write: its bytes as they are in memory (little-endian, row-major, contiguous).
struct SafetensorsEntry {
    std::string name;           // "fc1.weight", as torch's named_parameters() names it
    std::string dtype;          // "F32", "F64", "F16", "BF16", "I64", "U8"
    std::vector<int64_t> shape; // e.g. {128, 64}
    const void *data = nullptr;
    size_t bytes = 0;           // product(shape) * the dtype's size
};

// The whole file. Entries are laid out in the order given (the header's offsets say so), which
// is what safetensors requires of a file: no hole and no overlap between them. Throws
// std::invalid_argument for a name repeated or "__metadata__", an unknown dtype, or bytes that
// do not match the shape.
std::string safetensorsFile(const std::vector<SafetensorsEntry> &entries,
                            const std::map<std::string, std::string> &metadata);

// A file's header read back: the JSON text after the length (for tests and the CLI's checks).
// Throws std::invalid_argument when the length does not fit the file.
std::string safetensorsHeader(const std::string &file);

} // namespace accumlab
