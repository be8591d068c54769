// Every refusal of accumlab-cli's input, one row each, in this process: cli::run() with the
// program's arguments, its std::cout and std::cerr captured, in a fresh folder. A refusal is
// exit 2, one line on stderr, nothing on stdout, nothing written. tst_cli checks the same path
// through the program itself for one row of each kind (the parser, core's config, the exports,
// a subcommand, the launcher); starting a process per row cost about 0.5 s a row, 2 s under
// AddressSanitizer.
#include "app/cli/cli.h"

#include "cli_run.h"
#include "core/loop_code.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <iostream>
#include <sstream>
#include <string>
#include <vector>

using accumlab::test::makeBlocker;
using accumlab::test::refusalProblem;

namespace {

struct Ran {
    int exitCode = -1;
    QString out;
    QString err;
};

// cli::run(args) in `workDir`, with the standard streams captured.
Ran runInProcess(const QStringList &args, const QString &workDir)
{
    std::vector<std::string> words{"accumlab-cli"};
    for (const QString &a : args)
        words.push_back(a.toStdString());
    std::vector<char *> argv;
    for (std::string &w : words)
        argv.push_back(w.data());
    argv.push_back(nullptr);

    const QString before = QDir::currentPath();
    QDir::setCurrent(workDir);
    std::ostringstream out, err;
    std::streambuf *const coutBuf = std::cout.rdbuf(out.rdbuf());
    std::streambuf *const cerrBuf = std::cerr.rdbuf(err.rdbuf());
    Ran r;
    r.exitCode = accumlab::cli::run(int(words.size()), argv.data());
    std::cout.rdbuf(coutBuf);
    std::cerr.rdbuf(cerrBuf);
    QDir::setCurrent(before);
    r.out = QString::fromStdString(out.str());
    r.err = QString::fromStdString(err.str());
    return r;
}

} // namespace

