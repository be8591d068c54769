// Experiments 6-11: pitfalls beyond the lesson that production trainers hit (variable-length
// sequences, a window cut short by the end of the data, BatchNorm, gradient clipping, the LR
// schedule, the linear scaling rule). Clipping and the LR schedule run the engine's own window,
// where the clip-each-micro and schedule-every-micro bugs are planted; the others build small
// loops of their own on LibTorch (a token-weighted loss, a short window, a BatchNorm model, a
// held-out curve under a ramped rate) so the wrong and the right way sit side by side against a
// full-batch reference. Not here: the catalog and JSON (experiments.cpp).
#include "core/experiments_internal.h"

#include "core/data.h"
#include "core/engine.h"
#include "core/equivalence.h"
#include "core/window_probe.h"
#include "core/model.h"

#include <ATen/CPUGeneratorImpl.h>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>

namespace accumlab::experiments {

namespace {

const torch::Device kCpu(torch::kCPU);
// The lesson's fixed absolute bound.
constexpr double kFixedTolerance = 1e-4;
// Float64 noise floor for a sum reordered over a handful of terms (a few hundred ulps of 1).
constexpr double kFloat64Exact = 1e-12;
// One window of the lesson's fixture: 16 samples in 4 micro-batches of 4.
constexpr int64_t kWindow = 16;
constexpr int64_t kAccum = 4;
const ModelShape kFixtureShape{32, 48, 8};

// A copy of every gradient buffer in float64 on the CPU.
std::vector<torch::Tensor> gradSnapshot(const std::vector<torch::Tensor> &params)
{
    std::vector<torch::Tensor> out;
    for (const auto &p : params)
        out.push_back(p.grad().defined() ? p.grad().detach().to(kCpu, torch::kFloat64).clone()
                                         : torch::zeros(p.sizes(), torch::kFloat64));
    return out;
}

std::vector<torch::Tensor> paramSnapshot(const std::vector<torch::Tensor> &params)
{
    std::vector<torch::Tensor> out;
    for (const auto &p : params)
        out.push_back(p.detach().to(kCpu, torch::kFloat64).clone());
    return out;
}

double maxAbsDiff(const std::vector<torch::Tensor> &a, const std::vector<torch::Tensor> &b)
{
    double m = 0.0;
    for (size_t i = 0; i < a.size(); ++i)
        m = std::max(m, (a[i] - b[i]).abs().max().item<double>());
    return m;
}

double l2(const std::vector<torch::Tensor> &ts)
{
    double s = 0.0;
    for (const auto &t : ts)
        s += t.pow(2).sum().item<double>();
    return std::sqrt(s);
}

// The engine on the lesson's fixture, on the CPU, with the teacher's labels: what the
// experiments that run the engine's window start from.
AccumConfig fixtureEngine(uint64_t seed)
{
    AccumConfig c;
    c.preset = ModelPreset::Fixture;
    c.device = DeviceRequest::Cpu;
    c.labels = LabelKind::Teacher;
    c.seed = seed;
    return c;
}

void zeroGrads(const std::vector<torch::Tensor> &params)
{
    for (const auto &p : params)
        if (p.grad().defined())
            p.grad().zero_();
}

// torch.nn.Linear's default law U(-1/sqrt(in), 1/sqrt(in)), drawn from a private generator.
void initLinear(torch::nn::Linear &layer, torch::Generator &gen, torch::Dtype dtype)
{
    torch::NoGradGuard noGrad;
    const double bound = 1.0 / std::sqrt(static_cast<double>(layer->options.in_features()));
    for (auto *p : {&layer->weight, &layer->bias})
        p->set_data(torch::empty(p->sizes(), torch::kFloat64).uniform_(-bound, bound, gen).to(dtype));
}

// SGD update p -= lr * g on every parameter.
void sgdStep(const std::vector<torch::Tensor> &params, double lr)
{
    torch::NoGradGuard noGrad;
    for (const auto &p : params)
        p.add_(p.grad(), -lr);
}

} // namespace

// ---- 6 variable-length ---------------------------------------------------------------------

namespace {

// A per-token classifier: embedding, then an MLP applied to every position.
struct TokenTaggerImpl : torch::nn::Module {
    TokenTaggerImpl(int64_t vocab, int64_t dim, int64_t classes, uint64_t seed, torch::Dtype dtype)
    {
        embedding = register_module("embedding", torch::nn::Embedding(vocab, dim));
        fc1 = register_module("fc1", torch::nn::Linear(dim, dim));
        fc2 = register_module("fc2", torch::nn::Linear(dim, classes));
        auto gen = at::detail::createCPUGenerator(seed);
        torch::NoGradGuard noGrad;
        embedding->weight.set_data(torch::randn(embedding->weight.sizes(), gen, torch::kFloat64).to(dtype));
        initLinear(fc1, gen, dtype);
        initLinear(fc2, gen, dtype);
    }
    // tokens: (batch, len) int64 -> logits: (batch, len, classes)
    torch::Tensor forward(const torch::Tensor &tokens)
    {
        auto h = embedding->forward(tokens);  // h: (batch, len, dim)
        h = torch::gelu(fc1->forward(h));     // h: (batch, len, dim)
        return fc2->forward(h);               // logits: (batch, len, classes)
    }
    torch::nn::Embedding embedding{nullptr};
    torch::nn::Linear fc1{nullptr}, fc2{nullptr};
};
TORCH_MODULE(TokenTagger);

struct Sequences {
    torch::Tensor tokens;  // (batch, max_len) int64, 0 = padding
    torch::Tensor targets; // (batch, max_len) int64
    torch::Tensor mask;    // (batch, max_len) bool, true on real tokens
    std::vector<int64_t> lengths;
};

// Summed cross-entropy over the real tokens of `rows` and their count.
std::pair<torch::Tensor, int64_t> tokenLossSum(TokenTagger &model, const Sequences &s, int64_t begin, int64_t count)
{
    const auto tokens = s.tokens.narrow(0, begin, count);   // (count, max_len)
    const auto targets = s.targets.narrow(0, begin, count); // (count, max_len)
    const auto mask = s.mask.narrow(0, begin, count);       // (count, max_len)
    const auto logits = model->forward(tokens);             // (count, max_len, classes)
    const auto perToken = torch::nn::functional::cross_entropy(
        logits.flatten(0, 1), targets.flatten(),
        torch::nn::functional::CrossEntropyFuncOptions().reduction(torch::kNone)); // (count * max_len,)
    const auto masked = perToken * mask.flatten().to(perToken.scalar_type());
    return {masked.sum(), mask.sum().item<int64_t>()};
}

} // namespace

ExperimentResult variableLength(const ExperimentOptions &o, const CancelToken *cancel)
{
    ExperimentResult r;
    constexpr int64_t kVocab = 50, kDim = 32, kClasses = 10;
    constexpr int64_t kSequences = 8, kPerMicro = 2; // 4 micro-batches of 2 sequences
    constexpr int64_t kMinLen = 2, kMaxLen = 24;
    const int64_t n = kSequences / kPerMicro;

    // Lengths drawn at random, then sorted as a length-bucketing sampler would: the first
    // micro-batch holds the shortest sequences, the last the longest.
    auto gen = at::detail::createCPUGenerator(o.seed);
    Sequences s;
    auto lengths = torch::randint(kMinLen, kMaxLen + 1, {kSequences}, gen, torch::kInt64);
    lengths = std::get<0>(lengths.sort());
    s.lengths.assign(lengths.data_ptr<int64_t>(), lengths.data_ptr<int64_t>() + kSequences);
    const int64_t maxLen = s.lengths.back();
    s.tokens = torch::randint(1, kVocab, {kSequences, maxLen}, gen, torch::kInt64);
    const auto positions = torch::arange(maxLen, torch::kInt64).unsqueeze(0); // (1, max_len)
    s.mask = positions < lengths.unsqueeze(1);                                // (batch, max_len)
    s.tokens = s.tokens * s.mask.to(torch::kInt64);                           // pad with 0
    s.targets = (s.tokens * 3 + positions) % kClasses;                        // a learnable per-token rule

    std::vector<int64_t> microTokens;
    int64_t totalTokens = 0;
    for (int64_t i = 0; i < n; ++i) {
        microTokens.push_back(s.mask.narrow(0, i * kPerMicro, kPerMicro).sum().item<int64_t>());
        totalTokens += microTokens.back();
    }

    enum class Mode { Full, MeanOverN, SumOverWindowTokens };
    double fullLoss = 0.0, loggedMeanOverN = 0.0;
    const auto run = [&](torch::Dtype dtype, Mode mode) {
        checkCancel(cancel);
        TokenTagger model(kVocab, kDim, kClasses, o.seed, dtype);
        const auto params = model->parameters();
        if (mode == Mode::Full) {
            auto [sum, count] = tokenLossSum(model, s, 0, kSequences);
            auto loss = sum / static_cast<double>(count); // the full batch's per-token mean
            loss.backward();
            if (dtype == torch::kFloat64)
                fullLoss = loss.item<double>();
            return gradSnapshot(params);
        }
        double logged = 0.0;
        for (int64_t i = 0; i < n; ++i) {
            auto [sum, count] = tokenLossSum(model, s, i * kPerMicro, kPerMicro);
            auto loss = mode == Mode::MeanOverN ? sum / static_cast<double>(count) / static_cast<double>(n)
                                                : sum / static_cast<double>(totalTokens);
            loss.backward();
            logged += loss.item<double>();
        }
        if (mode == Mode::MeanOverN && dtype == torch::kFloat64)
            loggedMeanOverN = logged;
        return gradSnapshot(params);
    };

    double wrong64 = 0, right64 = 0, wrong32 = 0, right32 = 0;
    for (auto dtype : {torch::kFloat64, torch::kFloat32}) {
        const auto full = run(dtype, Mode::Full);
        const double wrong = maxAbsDiff(run(dtype, Mode::MeanOverN), full);
        const double right = maxAbsDiff(run(dtype, Mode::SumOverWindowTokens), full);
        (dtype == torch::kFloat64 ? wrong64 : wrong32) = wrong;
        (dtype == torch::kFloat64 ? right64 : right32) = right;
    }

    addValue(r, "sequences", kSequences);
    addValue(r, "accum_steps", static_cast<double>(n));
    addValue(r, "total_tokens", static_cast<double>(totalTokens));
    for (int64_t i = 0; i < n; ++i)
        addValue(r, "tokens_micro_" + std::to_string(i), static_cast<double>(microTokens[i]));
    const auto [minTok, maxTok] = std::minmax_element(microTokens.begin(), microTokens.end());
    addValue(r, "per_token_weight_ratio_mean_over_n", static_cast<double>(*maxTok) / static_cast<double>(*minTok));
    addValue(r, "full_batch_per_token_loss", fullLoss);
    addValue(r, "logged_loss_mean_over_n", loggedMeanOverN);
    addValue(r, "float64_grad_diff_mean_over_n", wrong64);
    addValue(r, "float64_grad_diff_window_tokens", right64);
    addValue(r, "float32_grad_diff_mean_over_n", wrong32);
    addValue(r, "float32_grad_diff_window_tokens", right32);

    constexpr double kMatch = 1e-5;
    addClaim(r, "mean-over-n-differs",
             {"dividing each micro-batch's per-token mean by N is not the full batch's per-token mean: the gradients "
              "differ far above float noise",
              "تقسیم میانگین زیان هر توکن در هر میکروبچ بر N با میانگین زیان هر توکن در دسته‌ی کامل برابر نیست: گرادیان‌ها بسیار بیش از نویز ممیز شناور فرق دارند"},
             "float64_grad_diff_mean_over_n > 1e-4 and float32_grad_diff_mean_over_n > 1e-4",
             wrong64 > kFixedTolerance && wrong32 > kFixedTolerance);
    addClaim(r, "window-tokens-match",
             {"normalising each micro-batch's summed token loss by the window's total token count matches the full batch",
              "تقسیم مجموع زیان توکن‌های هر میکروبچ بر تعداد کل توکن‌های پنجره با دسته‌ی کامل برابر است"},
             "float64_grad_diff_window_tokens < 1e-5 and float32_grad_diff_window_tokens < 1e-5",
             right64 < kMatch && right32 < kMatch);

    r.explanation = format(
        "The full batch averages the loss over its %lld real tokens, so every token weighs 1/%lld. Taking each "
        "micro-batch's own per-token mean and dividing by N gives a token in micro-batch i the weight "
        "1/(N x T_i): the micro-batch with %lld tokens weighs each token %.2fx as much as the one with %lld. "
        "The gradient then differs by %.3g (float64), and the logged loss reads %.4f against %.4f. Summing the "
        "token losses of each micro-batch and dividing by the window's token count restores the weights (diff "
        "%.2g in float64, %.2g in float32). The token count must be known for the whole window before its first "
        "backward (or the gradient rescaled afterwards).",
        static_cast<long long>(totalTokens), static_cast<long long>(totalTokens), static_cast<long long>(*minTok),
        static_cast<double>(*maxTok) / static_cast<double>(*minTok), static_cast<long long>(*maxTok), wrong64,
        loggedMeanOverN, fullLoss, right64, right32);
    r.explanationFa = format(
        "دسته‌ی کامل زیان را روی %lld توکن واقعی خود میانگین می‌گیرد، پس وزن هر توکن %s است. اگر میانگین زیان هر "
        "توکن در هر میکروبچ جداگانه گرفته و بر N تقسیم شود، وزن توکنی در میکروبچ i برابر %s می‌شود: میکروبچی که "
        "%lld توکن دارد به هر توکن خود %.2f برابر میکروبچی با %lld توکن وزن می‌دهد. آنگاه گرادیان %.3g (در "
        "float64) فرق می‌کند و زیان ثبت‌شده %.4f خوانده می‌شود در برابر %.4f. جمع زیان توکن‌های هر میکروبچ و "
        "تقسیم آن بر تعداد توکن‌های پنجره وزن‌ها را درست می‌کند (اختلاف %.2g در float64 و %.2g در float32). "
        "تعداد توکن‌های کل پنجره باید پیش از نخستین backward()\u200e آن معلوم باشد (یا گرادیان پس از آن "
        "بازمقیاس شود).",
        static_cast<long long>(totalTokens), ltr("1/" + std::to_string(totalTokens)).c_str(),
        ltr("1/(N × T_i)").c_str(), static_cast<long long>(*minTok),
        static_cast<double>(*maxTok) / static_cast<double>(*minTok), static_cast<long long>(*maxTok), wrong64,
        loggedMeanOverN, fullLoss, right64, right32);
    return r;
}

// ---- 7 partial-window ----------------------------------------------------------------------

ExperimentResult partialWindow(const ExperimentOptions &o, const CancelToken *cancel)
{
    ExperimentResult r;
    constexpr int64_t kMicro = 4;
    const auto dtype = torch::kFloat64; // float64: the exact cases read as exact

    // Gradient of micro-batches of `sizes` samples, each weighted by weight(i, size).
    DataStream data(kFixtureShape, LabelKind::Teacher, o.seed, dtype, kCpu);
    const auto window = data.next(kWindow);
    const torch::Tensor x = window.first;  // (16, 32)
    const torch::Tensor y = window.second; // (16,)
    const auto grad = [&](const std::vector<int64_t> &sizes, const std::function<double(int64_t)> &weight,
                          bool summed) {
        checkCancel(cancel);
        auto model = makeModel(kFixtureShape, o.seed, dtype, kCpu);
        const auto params = model->parameters();
        int64_t begin = 0;
        for (int64_t size : sizes) {
            auto logits = model->forward(x.narrow(0, begin, size)); // (size, classes)
            torch::nn::functional::CrossEntropyFuncOptions reduction; // mean by default
            if (summed)
                reduction.reduction(torch::kSum);
            auto loss = torch::nn::functional::cross_entropy(logits, y.narrow(0, begin, size), reduction);
            (loss * weight(size)).backward();
            begin += size;
        }
        return gradSnapshot(params);
    };
    const auto fullOf = [&](int64_t samples) { return grad({samples}, [](int64_t) { return 1.0; }, false); };

    // 12 samples: 3 full micro-batches of the 4 the window expects.
    const std::vector<int64_t> three{kMicro, kMicro, kMicro};
    const auto full12 = fullOf(12);
    const auto overN = grad(three, [](int64_t) { return 1.0 / kAccum; }, false);
    const auto bySamples12 = grad(three, [](int64_t) { return 1.0 / 12.0; }, true);
    const double ratio = l2(overN) / l2(full12);
    const double overNDiff = maxAbsDiff(overN, full12);
    const double bySamplesDiff = maxAbsDiff(bySamples12, full12);

    // 10 samples: micro-batches of 4, 4 and 2. Dividing by the micro-batches seen (3) is still
    // wrong when the last one is short; weighting by samples stays exact.
    const std::vector<int64_t> ragged{kMicro, kMicro, 2};
    const auto full10 = fullOf(10);
    const auto overSeenMicro = grad(ragged, [](int64_t) { return 1.0 / 3.0; }, false);
    const auto bySamples10 = grad(ragged, [](int64_t) { return 1.0 / 10.0; }, true);
    const double raggedMicroDiff = maxAbsDiff(overSeenMicro, full10);
    const double raggedSamplesDiff = maxAbsDiff(bySamples10, full10);

    addValue(r, "accum_steps", kAccum);
    addValue(r, "micro_batches_seen", 3);
    addValue(r, "grad_norm_ratio_divide_by_n", ratio);
    addValue(r, "grad_diff_divide_by_n", overNDiff);
    addValue(r, "grad_diff_weight_by_samples", bySamplesDiff);
    addValue(r, "ragged_grad_diff_divide_by_micro_batches_seen", raggedMicroDiff);
    addValue(r, "ragged_grad_diff_weight_by_samples", raggedSamplesDiff);

    // Three equal micro-means weighted 1/4 are 3/4 of their mean: an identity, shown measured.
    addObservation(r, "divide-by-n-under-weights",
                   {"dividing by the full N when only 3 of 4 micro-batches arrived gives 3/4 of the mean gradient",
                    "وقتی فقط 3 میکروبچ از 4 رسیده است، تقسیم بر N کامل فقط 3/4 گرادیان میانگین را می‌دهد"},
                   format("grad_norm_ratio_divide_by_n = %.12g (3 x 1/4 of equal micro-batch means)", ratio));
    addClaim(r, "weight-by-samples-exact",
             {"weighting each micro-batch by its samples over the samples actually seen equals the full batch of those samples",
              "وزن دادن به هر میکروبچ به نسبت نمونه‌هایش به کل نمونه‌های واقعاً دیده‌شده با دسته‌ی کامل همان نمونه‌ها برابر است"},
             "grad_diff_weight_by_samples < 1e-12 (float64)", bySamplesDiff < kFloat64Exact);
    addClaim(r, "ragged-micro-count-wrong",
             {"when the last micro-batch is short, dividing by the micro-batches seen is still wrong",
              "وقتی میکروبچ آخر کوتاه است، تقسیم بر تعداد میکروبچ‌های دیده‌شده هم نادرست است"},
             "ragged_grad_diff_divide_by_micro_batches_seen > 1e-4", raggedMicroDiff > kFixedTolerance);
    addClaim(r, "ragged-weight-by-samples-exact", {"weighting by samples stays exact with a short last micro-batch",
                                                   "وزن‌دهی بر اساس نمونه‌ها با میکروبچ آخرِ کوتاه هم دقیق می‌ماند"},
             "ragged_grad_diff_weight_by_samples < 1e-12 (float64)", raggedSamplesDiff < kFloat64Exact);

    r.explanation = format(
        "When the data runs out after 3 of 4 micro-batches, a loop that still divides by N = 4 sums three "
        "means each weighted 1/4: the last optimizer step sees %.4fx the mean gradient, as if the learning rate "
        "were cut by a quarter for that step. Weighting each micro-batch by samples_i / samples_seen is exact "
        "(diff %.2g); so is it when the last micro-batch is short (4, 4, 2 samples), where dividing by the 3 "
        "micro-batches seen is off by %.3g. Alternatives: drop the incomplete window, or count samples before "
        "the window starts.",
        ratio, bySamplesDiff, raggedMicroDiff);
    r.explanationFa = format(
        "وقتی داده پس از 3 میکروبچ از 4 تمام می‌شود، حلقه‌ای که هنوز بر N = 4 تقسیم می‌کند سه میانگین را هر یک با "
        "وزن 1/4 جمع می‌زند: آخرین گام بهینه‌ساز %.4f برابر گرادیان میانگین را می‌بیند، گویی نرخ یادگیری "
        "برای آن گام یک‌چهارم کم شده است. وزن دادن به هر میکروبچ با %s دقیق است (اختلاف %.2g)؛ وقتی میکروبچ آخر "
        "کوتاه است (4، 4 و 2 نمونه) هم دقیق می‌ماند، در حالی که تقسیم بر 3 میکروبچِ دیده‌شده %.3g خطا دارد. راه‌های "
        "دیگر: کنار گذاشتن پنجره‌ی ناقص، یا شمردن نمونه‌ها پیش از شروع پنجره.",
        ratio, ltr("samples_i / samples_seen").c_str(), bySamplesDiff, raggedMicroDiff);
    return r;
}

// ---- 8 batchnorm ---------------------------------------------------------------------------

namespace {

enum class Norm { Batch, Layer };

// The fixture MLP with a normalisation layer after each hidden Linear.
struct NormMlpImpl : torch::nn::Module {
    NormMlpImpl(Norm kind, uint64_t seed, torch::Dtype dtype) : kind(kind)
    {
        const auto &s = kFixtureShape;
        fc1 = register_module("fc1", torch::nn::Linear(s.inFeatures, s.hidden));
        fc2 = register_module("fc2", torch::nn::Linear(s.hidden, s.hidden));
        fc3 = register_module("fc3", torch::nn::Linear(s.hidden, s.classes));
        if (kind == Norm::Batch) {
            bn1 = register_module("bn1", torch::nn::BatchNorm1d(s.hidden));
            bn2 = register_module("bn2", torch::nn::BatchNorm1d(s.hidden));
        } else {
            ln1 = register_module("ln1", torch::nn::LayerNorm(torch::nn::LayerNormOptions({s.hidden})));
            ln2 = register_module("ln2", torch::nn::LayerNorm(torch::nn::LayerNormOptions({s.hidden})));
        }
        to(dtype);
        auto gen = at::detail::createCPUGenerator(seed);
        for (auto *l : {&fc1, &fc2, &fc3})
            initLinear(*l, gen, dtype);
    }
    torch::Tensor norm1(const torch::Tensor &h) { return kind == Norm::Batch ? bn1->forward(h) : ln1->forward(h); }
    torch::Tensor norm2(const torch::Tensor &h) { return kind == Norm::Batch ? bn2->forward(h) : ln2->forward(h); }
    // x: (batch, in) -> logits: (batch, classes)
    torch::Tensor forward(const torch::Tensor &x)
    {
        auto h = torch::gelu(norm1(fc1->forward(x))); // h: (batch, hidden)
        h = torch::gelu(norm2(fc2->forward(h)));      // h: (batch, hidden)
        return fc3->forward(h);                       // logits: (batch, classes)
    }
    Norm kind;
    torch::nn::Linear fc1{nullptr}, fc2{nullptr}, fc3{nullptr};
    torch::nn::BatchNorm1d bn1{nullptr}, bn2{nullptr};
    torch::nn::LayerNorm ln1{nullptr}, ln2{nullptr};
};
TORCH_MODULE(NormMlp);

} // namespace

ExperimentResult batchNorm(const ExperimentOptions &o, const CancelToken *cancel)
{
    ExperimentResult r;
    const auto dtype = torch::kFloat32; // the lesson's dtype and its 1e-4 bound
    DataStream data(kFixtureShape, LabelKind::Teacher, o.seed, dtype, kCpu);
    const auto window = data.next(kWindow);
    const torch::Tensor x = window.first;  // (16, 32)
    const torch::Tensor y = window.second; // (16,)

    struct Measured {
        double gradDiff = 0.0;
        double runningMeanDiff = 0.0;
    };
    const auto measure = [&](Norm kind) {
        checkCancel(cancel);
        NormMlp full(kind, o.seed, dtype), acc(kind, o.seed, dtype);
        full->train();
        acc->train();
        torch::cross_entropy_loss(full->forward(x), y).backward();
        const auto xs = x.split(kWindow / kAccum), ys = y.split(kWindow / kAccum);
        for (int64_t i = 0; i < kAccum; ++i)
            (torch::cross_entropy_loss(acc->forward(xs[i]), ys[i]) / static_cast<double>(kAccum)).backward();
        Measured m;
        m.gradDiff = maxAbsDiff(gradSnapshot(full->parameters()), gradSnapshot(acc->parameters()));
        if (kind == Norm::Batch)
            m.runningMeanDiff = (full->bn1->running_mean - acc->bn1->running_mean).abs().max().item<double>();
        return m;
    };
    const Measured bn = measure(Norm::Batch);
    const Measured ln = measure(Norm::Layer);

    addValue(r, "accum_steps", kAccum);
    addValue(r, "batchnorm_max_grad_diff", bn.gradDiff);
    addValue(r, "layernorm_max_grad_diff", ln.gradDiff);
    addValue(r, "batchnorm_running_mean_diff", bn.runningMeanDiff);
    addValue(r, "fixed_tolerance", kFixedTolerance);

    // "Far above": a hundred times the bound.
    addClaim(r, "batchnorm-breaks", {"with BatchNorm in training mode the accumulated gradient is far from the full batch's",
                                     "با BatchNorm در حالت آموزش، گرادیان انباشته فاصله‌ی زیادی با گرادیان دسته‌ی کامل دارد"},
             "batchnorm_max_grad_diff > 100 x 1e-4", bn.gradDiff > 100.0 * kFixedTolerance);
    addClaim(r, "layernorm-keeps", {"with LayerNorm accumulation still equals the full batch",
                                    "با LayerNorm انباشت همچنان با دسته‌ی کامل برابر است"},
             "layernorm_max_grad_diff < 1e-4", ln.gradDiff < kFixedTolerance);

    r.explanation = format(
        "BatchNorm normalises each feature with the mean and variance of the batch it sees. Accumulating 4 "
        "micro-batches of 4 normalises with four sets of 4-sample statistics instead of one 16-sample set, so the "
        "forward pass itself differs and no loss scaling can fix the gradient (max diff %.3g). Its running "
        "statistics also take four momentum updates from noisier estimates (running mean off by %.3g). LayerNorm "
        "normalises each sample over its own features, independent of the batch, and keeps the equivalence "
        "(max diff %.2g). Remedies: LayerNorm/GroupNorm, frozen BatchNorm statistics, or a micro-batch large "
        "enough for stable statistics.",
        bn.gradDiff, bn.runningMeanDiff, ln.gradDiff);
    r.explanationFa = format(
        "BatchNorm هر ویژگی را با میانگین و واریانس دسته‌ای که می‌بیند نرمال می‌کند. انباشت 4 میکروبچ 4 نمونه‌ای "
        "با چهار دسته آمارِ 4 نمونه‌ای نرمال می‌کند، نه با یک دسته آمارِ 16 نمونه‌ای؛ پس خودِ گذر رو به جلو فرق "
        "می‌کند و هیچ مقیاس‌دهی زیانی گرادیان را درست نمی‌کند (بیشینه‌ی اختلاف %.3g). آمار جاری آن هم چهار "
        "به‌روزرسانی با تکانه از تخمین‌های پرنویزتر می‌گیرد (میانگین جاری %.3g اختلاف دارد). LayerNorm هر نمونه را "
        "روی ویژگی‌های خودش و مستقل از دسته نرمال می‌کند و هم‌ارزی را نگه می‌دارد (بیشینه‌ی اختلاف %.2g). "
        "راه‌حل‌ها: LayerNorm یا GroupNorm، منجمد کردن آمار BatchNorm، یا میکروبچی آن‌قدر بزرگ که آمارش پایدار "
        "باشد.",
        bn.gradDiff, bn.runningMeanDiff, ln.gradDiff);
    return r;
}

// ---- 9 clipping ----------------------------------------------------------------------------

ExperimentResult clipping(const ExperimentOptions &o, const CancelToken *cancel)
{
    // The engine's own window (core/engine.cpp) with a clip norm, through the equivalence
    // check: clipping once after the window's last micro-batch against the full batch clipped
    // once, and the clip-each-micro bug (clip_grad_norm_ inside the loop, on each partial sum).
    ExperimentResult r;
    // max_norm as a fraction of the full-batch gradient norm, so clipping is active.
    constexpr double kClipFraction = 0.2;
    AccumConfig c = fixtureEngine(o.seed);
    c.dtype = DType::Float64;

    // The full batch's gradient norm, unclipped: one window of 16 in one pass.
    c.microBatch = kWindow;
    c.accumSteps = 1;
    const double fullNorm = AccumEngine(c).step(nullptr, cancel).gradNorm;
    const double maxNorm = kClipFraction * fullNorm;

    // The same samples in 4 micro-batches, clipped once: the norm read before the step.
    c.microBatch = kWindow / kAccum;
    c.accumSteps = kAccum;
    c.optimizer.clipNorm = maxNorm;
    const double onceNorm = AccumEngine(c).step(nullptr, cancel).gradNorm;
    c.bug = AccumBug::ClipEachMicro;
    const double eachNorm = AccumEngine(c).step(nullptr, cancel).gradNorm;

    EquivalenceConfig e;
    e.shape = kFixtureShape;
    e.bigBatch = kWindow;
    e.accumSteps = kAccum;
    e.dtype = DType::Float64;
    e.labels = LabelKind::Teacher;
    e.seed = o.seed;
    e.optimizer.clipNorm = maxNorm;
    const EquivalenceResult once = runEquivalence(e, cancel);
    e.bug = AccumBug::ClipEachMicro;
    const EquivalenceResult each = runEquivalence(e, cancel);

    addValue(r, "accum_steps", kAccum);
    addValue(r, "full_batch_grad_norm", fullNorm);
    addValue(r, "max_norm", maxNorm);
    addValue(r, "clip_once_grad_norm", onceNorm);
    addValue(r, "clip_each_micro_grad_norm", eachNorm);
    addValue(r, "grad_diff_clip_each_micro", each.maxGradDiff);
    addValue(r, "grad_diff_clip_once", once.maxGradDiff);

    addClaim(r, "clipping-active",
             {"clipping really acts: the accumulated gradient leaves the window at max_norm, a fifth of its norm",
              "برش واقعاً اعمال می‌شود: گرادیان انباشته با نُرم max_norm، یک‌پنجم نُرم خودش، از پنجره بیرون می‌رود"},
             "|clip_once_grad_norm - max_norm| < 1e-5 max_norm (clip_grad_norm_'s 1e-6 guard, a float32 read) "
             "and max_norm < full_batch_grad_norm",
             std::abs(onceNorm - maxNorm) < 1e-5 * maxNorm && maxNorm < fullNorm);
    addClaim(r, "clip-each-micro-differs",
             {"clipping each micro-batch's partial sum differs from the full batch clipped once",
              "برش مجموع جزئی پس از هر میکروبچ با دسته‌ی کاملی که یک بار برش خورده فرق دارد"},
             "grad_diff_clip_each_micro > 1e-4", each.maxGradDiff > kFixedTolerance);
    addClaim(r, "clip-once-matches", {"clipping once after accumulation matches the full batch clipped once",
                                      "یک بار برش پس از انباشت با دسته‌ی کاملی که یک بار برش خورده برابر است"},
             "grad_diff_clip_once < 1e-12 (float64)", once.maxGradDiff < kFloat64Exact);

    r.explanation = format(
        "clip_grad_norm_ rescales the whole gradient when its norm exceeds max_norm (here %.3g, a fifth of the "
        "full-batch norm %.3g). After accumulation the buffers hold the full batch's gradient, so one clip at the "
        "end equals the full batch clipped once (diff %.2g, norm %.3g). Clipping inside the loop rescales the "
        "partial sum each time it grows past max_norm: the earlier micro-batches are shrunk again and again, the "
        "later ones keep their weight, and the direction changes although the norm still ends at %.3g "
        "(diff %.3g).",
        maxNorm, fullNorm, once.maxGradDiff, onceNorm, eachNorm, each.maxGradDiff);
    r.explanationFa = format(
        "%s وقتی نُرم گرادیان از max_norm بیشتر شود کل گرادیان را بازمقیاس می‌کند (اینجا %.3g، "
        "یک‌پنجم نُرم دسته‌ی کامل که %.3g است). پس از انباشت، بافرها گرادیان دسته‌ی کامل را نگه می‌دارند، پس یک "
        "برش در پایان با یک بار برش دسته‌ی کامل برابر است (اختلاف %.2g، نُرم %.3g). برش درون حلقه مجموع جزئی را "
        "هر بار که از max_norm بزرگ‌تر شود بازمقیاس می‌کند: میکروبچ‌های اول بارها و بارها کوچک می‌شوند، "
        "میکروبچ‌های آخر وزن خود را نگه می‌دارند، و جهت عوض می‌شود هرچند نُرم باز هم به %.3g می‌رسد "
        "(اختلاف %.3g).",
        ltr("clip_grad_norm_").c_str(), maxNorm, fullNorm, once.maxGradDiff, onceNorm, eachNorm, each.maxGradDiff);
    return r;
}

// ---- 10 lr-schedule ------------------------------------------------------------------------

namespace {

// The parameters after each window's optimizer step, as float64 host copies.
struct ParamsProbe final : WindowProbe {
    std::vector<torch::Tensor> params;
    void beforeStep(const std::vector<torch::Tensor> &, const std::vector<torch::Tensor> &, bool) override {}
    void afterStep(const std::vector<torch::Tensor> &ps, int64_t, bool closesWindow) override
    {
        if (closesWindow)
            params = paramSnapshot(ps);
    }
};

} // namespace

ExperimentResult lrSchedule(const ExperimentOptions &o, const CancelToken *cancel)
{
    // The engine's own window with its LR schedule (OptimizerConfig::lrWarmup): the full batch in
    // one pass, the same samples in 4 micro-batches, and the schedule-every-micro bug
    // (scheduler.step() in the micro-batch loop), each from the same seed and data.
    ExperimentResult r;
    constexpr double kPeakLr = 0.1;    // the fixture's learning rate
    constexpr int64_t kWarmup = 8;     // W: warmup length in effective steps
    const int64_t steps = o.fast ? 10 : 16; // effective steps trained, past the warmup

    struct Run {
        std::vector<torch::Tensor> params;
        std::vector<double> lrs;     // the lr used by each effective step's update
        int64_t warmupDoneAt = -1;   // 1-based effective step after which the warmup was complete
        int64_t peakFirstUsedAt = -1; // 1-based effective step whose update first used the peak
    };
    const auto train = [&](int64_t accum, AccumBug bug) {
        AccumConfig c = fixtureEngine(o.seed);
        c.microBatch = kWindow / accum; // the same 16 samples per step in every run
        c.accumSteps = accum;
        c.optimizer.lr = kPeakLr;
        c.optimizer.lrWarmup = kWarmup;
        c.bug = bug;
        AccumEngine engine(c);
        ParamsProbe probe;
        engine.setProbe(&probe);
        Run run;
        for (int64_t step = 0; step < steps; ++step) {
            const StepResult s = engine.step(nullptr, cancel);
            run.lrs.push_back(s.lr);
            if (run.warmupDoneAt < 0 && s.schedulerSteps >= kWarmup)
                run.warmupDoneAt = step + 1;
            if (run.peakFirstUsedAt < 0 && s.lr >= kPeakLr)
                run.peakFirstUsedAt = step + 1;
        }
        run.params = probe.params;
        return run;
    };
    const Run full = train(1, AccumBug::None);
    const Run perStep = train(kAccum, AccumBug::None);
    const Run perMicro = train(kAccum, AccumBug::ScheduleEveryMicro);

    const double perStepDiff = maxAbsDiff(perStep.params, full.params);
    const double perMicroDiff = maxAbsDiff(perMicro.params, full.params);
    addValue(r, "accum_steps", kAccum);
    addValue(r, "warmup_steps", kWarmup);
    addValue(r, "effective_steps", static_cast<double>(steps));
    addValue(r, "peak_lr", kPeakLr);
    addValue(r, "warmup_done_at_step_full_batch", static_cast<double>(full.warmupDoneAt));
    addValue(r, "warmup_done_at_step_per_effective_step", static_cast<double>(perStep.warmupDoneAt));
    addValue(r, "warmup_done_at_step_per_micro_batch", static_cast<double>(perMicro.warmupDoneAt));
    addValue(r, "peak_lr_first_used_at_step_per_effective_step", static_cast<double>(perStep.peakFirstUsedAt));
    addValue(r, "peak_lr_first_used_at_step_per_micro_batch", static_cast<double>(perMicro.peakFirstUsedAt));
    addValue(r, "param_diff_per_effective_step", perStepDiff);
    addValue(r, "param_diff_per_micro_batch", perMicroDiff);

    std::vector<double> xs;
    for (int64_t i = 1; i <= steps; ++i)
        xs.push_back(static_cast<double>(i));
    r.series = {{"lr_full_batch", "effective_step", "learning rate", xs, full.lrs},
                {"lr_per_effective_step", "effective_step", "learning rate", xs, perStep.lrs},
                {"lr_per_micro_batch", "effective_step", "learning rate", xs, perMicro.lrs}};

    addClaim(r, "per-micro-ends-n-times-early",
             {"stepped per micro-batch, the warmup is over after W/N effective steps instead of W: N times too early",
              "اگر زمان‌بندی به ازای هر میکروبچ جلو برود، گرمایش به جای W گام مؤثر پس از W/N گام تمام می‌شود: N برابر زودتر"},
             "warmup_done_at_step_per_micro_batch == W / N and warmup_done_at_step_per_effective_step == W",
             perMicro.warmupDoneAt * kAccum == kWarmup && perStep.warmupDoneAt == kWarmup);
    addClaim(r, "per-step-matches-full-batch",
             {"stepped per effective step, training matches the full-batch run with the same schedule",
              "اگر زمان‌بندی به ازای هر گام مؤثر جلو برود، آموزش با اجرای دسته‌ی کامل با همان زمان‌بندی برابر است"},
             "param_diff_per_effective_step < 1e-4", perStepDiff < kFixedTolerance);
    addClaim(r, "per-micro-drifts", {"stepped per micro-batch, the parameters drift away from the full-batch run",
                                     "اگر زمان‌بندی به ازای هر میکروبچ جلو برود، پارامترها از اجرای دسته‌ی کامل دور می‌شوند"},
             "param_diff_per_micro_batch > 1e-3", perMicroDiff > 10.0 * kFixedTolerance);

    r.explanation = format(
        "A schedule counts optimizer updates. The warmup here ramps the learning rate to %.2g over W = %lld "
        "steps. With scheduler.step() inside the micro-batch loop it advances N = %lld times per update: the "
        "warmup is over after %lld effective steps instead of %lld, and the model meets the peak rate while still "
        "early in training. Stepped once per window the rates, and the parameters after %lld steps, match the "
        "full-batch run (max diff %.2g against %.3g for the per-micro-batch schedule). Decay phases shrink N "
        "times too fast in the same way.",
        kPeakLr, static_cast<long long>(kWarmup), static_cast<long long>(kAccum),
        static_cast<long long>(perMicro.warmupDoneAt), static_cast<long long>(perStep.warmupDoneAt),
        static_cast<long long>(steps), perStepDiff, perMicroDiff);
    r.explanationFa = format(
        "زمان‌بندی، به‌روزرسانی‌های بهینه‌ساز را می‌شمارد. گرمایش در اینجا نرخ یادگیری را طی W = %lld گام به %.2g "
        "می‌رساند. با scheduler.step()\u200e درون حلقه‌ی میکروبچ‌ها، زمان‌بندی در هر به‌روزرسانی N = %lld بار جلو "
        "می‌رود: گرمایش به جای %lld گام مؤثر پس از %lld گام تمام می‌شود و مدل در حالی به نرخ اوج می‌رسد که هنوز در "
        "آغاز آموزش است. با یک گام در هر پنجره، نرخ‌ها و پارامترهای پس از %lld گام با اجرای دسته‌ی کامل برابرند "
        "(بیشینه‌ی اختلاف %.2g در برابر %.3g برای زمان‌بندی به ازای هر میکروبچ). مرحله‌های کاهش نرخ هم به همین "
        "شکل N برابر تندتر پیش می‌روند.",
        static_cast<long long>(kWarmup), kPeakLr, static_cast<long long>(kAccum),
        static_cast<long long>(perStep.warmupDoneAt), static_cast<long long>(perMicro.warmupDoneAt),
        static_cast<long long>(steps), perStepDiff, perMicroDiff);
    return r;
}

// ---- 11 linear-scaling ---------------------------------------------------------------------

ExperimentResult linearScaling(const ExperimentOptions &o, const CancelToken *cancel)
{
    ExperimentResult r;
    // The lesson's model and teacher labels; SGD. "Accurate, Large Minibatch SGD" (Goyal et al.,
    // 2017): multiply the learning rate by k when the batch grows k-fold, with a gradual warmup.
    const ModelShape shape = shapeOf(ModelPreset::Lesson);
    const auto dtype = torch::kFloat32;
    constexpr int64_t kMicro = 8;          // the small run's batch = the micro-batch
    constexpr int64_t kScale = 4;          // accumulation steps of the large runs
    constexpr double kBaseLr = 0.05;       // the CLI's default learning rate
    constexpr int64_t kEvalSamples = 1024; // held-out samples for the curves
    const int64_t largeSteps = o.fast ? 40 : 100; // effective steps of the large runs
    const int64_t warmup = largeSteps / 10;      // warmup of the scaled run, in effective steps
    const int64_t samplesPerLarge = kMicro * kScale;

    struct Curve {
        std::vector<double> samples, loss;
    };
    // accum = 1: the small-batch reference; accum = kScale: the large runs.
    const auto train = [&](int64_t accum, bool scaleLr) {
        auto model = makeModel(shape, o.seed, dtype, kCpu);
        const auto params = model->parameters();
        DataStream data(shape, LabelKind::Teacher, o.seed, dtype, kCpu);
        const auto eval = data.next(kEvalSamples); // the same held-out set for every run
        const auto evalLoss = [&] {
            torch::NoGradGuard noGrad;
            return torch::cross_entropy_loss(model->forward(eval.first), eval.second).item<double>();
        };
        Curve c;
        c.samples.push_back(0.0);
        c.loss.push_back(evalLoss());
        int64_t seen = 0;
        int64_t update = 0;
        for (int64_t block = 0; block < largeSteps; ++block) {
            checkCancel(cancel);
            auto [x, y] = data.next(samplesPerLarge); // every run sees the same samples in the same order
            const auto xs = x.split(kMicro), ys = y.split(kMicro);
            for (int64_t w = 0; w < kScale / accum; ++w) {
                zeroGrads(params);
                for (int64_t i = 0; i < accum; ++i) {
                    const auto m = w * accum + i;
                    (torch::cross_entropy_loss(model->forward(xs[m]), ys[m]) / static_cast<double>(accum)).backward();
                }
                // Scaled: ramp linearly from the base rate to k x base over `warmup` updates.
                double lr = kBaseLr;
                if (scaleLr) {
                    const double ramp = std::min(1.0, static_cast<double>(update + 1) / static_cast<double>(warmup));
                    lr = kBaseLr * (1.0 + (kScale - 1) * ramp);
                }
                sgdStep(params, lr);
                ++update;
                seen += accum * kMicro;
            }
            c.samples.push_back(static_cast<double>(seen));
            c.loss.push_back(evalLoss());
        }
        return c;
    };
    const Curve small = train(1, false);
    const Curve scaled = train(kScale, true);
    const Curve unscaled = train(kScale, false);

    const double fSmall = small.loss.back(), fScaled = scaled.loss.back(), fUnscaled = unscaled.loss.back();
    const double initial = small.loss.front();
    addValue(r, "micro_batch", kMicro);
    addValue(r, "accum_steps", kScale);
    addValue(r, "base_lr", kBaseLr);
    addValue(r, "scaled_lr", kBaseLr * kScale);
    addValue(r, "warmup_steps", static_cast<double>(warmup));
    addValue(r, "effective_steps", static_cast<double>(largeSteps));
    addValue(r, "samples_seen", static_cast<double>(largeSteps * samplesPerLarge));
    addValue(r, "initial_eval_loss", initial);
    addValue(r, "final_eval_loss_small_batch", fSmall);
    addValue(r, "final_eval_loss_scaled_lr", fScaled);
    addValue(r, "final_eval_loss_unscaled_lr", fUnscaled);
    r.series = {{"eval_loss_small_batch_base_lr", "samples_seen", "held-out loss", small.samples, small.loss},
                {"eval_loss_4x_batch_scaled_lr", "samples_seen", "held-out loss", scaled.samples, scaled.loss},
                {"eval_loss_4x_batch_unscaled_lr", "samples_seen", "held-out loss", unscaled.samples, unscaled.loss}};

    addClaim(r, "scaled-beats-unscaled",
             {"after the same number of samples the 4x batch with a 4x learning rate reaches a lower loss than with "
              "the unscaled rate",
              "پس از تعداد نمونه‌ی یکسان، دسته‌ی 4 برابر با نرخ یادگیری 4 برابر به زیانی کمتر از نرخ بدون مقیاس می‌رسد"},
             "final_eval_loss_scaled_lr < final_eval_loss_unscaled_lr", fScaled < fUnscaled);
    addClaim(r, "scaled-tracks-small-batch",
             {"the scaled run ends closer to the small-batch run than the unscaled run does",
              "اجرای مقیاس‌شده در پایان از اجرای بدون مقیاس به اجرای دسته‌ی کوچک نزدیک‌تر است"},
             "|final_eval_loss_scaled_lr - final_eval_loss_small_batch| < |final_eval_loss_unscaled_lr - "
             "final_eval_loss_small_batch|",
             std::abs(fScaled - fSmall) < std::abs(fUnscaled - fSmall));
    addClaim(r, "all-runs-learn", {"all three runs lower the held-out loss",
                                   "هر سه اجرا زیان روی داده‌ی کنارگذاشته را پایین می‌آورند"}, "every final loss < initial_eval_loss",
             fSmall < initial && fScaled < initial && fUnscaled < initial);

    r.explanation = format(
                                   "Accumulating 4 micro-batches makes each update average 4x as many samples but leaves 4x fewer updates "
                                   "for the same data. At the unscaled rate an update moves about as far as one small-batch update, so with "
                                   "a quarter of the updates the model falls behind: after %lld samples the held-out loss is %.4f against "
                                   "%.4f for the small-batch run. Scaling the rate 4x (the linear scaling rule, with a %lld-step warmup against early "
                                   "instability) gives %.4f. The rule is a first-order approximation: it holds while the rate stays below "
                                   "the instability limit and the batch below the critical batch size.",
        static_cast<long long>(largeSteps * samplesPerLarge), fUnscaled, fSmall, static_cast<long long>(warmup),
        fScaled);
    r.explanationFa = format(
        "انباشت 4 میکروبچ باعث می‌شود هر به‌روزرسانی روی 4 برابر نمونه میانگین بگیرد، اما برای همان داده تعداد "
        "به‌روزرسانی‌ها را 4 برابر کم می‌کند. با نرخ بدون مقیاس، هر به‌روزرسانی تقریباً به اندازه‌ی یک "
        "به‌روزرسانی دسته‌ی کوچک جابه‌جا می‌کند، پس با یک‌چهارم به‌روزرسانی‌ها مدل عقب می‌ماند: پس از %lld نمونه، "
        "زیان روی داده‌ی کنارگذاشته %.4f است در برابر %.4f برای اجرای دسته‌ی کوچک. مقیاس‌دهی 4 برابری نرخ "
        "(قاعده‌ی مقیاس‌دهی خطی، با گرمایش %lld گامی در برابر ناپایداری آغاز آموزش) به %.4f می‌رسد. این قاعده "
        "تقریبی مرتبه‌ی اول است: تا وقتی برقرار است که نرخ زیر حد ناپایداری و دسته زیر اندازه‌ی بحرانی دسته بماند.",
        static_cast<long long>(largeSteps * samplesPerLarge), fUnscaled, fSmall, static_cast<long long>(warmup),
        fScaled);
    return r;
}

} // namespace accumlab::experiments
