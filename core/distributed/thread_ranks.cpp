// Data-parallel ranks as threads of one process, for a viewer that cannot start processes for
// every check or every micro-batch (the desktop app's equivalence panel and teaching mode):
// each rank is a thread with its own engine, and their gradient buffers meet in an in-process
// all-reduce. The sum runs in rank order, so a check gives the same figures on every run. The
// real process group (c10d over Gloo, core/distributed/c10d_sync.h) is what the sweep and the CLI use;
// this only replaces the wire.
#include "core/distributed/thread_ranks.h"

#include "core/engine.h"
#include "core/equivalence.h"
#include "core/distributed/grad_sync.h"

#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>

namespace accumlab {

// Named, not anonymous: ThreadRanks::Impl (below) holds a ThreadGroup.
namespace rank_threads {

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

    // Once every rank of a broken call has returned (none waits here): the next call starts
    // afresh.
    void repair()
    {
        const std::lock_guard lock(m_mutex);
        m_broken = false;
        m_arrived = 0;
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

// The first rank's own failure, rather than the others' stop (Cancelled) that followed it;
// nothing when every rank succeeded.
void rethrowFirstFailure(const std::vector<std::exception_ptr> &errors)
{
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
}

// Runs job(r) for every rank r of `group` at once: ranks 1..world-1 on threads of their own,
// rank 0 on the caller's. A rank that throws breaks the group, so that none waits for it.
void runRanks(ThreadGroup &group, int64_t world, const std::function<void(int64_t)> &job)
{
    std::vector<std::exception_ptr> errors(static_cast<size_t>(world));
    auto guarded = [&](int64_t r) {
        try {
            job(r);
        } catch (...) {
            errors[static_cast<size_t>(r)] = std::current_exception();
            group.breakGroup();
        }
    };
    std::vector<std::thread> ranks;
    try {
        for (int64_t r = 1; r < world; ++r)
            ranks.emplace_back(guarded, r);
    } catch (...) { // no thread to be had: the started ranks stop at their first collective
        group.breakGroup();
        for (auto &t : ranks)
            t.join();
        throw;
    }
    guarded(0);
    for (auto &t : ranks)
        t.join();
    rethrowFirstFailure(errors);
}

} // namespace rank_threads

EquivalenceResult runEquivalenceOnThreads(const EquivalenceConfig &config, const CancelToken *cancel)
{
    if (config.run.worldSize <= 1)
        return runEquivalence(config, cancel);
    validate(config);
    rank_threads::ThreadGroup group(config.run.worldSize);
    std::vector<EquivalenceResult> results(static_cast<size_t>(config.run.worldSize));
    rank_threads::runRanks(group, config.run.worldSize, [&](int64_t r) {
        results[static_cast<size_t>(r)] =
            runEquivalence(config, cancel, std::make_shared<rank_threads::ThreadRankSync>(group, r, config.run.worldSize));
    });
    return results.front();
}

struct ThreadRanks::Impl {
    std::unique_ptr<rank_threads::ThreadGroup> group; // null with one rank; outlives the engines' syncs
    std::vector<std::unique_ptr<AccumEngine>> engines; // index = rank
    std::exception_ptr failure;         // what broke the group
};

ThreadRanks::ThreadRanks(const AccumConfig &config) : d(std::make_unique<Impl>())
{
    validate(config);
    const int64_t world = config.worldSize;
    if (world == 1) {
        d->engines.push_back(std::make_unique<AccumEngine>(config));
        return;
    }
    d->group = std::make_unique<rank_threads::ThreadGroup>(world);
    for (int64_t r = 0; r < world; ++r)
        d->engines.push_back(std::make_unique<AccumEngine>(config, std::make_shared<rank_threads::ThreadRankSync>(*d->group, r, world)));
}

ThreadRanks::~ThreadRanks() = default;

int64_t ThreadRanks::worldSize() const { return static_cast<int64_t>(d->engines.size()); }
AccumEngine &ThreadRanks::rank0() { return *d->engines.front(); }
const AccumEngine &ThreadRanks::rank0() const { return *d->engines.front(); }
AccumEngine &ThreadRanks::engine(int64_t rank) { return *d->engines.at(static_cast<size_t>(rank)); }

void ThreadRanks::onEveryRank(const std::function<void(AccumEngine &)> &job)
{
    if (!d->group) { // one rank: nothing to meet, nothing to break
        job(rank0());
        return;
    }
    if (d->failure)
        std::rethrow_exception(d->failure);
    try {
        rank_threads::runRanks(*d->group, worldSize(), [&](int64_t r) { job(engine(r)); });
    } catch (...) {
        d->failure = std::current_exception();
        throw;
    }
}

bool ThreadRanks::microStep(EngineObserver *rank0Observer, const CancelToken *cancel)
{
    if (cancel && cancel->cancelled())
        throw Cancelled{};
    std::vector<char> closed(static_cast<size_t>(worldSize()), 0);
    onEveryRank([&](AccumEngine &e) {
        closed[static_cast<size_t>(e.rank())] = e.microStep(e.rank() == 0 ? rank0Observer : nullptr);
    });
    return closed.front() != 0;
}

void ThreadRanks::saveCheckpoint(const std::filesystem::path &dir)
{
    if (d->failure)
        std::rethrow_exception(d->failure);
    try {
        onEveryRank([&](AccumEngine &e) { accumlab::saveCheckpoint(e, dir); });
    } catch (...) {
        if (d->group) { // every rank has returned, and none changed its engine
            d->group->repair();
            d->failure = nullptr;
        }
        throw;
    }
}

CheckpointSummary ThreadRanks::loadCheckpoint(const std::filesystem::path &dir)
{
    // No collective: the ranks load their files one after the other, rank 0 last.
    CheckpointSummary summary;
    for (int64_t r = worldSize() - 1; r >= 0; --r)
        summary = accumlab::loadCheckpoint(engine(r), dir);
    return summary;
}

std::vector<double> ThreadRanks::referenceGradNorms()
{
    std::vector<double> norms;
    onEveryRank([&](AccumEngine &e) {
        auto mine = e.referenceGradNorms();
        if (e.rank() == 0)
            norms = std::move(mine);
    });
    return norms;
}

} // namespace accumlab
