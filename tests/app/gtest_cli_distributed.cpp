// accumlab-cli over real data-parallel ranks (c10d Gloo on loopback), end to end:
// equivalence across ranks, sync counts against the collectives issued, and the faults a
// user meets (a killed, hung or stopped rank, a port that answers nothing or another
// protocol, ranks started with different settings, a busy port or two launchers racing for
// one, a wrong world size or interface, a missing peer).
#include "core/io/curve_io.h"
#include "core/io/export.h"

#include "support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

using namespace accumlab;
using accumlab::test::contains;
using accumlab::test::ProcessResult;
using accumlab::test::runCli;
using accumlab::test::TempDir;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

using accumlab::test::PrintTo; // a table row prints as its label (support.h)

using Args = std::vector<std::string>;
using Env = std::vector<std::pair<std::string, std::string>>;

Args operator+(Args a, const Args &b)
{
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

// Each fault test runs with this rendezvous/collective timeout (seconds) ...
constexpr int kDistTimeoutS = 3;
// ... and must end well inside this bound (start-up, the timeout, the launcher's stop grace).
constexpr int64_t kFaultBoundMs = 25000;

Args fastSweep(const std::string &grid = "1,2,4", const std::string &steps = "3")
{
    return {"--accum-grid", grid, "--num-steps", steps, "--warmup-steps", "1", "--threads", "1"};
}

// Bytes of the lesson MLP's flat gradient buffer in float32, counted from its layer widths
// (in 64, hidden 128, 16 classes: Linear-GELU-Linear-GELU-Linear).
int64_t lessonGradBytes()
{
    const int64_t in = 64, hidden = 128, classes = 16;
    const int64_t params = (in * hidden + hidden) + (hidden * hidden + hidden) + (hidden * classes + classes);
    return params * int64_t(sizeof(float));
}

size_t countLines(const std::string &text) { return size_t(std::count(text.begin(), text.end(), '\n')); }
bool startsWith(const std::string &text, const std::string &prefix) { return text.rfind(prefix, 0) == 0; }

std::vector<std::string> nonEmptyLines(const std::string &text)
{
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
        if (!line.empty())
            out.push_back(line);
    return out;
}

// The names directly inside `dir`, sorted.
std::vector<std::string> entries(const fs::path &dir)
{
    std::vector<std::string> names;
    for (const auto &e : fs::directory_iterator(dir))
        names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}

json outJson(const ProcessResult &r)
{
    const json j = json::parse(r.out, nullptr, /*allow_exceptions=*/false);
    return j.is_object() ? j : json::object();
}

// A socket listening on 127.0.0.1 (port 0: any free one); closed with the object.
class Listener {
public:
    Listener()
    {
        m_fd = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in sa{};
        sa.sin_family = AF_INET;
        sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t len = sizeof sa;
        if (m_fd < 0 || ::bind(m_fd, reinterpret_cast<sockaddr *>(&sa), len) != 0 || ::listen(m_fd, 4) != 0 ||
            ::getsockname(m_fd, reinterpret_cast<sockaddr *>(&sa), &len) != 0)
            throw std::runtime_error("cannot listen on 127.0.0.1");
        m_port = ntohs(sa.sin_port);
    }
    ~Listener() { ::close(m_fd); }
    int port() const { return m_port; }
    int fd() const { return m_fd; }

private:
    int m_fd = -1;
    int m_port = 0;
};

std::string freePort() { return std::to_string(Listener().port()); }

// Another service on a port: accepts every connection and answers it with `reply` (before the
// client says anything when `first` is set, else after its first bytes).
class ForeignService {
public:
    ForeignService(std::string reply, bool first) : m_reply(std::move(reply)), m_first(first)
    {
        m_thread = std::thread([this] {
            for (;;) {
                const int c = ::accept(m_listener.fd(), nullptr, nullptr);
                if (c < 0 || m_stop)
                    return;
                char buf[256];
                if (!m_first)
                    (void)::recv(c, buf, sizeof buf, 0);
                for (int i = 0; i < 64; ++i)
                    (void)::send(c, m_reply.data(), m_reply.size(), MSG_NOSIGNAL);
                m_open.push_back(c); // kept open: the client reads what it was sent, then waits
            }
        });
    }
    ~ForeignService()
    {
        m_stop = true;
        ::shutdown(m_listener.fd(), SHUT_RDWR);
        m_thread.join();
        for (int c : m_open)
            ::close(c);
    }
    int port() const { return m_listener.port(); }

private:
    Listener m_listener;
    std::string m_reply;
    bool m_first;
    std::atomic<bool> m_stop{false};
    std::vector<int> m_open;
    std::thread m_thread;
};

Env rankEnv(int rank, const std::string &port)
{
    return {{"RANK", std::to_string(rank)}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "127.0.0.1"}, {"MASTER_PORT", port}};
}

