// The guided-experiments panel: one click asks for the experiment's settings and runs it in
// the worker thread; the claims, values and explanation it shows are the engine's (checked
// against a run of core on this thread); Cancel stops a run; the texts follow the language.
#include "common.h"

#include "ui/panels/controlpanel.h"
#include "ui/worker/enginecontroller.h"
#include "ui/panels/experimentpanel.h"
#include "ui/language.h"
#include "ui/localizedtext.h"

#include "core/io/export.h"

#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QElapsedTimer>
#include <QFontInfo>
#include <QRawFont>
#include <QHeaderView>
#include <QScrollBar>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableWidget>
#include <QtTest>
#include <QLogValueAxis>
#include <QValueAxis>

using namespace accumlab;
using namespace accumlab::ui;

namespace {

constexpr int kRunTimeoutMs = 120'000;
// A cancelled experiment stops within one step of its loop; generous for a loaded machine.
constexpr int kCancelBoundMs = 5'000;

ExperimentOptions quickOptions()
{
    ExperimentOptions o;
    o.fast = true;
    return o;
}

// Switches the window's language as the Language menu does; LanguageChange events are
// delivered before this returns.
void switchLanguage(UiLanguage language)
{
    LanguageManager::instance()->setLanguage(language);
    QCoreApplication::sendPostedEvents();
    QCoreApplication::processEvents();
}

} // namespace

class TestExperimentPanel : public QObject {
    Q_OBJECT
private slots:
    void init() { switchLanguage(QStringLiteral("en")); }

    void catalogIsOffered()
    {
        EngineController controller;
        ExperimentPanel panel(&controller);
        auto *picker = panel.findChild<QComboBox *>(QStringLiteral("experimentPicker"));
        QVERIFY(picker);
        QStringList ids;
        for (int i = 0; i < picker->count(); ++i)
            if (picker->itemData(i).isValid())
                ids << picker->itemData(i).toString();
        QStringList expected;
        for (const auto &info : experimentCatalog())
            expected << QString::fromStdString(info.id);
        QCOMPARE(ids, expected);
        for (const auto &info : experimentCatalog()) {
            panel.setCurrentExperiment(QString::fromStdString(info.id));
            QCOMPARE(panel.currentExperiment(), QString::fromStdString(info.id));
            QVERIFY(picker->currentText().contains(QString::fromStdString(experimentTitle(info.id))));
            QCOMPARE(panel.findChild<QLabel *>(QStringLiteral("experimentSummary"))->text(),
                     QString::fromStdString(experimentSummary(info)).toHtmlEscaped());
        }
    }

    // The page always shows the chosen experiment: after a run, choosing another shows no
    // results (not the last run's under the new title), and coming back shows that run again.
    // While one runs, choosing another keeps saying which one runs. Planted: showing the last
    // result whatever is chosen fails the first comparison.
    void pageFollowsTheChosenExperiment()
    {
        EngineController controller;
        ExperimentPanel panel(&controller);
        panel.setQuickRun(true);
        panel.setCurrentExperiment(QStringLiteral("no-division"));
        QSignalSpy finished(&panel, &ExperimentPanel::experimentFinished);
        panel.runCurrent();
        panel.setCurrentExperiment(QStringLiteral("adamw-state"));
        auto *status = panel.findChild<QLabel *>(QStringLiteral("experimentStatus"));
        QVERIFY(status);
        QVERIFY2(status->text().contains(QString::fromStdString(experimentTitle("no-division"))), qPrintable(status->text()));
        QVERIFY(finished.wait(kRunTimeoutMs));
        auto *claims = panel.findChild<QTableWidget *>(QStringLiteral("claimsTable"));
        auto *values = panel.findChild<QTableWidget *>(QStringLiteral("valuesTable"));
        QVERIFY(claims && values);
        // Finished while another was chosen: that one's page stays empty.
        QVERIFY(!panel.result());
        QCOMPARE(claims->rowCount(), 0);
        QCOMPARE(values->rowCount(), 0);
        panel.setCurrentExperiment(QStringLiteral("no-division"));
        QVERIFY(panel.result());
        QCOMPARE(QString::fromStdString(panel.result()->id), QStringLiteral("no-division"));
        QVERIFY(claims->rowCount() > 0);
        panel.setCurrentExperiment(QStringLiteral("batchnorm"));
        QVERIFY(!panel.result());
        QCOMPARE(claims->rowCount(), 0);
        QCOMPARE(values->rowCount(), 0);
    }

