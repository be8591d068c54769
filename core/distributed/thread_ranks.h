// Data-parallel ranks as threads of this process, for teaching mode: the lab's Play and Step
// run config.worldSize engines of one config, each with its own shard of the window, whose
// gradient buffers meet in an in-process all-reduce (core/distributed/thread_ranks.cpp, the one the
// equivalence panel's check uses). Rank 0 is the one a viewer shows.
// Not the sweep's or the CLI's ranks: those are processes over c10d (core/distributed/distributed.h).
// Threading: a ThreadRanks is driven by one thread (the caller); during a call, ranks
// 1..N-1 run on threads of their own and rank 0 on the caller's, and every call returns only
// when all of them are done. With one rank there is one engine and no thread.
// The public surface holds no torch types.
#pragma once

#include "core/io/checkpoint.h"
#include "core/config.h"
#include "core/observer.h"

#include <filesystem>
#include <functional>
#include <memory>
#include <vector>

namespace accumlab {

class AccumEngine;

class ThreadRanks {
public:
    // Throws ConfigError (invalid config or unavailable device).
    explicit ThreadRanks(const AccumConfig &config);
    ~ThreadRanks();
    ThreadRanks(const ThreadRanks &) = delete;
    ThreadRanks &operator=(const ThreadRanks &) = delete;

    int64_t worldSize() const;
    AccumEngine &rank0();
    const AccumEngine &rank0() const;
    AccumEngine &engine(int64_t rank);

    // Every rank's next micro-batch (AccumEngine::microStep), rank 0 reporting to `observer`.
    // The token is read once, before any rank starts, so the ranks stay in step. Returns true
    // when the window was completed.
    bool microStep(EngineObserver *rank0Observer = nullptr, const CancelToken *cancel = nullptr);
    // Every rank's AccumEngine::referenceGradNorms, together; rank 0's (the same on every rank).
    std::vector<double> referenceGradNorms();
    // Runs job(engine) on every rank at once (a collective such as saveCheckpoint must be called
    // on every rank), and returns when all are done.
    void onEveryRank(const std::function<void(AccumEngine &)> &job);

    // core/io/checkpoint.h for every rank: each rank's file of one generation, written at once.
    // A save reads the engines and changes none, so a failed one (CheckpointError, the previous
    // checkpoint whole) leaves the group able to go on.
    void saveCheckpoint(const std::filesystem::path &dir);
    // Every rank's engine restored from its file of the latest generation (a checkpoint of as
    // many ranks); rank 0's summary. Throws as loadCheckpoint does, and a group that failed to
    // load is not fit to run: build a new one.
    CheckpointSummary loadCheckpoint(const std::filesystem::path &dir);

    // A rank that throws breaks the group: the ranks waiting for it stop, and the first rank's
    // own error (rather than the others' stop that followed it) is rethrown, by that call and
    // by every later one; build a new group to go on.

private:
    struct Impl;
    std::unique_ptr<Impl> d;
};

} // namespace accumlab