// Two ranks started by hand (as torchrun would), rank r with args[r].
std::pair<ProcessResult, ProcessResult> twoRanks(const Args &args0, const Args &args1, const fs::path &workDir)
{
    const std::string port = freePort();
    ProcessResult r1;
    std::thread t([&] { r1 = runCli(args1, workDir, rankEnv(1, port)); });
    const ProcessResult r0 = runCli(args0, workDir, rankEnv(0, port));
    t.join();
    return {r0, r1};
}

// What a rank said after the line where a rank other than 0, started by hand, says where it
// waits for rank 0: its verdict.
std::string verdictOf(const std::string &err)
{
    static const std::regex joining(
        "^accumlab-cli: rank \\d+ of \\d+: joining the rendezvous at \\S+; waiting for rank 0 for up to [^\\n]*\\n");
    return std::regex_replace(err, joining, "", std::regex_constants::format_first_only);
}

template <class Row>
class CliRanks : public testing::TestWithParam<Row> {
protected:
    void SetUp() override { ASSERT_NO_FATAL_FAILURE(accumlab::test::requireCli()); }
};

class CliDistributed : public testing::Test {
protected:
    void SetUp() override { ASSERT_NO_FATAL_FAILURE(accumlab::test::requireCli()); }
};

// ---- Equivalence and sync counts ----------------------------------------------------------------

struct EquivalenceRow {
    const char *name;
    Args args;
    int exitCode;
    int microBatch;
    std::string stderrMentions;
};
using CliEquivalenceAcrossRanks = CliRanks<EquivalenceRow>;

TEST_P(CliEquivalenceAcrossRanks, HoldsOrSaysWhy)
{
    const EquivalenceRow &row = GetParam();
    const ProcessResult r = runCli(Args{"equivalence", "--dist-timeout", "20"} + row.args);
    ASSERT_EQ(r.exitCode, row.exitCode) << r.err;
    json o;
    ASSERT_NO_THROW(o = json::parse(r.out)) << r.out; // rank 0 alone prints: one object
    const json &config = o.at("config");
    const auto world = std::find(row.args.begin(), row.args.end(), "--world-size");
    EXPECT_EQ(config.at("world_size").get<int>(), std::stoi(*(world + 1)));
    EXPECT_EQ(config.at("micro_batch").get<int>(), row.microBatch);
    EXPECT_EQ(config.at("big_batch").get<int>(), 16);
    EXPECT_EQ(o.at("holds").get<bool>(), row.exitCode == 0);
    if (row.exitCode == 0) {
        EXPECT_LT(o.at("max_grad_diff").get<double>(), 1e-4);
        EXPECT_LT(o.at("max_param_diff").get<double>(), 1e-4);
    }
    if (!row.stderrMentions.empty())
        EXPECT_TRUE(contains(r.err, row.stderrMentions)) << r.err;
    else
        EXPECT_EQ(r.err, "");
}

INSTANTIATE_TEST_SUITE_P(
    Rows, CliEquivalenceAcrossRanks,
    testing::Values(EquivalenceRow{"world 2 x accum 2 x micro 4", {"--world-size", "2", "--big-batch", "16", "--accum-steps", "2"}, 0, 4, ""},
                    EquivalenceRow{"world 4 x accum 2 x micro 2 float64", {"--world-size", "4", "--accum-steps", "2", "--dtype", "float64"}, 0, 2, ""},
                    EquivalenceRow{"world 2 adamw", {"--world-size", "2", "--accum-steps", "2", "--optimizer", "adamw"}, 0, 4, ""},
                    // Undivided loss over 2 micro-batches per rank: the all-reduced mean is 2x the full batch's.
                    EquivalenceRow{"world 2 no division", {"--world-size", "2", "--accum-steps", "2", "--scaling", "none"}, 1, 4, "2.00×"}),
    accumlab::test::ByName());