    void runShowsTheEnginesResult_data()
    {
        QTest::addColumn<QString>("id");
        QTest::newRow("no-division") << "no-division";
        QTest::newRow("batchnorm") << "batchnorm";
        QTest::newRow("lr-schedule") << "lr-schedule";
        QTest::newRow("partial-window") << "partial-window";
        QTest::newRow("resume-mid-window") << "resume-mid-window";
        QTest::newRow("sweep-flattening") << "sweep-flattening";
    }
    void runShowsTheEnginesResult()
    {
        QFETCH(QString, id);
        EngineController controller;
        ExperimentPanel panel(&controller);
        panel.resize(1000, 800);
        panel.show();
        panel.setQuickRun(true);
        panel.setCurrentExperiment(id);
        QSignalSpy settings(&panel, &ExperimentPanel::requestSettings);
        QSignalSpy finished(&panel, &ExperimentPanel::experimentFinished);
        auto *run = panel.findChild<QPushButton *>(QStringLiteral("runExperimentButton"));
        QTest::mouseClick(run, Qt::LeftButton);
        QVERIFY(panel.isRunning());
        QVERIFY(!run->isEnabled());
        QVERIFY(finished.wait(kRunTimeoutMs));
        QCOMPARE(finished.first().at(0).toString(), id);
        QVERIFY(finished.first().at(1).toBool());
        QVERIFY(run->isEnabled());

        // The settings request carries the experiment's mapping onto the controls.
        QCOMPARE(settings.size(), 1);
        const auto requested = settings.first().at(0).value<ExperimentSettings>();
        Preset preset;
        requested.applyTo(preset);
        if (id == QLatin1String("sweep-flattening")) { // the lesson's model over its grid
            QVERIFY(preset.run.preset == ModelPreset::Lesson);
            QCOMPARE(preset.accumGrid, QStringLiteral("1,2,4,8,16"));
        } else { // the equivalence fixture
            QVERIFY(preset.run.preset == ModelPreset::Fixture);
            QCOMPARE(preset.run.effectiveBatch(), EquivalenceConfig().bigBatch());
        }

        // The same experiment run here, on this thread: the panel must show its verdicts. A
        // timing experiment's figures differ from run to run: the panel must show its own.
        QVERIFY(panel.result());
        const ExperimentResult expected =
            id == QLatin1String("sweep-flattening") ? *panel.result() : runExperiment(id.toStdString(), quickOptions());
        auto *claims = panel.findChild<QTableWidget *>(QStringLiteral("claimsTable"));
        QCOMPARE(claims->rowCount(), int(expected.claims.size()));
        for (int row = 0; row < claims->rowCount(); ++row) {
            const auto &c = expected.claims[size_t(row)];
            QCOMPARE(claims->item(row, 0)->data(Qt::UserRole).toString(), QString::fromStdString(c.id));
            // No mark for an observation, a question mark for an inconclusive timing claim.
            QCOMPARE(claims->item(row, 0)->text(), c.observation    ? QStringLiteral("·")
                                                   : c.inconclusive ? QStringLiteral("?")
                                                   : c.holds        ? QStringLiteral("✓")
                                                                    : QStringLiteral("✗"));
            // A timing claim carries the mark that the note under the table explains.
            QCOMPARE(claims->item(row, 1)->text(), QString::fromStdString(claimStatement(expected, c)) +
                                                       (c.timing ? QLatin1Char(' ') + ExperimentPanel::timingMark() : QString()));
        }
        // The summary counts every row: the claims with a verdict, and the observations (·),
        // named with their mark ("All 2 claims hold" stood over three rows, the · unexplained).
        const ClaimTally tally = expected.tally();
        QCOMPARE(tally.verdicts + tally.observations, claims->rowCount());
        const QString summary = panel.findChild<QLabel *>(QStringLiteral("experimentStatus"))->text();
        QVERIFY2(summary.contains(QString::number(tally.verdicts)), qPrintable(summary));
        if (tally.observations > 0)
            QVERIFY2(summary.contains(QStringLiteral("·")) && summary.contains(QStringLiteral("(%1)").arg(tally.observations)),
                     qPrintable(summary));
        // Every claim and the whole explanation in view, at this width and at a projector's
        // narrow page: the page scrolls, not a box inside it (3 of 8 claims showed at 1024).
        auto *explanationLabel = panel.findChild<QLabel *>(QStringLiteral("experimentExplanation"));
        QVERIFY(explanationLabel);
        for (int width : {1000, 560}) {
            panel.resize(width, 420);
            QTRY_VERIFY2_WITH_TIMEOUT(claims->viewport()->height() >= claims->verticalHeader()->length() &&
                                          claims->verticalScrollBar()->maximum() == 0,
                                      qPrintable(QStringLiteral("%1 px: claims %2 of %3 px").arg(width)
                                                     .arg(claims->viewport()->height())
                                                     .arg(claims->verticalHeader()->length())),
                                      2000);
            QTRY_VERIFY2_WITH_TIMEOUT(explanationLabel->height() >= explanationLabel->heightForWidth(explanationLabel->width()),
                                      qPrintable(QStringLiteral("%1 px: explanation %2 of %3 px").arg(width)
                                                     .arg(explanationLabel->height())
                                                     .arg(explanationLabel->heightForWidth(explanationLabel->width()))),
                                      2000);
        }
        auto *values = panel.findChild<QTableWidget *>(QStringLiteral("valuesTable"));
        QCOMPARE(values->rowCount(), int(expected.values.size()));
        for (int row = 0; row < values->rowCount(); ++row) {
            const auto &v = expected.values[size_t(row)];
            // The value's label in the reader's words, its JSON key kept beside it.
            QCOMPARE(values->item(row, 0)->text(), QString::fromStdString(valueLabel(expected.id, v.name)));
            QCOMPARE(values->item(row, 0)->data(Qt::UserRole).toString(), QString::fromStdString(v.name));
            const double shown = values->item(row, 1)->data(Qt::UserRole).toDouble();
            QVERIFY2(std::abs(shown - v.value) <= 1e-6 * std::max(1.0, std::abs(v.value)),
                     qPrintable(QStringLiteral("%1: %2 shown, %3 computed").arg(QString::fromStdString(v.name))
                                    .arg(shown).arg(v.value)));
            QCOMPARE(values->item(row, 1)->text(), QString::fromStdString(formatNumber(v.value, ".6g")));
        }
        QCOMPARE(panel.findChild<QLabel *>(QStringLiteral("experimentExplanation"))->text(),
                 QString::fromStdString(explanation(*panel.result())).toHtmlEscaped());
        const QString status = panel.findChild<QLabel *>(QStringLiteral("experimentStatus"))->text();
        const bool anyInconclusive = std::any_of(expected.claims.begin(), expected.claims.end(),
                                                 [](const auto &c) { return c.inconclusive; });
        QCOMPARE(status.startsWith(QStringLiteral("All ")), expected.holds() && !anyInconclusive);

        // The curves: every series of the shown group is drawn with its points.
        auto *chartView = panel.findChild<QChartView *>(QStringLiteral("experimentChart"));
        QCOMPARE(chartView->isVisibleTo(&panel), !expected.series.empty());
        if (!expected.series.empty()) {
            const std::string group = expected.series.front().yLabel;
            int inGroup = 0;
            for (const auto &s : expected.series)
                inGroup += s.yLabel == group ? 1 : 0;
            QCOMPARE(int(chartView->chart()->series().size()), inGroup);
            // Its axes: effective batches on a log2 axis with ticks on the doubling batches, a
            // rate read from zero, and every tick a plain number (no exponent form).
            const auto horizontal = chartView->chart()->axes(Qt::Horizontal);
            const auto vertical = chartView->chart()->axes(Qt::Vertical);
            QCOMPARE(horizontal.size(), qsizetype(1));
            QCOMPARE(vertical.size(), qsizetype(1));
            auto *log2 = qobject_cast<QLogValueAxis *>(horizontal.first());
            QCOMPARE(log2 != nullptr, expected.series.front().xLabel == "effective_batch");
            if (log2)
                QCOMPARE(log2->base(), 2.0);
            auto *y = qobject_cast<QValueAxis *>(vertical.first());
            QVERIFY(y);
            if (group == "samples/sec" || group == "share of plateau")
                QCOMPARE(y->min(), 0.0);
            QVERIFY2(QRegularExpression(QStringLiteral("^%\\.\\df$")).match(y->labelFormat()).hasMatch(),
                     qPrintable(y->labelFormat()));
            if (auto *x = qobject_cast<QValueAxis *>(horizontal.first()))
                QVERIFY2(QRegularExpression(QStringLiteral("^%\\.\\df$")).match(x->labelFormat()).hasMatch(),
                         qPrintable(x->labelFormat()));
        }
    }

