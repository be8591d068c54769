// The exports (accum-curve.v1 and the other results' JSON) and the atomic file write; a run's
// settings record is core/io/settings_io.cpp's (toJson(AccumConfig) resolves its device).
#include "core/io/export.h"

#include "core/device.h"
#include "core/memory/memory_sentences.h"
#include "core/version.h"

#include <atomic>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <sys/stat.h>
#include <cstring>
#include <fcntl.h>
#include <functional>
#include <random>
#include <sys/file.h>
#include <thread>
#include <unistd.h>

namespace accumlab {

using nlohmann::json;

json toJson(const EquivalenceResult &r)
{
    json layers = json::array();
    for (const auto &l : r.layers)
        layers.push_back({{"name", l.name},
                          {"grad_diff", l.gradDiff},
                          {"param_diff", l.paramDiff},
                          {"max_abs_grad", l.maxAbsGrad},
                          {"twin_grad_diff", l.twinGradDiff},
                          {"twin_update_diff", l.twinUpdateDiff},
                          {"differs", l.differs}});
    json comparisons = json::array();
    for (const auto &c : r.comparisons)
        comparisons.push_back({{"split", toString(c.split)},
                               {"max_grad_diff", c.maxGradDiff},
                               {"max_param_diff", c.maxParamDiff},
                               {"vs_first_split_grad_diff", c.vsFirstGradDiff},
                               {"vs_first_split_param_diff", c.vsFirstParamDiff}});
    json twin = json::array();
    for (const auto &w : r.twin)
        twin.push_back({{"grad_diff", w.gradDiff},
                        {"update_diff", w.updateDiff},
                        {"grad_excess", w.gradExcess},
                        {"update_excess", w.updateExcess},
                        {"accum_optimizer_state_step", w.accStateStep},
                        {"full_optimizer_state_step", w.fullStateStep},
                        {"agrees", w.agrees()}});
    const auto &c = r.config;
    const std::string cause = r.cause();
    return {
        // The one verdict (core/equivalence.h): what every surface shows.
        {"verdict", toString(r.verdict())},
        {"holds", r.holds},
        {"planted_bug", plantsABug(c.run)},
        {"cause", cause.empty() ? json(nullptr) : json(cause)},
        {"criterion", {{"kind", "float64-twin"},
                       {"tolerance", kTwinTolerance},
                       {"windows", twin}}},
        {"dtype_explained", {{"grad_diff", r.dtypeGradDiff},
                             {"update_diff", r.dtypeUpdateDiff},
                             {"rounding_grad_diff", r.roundingGradDiff},
                             {"rounding_update_diff", r.roundingUpdateDiff}}},
        {"lesson_bound", {{"tolerance", c.fixedTolerance}, {"within", r.withinLessonBound}}},
        {"max_grad_diff", r.maxGradDiff},
        {"max_param_diff", r.maxParamDiff},
        {"params_init_match", r.paramsInitMatch},
        {"update_ratio", r.updateRatio},
        {"grad_ratio", r.gradRatio},
        {"grad_scale", r.gradScale},
        {"update_scale", r.updateScale},
        {"first_step_lr", r.firstStepLr},
        {"max_abs_grad", r.maxAbsGrad},
        {"full_optimizer_state_step", r.fullOptimizerStateStep},
        {"accum_optimizer_state_step", r.accumOptimizerStateStep},
        {"second_window", {{"max_grad_diff", r.secondWindowGradDiff},
                           {"accum_optimizer_state_step", r.secondWindowStateStep},
                           {"full_optimizer_state_step", r.fullSecondWindowStateStep}}},
        {"layers", layers},
        {"comparisons", comparisons},
        {"config",
         {{"in_features", c.run.modelShape().inFeatures},
          {"hidden", c.run.modelShape().hidden},
          {"classes", c.run.modelShape().classes},
          {"big_batch", c.bigBatch()},
          {"accum_steps", c.run.accumSteps},
          {"micro_batch", c.run.microBatch},
          {"world_size", c.run.worldSize},
          {"optimizer", toString(c.run.optimizer.kind)},
          {"lr", c.run.optimizer.lr},
          {"clip_norm", c.run.optimizer.clipNorm},
          {"lr_warmup", c.run.optimizer.lrWarmup},
          {"scaling", toString(c.run.scaling)},
          {"step_every_micro", c.run.stepEveryMicro},
          {"bug", toString(c.run.bug)},
          {"scaler_bug", toString(c.run.lossScaler.bug)},
          {"dtype", toString(c.run.dtype)},
          {"labels", toString(c.run.labels)},
          {"seed", c.run.seed},
          {"device", r.device}}},
    };
}

nlohmann::ordered_json toJson(const AccumConfig &c) { return settingsRecord(c, resolveDevice(c.device)); }

nlohmann::ordered_json sweepSettingsJson(const SweepConfig &c)
{
    return sweepSettingsRecord(c, resolveDevice(c.base.device));
}

json toJson(const SweepConfig &c)
{
    const auto shape = c.base.modelShape();
    return {{"model", toString(c.base.preset)},
            {"in_features", shape.inFeatures},
            {"hidden", shape.hidden},
            {"classes", shape.classes},
            {"micro_batch", c.base.microBatch},
            {"accum_grid", c.accumGrid},
            {"world_size", c.base.worldSize},
            {"num_steps", c.numSteps},
            {"warmup_steps", c.warmupSteps},
            {"repeats", c.repeats},
            {"equal_work", c.equalWork},
            {"optimizer", toString(c.base.optimizer.kind)},
            {"lr", c.base.optimizer.lr},
            {"clip_norm", c.base.optimizer.clipNorm},
            {"lr_warmup", c.base.optimizer.lrWarmup},
            {"scaling", toString(c.base.scaling)},
            {"step_every_micro", c.base.stepEveryMicro},
            {"bug", toString(c.base.bug)},
            {"no_sync", c.base.noSync},
            {"dtype", toString(c.base.dtype)},
            {"device", toString(c.base.device)},
            {"labels", toString(c.base.labels)},
            {"seed", c.base.seed}};
}

json environmentJson()
{
    return {{"torch_version", torchVersion()},
            {"blas", blasName()},
            {"threads", currentThreads()},
            {"cuda_available", cudaAvailable()},
            {"accumlab_version", kVersion}};
}

namespace {

// The transient split's keys, one writer for the demo's runs and the trade-off's points (a
// recorded window on the CPU; null elsewhere).
void addTransientSplit(json &o, const std::optional<WindowMemory::Transient> &t)
{
    o["activation_bytes"] = t ? json(t->activations) : json(nullptr);
    o["step_temporary_bytes"] = t ? json(t->stepTemporaries) : json(nullptr);
    o["peak_set_by"] = t ? json(t->stepSetsPeak() ? "step" : "activations") : json(nullptr);
}

} // namespace

json toJson(const WindowMemory &m)
{
    json o = {{"peak_bytes", m.peakBytes},
              {"weights_bytes", m.held.weights},
              {"grad_bytes", m.held.gradients},
              {"optimizer_state_bytes", m.held.optimizerState},
              {"window_samples_bytes", m.held.windowSamples},
              {"transient_bytes", m.transientBytes()}};
    addTransientSplit(o, m.transient);
    return o;
}

json toJson(const OomDemoResult &r)
{
    return {{"device", r.device},
            {"device_bytes", r.deviceBytes},
            {"budget_bytes", r.budgetBytes},
            {"fails_after_samples", r.failsAfterSamples > 0 ? json(r.failsAfterSamples) : json(nullptr)},
            {"micro_batch", r.microBatch},
            {"accum_steps", r.accumSteps},
            {"effective_batch", r.effectiveBatch},
            {"full_batch", toJson(r.fullBatch)},
            {"full_batch_out_of_memory", r.fullBatchOutOfMemory},
            {"full_batch_error", r.fullBatchError},
            {"accumulation_succeeded", r.accumulationSucceeded},
            {"accumulation_error", r.accumulationError},
            {"accumulation", toJson(r.accumulation)},
            {"accumulation_loss", r.accumulationLoss},
            {"max_param_diff", r.maxParamDiff},
            {"lesson_bound", r.paramTolerance},
            // The one verdict on the demo's loop, as the curve's export carries it.
            {"equivalence", r.equivalence ? toJson(*r.equivalence) : json(nullptr)},
            {"same_step", r.sameStep()}};
}

json toJson(const MicroBatchFinding &r)
{
    json tried = json::array();
    for (const auto &[micro, fitted] : r.tried)
        tried.push_back({{"micro_batch", micro}, {"fits", fitted}});
    return {{"budget_bytes", r.budgetBytes},
            {"micro_batch", r.microBatch},
            {"accum_steps", r.accumSteps},
            {"effective_batch", r.effectiveBatch},
            {"world_size", r.worldSize},
            {"tried", tried},
            {"sentence", finderSentences(r, NumberStyle{}).front()}}; // the English one the CLI prints
}

nlohmann::ordered_json toJson(const LoopListing &listing)
{
    using ordered = nlohmann::ordered_json;
    ordered lines = ordered::array();
    for (const CodeLine &l : listing.lines) {
        ordered lit = ordered::array();
        for (LoopStatement st : l.lit)
            lit.push_back(toString(st));
        lines.push_back({{"code", l.code}, {"note", l.note}, {"lit", lit}, {"planted", l.planted}, {"setup", l.setup}});
    }
    return {{"variant", listing.variant}, {"shown_as_run", listing.shownAsRun()}, {"caveat", listing.caveat},
            {"lines", lines},             {"source", loopSource(listing)}};
}

json tradeoffJson(const TradeoffResult &r)
{
    const MemoryLabConfig &lab = r.config.lab;
    json environment = environmentJson(); // the curve's block, with the lab's own thread count
    environment["threads"] = r.threads;
    const auto orNull = [](std::optional<int64_t> v) { return v ? json(*v) : json(nullptr); };
    json points = json::array();
    for (const TradeoffPoint &p : r.points) {
        const HeldBytes &h = p.memory.held;
        const bool held = !p.outOfMemory;
        json point = {{"micro_batch", p.microBatch},
                          {"accum_steps", p.accumSteps},
                          {"effective_batch", p.effectiveBatch},
                          {"out_of_memory", p.outOfMemory},
                          {"error", p.outOfMemory ? json(p.error) : json(nullptr)},
                          {"steps", p.steps},
                          {"step_ms_median", p.stepMsMedian},
                          {"samples_per_sec", p.samplesPerSec},
                          {"peak_mem_bytes", orNull(p.peakMemBytes)},
                          {"weights_bytes", held ? json(h.weights) : json(nullptr)},
                          {"grad_bytes", held ? json(h.gradients) : json(nullptr)},
                          {"optimizer_state_bytes", held ? json(h.optimizerState) : json(nullptr)},
                          {"window_samples_bytes", held ? json(h.windowSamples) : json(nullptr)},
                          {"transient_bytes", held && p.peakMemBytes ? json(p.memory.transientBytes()) : json(nullptr)}};
        addTransientSplit(point, p.memory.transient);
        points.push_back(std::move(point));
    }
    return {{"schema", kTradeoffSchema},
            {"effective_batch", lab.effectiveBatch},
            {"world_size", lab.base.worldSize},
            {"budget_bytes", r.budgetBytes > 0 ? json(r.budgetBytes) : json(nullptr)},
            {"fails_after_samples", lab.failsAfterSamples > 0 ? json(lab.failsAfterSamples) : json(nullptr)},
            {"model", toString(lab.base.preset)},
            {"optimizer", toString(lab.base.optimizer.kind)},
            {"dtype", toString(lab.base.dtype)},
            {"device", r.device},
            {"timed_steps", r.config.numSteps},
            {"warmup_steps", r.config.warmupSteps},
            {"seed", lab.base.seed},
            {"measured_region", "peak_mem_bytes: the most bytes allocated at once on the device during the point's "
                                "windows (warm-up and timed), counted from before its engine was built: weights, gradient "
                                "buffers, optimizer state, the window's samples, one micro-batch's activations and the "
                                "backward's and the step's temporaries; activation_bytes and step_temporary_bytes: the most "
                                "one micro-batch's forward and backward, and the optimizer step, add above the live bytes of "
                                "their moment, in one more window recorded after the timed ones (CPU; peak_set_by names the "
                                "larger); step_ms_median: the median wall time of the timed optimizer steps, under the budget"},
            {"environment", environment},
            {"points", points}};
}

json curveJson(const SweepResult &sweep, const EquivalenceResult *equivalence)
{
    json points = json::array();
    for (const auto &p : sweep.points)
        points.push_back(toJson(p));
    json j = {{"schema", kCurveSchema},
              {"points", points},
              {"timed_region", kTimedRegion},
              {"config", toJson(sweep.config)},
              {"environment", environmentJson()}};
    if (equivalence)
        j["equivalence"] = toJson(*equivalence);
    return j;
}

namespace {

std::string errorText(int err) { return std::strerror(err); }

// Writes all of `content` to `fd`; returns 0 or the errno of the failing call.
int writeAll(int fd, const std::string &content)
{
    const char *data = content.data();
    size_t left = content.size();
    while (left > 0) {
        const ssize_t n = ::write(fd, data, left);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return errno;
        }
        data += n;
        left -= static_cast<size_t>(n);
    }
    return ::fsync(fd) != 0 ? errno : 0;
}

} // namespace