class TestCliRefusals : public QObject {
    Q_OBJECT
private slots:
    void refused_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::newRow("unknown flag") << QStringList{"--frobnicate"};
        QTest::newRow("zero micro") << QStringList{"--micro-batch", "0"};
        QTest::newRow("negative micro") << QStringList{"--micro-batch", "-4"};
        QTest::newRow("huge micro") << QStringList{"--micro-batch", "1000000000"};
        QTest::newRow("non-numeric micro") << QStringList{"--micro-batch", "four"};
        QTest::newRow("bad grid") << QStringList{"--accum-grid", "1,x,4"};
        // --settings: the sweep's record instead of its options, never beside them.
        QTest::newRow("settings beside an option") << QStringList{"--settings", "sweep-settings.json", "--lr", "0.1"};
        QTest::newRow("settings beside the world size") << QStringList{"--settings", "sweep-settings.json", "--world-size", "2"};
        QTest::newRow("settings unreadable") << QStringList{"--settings", "/nonexistent/sweep-settings.json"};
        QTest::newRow("empty grid entry") << QStringList{"--accum-grid", "1,,4"};
        QTest::newRow("zero steps") << QStringList{"--num-steps", "0"};
        QTest::newRow("huge accum") << QStringList{"--accum-grid", "1000000"};
        QTest::newRow("unknown dtype") << QStringList{"--dtype", "float8"};
        QTest::newRow("scaler bug without the scaler") << QStringList{"--scaler-bug", "log-scaled-loss"};
        QTest::newRow("unknown scaler bug") << QStringList{"--loss-scaling", "--scaler-bug", "nope"};
        QTest::newRow("unknown optimizer") << QStringList{"--optimizer", "lion"};
        QTest::newRow("unknown device") << QStringList{"--device", "tpu"};
        QTest::newRow("bad no-sync") << QStringList{"--no-sync", "maybe"};
        QTest::newRow("bad lang") << QStringList{"--lang", "de"};
        QTest::newRow("zero hidden") << QStringList{"--hidden", "-3"};
        QTest::newRow("oom demo, budget zero") << QStringList{"oom-demo", "--budget", "0"};
        QTest::newRow("oom demo, negative budget") << QStringList{"oom-demo", "--budget", "-5"};
        QTest::newRow("oom demo, budget under the weights") << QStringList{"oom-demo", "--budget", "1000"};
        QTest::newRow("oom demo, budget beyond the machine") << QStringList{"oom-demo", "--budget", "1000000000000000000"};
        QTest::newRow("oom demo, fails after a non-divisor") << QStringList{"oom-demo", "--fails-after", "48"};
        QTest::newRow("oom demo, micro-batch is the whole batch") << QStringList{"oom-demo", "--fails-after", "512"};
        QTest::newRow("tradeoff, fails after 0") << QStringList{"tradeoff", "--fails-after", "0"}; // meant no budget
        QTest::newRow("oom demo, fails after 0") << QStringList{"oom-demo", "--fails-after", "0"};
        QTest::newRow("tradeoff, effective over ranks") << QStringList{"tradeoff", "--effective-batch", "513", "--world-size", "2"};
        QTest::newRow("tradeoff, grid entry not dividing") << QStringList{"tradeoff", "--micro-grid", "3,4"};
        QTest::newRow("tradeoff, out-dir is a file") << QStringList{"tradeoff", "--out-dir", "blocker"};
        QTest::newRow("finder, budget zero") << QStringList{"find-micro-batch", "--budget", "0"};
        QTest::newRow("out-dir is a file") << QStringList{"--out-dir", "blocker"};
        QTest::newRow("unwritable out-dir") << QStringList{"--out-dir", "/proc/accumlab"};
        QTest::newRow("split does not divide") << QStringList{"equivalence", "--accum-steps", "3"};
        QTest::newRow("compare split does not cover") << QStringList{"equivalence", "--compare-split", "3x5"};
        QTest::newRow("bad split") << QStringList{"equivalence", "--compare-split", "4by4"};
        QTest::newRow("zero big batch") << QStringList{"equivalence", "--big-batch", "0"};
        // Numbers: zero, negative, non-numeric, huge, overflowing.
        QTest::newRow("zero grid entry") << QStringList{"--accum-grid", "1,0,4"};
        QTest::newRow("negative grid entry") << QStringList{"--accum-grid=1,-2"};
        QTest::newRow("huge micro, small grid") << QStringList{"--micro-batch", "1000000000", "--accum-grid", "1"};
        QTest::newRow("huge accum 10^6 with micro 1") << QStringList{"--micro-batch", "1", "--accum-grid", "1000000"};
        QTest::newRow("huge effective batch") << QStringList{"--micro-batch", "65536", "--accum-grid", "4096"};
        QTest::newRow("huge wide window") << QStringList{"--model", "wide", "--micro-batch", "4096", "--accum-grid", "128"};
        QTest::newRow("huge width") << QStringList{"--hidden", "65536"};
        QTest::newRow("huge activations") << QStringList{"--model", "wide", "--micro-batch", "32768", "--accum-grid", "1"};
        QTest::newRow("overflowing micro") << QStringList{"--micro-batch", "99999999999999999999"};
        QTest::newRow("overflowing grid") << QStringList{"--accum-grid", "99999999999999999999"};
        QTest::newRow("zero num-steps") << QStringList{"--num-steps", "0"};
        QTest::newRow("non-numeric num-steps") << QStringList{"--num-steps", "many"};
        QTest::newRow("negative warm-up") << QStringList{"--warmup-steps", "-1"};
        QTest::newRow("negative threads") << QStringList{"--threads", "-1"};
        QTest::newRow("huge threads") << QStringList{"--threads", "100000"};
        QTest::newRow("negative seed") << QStringList{"--seed", "-1"};
        QTest::newRow("zero lr") << QStringList{"--lr", "0"};
        QTest::newRow("negative lr") << QStringList{"--lr", "-0.1"};
        QTest::newRow("non-numeric lr") << QStringList{"--lr", "fast"};
        QTest::newRow("nan lr") << QStringList{"--lr", "nan"};
        QTest::newRow("inf lr") << QStringList{"--lr", "inf"};
        QTest::newRow("huge lr") << QStringList{"--lr", "1e9"};
        QTest::newRow("huge world size") << QStringList{"--world-size", "1000"};
        QTest::newRow("zero world size") << QStringList{"--world-size", "0"};
        // Malformed grids.
        QTest::newRow("empty grid") << QStringList{"--accum-grid", ""};
        QTest::newRow("blank grid") << QStringList{"--accum-grid", " , "};
        QTest::newRow("trailing comma") << QStringList{"--accum-grid", "1,2,"};
        QTest::newRow("semicolons") << QStringList{"--accum-grid", "1;2;4"};
        QTest::newRow("fraction in grid") << QStringList{"--accum-grid", "1,2.5"};
        QTest::newRow("hex in grid") << QStringList{"--accum-grid", "0x10"};
        // Unknown names.
        QTest::newRow("unknown model") << QStringList{"--model", "giant"};
        QTest::newRow("unknown labels") << QStringList{"--labels", "noisy"};
        QTest::newRow("unknown scaling") << QStringList{"--scaling", "half"};
        QTest::newRow("unknown dtype on equivalence") << QStringList{"equivalence", "--dtype", "int8"};
        QTest::newRow("unknown device on equivalence") << QStringList{"equivalence", "--device", "mps"};
        QTest::newRow("unknown subcommand argument") << QStringList{"experiment"};
        // Sizes that do not divide or cover.
        QTest::newRow("big batch 10 into 4") << QStringList{"equivalence", "--big-batch", "10", "--accum-steps", "4"};
        QTest::newRow("zero accum steps") << QStringList{"equivalence", "--accum-steps", "0"};
        QTest::newRow("split 0x16") << QStringList{"equivalence", "--compare-split", "0x16"};
        QTest::newRow("split 4x") << QStringList{"equivalence", "--compare-split", "4x"};
        QTest::newRow("ranks do not divide") << QStringList{"equivalence", "--world-size", "3"};
        // Numbers are decimal, in range, and belong to the command that uses them (each of these
        // ran before: 0x10 as 16, the seed clamped to 2^64-1, inf as a timeout, the rate ignored).
        QTest::newRow("hex micro") << QStringList{"--micro-batch", "0x10"};
        QTest::newRow("hex grid-free option") << QStringList{"equivalence", "--big-batch", "0x10"};
        QTest::newRow("seed beyond 2^64") << QStringList{"--seed", "99999999999999999999"};
        QTest::newRow("negative seed") << QStringList{"--seed", "-1"};
        QTest::newRow("threads in exponent form") << QStringList{"--threads", "1e3"};
        QTest::newRow("threads beyond int") << QStringList{"--threads", "4294967297"};
        QTest::newRow("lr inf") << QStringList{"--lr", "inf"};
        QTest::newRow("lr nan") << QStringList{"--lr", "nan"};
        QTest::newRow("lr hex float") << QStringList{"--lr", "0x1p-3"};
        QTest::newRow("lr overflowing") << QStringList{"--lr", "1e999"};
        QTest::newRow("dist-timeout inf") << QStringList{"--world-size", "2", "--dist-timeout", "inf"};
        // The launcher accepted it, made the out-dir, and the ranks refused it.
        QTest::newRow("dist-timeout 1e300") << QStringList{"--world-size", "2", "--dist-timeout", "1e300"};
        QTest::newRow("main job's lr before equivalence") << QStringList{"--lr", "0.5", "equivalence"};
        QTest::newRow("main job's seed before experiment") << QStringList{"--seed", "3", "experiment", "list"};
        // loop-code: a language the content lacks, a record it cannot make.
        QTest::newRow("loop-code in an unknown language") << QStringList{"loop-code", "--lang", "xx"};
        QTest::newRow("loop-code record of two ranks") << QStringList{"loop-code", "--ranks", "2", "--record", "run.safetensors"};
        QTest::newRow("loop-code record in bfloat16") << QStringList{"loop-code", "--dtype", "bfloat16", "--record", "run.safetensors"};
        QTest::newRow("loop-code record of a scaler's pitfall")
            << QStringList{"loop-code", "--loss-scaling", "--scaler-bug", "update-every-micro", "--record", "run.safetensors"};
        QTest::newRow("loop-code ranks 0") << QStringList{"loop-code", "--ranks", "0"};
        // A settings record that is none: a folder, no name at all (once the default sweep ran).
        QTest::newRow("settings a folder") << QStringList{"--settings", "."};
        QTest::newRow("settings with no name") << QStringList{"--settings", ""};
        QTest::newRow("settings not JSON") << QStringList{"--settings", "blocker"};
        // Output folders that cannot be used.
        QTest::newRow("out-dir under a file") << QStringList{"--out-dir", "blocker/sub"};
        QTest::newRow("empty out-dir") << QStringList{"--out-dir", ""};
        QTest::newRow("read-only file system") << QStringList{"--out-dir", "/sys/accumlab"};
    }

    void refused()
    {
        QFETCH(QStringList, args);
        QTemporaryDir dir;
        QVERIFY(makeBlocker(dir.path()));
        const Ran r = runInProcess(args, dir.path());
        const QString problem = refusalProblem(r.exitCode, r.out, r.err, dir.path());
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
    }

    // A refusal repeats the number it was given, digit for digit: 2^63 - 1 is not rounded
    // through a double into ...808.
    void hugeIntegersReadBackWhole_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::newRow("oom demo") << QStringList{"oom-demo", "--fails-after", "9223372036854775807"};
        QTest::newRow("finder") << QStringList{"find-micro-batch", "--fails-after", "9223372036854775807"};
    }
    void hugeIntegersReadBackWhole()
    {
        QFETCH(QStringList, args);
        QTemporaryDir dir;
        const Ran r = runInProcess(args, dir.path());
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("9223372036854775807"), qPrintable(r.err));
    }

    // The control: the same call runs a valid command (so a refusal above is the input's,
    // not the harness's).
    void validInputRuns()
    {
        QTemporaryDir dir;
        const Ran r = runInProcess({"experiment", "list"}, dir.path());
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains("sweep-flattening"), qPrintable(r.out));
        QCOMPARE(r.err, QString());
    }

    // loop-code prints the listing core builds for the settings, as Python that parses.
    void loopCodePrintsTheListing()
    {
        QTemporaryDir dir;
        const Ran r = runInProcess({"loop-code", "--bug", "never-zero", "--accum-steps", "8"}, dir.path());
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(r.err, QString());
        accumlab::AccumConfig c;
        c.accumSteps = 8;
        c.bug = accumlab::AccumBug::NeverZero;
        QCOMPARE(r.out, QString::fromStdString(accumlab::loopSource(accumlab::loopListing(c))));
        QVERIFY(r.out.startsWith(QStringLiteral("criterion = torch.nn.CrossEntropyLoss()\n")));
        QVERIFY(r.out.contains(QStringLiteral("accum_steps = 8\n")));
        // never-zero: zero_grad() before the windows, none inside them.
        QVERIFY2(r.out.contains(QStringLiteral("# bug: zeroed once, before the first window only\noptimizer.zero_grad()\n"
                                               "# one update: accum_steps micro-batches (x, y)\nfor window in windows:\n"
                                               "    for k, (x, y) in enumerate(window):\n")),
                 qPrintable(r.out));
    }
};

QTEST_GUILESS_MAIN(TestCliRefusals)
#include "tst_cli_refusals.moc"