    void settingsMapOntoTheControls()
    {
        const ExperimentOptions options;
        Preset preset;
        experimentSettings(QStringLiteral("adamw-state"), options).applyTo(preset);
        QVERIFY(preset.run.optimizer.kind == OptimizerKind::AdamW);
        QVERIFY(preset.run.stepEveryMicro);
        experimentSettings(QStringLiteral("no-division"), options).applyTo(preset);
        QVERIFY(preset.run.scaling == Scaling::None);
        QVERIFY(!preset.run.stepEveryMicro);
        QVERIFY(preset.run.optimizer.kind == OptimizerKind::Sgd);
        experimentSettings(QStringLiteral("split-tolerance"), options).applyTo(preset);
        QVERIFY(preset.run.dtype == DType::BFloat16);
        QCOMPARE(preset.run.accumSteps, int64_t{2});
        QCOMPARE(preset.run.microBatch, int64_t{8});
        experimentSettings(QStringLiteral("sweep-flattening"), options).applyTo(preset);
        QCOMPARE(preset.numSteps, int(options.sweepSteps));
        QCOMPARE(parseGrid(preset.accumGrid.toStdString()), SweepConfig().accumGrid);
        QVERIFY(experimentSettings(QStringLiteral("variable-length"), options).isEmpty());
    }