struct SyncRow {
    const char *name;
    int world;
    bool noSync;
};
using CliSyncCounts = CliRanks<SyncRow>;

TEST_P(CliSyncCounts, MatchTheCollectives)
{
    const SyncRow &row = GetParam();
    TempDir dir;
    const ProcessResult r = runCli(fastSweep() + Args{"--world-size", std::to_string(row.world), "--no-sync",
                                                      row.noSync ? "on" : "off", "--out-dir", (dir / "out").string()});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    const auto count = [&](const std::string &what) {
        size_t n = 0;
        for (size_t at = r.out.find(what); at != std::string::npos; at = r.out.find(what, at + what.size()))
            ++n;
        return n;
    };
    EXPECT_EQ(count("equivalence holds"), 1u); // only rank 0 prints
    EXPECT_EQ(count("wrote "), 2u);
    const CurveFile file = parseCurveJson(accumlab::test::readFile(dir / "out" / "accum-curve.json"));
    ASSERT_EQ(file.points.size(), size_t(3));
    EXPECT_EQ(file.raw.at("equivalence").at("config").at("world_size").get<int>(), row.world);
    EXPECT_TRUE(file.raw.at("equivalence").at("holds").get<bool>());
    for (const SweepPoint &p : file.points) {
        EXPECT_EQ(p.worldSize, row.world);
        EXPECT_EQ(p.effectiveBatch, 4 * p.accumSteps * row.world);
        EXPECT_EQ(p.steps, 3);
        EXPECT_EQ(p.syncCalls, row.noSync ? p.steps : p.steps * p.accumSteps);
        if (row.world == 1) {
            EXPECT_EQ(p.allreduceCalls, 0);
            EXPECT_EQ(p.allreduceBytes, 0);
            EXPECT_EQ(p.allreduceMs, 0.0);
            continue;
        }
        EXPECT_EQ(p.allreduceCalls, p.syncCalls);
        EXPECT_EQ(p.allreduceBytes, p.allreduceCalls * lessonGradBytes());
        EXPECT_GT(p.allreduceMs, 0.0);
        EXPECT_LT(p.allreduceMs, p.wallS * 1000.0);
    }
}

INSTANTIATE_TEST_SUITE_P(Rows, CliSyncCounts,
                         testing::Values(SyncRow{"world 2, no-sync on", 2, true}, SyncRow{"world 2, no-sync off", 2, false},
                                         SyncRow{"world 3, no-sync off", 3, false},
                                         SyncRow{"world 1 issues no collective", 1, false}),
                         accumlab::test::ByName());

// ---- Faults -------------------------------------------------------------------------------------

struct FaultRow {
    const char *name;
    std::string faultRank;
    std::string mode;
    std::string mentions;
};
using CliFaultStopsTheRun = CliRanks<FaultRow>;

TEST_P(CliFaultStopsTheRun, InBoundedTime)
{
    const FaultRow &row = GetParam();
    TempDir dir;
    // An earlier run's export must survive a failed run unchanged.
    fs::create_directories(dir / "out");
    const std::string earlier = R"({"schema": "accum-curve.v1", "points": []})";
    accumlab::test::writeFile(dir / "out" / "accum-curve.json", earlier);

    const ProcessResult r = runCli(fastSweep("1,2", "20") + Args{"--world-size", "2", "--dist-timeout",
                                                                 std::to_string(kDistTimeoutS), "--out-dir",
                                                                 (dir / "out").string()},
                                   {}, {{"ACCUMLAB_FAULT_RANK", row.faultRank}, {"ACCUMLAB_FAULT_AFTER", "10"},
                                        {"ACCUMLAB_FAULT_MODE", row.mode}});
    EXPECT_EQ(r.exitCode, 3);
    EXPECT_TRUE(contains(r.err, row.mentions)) << r.err;
    EXPECT_LT(r.ms, kFaultBoundMs);
    for (const std::string &line : nonEmptyLines(r.err))
        EXPECT_TRUE(startsWith(line, "accumlab-cli: error: ")) << line;
    EXPECT_EQ(accumlab::test::readFile(dir / "out" / "accum-curve.json"), earlier);
    EXPECT_EQ(entries(dir / "out"), std::vector<std::string>{"accum-curve.json"}); // no temp files left
}

