// The seeded synthetic data stream.
#include "core/data.h"

#include <ATen/CPUGeneratorImpl.h>

namespace accumlab {

namespace {
// The teacher's prototypes come from a seed derived from, but distinct from, the data seed.
constexpr uint64_t kTeacherSeedOffset = 0x7EAC4E2ULL;
// Per-coordinate size of a class prototype against the unit noise: the margin that makes the
// lesson's MLP visibly learn within the default 25 steps of SGD at lr 0.05 (about 2.6 -> 1.9
// at every point of the default sweep) while its first loss still reads ln(classes).
constexpr double kPrototypeScale = 1.5;

// A private generator on `device`: the CPU's own, or a clone of the device's default generator
// reseeded, so the stream never touches (or is disturbed by) the global RNG state.
torch::Generator makeGenerator(uint64_t seed, const torch::Device &device)
{
    if (device.is_cpu())
        return at::detail::createCPUGenerator(seed);
    auto gen = at::globalContext().defaultGenerator(device).clone();
    gen.set_current_seed(seed);
    return gen;
}
} // namespace

DataStream::DataStream(const ModelShape &shape, LabelKind labels, uint64_t seed, torch::Dtype dtype,
                       const torch::Device &device)
    : m_shape(shape), m_labels(labels), m_dtype(dtype), m_device(device), m_gen(makeGenerator(seed, device))
{
    auto teacherGen = makeGenerator(seed + kTeacherSeedOffset, device);
    // prototypes: (classes, in), float32 on the device, each scaled by the class margin
    m_prototypes = kPrototypeScale *
                   torch::randn({shape.classes, shape.inFeatures}, teacherGen, torch::dtype(torch::kFloat32).device(device));
}

std::pair<torch::Tensor, torch::Tensor> DataStream::draw(int64_t batch)
{
    // Drawn on the device itself (no host-to-device copy on CUDA). The CPU stream is the same on
    // every machine; a CUDA stream is reproducible on its device but differs from the CPU's.
    const auto onDevice = torch::TensorOptions().device(m_device);
    auto noise = torch::randn({batch, m_shape.inFeatures}, m_gen, onDevice.dtype(torch::kFloat32)); // (batch, in)
    // Both kinds draw the class ids after the noise, from the same generator.
    auto y = torch::randint(0, m_shape.classes, {batch}, m_gen, onDevice.dtype(torch::kInt64)); // (batch,)
    return {noise, y};
}

torch::Tensor DataStream::inputs(const torch::Tensor &noise, const torch::Tensor &y) const
{
    // Random labels keep the noise alone; the teacher's samples sit around their class's
    // prototype. Row by row the same sums whatever rows are composed together.
    auto x = m_labels == LabelKind::Teacher ? noise + m_prototypes.index_select(/*dim=*/0, y) : noise; // (rows, in)
    if (m_roundThrough && *m_roundThrough != x.scalar_type())
        x = x.to(*m_roundThrough);
    return x.scalar_type() == m_dtype ? x : x.to(m_dtype);
}

std::pair<torch::Tensor, torch::Tensor> DataStream::next(int64_t batch)
{
    auto [noise, y] = draw(batch);
    return {inputs(noise, y), y};
}

} // namespace accumlab