namespace {

// Temporary names a signal handler may have to remove: fixed storage, lock-free, so the
// handler reads it without allocating. A slot is 0 free, 1 being filled, 2 holding a path.
constexpr int kSlots = 64;
struct TempSlot {
    std::atomic<int> state{0};
    char path[PATH_MAX];
};
TempSlot g_temps[kSlots];

int registerTemp(const std::string &path)
{
    if (path.size() >= PATH_MAX)
        return -1;
    for (int i = 0; i < kSlots; ++i) {
        int expected = 0;
        if (g_temps[i].state.compare_exchange_strong(expected, 1)) {
            std::memcpy(g_temps[i].path, path.c_str(), path.size() + 1);
            g_temps[i].state.store(2);
            return i;
        }
    }
    return -1; // more than kSlots staged at once: that file is only removed by its destructor
}

void unregisterTemp(int slot)
{
    if (slot >= 0)
        g_temps[slot].state.store(0);
}

// Holds back the signals that end a process (they arrive when it is dropped).
class HeldSignals {
public:
    HeldSignals()
    {
        sigset_t set;
        sigemptyset(&set);
        for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT})
            sigaddset(&set, sig);
        ::pthread_sigmask(SIG_BLOCK, &set, &m_before);
    }
    ~HeldSignals() { ::pthread_sigmask(SIG_SETMASK, &m_before, nullptr); }

