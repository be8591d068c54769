// The byte-level causal transformer, its seeded initialisation and its two loss normalisations.
#include "core/models/text_model.h"

#include <ATen/CPUGeneratorImpl.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace accumlab {

namespace {

// GPT-2's initial standard deviation for weights.
constexpr double kInitStd = 0.02;
// LayerNorm's epsilon, PyTorch's default (so the twin's nn.LayerNorm matches).
constexpr double kLayerNormEps = 1e-5;

bool endsWith(const std::string &s, const std::string &tail)
{
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

} // namespace

int64_t textModelParameterCount(const TextModelShape &s)
{
    const int64_t c = s.width, hidden = s.mlpRatio * s.width;
    const int64_t layerNorm = 2 * c;
    const int64_t attention = (c * 3 * c + 3 * c) + (c * c + c);
    const int64_t mlp = (c * hidden + hidden) + (hidden * c + c);
    const int64_t block = 2 * layerNorm + attention + mlp;
    const int64_t embeddings = s.vocabulary * c + s.context * c;
    const int64_t head = s.tiedHead ? 0 : c * s.vocabulary;
    return embeddings + s.layers * block + layerNorm + head;
}

CausalSelfAttentionImpl::CausalSelfAttentionImpl(int64_t width, int64_t heads_)
    : heads(heads_)
{
    if (heads < 1 || width % heads != 0)
        throw std::invalid_argument("CausalSelfAttention: width must be a multiple of heads");
    qkv = register_module("qkv", torch::nn::Linear(width, 3 * width));
    proj = register_module("proj", torch::nn::Linear(width, width));
}

torch::Tensor CausalSelfAttentionImpl::forward(const torch::Tensor &x)
{
    // x: (B, T, C)
    const int64_t B = x.size(0), T = x.size(1), C = x.size(2), D = C / heads;
    const auto split = qkv->forward(x).chunk(3, /*dim=*/2); // 3 x (B, T, C)
    // q, k, v: (B, heads, T, D)
    const auto q = split[0].view({B, T, heads, D}).transpose(1, 2);
    const auto k = split[1].view({B, T, heads, D}).transpose(1, 2);
    const auto v = split[2].view({B, T, heads, D}).transpose(1, 2);
    // scores: (B, heads, T, T), scaled dot-product attention (Vaswani et al., "Attention Is All
    // You Need", 2017)
    auto scores = torch::matmul(q, k.transpose(-2, -1)) / std::sqrt(static_cast<double>(D));
    // future: (T, T) bool, true above the diagonal: position t sees positions <= t only
    const auto future = torch::ones({T, T}, torch::TensorOptions().dtype(torch::kBool).device(x.device())).triu(/*diagonal=*/1);
    scores = scores.masked_fill(future, -std::numeric_limits<double>::infinity());
    const auto weights = torch::softmax(scores, /*dim=*/-1);             // (B, heads, T, T)
    const auto mixed = torch::matmul(weights, v);                         // (B, heads, T, D)
    return proj->forward(mixed.transpose(1, 2).contiguous().view({B, T, C})); // (B, T, C)
}

TextMlpImpl::TextMlpImpl(int64_t width, int64_t hidden)
{
    fc = register_module("fc", torch::nn::Linear(width, hidden));
    proj = register_module("proj", torch::nn::Linear(hidden, width));
}

torch::Tensor TextMlpImpl::forward(const torch::Tensor &x)
{
    // x: (B, T, C) -> h: (B, T, hidden) -> (B, T, C); GELU exact (erf), nn.GELU()'s default
    return proj->forward(torch::gelu(fc->forward(x)));
}

TransformerBlockImpl::TransformerBlockImpl(int64_t width, int64_t heads, int64_t hidden)
{
    const auto norm = torch::nn::LayerNormOptions({width}).eps(kLayerNormEps);
    ln1 = register_module("ln1", torch::nn::LayerNorm(norm));
    attn = register_module("attn", CausalSelfAttention(width, heads));
    ln2 = register_module("ln2", torch::nn::LayerNorm(norm));
    mlp = register_module("mlp", TextMlp(width, hidden));
}

torch::Tensor TransformerBlockImpl::forward(const torch::Tensor &x)
{
    // x: (B, T, C); pre-LayerNorm residual blocks (GPT-2)
    auto h = x + attn->forward(ln1->forward(x)); // (B, T, C)
    return h + mlp->forward(ln2->forward(h));    // (B, T, C)
}

TextModelImpl::TextModelImpl(const TextModelShape &s)
    : shape(s)
{
    if (s.vocabulary < 1 || s.context < 1 || s.width < 1 || s.layers < 0 || s.mlpRatio < 1)
        throw std::invalid_argument("TextModel: every size must be positive");
    tok_emb = register_module("tok_emb", torch::nn::Embedding(s.vocabulary, s.width));
    pos_emb = register_module("pos_emb", torch::nn::Embedding(s.context, s.width));
    blocks = register_module("blocks", torch::nn::ModuleList());
    for (int64_t i = 0; i < s.layers; ++i)
        blocks->push_back(TransformerBlock(s.width, s.heads, s.mlpRatio * s.width));
    ln_f = register_module("ln_f", torch::nn::LayerNorm(torch::nn::LayerNormOptions({s.width}).eps(kLayerNormEps)));
    if (!s.tiedHead)
        head = register_module("head", torch::nn::Linear(torch::nn::LinearOptions(s.width, s.vocabulary).bias(false)));
}

torch::Tensor TextModelImpl::forward(const torch::Tensor &tokens)
{
    // tokens: (B, T) int64
    const int64_t T = tokens.size(1);
    if (T > shape.context)
        throw std::invalid_argument("TextModel: " + std::to_string(T) + " tokens exceed the context of " +
                                    std::to_string(shape.context));
    const auto positions = torch::arange(T, torch::TensorOptions().dtype(torch::kLong).device(tokens.device())); // (T,)
    auto h = tok_emb->forward(tokens) + pos_emb->forward(positions); // (B, T, C) + (T, C) -> (B, T, C)
    for (const auto &block : *blocks)
        h = block->as<TransformerBlock>()->forward(h);             // (B, T, C)
    h = ln_f->forward(h);                                           // (B, T, C)
    // logits: (B, T, vocabulary)
    return shape.tiedHead ? torch::linear(h, tok_emb->weight) : head->forward(h);
}

TextModel makeTextModel(const TextModelShape &shape, uint64_t seed, torch::Dtype dtype, const torch::Device &device)
{
    TextModel model(shape);
    auto gen = at::detail::createCPUGenerator(seed);
    const double residualStd = kInitStd / std::sqrt(2.0 * static_cast<double>(std::max<int64_t>(shape.layers, 1)));
    torch::NoGradGuard noGrad;
    for (auto &item : model->named_parameters()) {
        const std::string &name = item.key();
        torch::Tensor &p = item.value();
        // init: drawn in float64 on the CPU, then cast (p's shape)
        torch::Tensor init;
        const bool layerNorm = name.rfind("ln_f.", 0) == 0 || name.find(".ln") != std::string::npos; // ln1, ln2, ln_f
        if (endsWith(name, ".bias"))
            init = torch::zeros(p.sizes(), torch::kFloat64);
        else if (layerNorm)
            init = torch::ones(p.sizes(), torch::kFloat64);
        else if (endsWith(name, "attn.proj.weight") || endsWith(name, "mlp.proj.weight"))
            init = torch::empty(p.sizes(), torch::kFloat64).normal_(0.0, residualStd, gen);
        else
            init = torch::empty(p.sizes(), torch::kFloat64).normal_(0.0, kInitStd, gen);
        p.set_data(init.to(device, dtype));
    }
    return model;
}

torch::Tensor textLoss(const torch::Tensor &logits, const torch::Tensor &targets, TokenNormalisation normalisation,
                       int64_t windowTokens)
{
    namespace F = torch::nn::functional;
    const int64_t V = logits.size(-1);
    const auto flatLogits = logits.reshape({-1, V}); // (B * T, V)
    const auto flatTargets = targets.reshape({-1});  // (B * T,)
    switch (normalisation) {
    case TokenNormalisation::PerMicroBatchMean:
        // sum over the micro-batch's targets / their count (ignore_index excluded from both)
        return F::cross_entropy(flatLogits, flatTargets,
                                F::CrossEntropyFuncOptions().ignore_index(kTextIgnoreIndex).reduction(torch::kMean));
    case TokenNormalisation::WindowTokenCount:
        if (windowTokens <= 0)
            throw std::invalid_argument("textLoss: WindowTokenCount needs the window's token count");
        // sum over the micro-batch's targets / the window's token count
        return F::cross_entropy(flatLogits, flatTargets,
                                F::CrossEntropyFuncOptions().ignore_index(kTextIgnoreIndex).reduction(torch::kSum)) /
               static_cast<double>(windowTokens);
    }
    throw std::invalid_argument("textLoss: unknown normalisation");
}

TextBatchTensors toTensors(const TokenBatch &batch, const torch::Device &device)
{
    const auto opts = torch::TensorOptions().dtype(torch::kLong);
    TextBatchTensors out;
    // from_blob borrows the vectors; clone() owns the copy before they go
    out.inputs = torch::from_blob(const_cast<int64_t *>(batch.inputs.data()), {batch.rows, batch.context}, opts)
                     .clone()
                     .to(device); // (rows, context)
    out.targets = torch::from_blob(const_cast<int64_t *>(batch.targets.data()), {batch.rows, batch.context}, opts)
                      .clone()
                      .to(device); // (rows, context)
    return out;
}

} // namespace accumlab
