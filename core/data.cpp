// The seeded synthetic data stream.
#include "core/data.h"

#include <ATen/CPUGeneratorImpl.h>

namespace accumlab {

namespace {
// The teacher's weights come from a seed derived from, but distinct from, the data seed.
constexpr uint64_t kTeacherSeedOffset = 0x7EAC4E2ULL;

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
    // teacher: (in, classes), float32 on the device
    m_teacher = torch::randn({shape.inFeatures, shape.classes}, teacherGen, torch::dtype(torch::kFloat32).device(device));
}

std::pair<torch::Tensor, torch::Tensor> DataStream::next(int64_t batch)
{
    // Drawn on the device itself (no host-to-device copy on CUDA). The CPU stream is the same on
    // every machine; a CUDA stream is reproducible on its device but differs from the CPU's.
    const auto onDevice = torch::TensorOptions().device(m_device);
    auto x = torch::randn({batch, m_shape.inFeatures}, m_gen, onDevice.dtype(torch::kFloat32)); // x: (batch, in)
    torch::Tensor y;                                                                              // y: (batch,)
    if (m_labels == LabelKind::Random)
        y = torch::randint(0, m_shape.classes, {batch}, m_gen, onDevice.dtype(torch::kInt64));
    else
        y = torch::mm(x, m_teacher).argmax(/*dim=*/1);
    return {x.scalar_type() == m_dtype ? x : x.to(m_dtype), y};
}

} // namespace accumlab