private:
    sigset_t m_before;
};

std::filesystem::path folderOf(const std::filesystem::path &p)
{
    return p.has_parent_path() ? p.parent_path() : std::filesystem::path(".");
}

// Refuses a destination that exists and is not a regular file or a link to one: a rename over a
// device node, a FIFO or a socket would replace it (as root, /dev/null would become a PNG), and
// one over a folder fails with a sentence about the wrong thing. A dangling link is replaced.
// `name` is looked up in the folder `dirFd`; `path` names it in the sentence.
void checkTarget(int dirFd, const std::string &name, const std::filesystem::path &path)
{
    struct stat st {};
    if (::fstatat(dirFd, name.c_str(), &st, 0) != 0 || S_ISREG(st.st_mode)) // absent, dangling, or a file
        return;
    const char *kind = S_ISDIR(st.st_mode)                               ? "export/target-is-folder"
                       : S_ISFIFO(st.st_mode)                            ? "export/target-is-fifo"
                       : S_ISSOCK(st.st_mode)                            ? "export/target-is-socket"
                       : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)      ? "export/target-is-device"
                                                                          : "export/target-is-other";
    throw ExportError(kind, TextArgs{{}, {{"path", path.string()}}}, "not a regular file");
}

// Opens the folder the user named (a link to it followed: the user chose it), creating it.
int openNamedFolder(const std::filesystem::path &dir)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec || !fs::is_directory(dir, ec))
        throw ExportError(ec ? "export/folder-not-created" : "export/folder-not-a-folder",
                          TextArgs{{}, {{"folder", dir.string()}, {"reason", ec ? ec.message() : std::string()}}},
                          ec ? ec.message() : std::string("not a folder"));
    const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        const int e = errno;
        throw ExportError("export/folder-unwritable", TextArgs{{}, {{"folder", dir.string()}, {"reason", errorText(e)}}},
                          errorText(e));
    }
    return fd;
}