INSTANTIATE_TEST_SUITE_P(
    Rows, CliFaultStopsTheRun,
    testing::Values(FaultRow{"rank 1 killed mid-run", "1", "kill", "rank 1 was killed by signal 9"},
                    FaultRow{"rank 0 (the store) killed", "0", "kill", "rank 0 was killed by signal 9"},
                    FaultRow{"rank 1 hangs", "1", "hang",
                             "no answer from a peer within " + std::to_string(kDistTimeoutS) + " s"}),
    accumlab::test::ByName());

TEST_F(CliDistributed, BusyPort)
{
    const Listener squatter;
    const std::string port = std::to_string(squatter.port());
    TempDir dir;
    // The launcher refuses before starting a rank.
    const ProcessResult launched = runCli(fastSweep() + Args{"--world-size", "2", "--master-port", port}, dir.path());
    EXPECT_EQ(launched.exitCode, 2);
    EXPECT_EQ(countLines(launched.err), 1u) << launched.err;
    EXPECT_TRUE(contains(launched.err, "master port " + port + " on 127.0.0.1 is busy")) << launched.err;
    EXPECT_EQ(dir.entries(), std::vector<std::string>{});
    // Rank 0 started by hand on the busy port cannot serve the store.
    const ProcessResult byHand = runCli({"equivalence", "--dist-timeout", std::to_string(kDistTimeoutS)}, {},
                                        {{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "127.0.0.1"}, {"MASTER_PORT", port}});
    EXPECT_EQ(byHand.exitCode, 3);
    EXPECT_TRUE(contains(byHand.err, "the port is busy")) << byHand.err;
    EXPECT_EQ(byHand.out, "");
}

struct WorldRow {
    const char *name;
    Args args;
    Env env;
    std::string mentions;
};
using CliWrongWorldSize = CliRanks<WorldRow>;

TEST_P(CliWrongWorldSize, IsBadInput)
{
    const WorldRow &row = GetParam();
    TempDir dir;
    const ProcessResult r = runCli(row.args, dir.path(), row.env);
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(countLines(verdictOf(r.err)), 1u) << r.err;
    EXPECT_TRUE(startsWith(verdictOf(r.err), "accumlab-cli: error: ")) << r.err;
    EXPECT_TRUE(contains(r.err, row.mentions)) << r.err;
    EXPECT_EQ(dir.entries(), std::vector<std::string>{});
}

INSTANTIATE_TEST_SUITE_P(
    Rows, CliWrongWorldSize,
    testing::Values(WorldRow{"--world-size 0", {"--world-size", "0"}, {}, "between 1 and 64"},
                    WorldRow{"--world-size 65", {"--world-size", "65"}, {}, "between 1 and 64"},
                    WorldRow{"equivalence --world-size 65", {"equivalence", "--world-size", "65"}, {}, "between 1 and 64"},
                    WorldRow{"batch does not split over 3 ranks", {"equivalence", "--world-size", "3"}, {}, "x 3 ranks"},
                    WorldRow{"RANK >= WORLD_SIZE", {}, {{"RANK", "2"}, {"WORLD_SIZE", "2"}},
                             "rank 2 is outside the world of 2 ranks"},
                    WorldRow{"negative RANK", {}, {{"RANK", "-1"}, {"WORLD_SIZE", "2"}}, "outside"},
                    WorldRow{"WORLD_SIZE 0", {}, {{"RANK", "0"}, {"WORLD_SIZE", "0"}}, "between 1 and 64"},
                    WorldRow{"WORLD_SIZE not a number", {}, {{"RANK", "0"}, {"WORLD_SIZE", "two"}},
                             "WORLD_SIZE='two' is not a whole number"},
                    WorldRow{"RANK without WORLD_SIZE", {}, {{"RANK", "0"}}, "WORLD_SIZE is not"},
                    WorldRow{"--world-size disagrees with WORLD_SIZE", {"--world-size", "3"}, {{"RANK", "0"}, {"WORLD_SIZE", "2"}},
                             "disagrees"},
                    WorldRow{"bad MASTER_PORT", {}, {{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"MASTER_PORT", "99999"}}, "master port"}),
    accumlab::test::ByName());

struct PeerRow {
    const char *name;
    std::string rank;
};
using CliMissingPeer = CliRanks<PeerRow>;

