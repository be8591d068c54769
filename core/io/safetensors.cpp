// The safetensors writer (core/io/safetensors.h).
#include "core/io/safetensors.h"

#include <nlohmann/json.hpp>

#include <bit>
#include <set>
#include <stdexcept>

namespace accumlab {

namespace {

size_t dtypeSize(const std::string &dtype)
{
    static const std::map<std::string, size_t> sizes{{"F64", 8}, {"F32", 4}, {"F16", 2}, {"BF16", 2},
                                                     {"I64", 8}, {"I32", 4}, {"U8", 1}};
    const auto it = sizes.find(dtype);
    if (it == sizes.end())
        throw std::invalid_argument("safetensors: unknown dtype " + dtype);
    return it->second;
}

} // namespace

std::string safetensorsFile(const std::vector<SafetensorsEntry> &entries,
                            const std::map<std::string, std::string> &metadata)
{
    static_assert(std::endian::native == std::endian::little, "safetensors stores little-endian bytes");
    nlohmann::ordered_json header;
    if (!metadata.empty())
        header["__metadata__"] = metadata;
    std::set<std::string> seen;
    size_t offset = 0;
    for (const auto &e : entries) {
        if (e.name == "__metadata__" || !seen.insert(e.name).second)
            throw std::invalid_argument("safetensors: the tensor name " + e.name + " is repeated or reserved");
        size_t count = 1;
        for (int64_t d : e.shape) {
            if (d < 0)
                throw std::invalid_argument("safetensors: a negative dimension in " + e.name);
            count *= static_cast<size_t>(d);
        }
        if (count * dtypeSize(e.dtype) != e.bytes)
            throw std::invalid_argument("safetensors: " + e.name + "'s bytes do not match its shape");
        header[e.name] = {{"dtype", e.dtype}, {"shape", e.shape}, {"data_offsets", {offset, offset + e.bytes}}};
        offset += e.bytes;
    }
    std::string text = header.dump();
    text.append((8 - text.size() % 8) % 8, ' '); // the tensors start 8-byte aligned
    std::string file;
    file.reserve(8 + text.size() + offset);
    const uint64_t length = text.size();
    for (int i = 0; i < 8; ++i)
        file.push_back(static_cast<char>((length >> (8 * i)) & 0xff));
    file += text;
    for (const auto &e : entries)
        file.append(static_cast<const char *>(e.data), e.bytes);
    return file;
}

std::string safetensorsHeader(const std::string &file)
{
    if (file.size() < 8)
        throw std::invalid_argument("safetensors: shorter than its header's length");
    uint64_t length = 0;
    for (int i = 7; i >= 0; --i)
        length = (length << 8) | static_cast<unsigned char>(file[static_cast<size_t>(i)]);
    if (length > file.size() - 8)
        throw std::invalid_argument("safetensors: the header's length passes the end of the file");
    return file.substr(8, length);
}

} // namespace accumlab
