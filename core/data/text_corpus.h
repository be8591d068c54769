// The text model's data: a corpus file read through the one bounded reader, checked as UTF-8,
// split into documents, and each document made one byte-level sequence of the context's length
// (truncated, padded with the padding id, its targets the next bytes and the ignore index on
// padding). A seeded sampler picks which documents make a batch. Plain C++, no torch: the model
// turns a TokenBatch into tensors (core/models/text_model.h).
// Not here: tokenisers beyond bytes, packing several documents into one sequence (the lesson
// wants the documents' natural lengths to differ), downloads of any kind.
#pragma once

#include "core/io/regular_file.h"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace accumlab {

// Byte-level vocabulary: the 256 byte values, then one padding id.
constexpr int64_t kTextPaddingId = 256;
constexpr int64_t kTextVocabulary = 257;
// The target of a padded position: PyTorch's CrossEntropyLoss default ignore_index.
constexpr int64_t kTextIgnoreIndex = -100;
// The corpus Debian's fortunes-min ships (431 short texts, "%" between them); the fortunes
// package adds about 40 more files of the same format beside it.
constexpr const char *kFortunesFile = "/usr/share/games/fortunes/fortunes";
constexpr const char *kFortunesFolder = "/usr/share/games/fortunes";
// The most bytes one corpus file may hold (the fortunes files are 0.3 MB at most).
constexpr uint64_t kMaxCorpusBytes = 64ull << 20;

// What to do with bytes that are not UTF-8.
//   Refuse   the file is refused; the load names the offset of the first bad byte
//   Replace  each maximal invalid subsequence becomes U+FFFD (EF BF BD), as Unicode's
//            "substitution of maximal subparts" (Unicode Standard, ch. 3, U+FFFD) and Python's
//            bytes.decode(errors="replace") do
enum class Utf8Policy { Refuse, Replace };

struct Utf8Check {
    bool valid = true;          // the input was UTF-8 as it was
    size_t firstInvalid = 0;    // byte offset of the first invalid sequence (when !valid)
    size_t replacements = 0;    // U+FFFD written (Replace)
    std::string text;           // the input, repaired under Replace; empty under Refuse
};

// Strict UTF-8 (RFC 3629): no overlong forms, no surrogates (U+D800..DFFF), nothing past
// U+10FFFF, no truncated sequence.
Utf8Check checkUtf8(std::string_view bytes, Utf8Policy policy);

// Fortune format: documents separated by a line holding only "%". Each document is its lines
// joined by '\n' without the final newline. Documents shorter than two bytes are dropped: a
// sequence of one byte has no next byte to predict. A file with no "%" line is one document.
std::vector<std::string> splitDocuments(std::string_view text);

enum class CorpusError {
    None,
    File,        // the bounded reader refused the file (`file` says why)
    InvalidUtf8, // Utf8Policy::Refuse and the bytes are not UTF-8 (`utf8.firstInvalid`)
    Empty,       // no document of two bytes or more
};

struct TextCorpus {
    std::vector<std::string> documents;
};

struct CorpusLoad {
    CorpusError error = CorpusError::None;
    FileBytes file;        // the reader's answer (its bytes cleared once parsed)
    Utf8Check utf8;        // its text cleared once split
    TextCorpus corpus;
};

// Parses bytes already read (tests, several files joined by the caller).
CorpusLoad parseCorpus(std::string_view bytes, Utf8Policy policy);
// Reads `path` through readRegularFile (at most maxBytes) and parses it.
CorpusLoad loadCorpus(const std::filesystem::path &path, Utf8Policy policy,
                      uint64_t maxBytes = kMaxCorpusBytes);

// Sequences of one batch, row-major (rows, context): row r is document r's bytes.
//   inputs[r][t]  = byte t                 for t < n - 1, else kTextPaddingId
//   targets[r][t] = byte t + 1             for t < n - 1, else kTextIgnoreIndex
// where n = min(document bytes, context + 1): a document longer than that is truncated (possibly
// inside a UTF-8 sequence: the model reads bytes). tokens = the targets that are not ignored.
struct TokenBatch {
    int64_t rows = 0;
    int64_t context = 0;
    std::vector<int64_t> inputs;  // (rows, context)
    std::vector<int64_t> targets; // (rows, context)
    std::vector<int64_t> rowTokens; // (rows,) targets not ignored in each row
    int64_t tokens = 0;           // sum of rowTokens
};

TokenBatch makeTokenBatch(const TextCorpus &corpus, const std::vector<size_t> &documents, int64_t context);

// Draws document indices in epochs: each epoch a Fisher-Yates shuffle of 0..documents-1 from a
// std::mt19937_64 seeded with `seed` (both fixed by the standard, unlike std::shuffle's
// algorithm), so one seed gives one order on every platform. A batch that crosses an epoch's end
// continues in the next epoch's order.
class DocumentSampler {
public:
    DocumentSampler(size_t documents, uint64_t seed);
    std::vector<size_t> next(size_t batch);

private:
    void reshuffle();
    std::mt19937_64 m_rng;
    std::vector<size_t> m_order;
    size_t m_position = 0;
};

} // namespace accumlab
