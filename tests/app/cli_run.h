// How the CLI's Qt tests start accumlab-cli (the program ACCUMLAB_CLI names): one process with
// torchrun's and the fault hooks' variables cleared unless the test sets them, its exit, its
// output and its time. One helper for every CLI test file.
#pragma once

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>
#include <QProcess>
#include <QString>
#include <QStringList>
#include <QtGlobal>

namespace accumlab::test {

struct CliRun {
    bool crashed = false; // ended by a signal
    int exitCode = -1;    // -1 when crashed
    QString out;
    QString err;
    qint64 ms = 0;        // wall time from start to exit
    // The standard output as one JSON object (empty when it is not one).
    QJsonObject json() const { return QJsonDocument::fromJson(out.toUtf8()).object(); }
};

// Runs accumlab-cli with `args`, `env` added to this process's environment, in `workDir` (this
// process's when empty); a run that outlives `timeoutMs` ends the test program.
inline CliRun runCli(const QStringList &args, const QMap<QString, QString> &env = {}, const QString &workDir = {},
                     int timeoutMs = 240000)
{
    QProcess p;
    QProcessEnvironment e = QProcessEnvironment::systemEnvironment();
    for (const char *name : {"RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT",
                             "ACCUMLAB_FAULT_KILL_AT_MICRO", "ACCUMLAB_FAULT_KILL_POINT"})
        e.remove(QString::fromLatin1(name));
    for (auto it = env.begin(); it != env.end(); ++it)
        e.insert(it.key(), it.value());
    p.setProcessEnvironment(e);
    if (!workDir.isEmpty())
        p.setWorkingDirectory(workDir);
    QElapsedTimer clock;
    clock.start();
    p.start(qEnvironmentVariable("ACCUMLAB_CLI"), args);
    if (!p.waitForFinished(timeoutMs))
        qFatal("accumlab-cli did not finish");
    CliRun r;
    r.crashed = p.exitStatus() == QProcess::CrashExit;
    r.exitCode = r.crashed ? -1 : p.exitCode();
    r.out = QString::fromUtf8(p.readAllStandardOutput());
    r.err = QString::fromUtf8(p.readAllStandardError());
    r.ms = clock.elapsed();
    return r;
}

// The folder the refusal rows run in: it holds one file, `blocker`, for the rows that give a
// file where a folder belongs.
inline bool makeBlocker(const QString &dir)
{
    QFile blocker(QDir(dir).filePath(QStringLiteral("blocker")));
    return blocker.open(QIODevice::WriteOnly) && blocker.write("x") == 1;
}

// What a refusal of bad input must be, wherever it runs (the program or cli::run in-process):
// exit 2, one line "accumlab-cli: error: ..." on stderr, nothing on stdout (no work ran), and
// nothing written beside `blocker`. Empty when it was; else what was wrong.
inline QString refusalProblem(int exitCode, const QString &out, const QString &err, const QString &dir)
{
    if (exitCode != 2)
        return QStringLiteral("exit %1, not 2: %2").arg(exitCode).arg(err);
    if (!out.isEmpty())
        return QStringLiteral("printed on stdout: ") + out;
    if (err.count(QLatin1Char('\n')) != 1 || !err.startsWith(QStringLiteral("accumlab-cli: error: ")))
        return QStringLiteral("not one error line: ") + err;
    const QStringList entries = QDir(dir).entryList(QDir::NoDotAndDotDot | QDir::AllEntries);
    if (entries != QStringList{QStringLiteral("blocker")})
        return QStringLiteral("the folder holds ") + entries.join(QStringLiteral(", "));
    return {};
}

} // namespace accumlab::test