TEST_P(CliMissingPeer, WaitsTheTimeoutAndNoLonger)
{
    const std::string rank = GetParam().rank;
    TempDir dir;
    // One bound for the whole rendezvous: the rank waits the timeout (rank 1 keeps knocking
    // for rank 0 all along) and not much longer, whatever stage it waits in.
    constexpr int kTimeoutS = 5;
    const ProcessResult r = runCli({"equivalence", "--dist-timeout", std::to_string(kTimeoutS)}, dir.path(),
                                   rankEnv(std::stoi(rank), freePort()));
    EXPECT_EQ(r.exitCode, 3);
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(countLines(verdictOf(r.err)), 1u) << r.err;
    EXPECT_TRUE(contains(r.err, "rank " + rank + " of 2: the 2 ranks did not all meet")) << r.err;
    EXPECT_TRUE(contains(r.err, "within " + std::to_string(kTimeoutS) + " s")) << r.err;
    EXPECT_TRUE(r.ms >= kTimeoutS * 1000 && r.ms < kTimeoutS * 1000 + 4000) << r.ms;
    EXPECT_EQ(dir.entries(), std::vector<std::string>{});
}

INSTANTIATE_TEST_SUITE_P(Rows, CliMissingPeer,
                         testing::Values(PeerRow{"rank 0 waits for rank 1", "0"}, PeerRow{"rank 1 finds no rank 0", "1"}),
                         accumlab::test::ByName());

// SIGSTOP leaves a rank alive and silent: at the rendezvous (rank 0 before or after it
// serves the store) and mid-run. Every wait is bounded, and the launcher blames the
// stopped rank, not the healthy one that gave up on it.
struct StopRow {
    const char *name;
    std::string faultRank;
    std::string after;
};
using CliStoppedRank = CliRanks<StopRow>;

TEST_P(CliStoppedRank, IsBlamed)
{
    const StopRow &row = GetParam();
    TempDir dir;
    const ProcessResult r = runCli(fastSweep("1,2", "20") + Args{"--world-size", "2", "--dist-timeout",
                                                                 std::to_string(kDistTimeoutS), "--out-dir",
                                                                 (dir / "out").string()},
                                   {}, {{"ACCUMLAB_FAULT_RANK", row.faultRank}, {"ACCUMLAB_FAULT_AFTER", row.after},
                                        {"ACCUMLAB_FAULT_MODE", "stop"}});
    EXPECT_EQ(r.exitCode, 3);
    EXPECT_TRUE(contains(r.err, "rank " + row.faultRank + " stopped answering (it was stopped by a signal")) << r.err;
    EXPECT_LT(r.ms, kFaultBoundMs);
    EXPECT_FALSE(fs::exists(dir / "out" / "accum-curve.json")) << "a failed run wrote its curve";
    for (const std::string &line : nonEmptyLines(r.err))
        EXPECT_TRUE(startsWith(line, "accumlab-cli: error: ")) << line;
}

INSTANTIATE_TEST_SUITE_P(Rows, CliStoppedRank,
                         testing::Values(StopRow{"rank 0 stopped before serving the store", "0", "-1"},
                                         StopRow{"rank 0 stopped while serving the store", "0", "-2"},
                                         StopRow{"rank 1 stopped at the rendezvous", "1", "-2"},
                                         StopRow{"rank 0 stopped mid-run", "0", "5"},
                                         StopRow{"rank 1 stopped mid-run", "1", "5"}),
                         accumlab::test::ByName());

// A port that accepts connections (the kernel's backlog) but never answers: rank 1 gives up
// within the timeout and says so, as it must when rank 0 itself is stopped.
TEST_F(CliDistributed, SilentStore)
{
    const Listener silent;
    TempDir dir;
    const ProcessResult r = runCli({"equivalence", "--dist-timeout", std::to_string(kDistTimeoutS)}, dir.path(),
                                   rankEnv(1, std::to_string(silent.port())));
    EXPECT_EQ(r.exitCode, 3);
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(countLines(verdictOf(r.err)), 1u) << r.err;
    EXPECT_TRUE(contains(r.err, "within " + std::to_string(kDistTimeoutS) + " s")) << r.err;
    EXPECT_TRUE(contains(r.err, "nothing answered the rendezvous")) << r.err;
    EXPECT_TRUE(r.ms >= kDistTimeoutS * 1000 && r.ms < kDistTimeoutS * 1000 + 4000) << r.ms;
    EXPECT_EQ(dir.entries(), std::vector<std::string>{});
}