    // What no control shows reaches the lab's run all the same: lr-schedule's warmup and
    // linear-scaling's device stay under the controls that show the rest.
    void theLabKeepsWhatNoControlShows()
    {
        ControlPanel controls;
        for (const char *id : {"lr-schedule", "linear-scaling"}) {
            const auto lab = experimentLabSettings(id, ExperimentOptions{});
            QVERIFY(lab);
            Preset preset = controls.preset();
            experimentSettings(QLatin1String(id), ExperimentOptions{}).applyTo(preset);
            controls.setPreset(preset);
            const AccumConfig run = controls.config();
            QCOMPARE(run.optimizer.lrWarmup, lab->config.optimizer.lrWarmup);
            QVERIFY2(run.device == lab->config.device, id);
            QVERIFY2(run.labels == lab->config.labels, id);
        }
        QCOMPARE(controls.config().optimizer.lrWarmup, int64_t{0}); // linear-scaling's own
        QVERIFY(controls.config().device == DeviceRequest::Cpu);
        Preset schedule = controls.preset();
        experimentSettings(QStringLiteral("lr-schedule"), ExperimentOptions{}).applyTo(schedule);
        controls.setPreset(schedule);
        QCOMPARE(controls.config().optimizer.lrWarmup, int64_t{8});
    }

