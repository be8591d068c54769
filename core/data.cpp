// The seeded synthetic data stream.
#include "core/data.h"

#include <ATen/CPUGeneratorImpl.h>

namespace accumlab {

namespace {
// The teacher's weights come from a seed derived from, but distinct from, the data seed.
constexpr uint64_t kTeacherSeedOffset = 0x7EAC4E2ULL;
}

DataStream::DataStream(const ModelShape &shape, LabelKind labels, uint64_t seed, torch::Dtype dtype,
                       const torch::Device &device)
    : m_shape(shape), m_labels(labels), m_dtype(dtype), m_device(device),
      m_gen(at::detail::createCPUGenerator(seed))
{
    auto teacherGen = at::detail::createCPUGenerator(seed + kTeacherSeedOffset);
    // teacher: (in, classes)
    m_teacher = torch::randn({shape.inFeatures, shape.classes}, teacherGen, torch::kFloat32).to(device);
}

std::pair<torch::Tensor, torch::Tensor> DataStream::next(int64_t batch)
{
    // Drawn on the CPU from a private generator so a seed means the same samples on every
    // device and in every dtype; moved to the device in one copy.
    auto x = torch::randn({batch, m_shape.inFeatures}, m_gen, torch::kFloat32); // x: (batch, in)
    torch::Tensor y;
    if (m_labels == LabelKind::Random) {
        y = torch::randint(0, m_shape.classes, {batch}, m_gen, torch::kInt64); // y: (batch,)
        x = x.to(m_device, m_dtype);
        y = y.to(m_device);
    } else {
        x = x.to(m_device);
        y = torch::mm(x, m_teacher).argmax(/*dim=*/1); // y: (batch,)
        x = x.to(m_dtype);
    }
    return {x, y};
}

} // namespace accumlab