// Another service on the rendezvous port: a clear sentence and exit 3, never
// `terminate called` (an exception thrown on one of LibTorch's threads), never a hang.
struct ServiceRow {
    const char *name;
    std::string reply;
    bool first;
};
using CliForeignService = CliRanks<ServiceRow>;

TEST_P(CliForeignService, IsNamedInASentence)
{
    const ServiceRow &row = GetParam();
#if defined(__SANITIZE_ADDRESS__)
    // LibTorch's client reads the banner as a length and asks for that many bytes: a plain
    // build throws std::bad_alloc (turned into a sentence by the terminate handler), while
    // AddressSanitizer's allocator ends the process on the request before anything throws.
    if (startsWith(row.reply, "SSH"))
        GTEST_SKIP() << "under AddressSanitizer the oversized allocation aborts instead of throwing";
#endif
    const ForeignService service(row.reply, row.first);
    TempDir dir;
    const ProcessResult r = runCli({"equivalence", "--dist-timeout", std::to_string(kDistTimeoutS)}, dir.path(),
                                   rankEnv(1, std::to_string(service.port())));
    EXPECT_EQ(r.exitCode, 3);
    EXPECT_EQ(r.out, "");
    EXPECT_FALSE(contains(r.err, "terminate called")) << r.err;
    EXPECT_EQ(countLines(verdictOf(r.err)), 1u) << r.err;
    EXPECT_TRUE(startsWith(verdictOf(r.err), "accumlab-cli: error: rank 1 of 2: ")) << r.err;
    EXPECT_TRUE(contains(r.err, "another program") || contains(r.err, "nothing answered")) << r.err;
    EXPECT_LT(r.ms, kDistTimeoutS * 1000 + 4000);
    EXPECT_EQ(dir.entries(), std::vector<std::string>{});
}

INSTANTIATE_TEST_SUITE_P(
    Rows, CliForeignService,
    testing::Values(ServiceRow{"greets first (ssh)", "SSH-2.0-OpenSSH_9.2\r\n", true},
                    ServiceRow{"answers a request (http)", "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n", false},
                    ServiceRow{"answers 0xff bytes", std::string(512, '\xff'), false},
                    ServiceRow{"greets with zeros", std::string(512, '\0'), true}),
    accumlab::test::ByName());

// Ranks started by hand with one setting changed on rank 1: both refuse at the rendezvous
// with exit 2, naming the option and both values, before any collective; nothing is
// written. The unchanged row is the control: the same two ranks agree and run.
struct MismatchRow {
    std::string name;
    Args common;
    Args rank1;
    std::string option; // "" when the ranks agree
};
using CliMismatchedRanks = CliRanks<MismatchRow>;

TEST_P(CliMismatchedRanks, RefuseAtTheRendezvous)
{
    const MismatchRow &row = GetParam();
    TempDir dir;
    const Args timeout{"--dist-timeout", "20"};
    const bool eq = row.common.front() == "equivalence" || row.common.front() == "train"; // no files to write
    const Args out = eq ? Args{} : Args{"--out-dir", (dir / "out").string()};
    Args other = row.common; // rank 1: the same options with one of them changed or added
    const auto at = row.rank1.empty() ? other.end() : std::find(other.begin(), other.end(), row.rank1[0]);
    if (at != other.end() && row.rank1.size() == 2)
        *(at + 1) = row.rank1[1];
    else
        other = other + row.rank1;
    const auto [r0, r1] = twoRanks(row.common + timeout + out, other + timeout + out, dir.path());
    if (row.option.empty()) {
        EXPECT_EQ(r0.exitCode, 0) << r0.err;
        EXPECT_EQ(r1.exitCode, 0) << r1.err;
        return;
    }
    for (const ProcessResult &r : {r0, r1}) {
        EXPECT_EQ(r.exitCode, 2);
        EXPECT_EQ(r.out, "");
        EXPECT_EQ(countLines(verdictOf(r.err)), 1u) << r.err;
        EXPECT_TRUE(contains(r.err, "the ranks were started with different settings: " + row.option + " is ")) << r.err;
        EXPECT_TRUE(contains(r.err, " on rank 1 but ")) << r.err;
    }
    // One sentence on both.
    const auto sentence = [](const std::string &err) {
        const size_t at = err.find(": the ranks");
        return at == std::string::npos ? std::string() : err.substr(at);
    };
    EXPECT_EQ(sentence(r0.err), sentence(r1.err));
    EXPECT_EQ(dir.entries(), std::vector<std::string>{});
}

