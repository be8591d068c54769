// SHA-256 (FIPS 180-4) of a byte stream, as 64 lowercase hex digits: the fingerprint of a run's
// final parameters (params_sha256) and the checksum of a checkpoint's tensor data.
// A small implementation of the published algorithm (public-domain style, after the FIPS text):
// the build has no other SHA-256 that core may use (Qt's is not allowed in core, and OpenSSL is
// not among the packages the project builds against). Not for secrets: nothing here is
// constant-time. Plain C++ (no torch, no Qt).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

namespace accumlab {

class Sha256 {
public:
    Sha256();
    void update(const void *data, size_t bytes);
    // The digest as 64 lowercase hex digits; the object is spent afterwards.
    std::string hexDigest();

private:
    void block(const uint8_t *p);
    std::array<uint32_t, 8> m_h;
    std::array<uint8_t, 64> m_buf{};
    size_t m_used = 0;
    uint64_t m_total = 0; // bytes
};

// One-shot digest of a buffer.
std::string sha256Hex(const void *data, size_t bytes);

} // namespace accumlab
