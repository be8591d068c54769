// Data-parallel ranks as threads of one process, for a viewer that cannot start processes for
// every check (the desktop app's equivalence panel): each rank is a thread with its own engine,
// and their gradient buffers meet in an in-process all-reduce. The sum runs in rank order, so
// a check gives the same figures on every run. The real process group (c10d over Gloo,
// core/c10d_sync.h) is what the sweep and the CLI use; this only replaces the wire.
#include "core/equivalence.h"

#include "core/grad_sync.h"

#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>

namespace accumlab {

namespace {

// The meeting point of the ranks: every rank hands in its flat gradient buffer, the last to
// arrive averages them (rank 0 first), every rank takes the mean back. A rank that fails
// breaks the group, and the ranks waiting in it stop instead of waiting for ever.
class ThreadGroup {
public:
    explicit ThreadGroup(int64_t worldSize) : m_world(worldSize), m_slots(static_cast<size_t>(worldSize)) {}

    void allReduceMean(int64_t rank, torch::Tensor &flatGrad)
    {
        std::unique_lock lock(m_mutex);
        if (m_broken)
            throw Cancelled{};
        const uint64_t round = m_round;
        m_slots[static_cast<size_t>(rank)] = flatGrad.detach().clone();
        if (++m_arrived == m_world) {
            torch::Tensor sum = m_slots.front().clone();
            for (size_t r = 1; r < m_slots.size(); ++r)
                sum.add_(m_slots[r]);
            m_mean = sum.div_(static_cast<double>(m_world));
            m_arrived = 0;
            ++m_round;
            m_changed.notify_all();
        } else {
            m_changed.wait(lock, [&] { return m_round != round || m_broken; });
            if (m_round == round)
                throw Cancelled{};
        }
        // m_mean stays until every rank has arrived again, this one included.
        flatGrad.copy_(m_mean);
    }

    void breakGroup()
    {
        const std::lock_guard lock(m_mutex);
        m_broken = true;
        m_changed.notify_all();
    }

private:
    const int64_t m_world;
    std::mutex m_mutex;
    std::condition_variable m_changed;
    std::vector<torch::Tensor> m_slots; // per rank, this round's buffer
    torch::Tensor m_mean;
    int64_t m_arrived = 0;
    uint64_t m_round = 0;
    bool m_broken = false;
};

class ThreadRankSync final : public GradSync {
public:
    ThreadRankSync(ThreadGroup &group, int64_t rank, int64_t world) : m_group(group), m_rank(rank), m_world(world) {}
    int64_t worldSize() const override { return m_world; }
    int64_t rank() const override { return m_rank; }
    void allReduceMean(torch::Tensor &flatGrad) override { m_group.allReduceMean(m_rank, flatGrad); }

private:
    ThreadGroup &m_group;
    int64_t m_rank;
    int64_t m_world;
};

} // namespace

EquivalenceResult runEquivalenceOnThreads(const EquivalenceConfig &config, const CancelToken *cancel)
{
    if (config.worldSize <= 1)
        return runEquivalence(config, cancel);
    validate(config);
    ThreadGroup group(config.worldSize);
    std::vector<EquivalenceResult> results(static_cast<size_t>(config.worldSize));
    std::vector<std::exception_ptr> errors(results.size());
    std::vector<std::thread> ranks;
    for (int64_t r = 0; r < config.worldSize; ++r) {
        ranks.emplace_back([&, r] {
            try {
                results[static_cast<size_t>(r)] =
                    runEquivalence(config, cancel, std::make_shared<ThreadRankSync>(group, r, config.worldSize));
            } catch (...) {
                errors[static_cast<size_t>(r)] = std::current_exception();
                group.breakGroup();
            }
        });
    }
    for (auto &t : ranks)
        t.join();
    // The first rank's own failure, rather than the others' stop that followed it.
    for (const auto &e : errors) {
        if (!e)
            continue;
        try {
            std::rethrow_exception(e);
        } catch (const Cancelled &) {
            continue;
        } catch (...) {
            throw;
        }
    }
    for (const auto &e : errors)
        if (e)
            std::rethrow_exception(e);
    return results.front();
}

} // namespace accumlab