std::vector<MismatchRow> mismatchRows()
{
    const Args sweep = fastSweep("1,2", "2");
    const Args scaled = sweep + Args{"--dtype", "float16", "--loss-scaling"};
    const Args train{"train", "--num-steps", "2", "--dtype", "float16"};
    const Args eq{"equivalence", "--accum-steps", "2"};
    return {
        {"same settings", sweep, {}, ""},
        {"--seed", sweep, {"--seed", "5"}, "--seed"},
        {"--hidden", sweep, {"--hidden", "64"}, "--hidden"},
        {"--model", sweep, {"--model", "fixture"}, "--model"},
        {"--dtype", sweep, {"--dtype", "float64"}, "--dtype"},
        {"--accum-grid", sweep, {"--accum-grid", "1,4"}, "--accum-grid"},
        {"--micro-batch", sweep, {"--micro-batch", "8"}, "--micro-batch"},
        {"--lr", sweep, {"--lr", "0.1"}, "--lr"},
        {"--optimizer", sweep, {"--optimizer", "adamw"}, "--optimizer"},
        {"--no-sync", sweep, {"--no-sync", "off"}, "--no-sync"},
        {"--num-steps", sweep, {"--num-steps", "3"}, "--num-steps"},
        {"--warmup-steps", sweep, {"--warmup-steps", "2"}, "--warmup-steps"},
        {"--repeats", sweep, {"--repeats", "2"}, "--repeats"},
        // The sweep's settings come from core's record of a sweep: a new one reaches the check.
        {"--equal-work", sweep, {"--equal-work"}, "--equal-work"},
        {"--scaling", sweep, {"--scaling", "none"}, "--scaling"},
        {"--labels", sweep, {"--labels", "random"}, "--labels"},
        {"--step-every-micro", sweep, {"--step-every-micro"}, "--step-every-micro"},
        // The loss scaler's settings: the ranks took them from a hand-written list that left
        // them out, and a rank without the scaler skipped windows the others stepped.
        {"--loss-scaling", sweep + Args{"--dtype", "float16"}, {"--loss-scaling"}, "--loss-scaling"},
        {"--scaler-growth-interval", scaled, {"--scaler-growth-interval", "5"}, "--scaler-growth-interval"},
        {"--scaler-bug", scaled, {"--scaler-bug", "update-every-micro"}, "--scaler-bug"},
        {"train, same settings", train, {}, ""},
        {"train --loss-scaling", train, {"--loss-scaling"}, "--loss-scaling"},
        {"train --scaler-growth-interval", train + Args{"--loss-scaling"}, {"--scaler-growth-interval", "5"},
         "--scaler-growth-interval"},
        {"train --lr", train, {"--lr", "0.2"}, "--lr"},
        // The plan's settings come from core's record of a plan (toJson(TrainingPlan)).
        {"train --num-steps", train, {"--num-steps", "3"}, "--num-steps"},
        {"equivalence, same settings", eq, {}, ""},
        {"equivalence --seed", eq, {"--seed", "8"}, "--seed"},
        {"equivalence --big-batch", eq, {"--big-batch", "32"}, "--big-batch"},
        {"equivalence --lr", eq, {"--lr", "0.2"}, "--lr"},
        {"equivalence --dtype", eq, {"--dtype", "bfloat16"}, "--dtype"},
        {"equivalence --compare-split", eq, {"--compare-split", "4x2"}, "--compare-split"},
    };
}

INSTANTIATE_TEST_SUITE_P(Rows, CliMismatchedRanks, testing::ValuesIn(mismatchRows()), accumlab::test::ByName());

// The main job on one rank and the equivalence check on the other.
TEST_F(CliDistributed, MismatchedCommand)
{
    TempDir dir;
    const auto [r0, r1] = twoRanks({"--no-write", "--dist-timeout", "20"}, {"equivalence", "--dist-timeout", "20"}, dir.path());
    EXPECT_EQ(r0.exitCode, 2);
    EXPECT_EQ(r1.exitCode, 2);
    EXPECT_TRUE(contains(r0.err, "different settings: ")) << r0.err;
}

