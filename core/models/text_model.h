// Internal (includes LibTorch): the text model, a small byte-level causal transformer (GPT-2's
// shape: Radford et al., "Language Models are Unsupervised Multitask Learners", 2019, and
// nanoGPT's reading of it), with its seeded initialisation and its loss under the two
// normalisations the lesson compares.
//   token + position embedding -> N pre-LayerNorm blocks (causal self-attention, MLP with GELU,
//   each added to the residual stream) -> final LayerNorm -> head (tied to the token embedding
//   by default)
// Parameters are named as PyTorch names those of a module with the same attributes
// (blocks.0.attn.qkv.weight), so a safetensors file of them loads into a PyTorch twin.
// Not here: dropout (the lesson compares runs bit for bit), the optimizer, the window.
#pragma once

#include "core/data/text_corpus.h"

#include <torch/torch.h>

#include <cstdint>

namespace accumlab {

struct TextModelShape {
    int64_t vocabulary = kTextVocabulary; // 256 bytes + the padding id
    int64_t context = 128;                // the longest sequence (position embeddings)
    int64_t width = 128;                  // d_model: the residual stream's channels
    int64_t layers = 4;                   // transformer blocks
    int64_t heads = 4;                    // attention heads; width % heads == 0
    int64_t mlpRatio = 4;                 // the MLP's hidden width = mlpRatio * width
    bool tiedHead = true;                 // the head reuses tok_emb.weight (no head.weight)
};

// Parameters of `shape`, counted from the formula (tied weights once).
int64_t textModelParameterCount(const TextModelShape &shape);

struct CausalSelfAttentionImpl : torch::nn::Module {
    CausalSelfAttentionImpl(int64_t width, int64_t heads);
    // x: (batch, T, width) -> (batch, T, width)
    torch::Tensor forward(const torch::Tensor &x);

    int64_t heads = 1;
    torch::nn::Linear qkv{nullptr};  // width -> 3 * width: queries, keys, values side by side
    torch::nn::Linear proj{nullptr}; // width -> width
};
TORCH_MODULE(CausalSelfAttention);

struct TextMlpImpl : torch::nn::Module {
    TextMlpImpl(int64_t width, int64_t hidden);
    // x: (batch, T, width) -> (batch, T, width)
    torch::Tensor forward(const torch::Tensor &x);

    torch::nn::Linear fc{nullptr};   // width -> hidden
    torch::nn::Linear proj{nullptr}; // hidden -> width
};
TORCH_MODULE(TextMlp);

struct TransformerBlockImpl : torch::nn::Module {
    TransformerBlockImpl(int64_t width, int64_t heads, int64_t hidden);
    // x: (batch, T, width) -> (batch, T, width): x + attn(ln1(x)), then + mlp(ln2(.))
    torch::Tensor forward(const torch::Tensor &x);

    torch::nn::LayerNorm ln1{nullptr}, ln2{nullptr};
    CausalSelfAttention attn{nullptr};
    TextMlp mlp{nullptr};
};
TORCH_MODULE(TransformerBlock);

struct TextModelImpl : torch::nn::Module {
    explicit TextModelImpl(const TextModelShape &shape);
    // tokens: (batch, T) int64 ids in [0, vocabulary), T <= context -> logits: (batch, T, vocabulary)
    torch::Tensor forward(const torch::Tensor &tokens);

    TextModelShape shape;
    torch::nn::Embedding tok_emb{nullptr}; // (vocabulary, width)
    torch::nn::Embedding pos_emb{nullptr}; // (context, width)
    torch::nn::ModuleList blocks{nullptr}; // layers x TransformerBlock
    torch::nn::LayerNorm ln_f{nullptr};    // (width)
    torch::nn::Linear head{nullptr};       // width -> vocabulary, no bias; null when tied
};
TORCH_MODULE(TextModel);

// Builds the model with parameters drawn from `seed` alone, from a private generator (not the
// global one), in float64 on the CPU and then cast, so every dtype and device starts from the same
// rounded values; two calls with one seed give bit-identical models. GPT-2's initialisation:
// linear and embedding weights ~ N(0, 0.02), the residual projections (attn.proj, mlp.proj)
// ~ N(0, 0.02 / sqrt(2 * layers)), biases 0, LayerNorm weights 1 and biases 0. Draws follow the
// parameters' registration order.
TextModel makeTextModel(const TextModelShape &shape, uint64_t seed, torch::Dtype dtype, const torch::Device &device);

// How a micro-batch's loss is scaled before its backward (the October 2024 trainer bug and its fix):
//   PerMicroBatchMean  the mean over the micro-batch's own tokens; the window divides by N later.
//                      With micro-batches of different token counts the window's gradient is
//                      not the full batch's: each token weighs 1/(N * its micro-batch's tokens).
//   WindowTokenCount   the sum over the micro-batch's tokens divided by the whole window's token
//                      count (passed in); summed over the window it is the full batch's mean.
// Targets equal to kTextIgnoreIndex (padding) count in neither.
enum class TokenNormalisation { PerMicroBatchMean, WindowTokenCount };

// logits: (batch, T, vocabulary); targets: (batch, T) int64 -> a 0-d loss.
// windowTokens is read only for WindowTokenCount (and must then be > 0). A micro-batch with no
// target gives NaN under PerMicroBatchMean, as PyTorch's mean over nothing does.
torch::Tensor textLoss(const torch::Tensor &logits, const torch::Tensor &targets, TokenNormalisation normalisation,
                       int64_t windowTokens = 0);

// A TokenBatch as tensors on `device`: inputs and targets (rows, context) int64.
struct TextBatchTensors {
    torch::Tensor inputs;  // (rows, context) int64
    torch::Tensor targets; // (rows, context) int64, kTextIgnoreIndex on padding
};
TextBatchTensors toTensors(const TokenBatch &batch, const torch::Device &device);

} // namespace accumlab