// Six random letters for a temporary's name (mkstemp's XXXXXX, but relative to a folder's
// descriptor, which mkstemp cannot take).
std::string randomSuffix()
{
    static constexpr char kLetters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    thread_local std::mt19937_64 draw{std::random_device{}()};
    std::string s(6, 'a');
    for (char &c : s)
        c = kLetters[draw() % (sizeof kLetters - 1)];
    return s;
}

} // namespace

int openFolderInside(const std::filesystem::path &root, const std::filesystem::path &inside, bool *created)
{
    namespace fs = std::filesystem;
    if (created)
        *created = false;
    int fd = openNamedFolder(root);
    fs::path reached = root;
    for (const fs::path &part : inside) {
        const std::string name = part.string();
        reached /= part;
        const auto leaves = [&] {
            ::close(fd);
            return ExportError("export/path-leaves-folder",
                               TextArgs{{}, {{"path", reached.string()}, {"folder", root.string()}}},
                               "a link or not a folder");
        };
        if (name.empty() || name == "." || name == ".." || part.is_absolute() || name.find('/') != std::string::npos)
            throw leaves();
        bool made = false;
        if (::mkdirat(fd, name.c_str(), 0755) == 0) {
            made = true;
        } else if (errno != EEXIST) {
            const int e = errno;
            ::close(fd);
            throw ExportError("export/folder-not-created",
                              TextArgs{{}, {{"folder", reached.string()}, {"reason", errorText(e)}}}, errorText(e));
        }
        // O_NOFOLLOW: a link here (made before or after mkdirat) is refused, never followed.
        const int next = ::openat(fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (next < 0) {
            if (errno == ELOOP || errno == ENOTDIR)
                throw leaves();
            const int e = errno;
            ::close(fd);
            throw ExportError("export/folder-unwritable",
                              TextArgs{{}, {{"folder", reached.string()}, {"reason", errorText(e)}}}, errorText(e));
        }
        ::close(fd);
        fd = next;
        if (created)
            *created = made;
    }
    return fd;
}

StagedFile::StagedFile(std::filesystem::path path, const std::string &content)
    : m_path(std::move(path)), m_name(m_path.filename().string())
{
    stage(openNamedFolder(folderOf(m_path)), content);
}

StagedFile::StagedFile(const std::filesystem::path &root, const std::filesystem::path &inside,
                       const std::string &content)
    : m_path(root / inside), m_name(inside.filename().string())
{
    if (inside.is_absolute() || m_name.empty() || m_name == "." || m_name == "..")
        throw ExportError("export/path-leaves-folder", TextArgs{{}, {{"path", m_path.string()}, {"folder", root.string()}}},
                          "not a file's name");
    stage(openFolderInside(root, inside.parent_path()), content);
}

void StagedFile::stage(int dirFd, const std::string &content)
{
    namespace fs = std::filesystem;
    m_dirFd = dirFd;
    try {
        if (m_name.empty() || m_name == "." || m_name == "..") // a folder's name, not a file's
            throw ExportError("export/target-is-folder", TextArgs{{}, {{"path", m_path.string()}}}, "not a regular file");
        checkTarget(m_dirFd, m_name, m_path);
    } catch (...) { // a constructor that throws runs no destructor: the folder is closed here
        ::close(m_dirFd);
        m_dirFd = -1;
        throw;
    }
    // A unique name, so two writers of one destination (two windows, two threads) never share it.
    int fd = -1;
    int e = 0;
    for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
        const std::string tmp = m_name + ".tmp-" + randomSuffix();
        const HeldSignals held; // created and registered as one step: a signal never orphans it
        fd = ::openat(m_dirFd, tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        e = errno;
        if (fd >= 0) {
            m_tmpName = tmp;
            m_slot = registerTemp((folderOf(m_path) / tmp).string());
        } else if (e != EEXIST) {
            break;
        }
    }
    const fs::path dir = folderOf(m_path);
    if (fd < 0) {
        ::close(m_dirFd);
        m_dirFd = -1;
        throw ExportError("export/folder-unwritable", TextArgs{{}, {{"folder", dir.string()}, {"reason", errorText(e)}}},
                          errorText(e));
    }
    int err = ::fchmod(fd, 0644) != 0 ? errno : 0; // 0600 would hide the export from others
    if (!err)
        err = writeAll(fd, content);
    if (::close(fd) != 0 && !err)
        err = errno;
    if (err) {
        ::unlinkat(m_dirFd, m_tmpName.c_str(), 0);
        unregisterTemp(m_slot);
        ::close(m_dirFd);
        m_dirFd = -1;
        throw ExportError("export/file-unwritable", TextArgs{{}, {{"path", m_path.string()}, {"reason", errorText(err)}}},
                          errorText(err));
    }
}

StagedFile::~StagedFile()
{
    if (!m_committed && m_dirFd >= 0)
        ::unlinkat(m_dirFd, m_tmpName.c_str(), 0);
    unregisterTemp(m_slot);
    if (m_dirFd >= 0)
        ::close(m_dirFd);
}

void StagedFile::commit() { publishTogether({this}); }

FileLock lockExclusive(int fd, std::chrono::milliseconds wait)
{
    const auto giveUp = std::chrono::steady_clock::now() + wait;
    while (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
        if (errno == EINTR)
            continue;
        if (errno != EWOULDBLOCK)
            return FileLock::Unsupported;
        if (std::chrono::steady_clock::now() >= giveUp)
            return FileLock::Busy;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return FileLock::Held;
}

void publishTogether(const std::vector<StagedFile *> &files)
{
    namespace fs = std::filesystem;
    if (files.empty())
        return;
    const fs::path dir = folderOf(files.front()->m_path);
    const int dirFd = files.front()->m_dirFd; // every file of a set is staged in one folder
    // One writer of this folder at a time; the lock goes with the descriptor (a description of
    // its own, so closing it releases the lock and nothing else).
    const int dfd = ::openat(dirFd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0) {
        const int e = errno;
        throw ExportError("export/folder-unwritable", TextArgs{{}, {{"folder", dir.string()}, {"reason", errorText(e)}}},
                          errorText(e));
    }
    // Waited for a bounded time: another writer holds it for a few renames, so a lock held
    // longer is a stuck or foreign process, and a window must not wait on it for ever.
    if (lockExclusive(dfd, kFolderLockWait) == FileLock::Busy) {
        ::close(dfd);
        throw ExportError("export/folder-busy",
                          TextArgs{{{"seconds", double(kFolderLockWait.count())}}, {{"folder", dir.string()}}},
                          "the folder is locked by another writer");
    }
    struct Unlock {
        int fd;
        ~Unlock() { ::close(fd); }
    } unlock{dfd};
    // Again under the lock: a FIFO or device may have been made there since the file was staged.
    for (const StagedFile *f : files)
        checkTarget(f->m_dirFd, f->m_name, f->m_path);

    const HeldSignals held;
    // The earlier files, kept aside under a second name (a hard link) until all are published.
    std::vector<std::string> kept(files.size());
    std::vector<int> keptSlots(files.size(), -1);
    const auto dropKept = [&] {
        for (size_t i = 0; i < kept.size(); ++i)
            if (!kept[i].empty()) {
                ::unlinkat(files[i]->m_dirFd, kept[i].c_str(), 0);
                unregisterTemp(keptSlots[i]);
            }
    };
    for (size_t i = 0; i < files.size(); ++i) {
        const StagedFile &f = *files[i];
        struct stat st{};
        if (::fstatat(f.m_dirFd, f.m_name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
            continue; // nothing there yet, or a link or folder: nothing of ours to restore
        for (int attempt = 0; attempt < 16 && kept[i].empty(); ++attempt) {
            const std::string name = f.m_name + ".old-" + std::to_string(::getpid()) + "-" + std::to_string(attempt);
            if (::linkat(f.m_dirFd, f.m_name.c_str(), f.m_dirFd, name.c_str(), 0) == 0) {
                kept[i] = name;
                keptSlots[i] = registerTemp((folderOf(f.m_path) / name).string());
            } else if (errno != EEXIST) {
                break; // no hard links here (some file systems): published without a way back
            }
        }
    }
    for (size_t i = 0; i < files.size(); ++i) {
        StagedFile &f = *files[i];
        if (::renameat(f.m_dirFd, f.m_tmpName.c_str(), f.m_dirFd, f.m_name.c_str()) == 0) {
            f.m_committed = true;
            continue;
        }
        const std::string reason = errorText(errno);
        // Put back what was already replaced.
        std::string lost;
        for (size_t j = 0; j < i; ++j) {
            const StagedFile &done = *files[j];
            const bool restored = kept[j].empty()
                                      ? (::unlinkat(done.m_dirFd, done.m_name.c_str(), 0) == 0 || errno == ENOENT)
                                      : ::renameat(done.m_dirFd, kept[j].c_str(), done.m_dirFd, done.m_name.c_str()) == 0;
            if (restored) {
                if (!kept[j].empty()) {
                    unregisterTemp(keptSlots[j]);
                    kept[j].clear();
                }
            } else {
                lost += (lost.empty() ? "" : ", ") + done.m_path.filename().string();
            }
        }
        dropKept();
        ::fsync(dirFd);
        if (!lost.empty())
            throw ExportError("export/files-mixed",
                              TextArgs{{},
                                       {{"path", f.m_path.string()},
                                        {"reason", reason},
                                        {"lost", lost},
                                        {"name", f.m_path.filename().string()}}},
                              reason);
        throw ExportError("export/file-unwritable", TextArgs{{}, {{"path", f.m_path.string()}, {"reason", reason}}}, reason);
    }
    dropKept();
    // Makes the renames durable; a folder that cannot be synced loses nothing that was not
    // already in the page cache, so a failure here is not reported.
    ::fsync(dirFd);
}

std::string randomId()
{
    std::random_device device;
    const uint64_t v = (static_cast<uint64_t>(device()) << 32) ^ device();
    char text[17];
    std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(v));
    return text;
}

void removeStagedFilesNow() noexcept
{
    for (auto &slot : g_temps)
        if (slot.state.load() == 2)
            ::unlink(slot.path);
}

namespace {
void cleanupAndDie(int sig)
{
    removeStagedFilesNow();
    ::signal(sig, SIG_DFL);
    ::raise(sig);
}
} // namespace

void installExportSignalCleanup()
{
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
        struct sigaction sa{};
        sa.sa_handler = &cleanupAndDie;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_RESETHAND;
        ::sigaction(sig, &sa, nullptr);
    }
}

void writeFileAtomic(const std::filesystem::path &path, const std::string &content)
{
    StagedFile(path, content).commit();
}

void writeFileAtomic(const std::filesystem::path &root, const std::filesystem::path &inside, const std::string &content)
{
    StagedFile(root, inside, content).commit();
}

} // namespace accumlab