// GLOO_SOCKET_IFNAME names the interface Gloo uses: a name this host lacks is bad input,
// said as such before anything connects; `lo` is a real one and works.
struct InterfaceRow {
    const char *name;
    std::string ifname;
    int exitCode;
};
using CliSocketInterface = CliRanks<InterfaceRow>;

TEST_P(CliSocketInterface, IsCheckedBeforeAnythingConnects)
{
    const InterfaceRow &row = GetParam();
    TempDir dir;
    const ProcessResult r = runCli({"equivalence", "--world-size", "2", "--dist-timeout", "20"}, dir.path(),
                                   {{"GLOO_SOCKET_IFNAME", row.ifname}});
    ASSERT_EQ(r.exitCode, row.exitCode) << r.err;
    if (row.exitCode == 0)
        return;
    EXPECT_TRUE(contains(r.err, "GLOO_SOCKET_IFNAME='" + row.ifname + "' names no network interface of this host")) << r.err;
    EXPECT_EQ(r.out, "");
}

INSTANTIATE_TEST_SUITE_P(Rows, CliSocketInterface,
                         testing::Values(InterfaceRow{"lo", "lo", 0}, InterfaceRow{"no such interface", "nosuch0", 2},
                                         InterfaceRow{"one of a list is bogus", "lo,nosuch0", 2},
                                         InterfaceRow{"too long for an interface name", std::string(40, 'x'), 2}),
                         accumlab::test::ByName());

// Two launchers given one --master-port at once: one runs to the end; the other ends with
// 2 (the port was busy when it looked) or 3 (taken between its look and rank 0's bind, or
// its ranks could not meet), in sentences, and its ranks never join the first run (each
// launch has its own keys in the store).
TEST_F(CliDistributed, RacingLaunchers)
{
    const std::string port = freePort();
    TempDir a, b;
    ProcessResult ra;
    // Long enough (about half a second of steps) that the two runs overlap: with a few
    // steps one launcher could finish before the other looked, and both would succeed.
    const Args args = fastSweep("1,2", "1500") + Args{"--world-size", "2", "--master-port", port, "--dist-timeout", "10"};
    std::thread t([&] { ra = runCli(args + Args{"--out-dir", (a / "out").string()}); });
    const ProcessResult rb = runCli(args + Args{"--out-dir", (b / "out").string()});
    t.join();
    ASSERT_NE(ra.exitCode == 0, rb.exitCode == 0) << ra.err << rb.err;
    const ProcessResult &lost = ra.exitCode == 0 ? rb : ra;
    EXPECT_TRUE(lost.exitCode == 2 || lost.exitCode == 3) << lost.err;
    for (const std::string &line : nonEmptyLines(lost.err))
        EXPECT_TRUE(startsWith(line, "accumlab-cli: error: ")) << line;
    const fs::path won = (ra.exitCode == 0 ? a : b) / "out";
    EXPECT_EQ(parseCurveJson(accumlab::test::readFile(won / "accum-curve.json")).points.size(), size_t(2));
}

// A rank started by hand with torchrun's variables, beside one started by the CLI's own
// launcher logic: two processes started separately meet and agree.
TEST_F(CliDistributed, RanksStartedByHand)
{
    const std::string port = freePort();
    accumlab::test::ChildProcess rank1(accumlab::test::cliPath(), {"equivalence", "--accum-steps", "2", "--dist-timeout", "20"},
                                       accumlab::test::cliOptions({}, rankEnv(1, port)));
    // Rank 1 says when it reaches the rendezvous; rank 0 (half a second to load LibTorch)
    // starts after that, so rank 1 knocks on a port nobody serves yet.
    const std::string said = "rank 1 of 2: joining the rendezvous at 127.0.0.1:" + port + "; waiting for rank 0 for up to 20 s";
    EXPECT_TRUE(rank1.waitForStderr(said)) << rank1.wait().err;
    const ProcessResult rank0 = runCli({"equivalence", "--accum-steps", "2", "--dist-timeout", "20"}, {}, rankEnv(0, port));
    const ProcessResult r1 = rank1.wait();
    EXPECT_EQ(rank0.exitCode, 0) << rank0.err;
    EXPECT_EQ(r1.exitCode, 0);
    EXPECT_EQ(r1.out, ""); // quiet
    const json o = outJson(rank0);
    EXPECT_TRUE(o.value("holds", false));
    EXPECT_EQ(o.value("config", json::object()).value("world_size", 0), 2);
}

} // namespace