    // The window shows core's stated settings (experimentLabSettings) for every experiment of
    // the catalog: the mapping keeps no list of its own.
    void settingsAreCoresForEveryExperiment()
    {
        ExperimentOptions options;
        options.seed = 11;
        for (const auto &info : experimentCatalog()) {
            const QString id = QString::fromStdString(info.id);
            const auto lab = experimentLabSettings(info.id, options);
            const ExperimentSettings settings = experimentSettings(id, options);
            QCOMPARE(settings.isEmpty(), !lab.has_value());
            if (!lab)
                continue;
            Preset preset;
            settings.applyTo(preset);
            // Every setting of the run, a sweep's accumulation steps aside (its grid sets them).
            AccumConfig want = lab->config;
            if (!lab->accumGrid.empty())
                want.accumSteps = Preset{}.run.accumSteps;
            const AccumConfig &got = preset.run;
            QCOMPARE(QString::fromStdString(toJson(got).dump()), QString::fromStdString(toJson(want).dump()));
            QVERIFY2(got.device == want.device, qPrintable(id)); // the record writes it resolved
            QCOMPARE(got.seed, uint64_t{11});
            if (!lab->accumGrid.empty()) {
                QCOMPARE(parseGrid(preset.accumGrid.toStdString()), lab->accumGrid);
                QCOMPARE(int64_t(preset.numSteps), lab->sweepSteps);
            }
        }
    }

    void cancelStopsARun()
    {
        EngineController controller;
        ExperimentPanel panel(&controller);
        panel.setQuickRun(false);
        // The full sweep: 5 points of 1000 timed steps each, long enough to be stopped midway.
        panel.setCurrentExperiment(QStringLiteral("sweep-flattening"));
        QSignalSpy finished(&panel, &ExperimentPanel::experimentFinished);
        QSignalSpy running(&controller, &EngineController::jobStarted);
        panel.runCurrent();
        // The worker has begun the experiment's run (its running phase), not merely queued it.
        QVERIFY(running.wait(kRunTimeoutMs));
        QCOMPARE(running.first().at(0).value<EngineJob>(), EngineJob::Experiment);
        QVERIFY2(finished.isEmpty(), "the full sweep ended before Cancel; cancel cannot be observed");
        auto *cancel = panel.findChild<QPushButton *>(QStringLiteral("cancelExperimentButton"));
        QVERIFY(cancel->isEnabled());
        QElapsedTimer sinceCancel;
        sinceCancel.start();
        QTest::mouseClick(cancel, Qt::LeftButton);
        QVERIFY(finished.wait(kRunTimeoutMs));
        QVERIFY2(sinceCancel.elapsed() < kCancelBoundMs, qPrintable(QString::number(sinceCancel.elapsed())));
        QVERIFY(!finished.first().at(1).toBool());
        QVERIFY(!panel.result().has_value());
        QCOMPARE(panel.findChild<QTableWidget *>(QStringLiteral("claimsTable"))->rowCount(), 0);
        QCOMPARE(panel.findChild<QLabel *>(QStringLiteral("experimentStatus"))->text(),
                 ExperimentPanel::tr("The experiment was cancelled."));
        QVERIFY(!panel.isRunning());
    }

