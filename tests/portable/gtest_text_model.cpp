// The text model's foundation: the corpus reader (documents, UTF-8, padding, ignore index,
// shifted targets), the seeded sampler, the causal transformer (size, seeded initialisation,
// names, causal mask), the two token normalisations against the full batch's gradient, and that
// the model learns the tiny fortunes sample (tests/data/text).
#include "core/data/text_corpus.h"
#include "core/models/text_model.h"

#include "support.h"

#include <gtest/gtest.h>

#include <ATen/CPUGeneratorImpl.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <set>
#include <string>
#include <vector>

using namespace accumlab;
namespace test = accumlab::test;

namespace {

using accumlab::test::PrintTo; // a table row prints as its label (support.h)

constexpr int64_t P = kTextPaddingId;
constexpr int64_t I = kTextIgnoreIndex;

std::filesystem::path samplePath()
{
    const char *source = std::getenv("ACCUMLAB_SOURCE_DIR");
    return std::filesystem::path(source ? source : "") / "tests/data/text/fortunes-sample";
}

TextCorpus loadSample()
{
    if (!std::getenv("ACCUMLAB_SOURCE_DIR"))
        ADD_FAILURE() << "ACCUMLAB_SOURCE_DIR is not set (ctest sets it to the source tree)";
    const CorpusLoad load = loadCorpus(samplePath(), Utf8Policy::Refuse);
    EXPECT_EQ(load.error, CorpusError::None) << samplePath();
    return load.corpus;
}

// The gradients of every parameter, flattened and joined: (total,) float64.
torch::Tensor flatGrad(TextModel &model)
{
    std::vector<torch::Tensor> parts;
    for (const auto &p : model->parameters())
        parts.push_back(p.grad().defined() ? p.grad().reshape({-1}).to(torch::kFloat64)
                                           : torch::zeros({p.numel()}, torch::kFloat64));
    return torch::cat(parts);
}

// ---- the corpus: documents ----

struct SplitRow {
    const char *name;
    std::string text;
    std::vector<std::string> documents;
};

std::vector<SplitRow> splitRows()
{
    return {
        {"TwoTexts", "ab\n%\ncd\n%\n", {"ab", "cd"}},
        {"MultiLineTextKeepsItsNewlines", "line one\nline two\n\nend\n%\nx y\n", {"line one\nline two\n\nend", "x y"}},
        {"NoSeparatorIsOneText", "hello\nworld\n", {"hello\nworld"}},
        {"PercentInsideALineIsText", "50% off\n%\n%%\n", {"50% off", "%%"}},
        {"EmptyAndOneByteTextsDropped", "%\n\n%\na\n%\nok\n%\n%\n", {"ok"}},
        {"LastTextWithoutNewline", "one\n%\ntwo", {"one", "two"}},
        {"PersianText", "\xD8\xB3\xD9\x84\xD8\xA7\xD9\x85\n%\nhi\n", {"\xD8\xB3\xD9\x84\xD8\xA7\xD9\x85", "hi"}},
    };
}

class SplitDocuments : public testing::TestWithParam<SplitRow> {};

TEST_P(SplitDocuments, FortuneFormat)
{
    const SplitRow &row = GetParam();
    EXPECT_EQ(splitDocuments(row.text), row.documents);
}

INSTANTIATE_TEST_SUITE_P(Rows, SplitDocuments, testing::ValuesIn(splitRows()), test::ByName());

// ---- the corpus: UTF-8 ----

struct Utf8Row {
    const char *name;
    std::string bytes;
    bool valid;
    size_t firstInvalid;
    size_t replacements;  // under Replace (Python's bytes.decode(errors="replace") gives the same)
    std::string repaired; // under Replace
};

const std::string kFffd = "\xEF\xBF\xBD";

std::vector<Utf8Row> utf8Rows()
{
    return {
        {"Ascii", "abc", true, 0, 0, "abc"},
        {"Persian", "\xD8\xB3\xD9\x84\xD8\xA7\xD9\x85", true, 0, 0, "\xD8\xB3\xD9\x84\xD8\xA7\xD9\x85"},
        {"FourByteEmoji", "\xF0\x9F\x98\x80", true, 0, 0, "\xF0\x9F\x98\x80"},
        {"LoneContinuation", "a\x80" "b", false, 1, 1, "a" + kFffd + "b"},
        {"OverlongSlash", "\xC0\xAF", false, 0, 2, kFffd + kFffd},
        {"OverlongThreeBytes", "\xE0\x80\x80", false, 0, 3, kFffd + kFffd + kFffd},
        {"Surrogate", "\xED\xA0\x80", false, 0, 3, kFffd + kFffd + kFffd},
        {"PastU10FFFF", "\xF4\x90\x80\x80", false, 0, 4, kFffd + kFffd + kFffd + kFffd},
        {"TruncatedAtTheEnd", "ab\xE2\x82", false, 2, 1, "ab" + kFffd},
        {"TruncatedBeforeAscii", "\xE2\x82" "A", false, 0, 1, kFffd + "A"},
        {"TruncatedFourBytes", "x\xF0\x9F\x98", false, 1, 1, "x" + kFffd},
    };
}

class Utf8 : public testing::TestWithParam<Utf8Row> {};

TEST_P(Utf8, RefuseNamesTheOffsetReplaceSubstitutesMaximalSubparts)
{
    const Utf8Row &row = GetParam();
    const Utf8Check refused = checkUtf8(row.bytes, Utf8Policy::Refuse);
    EXPECT_EQ(refused.valid, row.valid);
    if (!row.valid)
        EXPECT_EQ(refused.firstInvalid, row.firstInvalid);
    const Utf8Check replaced = checkUtf8(row.bytes, Utf8Policy::Replace);
    EXPECT_EQ(replaced.valid, row.valid);
    EXPECT_EQ(replaced.replacements, row.replacements);
    EXPECT_EQ(replaced.text, row.repaired);
    EXPECT_TRUE(checkUtf8(replaced.text, Utf8Policy::Refuse).valid) << "the repaired text is UTF-8";
}

INSTANTIATE_TEST_SUITE_P(Rows, Utf8, testing::ValuesIn(utf8Rows()), test::ByName());

// ---- the corpus: files ----

TEST(TextCorpus, ReadsTheSampleThroughTheBoundedReader)
{
    const TextCorpus corpus = loadSample();
    ASSERT_EQ(corpus.documents.size(), 40u);
    EXPECT_EQ(corpus.documents.front(), "A day for firm decisions!!!!!  Or is it?");
    std::set<size_t> lengths;
    for (const auto &d : corpus.documents) {
        EXPECT_GE(d.size(), 2u);
        EXPECT_EQ(d.find("\n%\n"), std::string::npos);
        lengths.insert(d.size());
    }
    EXPECT_GT(lengths.size(), 20u) << "the texts' lengths vary, as the lesson needs";
}

struct FileRow {
    const char *name;
    std::string bytes;       // written to the file (unless folder)
    bool folder;             // the path is a folder
    uint64_t bound;
    Utf8Policy policy;
    CorpusError error;
    ReadRefusal refusal;
    size_t documents;
};

std::vector<FileRow> fileRows()
{
    const std::string good = "first text\n%\nsecond text\n";
    const std::string bad = "caf\xE9 latin-1\n%\nplain\n";
    return {
        {"Utf8File", good, false, 1024, Utf8Policy::Refuse, CorpusError::None, ReadRefusal::None, 2},
        {"Latin1Refused", bad, false, 1024, Utf8Policy::Refuse, CorpusError::InvalidUtf8, ReadRefusal::None, 0},
        {"Latin1Replaced", bad, false, 1024, Utf8Policy::Replace, CorpusError::None, ReadRefusal::None, 2},
        {"OverTheBound", good, false, 8, Utf8Policy::Refuse, CorpusError::File, ReadRefusal::TooLarge, 0},
        {"Folder", "", true, 1024, Utf8Policy::Refuse, CorpusError::File, ReadRefusal::NotRegular, 0},
        {"NoText", "%\n%\nx\n", false, 1024, Utf8Policy::Refuse, CorpusError::Empty, ReadRefusal::None, 0},
    };
}

class CorpusFile : public testing::TestWithParam<FileRow> {};

TEST_P(CorpusFile, LoadsOrSaysWhy)
{
    const FileRow &row = GetParam();
    test::TempDir dir;
    const auto path = dir.path() / "corpus";
    if (row.folder) {
        std::filesystem::create_directory(path);
    } else {
        std::ofstream(path, std::ios::binary) << row.bytes;
    }
    const CorpusLoad load = loadCorpus(path, row.policy, row.bound);
    EXPECT_EQ(load.error, row.error);
    EXPECT_EQ(load.file.refusal, row.refusal);
    EXPECT_EQ(load.corpus.documents.size(), row.documents);
    if (row.error == CorpusError::InvalidUtf8)
        EXPECT_EQ(load.utf8.firstInvalid, 3u);
    if (std::string(row.name) == "Latin1Replaced") {
        EXPECT_EQ(load.corpus.documents[0], "caf" + kFffd + " latin-1");
        EXPECT_EQ(load.utf8.replacements, 1u);
    }
}

INSTANTIATE_TEST_SUITE_P(Rows, CorpusFile, testing::ValuesIn(fileRows()), test::ByName());

// ---- the corpus: sequences ----

struct BatchRow {
    const char *name;
    std::string document;
    int64_t context;
    std::vector<int64_t> inputs, targets;
    int64_t tokens;
};

std::vector<BatchRow> batchRows()
{
    return {
        {"ShorterThanTheContextIsPadded", "abc", 5, {'a', 'b', P, P, P}, {'b', 'c', I, I, I}, 2},
        {"TwoBytesOneTarget", "xy", 4, {'x', P, P, P}, {'y', I, I, I}, 1},
        {"ContextPlusOneFillsEveryCell", "abcde", 4, {'a', 'b', 'c', 'd'}, {'b', 'c', 'd', 'e'}, 4},
        {"LongerIsTruncated", "abcdefgh", 4, {'a', 'b', 'c', 'd'}, {'b', 'c', 'd', 'e'}, 4},
        {"BytesOfPersianText", "\xD8\xB3\xD9\x84", 4, {0xD8, 0xB3, 0xD9, P}, {0xB3, 0xD9, 0x84, I}, 3},
    };
}

class SequenceBatch : public testing::TestWithParam<BatchRow> {};

TEST_P(SequenceBatch, PaddedWithTargetsShiftedByOne)
{
    const BatchRow &row = GetParam();
    TextCorpus corpus;
    corpus.documents = {"zz", row.document};
    const TokenBatch batch = makeTokenBatch(corpus, {1, 0}, row.context);
    ASSERT_EQ(batch.rows, 2);
    const auto c = static_cast<size_t>(row.context);
    EXPECT_EQ(std::vector<int64_t>(batch.inputs.begin(), batch.inputs.begin() + c), row.inputs);
    EXPECT_EQ(std::vector<int64_t>(batch.targets.begin(), batch.targets.begin() + c), row.targets);
    EXPECT_EQ(batch.rowTokens[0], row.tokens);
    EXPECT_EQ(batch.rowTokens[1], 1);
    EXPECT_EQ(batch.tokens, row.tokens + 1);
    // As tensors: the same cells, and the ignore index exactly where the inputs are padding
    // after the last real input (the last input's target is the document's next byte).
    const TextBatchTensors t = toTensors(batch, torch::kCPU);
    EXPECT_EQ(t.inputs.sizes(), (std::vector<int64_t>{2, row.context}));
    EXPECT_EQ(t.targets.ne(kTextIgnoreIndex).sum().item<int64_t>(), batch.tokens);
    EXPECT_EQ(t.inputs[0][0].item<int64_t>(), row.inputs[0]);
}

INSTANTIATE_TEST_SUITE_P(Rows, SequenceBatch, testing::ValuesIn(batchRows()), test::ByName());

TEST(DocumentSampler, SeededEpochsArePermutations)
{
    DocumentSampler a(10, 7), b(10, 7), c(10, 8);
    const auto epochA = a.next(10), epochB = b.next(10), epochC = c.next(10);
    EXPECT_EQ(epochA, epochB) << "one seed, one order";
    EXPECT_NE(epochA, epochC) << "another seed, another order";
    EXPECT_EQ(std::set<size_t>(epochA.begin(), epochA.end()).size(), 10u) << "an epoch is a permutation";
    const auto second = a.next(10);
    EXPECT_EQ(std::set<size_t>(second.begin(), second.end()).size(), 10u);
    EXPECT_NE(second, epochA) << "each epoch is shuffled anew";
    // A batch across the epoch's end: the rest of one epoch, then the next's start.
    DocumentSampler d(10, 7);
    const auto first7 = d.next(7), across = d.next(6);
    EXPECT_EQ(first7, std::vector<size_t>(epochA.begin(), epochA.begin() + 7));
    EXPECT_EQ(std::vector<size_t>(across.begin(), across.begin() + 3), std::vector<size_t>(epochA.begin() + 7, epochA.end()));
}

// ---- the model ----

TEST(TextModel, DefaultSizeNamesAndSeededDeterminism)
{
    const TextModelShape shape; // the defaults
    TextModel a = makeTextModel(shape, 42, torch::kFloat32, torch::kCPU);
    int64_t count = 0;
    for (const auto &p : a->parameters())
        count += p.numel();
    EXPECT_EQ(count, textModelParameterCount(shape));
    EXPECT_GE(count, 500'000);
    EXPECT_LE(count, 2'000'000);
    std::cout << "[ text model ] default shape: " << count << " parameters\n";

    const auto names = a->named_parameters().keys();
    for (const char *expected : {"tok_emb.weight", "pos_emb.weight", "blocks.0.ln1.weight", "blocks.0.attn.qkv.weight",
                                 "blocks.0.attn.proj.bias", "blocks.3.mlp.fc.weight", "blocks.3.mlp.proj.weight",
                                 "ln_f.bias"})
        EXPECT_NE(std::find(names.begin(), names.end(), expected), names.end()) << expected;
    EXPECT_EQ(std::find(names.begin(), names.end(), "head.weight"), names.end()) << "tied: no head of its own";

    TextModel b = makeTextModel(shape, 42, torch::kFloat32, torch::kCPU);
    TextModel c = makeTextModel(shape, 43, torch::kFloat32, torch::kCPU);
    const auto pa = a->parameters(), pb = b->parameters(), pc = c->parameters();
    bool anyDiffers = false;
    for (size_t i = 0; i < pa.size(); ++i) {
        EXPECT_TRUE(torch::equal(pa[i], pb[i])) << names[i] << " differs between two builds of seed 42";
        anyDiffers = anyDiffers || !torch::equal(pa[i], pc[i]);
    }
    EXPECT_TRUE(anyDiffers) << "seed 43 draws other weights";
    // The weights do not depend on the global generator (LibTorch's module constructors draw
    // from it, as they do for the MLP in core/model.cpp; makeTextModel overwrites every value).
    torch::manual_seed(12345);
    TextModel d = makeTextModel(shape, 42, torch::kFloat32, torch::kCPU);
    const auto pd = d->parameters();
    for (size_t i = 0; i < pa.size(); ++i)
        EXPECT_TRUE(torch::equal(pa[i], pd[i])) << names[i] << " follows the global seed";

    TextModelShape untied = shape;
    untied.tiedHead = false;
    TextModel u = makeTextModel(untied, 42, torch::kFloat32, torch::kCPU);
    EXPECT_EQ(u->named_parameters().size(), a->named_parameters().size() + 1);
    EXPECT_TRUE(u->named_parameters().contains("head.weight"));
    EXPECT_EQ(textModelParameterCount(untied), textModelParameterCount(shape) + shape.width * shape.vocabulary);
}

struct CausalRow {
    const char *name;
    int64_t changed; // the position whose token changes
};

class CausalMask : public testing::TestWithParam<CausalRow> {};

TEST_P(CausalMask, ALaterTokenLeavesEarlierLogitsAlone)
{
    const TextModelShape shape{.context = 32, .width = 32, .layers = 2, .heads = 4};
    TextModel model = makeTextModel(shape, 5, torch::kFloat32, torch::kCPU);
    torch::NoGradGuard noGrad;
    const int64_t p = GetParam().changed;
    auto gen = at::detail::createCPUGenerator(11);
    // tokens: (2, context)
    auto tokens = torch::randint(0, 256, {2, shape.context}, gen, torch::kLong);
    auto other = tokens.clone();
    other.index_put_({torch::indexing::Slice(), p}, (tokens.index({torch::indexing::Slice(), p}) + 1) % 256);
    const auto a = model->forward(tokens), b = model->forward(other); // (2, context, vocabulary)
    using torch::indexing::Slice;
    if (p > 0)
        EXPECT_TRUE(torch::equal(a.index({Slice(), Slice(0, p)}), b.index({Slice(), Slice(0, p)})))
            << "positions before " << p << " saw the change";
    const double later = (a.index({Slice(), Slice(p)}) - b.index({Slice(), Slice(p)})).abs().max().item<double>();
    EXPECT_GT(later, 1e-4) << "the changed position and those after it see it";
}

INSTANTIATE_TEST_SUITE_P(Rows, CausalMask,
                         testing::Values(CausalRow{"First", 0}, CausalRow{"Middle", 13}, CausalRow{"Last", 31}),
                         test::ByName());

// ---- the two normalisations against the full batch ----

struct NormalisationRow {
    const char *name;
    std::vector<size_t> documents;  // the window's documents, in order
    std::vector<int64_t> microRows; // rows per micro-batch
    bool equalTokens;               // every micro-batch holds as many tokens
};

std::vector<NormalisationRow> normalisationRows()
{
    // In the sample: document 1 has 24 bytes (23 tokens), document 2 has 79 (truncated to 64), document 7 has
    // 41, document 10 has 82 (truncated to 64).
    return {
        {"OneSequencePerMicroBatch", {1, 2, 7, 10}, {1, 1, 1, 1}, false},
        {"TwoAndTwo", {1, 7, 2, 10}, {2, 2}, false},
        {"ThreeAndOne", {1, 7, 2, 10}, {3, 1}, false},
        {"EqualTokenCounts", {2, 10}, {1, 1}, true},
    };
}

class TokenNormalisationVsFullBatch : public testing::TestWithParam<NormalisationRow> {};

TEST_P(TokenNormalisationVsFullBatch, WindowTokenCountIsTheFullBatch)
{
    const NormalisationRow &row = GetParam();
    const TextCorpus corpus = loadSample();
    const TextModelShape shape{.context = 64, .width = 32, .layers = 2, .heads = 2};
    TextModel model = makeTextModel(shape, 3, torch::kFloat32, torch::kCPU);

    // The full batch: the mean over all its tokens.
    const TokenBatch full = makeTokenBatch(corpus, row.documents, shape.context);
    const auto fullT = toTensors(full, torch::kCPU);
    model->zero_grad();
    textLoss(model->forward(fullT.inputs), fullT.targets, TokenNormalisation::PerMicroBatchMean).backward();
    const auto gFull = flatGrad(model);

    const auto accumulate = [&](TokenNormalisation normalisation) {
        model->zero_grad();
        size_t first = 0;
        const double n = static_cast<double>(row.microRows.size());
        std::vector<int64_t> tokens;
        for (int64_t rows : row.microRows) {
            const std::vector<size_t> docs(row.documents.begin() + first, row.documents.begin() + first + rows);
            first += static_cast<size_t>(rows);
            const TokenBatch micro = makeTokenBatch(corpus, docs, shape.context);
            tokens.push_back(micro.tokens);
            const auto t = toTensors(micro, torch::kCPU);
            auto loss = textLoss(model->forward(t.inputs), t.targets, normalisation, full.tokens);
            if (normalisation == TokenNormalisation::PerMicroBatchMean)
                loss = loss / n; // the window's division by N
            loss.backward();
        }
        return std::make_pair(flatGrad(model), tokens);
    };
    const auto [gToken, tokens] = accumulate(TokenNormalisation::WindowTokenCount);
    const auto [gMean, tokens2] = accumulate(TokenNormalisation::PerMicroBatchMean);
    const bool equal = std::all_of(tokens.begin(), tokens.end(), [&](int64_t t) { return t == tokens.front(); });
    ASSERT_EQ(equal, row.equalTokens) << "the row's token counts are not what it says";

    const double scale = gFull.abs().max().item<double>();
    const double tokenDiff = (gToken - gFull).abs().max().item<double>();
    const double meanDiff = (gMean - gFull).abs().max().item<double>();
    std::cout << "[ text model ] " << row.name << ": max |grad| " << scale << ", WindowTokenCount diff " << tokenDiff
              << ", PerMicroBatchMean/N diff " << meanDiff << "\n";
    EXPECT_LT(tokenDiff, 1e-4);
    if (row.equalTokens) {
        EXPECT_LT(meanDiff, 1e-4) << "equal token counts: the per-micro-batch mean is the full batch's too";
    } else {
        // Measured: 0.03 to 0.06 (0.09 to 0.17 of the largest gradient entry), a million times
        // WindowTokenCount's 3e-8.
        EXPECT_GT(meanDiff, 0.01 * scale) << "different token counts: per-micro-batch means weigh tokens unequally";
        EXPECT_GT(meanDiff, 100 * tokenDiff);
    }
}

INSTANTIATE_TEST_SUITE_P(Rows, TokenNormalisationVsFullBatch, testing::ValuesIn(normalisationRows()), test::ByName());

TEST(TextLoss, PaddingCountsInNeitherNormalisation)
{
    // logits: (1, 4, vocabulary); two real targets then two padded ones.
    auto gen = at::detail::createCPUGenerator(2);
    const auto logits = torch::randn({1, 4, kTextVocabulary}, gen, torch::kFloat64);
    const auto targets = torch::tensor({{int64_t{'a'}, int64_t{'b'}, I, I}});
    const auto logp = torch::log_softmax(logits, -1);
    const double nll = -(logp[0][0]['a'] + logp[0][1]['b']).item<double>(); // by hand
    EXPECT_NEAR(textLoss(logits, targets, TokenNormalisation::PerMicroBatchMean).item<double>(), nll / 2, 1e-12);
    EXPECT_NEAR(textLoss(logits, targets, TokenNormalisation::WindowTokenCount, 5).item<double>(), nll / 5, 1e-12);
    EXPECT_THROW(textLoss(logits, targets, TokenNormalisation::WindowTokenCount, 0), std::invalid_argument);
}

// ---- it learns ----

// The default shape's cost on this machine: a few AdamW steps of 8 sequences of the full context,
// printed as steps/s and tokens/s (a figure to read, not a bound: a bound fitted to one CPU is a
// hole on the next).
TEST(TextModel, DefaultShapeTakesTrainingSteps)
{
    constexpr int kSteps = 6;    // enough to time, a second or two
    constexpr size_t kBatch = 8; // documents a step
    const TextCorpus corpus = loadSample();
    const TextModelShape shape;
    TextModel model = makeTextModel(shape, 1, torch::kFloat32, torch::kCPU);
    torch::optim::AdamW optimizer(model->parameters(), torch::optim::AdamWOptions(1e-3));
    DocumentSampler sampler(corpus.documents.size(), 2);
    // The same 8 texts each step: the loss on them must fall.
    const TokenBatch batch = makeTokenBatch(corpus, sampler.next(kBatch), shape.context);
    const auto t = toTensors(batch, torch::kCPU);
    std::vector<double> losses;
    const auto start = std::chrono::steady_clock::now();
    for (int step = 0; step < kSteps; ++step) {
        optimizer.zero_grad();
        auto loss = textLoss(model->forward(t.inputs), t.targets, TokenNormalisation::PerMicroBatchMean);
        loss.backward();
        optimizer.step();
        losses.push_back(loss.item<double>());
        ASSERT_TRUE(std::isfinite(losses.back())) << "step " << step;
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::cout << "[ text model ] default shape: " << textModelParameterCount(shape) << " parameters, context "
              << shape.context << ", " << kBatch << " texts (" << batch.tokens << " tokens) a step: " << kSteps / seconds
              << " steps/s, " << kSteps * batch.tokens / seconds << " tokens/s\n";
    EXPECT_LT(losses.back(), losses.front());
}

TEST(TextModel, LearnsTheSample)
{
    // AdamW (Loshchilov & Hutter, 2019) with a linear warmup, on the 40 texts, 8 a step.
    constexpr int kSteps = 150;          // measured: the loss halves well before
    constexpr int kWarmup = 15;          // steps of linear warmup to the peak rate
    constexpr double kPeakRate = 3e-3;   // AdamW's rate after the warmup
    constexpr size_t kBatch = 8;         // documents a step
    const TextCorpus corpus = loadSample();
    const TextModelShape shape{.context = 64, .width = 64, .layers = 2, .heads = 4};
    TextModel model = makeTextModel(shape, 1, torch::kFloat32, torch::kCPU);
    torch::optim::AdamW optimizer(model->parameters(), torch::optim::AdamWOptions(kPeakRate).weight_decay(0.01));
    DocumentSampler sampler(corpus.documents.size(), 1);
    std::vector<double> losses;
    int64_t tokens = 0;
    const auto start = std::chrono::steady_clock::now();
    for (int step = 0; step < kSteps; ++step) {
        const double rate = kPeakRate * std::min(1.0, (step + 1.0) / kWarmup);
        for (auto &group : optimizer.param_groups())
            static_cast<torch::optim::AdamWOptions &>(group.options()).lr(rate);
        const TokenBatch batch = makeTokenBatch(corpus, sampler.next(kBatch), shape.context);
        tokens += batch.tokens;
        const auto t = toTensors(batch, torch::kCPU);
        optimizer.zero_grad();
        auto loss = textLoss(model->forward(t.inputs), t.targets, TokenNormalisation::PerMicroBatchMean);
        loss.backward();
        optimizer.step();
        losses.push_back(loss.item<double>());
        ASSERT_TRUE(std::isfinite(losses.back())) << "step " << step;
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const auto meanOf = [&](size_t from, size_t to) {
        double s = 0;
        for (size_t i = from; i < to; ++i)
            s += losses[i];
        return s / static_cast<double>(to - from);
    };
    const double first = meanOf(0, 5), last = meanOf(losses.size() - 10, losses.size());
    int64_t count = 0;
    for (const auto &p : model->parameters())
        count += p.numel();
    std::cout << "[ text model ] learning: " << count << " parameters, loss " << first << " -> " << last << " in "
              << kSteps << " steps, " << kSteps / seconds << " steps/s, " << tokens / seconds << " tokens/s\n";
    EXPECT_NEAR(first, std::log(static_cast<double>(kTextVocabulary)), 0.3) << "starts near uniform over bytes";
    EXPECT_LT(last, 0.6 * first) << "the loss falls clearly";
}

} // namespace
