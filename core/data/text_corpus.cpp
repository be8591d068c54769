// The text model's corpus: bounded read, strict UTF-8, fortune-format documents, byte sequences
// with padding and the ignore index, and the seeded document sampler.
#include "core/data/text_corpus.h"

#include <algorithm>
#include <stdexcept>

namespace accumlab {

namespace {

// U+FFFD REPLACEMENT CHARACTER in UTF-8.
constexpr std::string_view kReplacement = "\xEF\xBF\xBD";

// The length of the valid UTF-8 sequence at bytes[i], or the length of its maximal invalid
// subpart as a negative number (at least -1). Ranges from the Unicode Standard's Table 3-7
// ("Well-Formed UTF-8 Byte Sequences").
int sequenceAt(std::string_view bytes, size_t i)
{
    const auto b = [&](size_t k) { return static_cast<unsigned char>(bytes[k]); };
    const unsigned char lead = b(i);
    if (lead < 0x80)
        return 1;
    int length = 0;
    unsigned char lo = 0x80, hi = 0xBF; // the second byte's range
    if (lead >= 0xC2 && lead <= 0xDF) {
        length = 2;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
        length = 3;
        if (lead == 0xE0)
            lo = 0xA0; // no overlong forms
        if (lead == 0xED)
            hi = 0x9F; // no surrogates
    } else if (lead >= 0xF0 && lead <= 0xF4) {
        length = 4;
        if (lead == 0xF0)
            lo = 0x90; // no overlong forms
        if (lead == 0xF4)
            hi = 0x8F; // nothing past U+10FFFF
    } else {
        return -1; // 80..C1, F5..FF: never a lead byte
    }
    for (int k = 1; k < length; ++k) {
        if (i + k >= bytes.size())
            return -k; // truncated at the end
        const unsigned char c = b(i + k);
        const bool ok = k == 1 ? (c >= lo && c <= hi) : (c >= 0x80 && c <= 0xBF);
        if (!ok)
            return -k; // the lead and the k-1 bytes that fit are one maximal subpart
    }
    return length;
}

// A draw uniform in [0, bound] from the generator's 64-bit outputs, by rejection (no modulo bias).
uint64_t uniformAtMost(std::mt19937_64 &rng, uint64_t bound)
{
    if (bound == UINT64_MAX)
        return rng();
    const uint64_t range = bound + 1;
    const uint64_t limit = UINT64_MAX - (UINT64_MAX % range + 1) % range; // largest multiple - 1
    uint64_t x = rng();
    while (x > limit)
        x = rng();
    return x % range;
}

} // namespace

Utf8Check checkUtf8(std::string_view bytes, Utf8Policy policy)
{
    Utf8Check check;
    if (policy == Utf8Policy::Replace)
        check.text.reserve(bytes.size());
    size_t i = 0;
    while (i < bytes.size()) {
        const int n = sequenceAt(bytes, i);
        if (n > 0) {
            if (policy == Utf8Policy::Replace)
                check.text.append(bytes.substr(i, static_cast<size_t>(n)));
            i += static_cast<size_t>(n);
            continue;
        }
        if (check.valid) {
            check.valid = false;
            check.firstInvalid = i;
        }
        if (policy == Utf8Policy::Refuse)
            return check;
        check.text.append(kReplacement);
        ++check.replacements;
        i += static_cast<size_t>(-n);
    }
    return check;
}

std::vector<std::string> splitDocuments(std::string_view text)
{
    std::vector<std::string> documents;
    std::string current;
    bool firstLine = true;
    const auto finish = [&] {
        if (current.size() >= 2)
            documents.push_back(std::move(current));
        current.clear();
        firstLine = true;
    };
    size_t start = 0;
    while (start < text.size()) {
        size_t end = text.find('\n', start);
        const bool lastLine = end == std::string_view::npos;
        if (lastLine)
            end = text.size();
        const std::string_view line = text.substr(start, end - start);
        if (line == "%") {
            finish();
        } else {
            if (!firstLine)
                current.push_back('\n');
            current.append(line);
            firstLine = false;
        }
        start = end + 1;
    }
    finish();
    return documents;
}

CorpusLoad parseCorpus(std::string_view bytes, Utf8Policy policy)
{
    CorpusLoad load;
    load.utf8 = checkUtf8(bytes, policy);
    if (!load.utf8.valid && policy == Utf8Policy::Refuse) {
        load.error = CorpusError::InvalidUtf8;
        return load;
    }
    load.corpus.documents = splitDocuments(policy == Utf8Policy::Replace ? std::string_view(load.utf8.text) : bytes);
    load.utf8.text.clear();
    load.utf8.text.shrink_to_fit();
    if (load.corpus.documents.empty())
        load.error = CorpusError::Empty;
    return load;
}

CorpusLoad loadCorpus(const std::filesystem::path &path, Utf8Policy policy, uint64_t maxBytes)
{
    FileBytes file = readRegularFile(path, maxBytes);
    if (file.refusal != ReadRefusal::None) {
        CorpusLoad load;
        load.error = CorpusError::File;
        load.file = std::move(file);
        return load;
    }
    CorpusLoad load = parseCorpus(file.bytes, policy);
    file.bytes.clear();
    file.bytes.shrink_to_fit();
    load.file = std::move(file);
    return load;
}

TokenBatch makeTokenBatch(const TextCorpus &corpus, const std::vector<size_t> &documents, int64_t context)
{
    if (context < 1)
        throw std::invalid_argument("makeTokenBatch: the context must be at least 1");
    TokenBatch batch;
    batch.rows = static_cast<int64_t>(documents.size());
    batch.context = context;
    const size_t cells = documents.size() * static_cast<size_t>(context);
    batch.inputs.assign(cells, kTextPaddingId);
    batch.targets.assign(cells, kTextIgnoreIndex);
    batch.rowTokens.assign(documents.size(), 0);
    for (size_t r = 0; r < documents.size(); ++r) {
        const std::string &doc = corpus.documents.at(documents[r]);
        // n bytes used: the context's inputs plus the one byte after them.
        const size_t n = std::min(doc.size(), static_cast<size_t>(context) + 1);
        const size_t row = r * static_cast<size_t>(context);
        for (size_t t = 0; t + 1 < n; ++t) {
            batch.inputs[row + t] = static_cast<unsigned char>(doc[t]);
            batch.targets[row + t] = static_cast<unsigned char>(doc[t + 1]);
        }
        batch.rowTokens[r] = n >= 1 ? static_cast<int64_t>(n - 1) : 0;
        batch.tokens += batch.rowTokens[r];
    }
    return batch;
}

DocumentSampler::DocumentSampler(size_t documents, uint64_t seed)
    : m_rng(seed), m_order(documents)
{
    if (documents == 0)
        throw std::invalid_argument("DocumentSampler: no documents");
    for (size_t i = 0; i < documents; ++i)
        m_order[i] = i;
    reshuffle();
}

void DocumentSampler::reshuffle()
{
    // Fisher-Yates (Knuth, TAOCP vol. 2, Algorithm P), from the last position down.
    for (size_t i = m_order.size() - 1; i > 0; --i)
        std::swap(m_order[i], m_order[uniformAtMost(m_rng, i)]);
    m_position = 0;
}

std::vector<size_t> DocumentSampler::next(size_t batch)
{
    std::vector<size_t> out;
    out.reserve(batch);
    while (out.size() < batch) {
        if (m_position == m_order.size())
            reshuffle();
        out.push_back(m_order[m_position++]);
    }
    return out;
}

} // namespace accumlab