    // Core's Persian statement and explanation replace the English ones when the language
    // changes, without running the experiment again.
    void resultFollowsTheLanguage()
    {
        EngineController controller;
        ExperimentPanel panel(&controller);
        panel.setQuickRun(true);
        panel.setCurrentExperiment(QStringLiteral("clipping"));
        QSignalSpy finished(&panel, &ExperimentPanel::experimentFinished);
        panel.runCurrent();
        QVERIFY(finished.wait(kRunTimeoutMs));
        const ExperimentResult r = *panel.result();
        auto *claims = panel.findChild<QTableWidget *>(QStringLiteral("claimsTable"));
        auto *explanation = panel.findChild<QLabel *>(QStringLiteral("experimentExplanation"));
        auto *summary = panel.findChild<QLabel *>(QStringLiteral("experimentSummary"));
        const ExperimentInfo *info = findExperiment("clipping");

        auto *run = panel.findChild<QPushButton *>(QStringLiteral("runExperimentButton"));
        switchLanguage(QStringLiteral("fa"));
        // The panel's own strings come from the Persian translation, core's from core.
        QVERIFY(run->text() != QStringLiteral("Ru&n experiment"));
        QCOMPARE(run->text(), ExperimentPanel::tr("Ru&n experiment"));
        // Persian paragraphs start with a right-to-left mark (some open with code).
        const QChar rlm(0x200F);
        const NumberStyle fa{"fa", false};
        QCOMPARE(explanation->text(), (rlm + QString::fromStdString(accumlab::explanation(r, fa))).toHtmlEscaped());
        QCOMPARE(summary->text(), (rlm + QString::fromStdString(experimentSummary(*info, fa))).toHtmlEscaped());
        QCOMPARE(claims->rowCount(), int(r.claims.size()));
        for (int row = 0; row < claims->rowCount(); ++row)
            QCOMPARE(claims->item(row, 1)->text(), rlm + QString::fromStdString(claimStatement(r, r.claims[size_t(row)], fa)));
        QCOMPARE(panel.result()->values.size(), r.values.size());
        // The curves' tick labels in Persian digits too.
        auto *view = panel.findChild<QChartView *>();
        QVERIFY(view && view->chart()->localizeNumbers());
        QCOMPARE(view->chart()->locale().zeroDigit(), QLocale(QLocale::Persian, QLocale::Iran).zeroDigit());
        // The values in Persian digits with their Persian labels; with Latin digits chosen the
        // same figures, in Latin digits, reach the explanation too.
        auto *values = panel.findChild<QTableWidget *>(QStringLiteral("valuesTable"));
        QCOMPARE(values->item(0, 1)->text(), QString::fromStdString(formatNumber(r.values.front().value, ".6g", fa)));
        QCOMPARE(values->item(0, 0)->text(), rlm + QString::fromStdString(valueLabel(r.id, r.values.front().name, fa)));
        LanguageManager::instance()->setLatinDigits(true);
        QCoreApplication::sendPostedEvents();
        QCoreApplication::processEvents();
        QCOMPARE(explanation->text(),
                 (rlm + QString::fromStdString(accumlab::explanation(r, {"fa", true}))).toHtmlEscaped());
        QVERIFY(!explanation->text().contains(QRegularExpression(QStringLiteral("[\\x{06F0}-\\x{06F9}]"))));
        LanguageManager::instance()->setLatinDigits(false);
        QCoreApplication::sendPostedEvents();
        QCoreApplication::processEvents();

        switchLanguage(QStringLiteral("en"));
        QCOMPARE(run->text(), QStringLiteral("Ru&n experiment"));
        QCOMPARE(explanation->text(), QString::fromStdString(accumlab::explanation(r)).toHtmlEscaped());
        QCOMPARE(claims->item(0, 1)->text(), QString::fromStdString(claimStatement(r, r.claims.front())));
    }

    // The timing mark is drawn by the fonts the window uses: the bundled Vazirmatn (Persian) and
    // DejaVu Sans (Latin, where the system has it). A QRawFont reads the font file itself, so no
    // fallback font on the test machine can stand in for a missing glyph. Planted: the old
    // stopwatch U+23F1 fails both rows.
    void timingMarkIsInTheFonts_data()
    {
        QTest::addColumn<QString>("font");
        QTest::newRow("Vazirmatn (bundled)") << QStringLiteral(":/fonts/Vazirmatn-Regular.ttf");
        QTest::newRow("DejaVu Sans") << QStringLiteral("DejaVu Sans"); // a family: the system's
    }

    void timingMarkIsInTheFonts()
    {
        QFETCH(QString, font);
        QRawFont raw;
        if (font.startsWith(QLatin1Char(':'))) {
            raw = QRawFont(font, 12);
        } else {
            const QFont family(font);
            if (QFontInfo(family).family() != font)
                QSKIP("this system has no such font");
            raw = QRawFont::fromFont(family);
        }
        QVERIFY(raw.isValid());
        const QString mark = ExperimentPanel::timingMark();
        QCOMPARE(mark.size(), 1);
        QVERIFY2(raw.supportsCharacter(mark.at(0)), qPrintable(QStringLiteral("U+%1 is not in %2")
                                                                  .arg(mark.at(0).unicode(), 4, 16, QLatin1Char('0'))
                                                                  .arg(font)));
    }
};

QTEST_MAIN(TestExperimentPanel)
#include "tst_experimentpanel.moc"
