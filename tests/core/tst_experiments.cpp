// The guided experiments: every claim's verdict from a fresh run with fixed seeds, the
// catalog, the JSON and text forms, the sync-count hook for more than one rank, cancellation.
#include "core/experiments.h"
#include "core/experiments/internal.h"
#include "core/grad_sync.h"

#include "common.h"

#include <QtTest>

#include <QRegularExpression>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

using namespace accumlab;

namespace {

// The statements true by the way they are measured: shown as observations, never with a mark.
const std::set<std::string> &observations()
{
    static const std::set<std::string> ids{"one-sync-per-step", "micro-batches-k-times-n", "counter-matches-issued",
                                           "divide-by-n-under-weights"};
    return ids;
}

ExperimentOptions fastOptions()
{
    ExperimentOptions o;
    o.fast = true;
    return o;
}

QString describe(const ExperimentResult &r)
{
    return QString::fromStdString(toText(r));
}

// The numbers a text states, in order of appearance ("2x8" gives 2 and 8, "1e-4" one number).
QStringList numbersIn(const QString &text)
{
    static const QRegularExpression number(QStringLiteral("[0-9]+(?:\\.[0-9]+)?(?:e[-+]?[0-9]+)?"));
    QStringList out;
    for (auto it = number.globalMatch(text); it.hasNext();)
        out << it.next().captured();
    out.sort();
    return out;
}

// The Persian text of a claim or an explanation, rendered from the content: present, written
// in Persian script (not a copy of the English), its figures in Persian digits, and, rendered
// with the Latin-digits setting, stating the same figures as the English.
void verifyPersian(const std::string &en, const std::string &fa, const std::string &faLatin, const QString &what)
{
    const QString e = QString::fromStdString(en), f = QString::fromStdString(fa);
    QVERIFY2(!f.trimmed().isEmpty(), qPrintable(what + ": no Persian text"));
    QVERIFY2(f.contains(QRegularExpression(QStringLiteral("[\\x{0600}-\\x{06FF}]{3}"))),
             qPrintable(what + ": the Persian text has no Persian words: " + f));
    // A Latin digit in Persian text is one the Persian-digits setting did not reach, unless it
    // belongs to an identifier (float32, 2x8 in code).
    QVERIFY2(!f.contains(QRegularExpression(QStringLiteral("(?<![A-Za-z_0-9])[0-9]+(?![A-Za-z_0-9])"))),
             qPrintable(what + ": Latin digits in the Persian text: " + f));
    QCOMPARE(numbersIn(QString::fromStdString(faLatin)), numbersIn(e));
}

// The settings the lab's controls show, field by field ("dtype=bfloat16"), so that a difference
// names its field.
QStringList fieldsOf(const ExperimentLabSettings &s)
{
    const AccumConfig &c = s.config;
    const ModelShape w = c.modelShape();
    QStringList grid;
    for (int64_t a : s.accumGrid)
        grid << QString::number(a);
    const auto str = [](const std::string &v) { return QString::fromStdString(v); };
    return {QStringLiteral("model=") + str(toString(c.preset)),
            QStringLiteral("widths=%1,%2,%3").arg(w.inFeatures).arg(w.hidden).arg(w.classes),
            QStringLiteral("micro_batch=%1").arg(c.microBatch),
            QStringLiteral("accum_steps=%1").arg(c.accumSteps),
            QStringLiteral("optimizer=") + str(toString(c.optimizer.kind)),
            QStringLiteral("lr=%1").arg(c.optimizer.lr, 0, 'g', 17),
            QStringLiteral("scaling=") + str(toString(c.scaling)),
            QStringLiteral("step_every_micro=%1").arg(c.stepEveryMicro),
            QStringLiteral("bug=") + str(toString(c.bug)),
            QStringLiteral("no_sync=%1").arg(c.noSync),
            QStringLiteral("dtype=") + str(toString(c.dtype)),
            QStringLiteral("seed=%1").arg(c.seed),
            QStringLiteral("accum_grid=") + grid.join(QLatin1Char(',')),
            QStringLiteral("sweep_steps=%1").arg(s.sweepSteps)};
}

// A two-rank stand-in for a process group: it reports rank 0 of 2 and leaves the buffer as
// it is, so the engine shards the data as on a real rank and every sync call is observable.
class TwoRankSync final : public GradSync {
public:
    int64_t worldSize() const override { return 2; }
    int64_t rank() const override { return 0; }
    void allReduceMean(torch::Tensor &) override { ++calls; }
    int64_t calls = 0;
};

} // namespace

class TestExperiments : public QObject {
    Q_OBJECT
private slots:
    void catalogListsTheExperiments()
    {
        const QStringList expected{"sweep-flattening", "no-division", "adamw-state",  "sync-count",
                                   "split-tolerance",  "variable-length", "partial-window", "batchnorm",
                                   "clipping",         "lr-schedule",     "linear-scaling", "loss-scaling",
                                   "resume-mid-window"};
        const auto &catalog = experimentCatalog();
        QCOMPARE(int(catalog.size()), expected.size());
        for (int i = 0; i < expected.size(); ++i) {
            const auto &info = catalog[size_t(i)];
            QCOMPARE(QString::fromStdString(info.id), expected[i]);
            QCOMPARE(info.number, i + 1);
            QCOMPARE(info.lessonExercise, i < 5);
            for (const char *lang : {"en", "fa"}) {
                QVERIFY(!experimentTitle(info.id, {lang, false}).empty());
                QVERIFY(!experimentSummary(info, {lang, false}).empty());
            }
            QCOMPARE(findExperiment(info.id), &info);
        }
        QCOMPARE(findExperiment("no-such-experiment"), nullptr);
    }

    // Every claim that does not depend on wall-clock timings holds; timing claims are present,
    // stated and marked. The claim ids are listed so that an experiment cannot pass by
    // reporting no claims.
    void verdicts_data()
    {
        QTest::addColumn<QString>("id");
        QTest::addColumn<QStringList>("claims");
        QTest::newRow("sweep-flattening") << "sweep-flattening"
                                          << QStringList{"follows-the-model", "one-sync-per-step", "points-complete"};
        QTest::newRow("no-division") << "no-division"
                                     << QStringList{"sgd-update-n-times", "adamw-update-about-one", "grad-norm-n-times",
                                                    "logged-loss-n-times", "division-restores"};
        QTest::newRow("adamw-state") << "adamw-state"
                                     << QStringList{"state-step-is-k", "micro-batches-k-times-n",
                                                    "every-micro-counts-k-times-n", "right-matches-full-batch",
                                                    "every-micro-lands-away"};
        QTest::newRow("sync-count") << "sync-count"
                                    << QStringList{"no-sync-on-one-per-step", "no-sync-off-one-per-micro",
                                                   "counter-matches-issued"};
        QTest::newRow("split-tolerance") << "split-tolerance"
                                         << QStringList{"float32-few-ulps", "float32-fixed-holds",
                                                        "bfloat16-fixed-fails", "bfloat16-dtype-aware-holds"};
        QTest::newRow("variable-length") << "variable-length"
                                         << QStringList{"mean-over-n-differs", "window-tokens-match"};
        QTest::newRow("partial-window") << "partial-window"
                                        << QStringList{"divide-by-n-under-weights", "weight-by-samples-exact",
                                                       "ragged-micro-count-wrong", "ragged-weight-by-samples-exact"};
        QTest::newRow("batchnorm") << "batchnorm" << QStringList{"batchnorm-breaks", "layernorm-keeps"};
        QTest::newRow("clipping") << "clipping"
                                  << QStringList{"clipping-active", "clip-each-micro-differs", "clip-once-matches"};
        QTest::newRow("lr-schedule") << "lr-schedule"
                                     << QStringList{"per-micro-ends-n-times-early", "per-step-matches-full-batch",
                                                    "per-micro-drifts"};
        QTest::newRow("linear-scaling") << "linear-scaling"
                                        << QStringList{"scaled-beats-unscaled", "scaled-tracks-small-batch",
                                                       "all-runs-learn"};
        QTest::newRow("loss-scaling") << "loss-scaling"
                                      << QStringList{"loss-over-n-underflows", "scaler-keeps-gradients",
                                                     "scaled-within-float16-bound", "overflow-skips-window",
                                                     "skip-overflowed-micro-steps", "unscale-every-micro-raises",
                                                     "update-every-micro-grows-early", "logged-scaled-loss-scale-times"};
        QTest::newRow("resume-mid-window") << "resume-mid-window"
                                           << QStringList{"mid-window-identical", "window-end-identical",
                                                          "without-buffers-drifts", "restarted-count-drifts",
                                                          "without-optimizer-state-drifts"};
    }
    void verdicts()
    {
        QFETCH(QString, id);
        QFETCH(QStringList, claims);
        const ExperimentResult r = runExperiment(id.toStdString(), fastOptions());
        QCOMPARE(QString::fromStdString(r.id), id);
        const NumberStyle en{"en", false}, fa{"fa", false}, faLatin{"fa", true};
        QVERIFY(!explanation(r, en).empty());
        QStringList got;
        for (const auto &c : r.claims)
            got << QString::fromStdString(c.id);
        QCOMPARE(got, claims);
        bool all = true;
        // Every variant of the explanation renders in every language with this run's figures; the
        // run picks one of them, or none when the explanation is one text.
        const std::vector<std::string> variants = explanationVariants(r.id);
        if (variants.empty())
            QVERIFY(r.explanationVariant.empty());
        else
            QVERIFY2(std::count(variants.begin(), variants.end(), r.explanationVariant) == 1,
                     qPrintable(id + ": the run picks no variant of the explanation"));
        for (const std::string &variant : variants.empty() ? std::vector<std::string>{""} : variants) {
            ExperimentResult shown = r;
            shown.explanationVariant = variant;
            verifyPersian(explanation(shown, en), explanation(shown, fa), explanation(shown, faLatin),
                          id + " explanation " + QString::fromStdString(variant));
        }
        // Every value is labelled in the reader's words in every language, its code spans
        // rendered (no backtick reaches the table) and its Persian free of English prose.
        for (const auto &v : r.values) {
            for (const auto *style : {&en, &fa}) {
                const std::string label = valueLabel(r.id, v.name, *style);
                QVERIFY2(!label.empty(), qPrintable(id + ": no " + QString::fromStdString(style->language) +
                                                    " label for " + QString::fromStdString(v.name)));
                QVERIFY2(label.find('`') == std::string::npos,
                         qPrintable(id + ": a backtick shows in the label of " + QString::fromStdString(v.name)));
            }
            verifyPersian(valueLabel(r.id, v.name, en), valueLabel(r.id, v.name, fa), valueLabel(r.id, v.name, faLatin),
                          id + " value " + QString::fromStdString(v.name));
        }
        for (const auto &c : r.claims) {
            QVERIFY(!claimStatement(r, c, en).empty() && !c.criterion.empty());
            verifyPersian(claimStatement(r, c, en), claimStatement(r, c, fa), claimStatement(r, c, faLatin),
                          id + "/" + QString::fromStdString(c.id));
            all = all && (c.holds || c.inconclusive || c.observation);
            if (!c.timing)
                QVERIFY2(c.holds, qPrintable(QStringLiteral("claim %1 does not hold:\n%2")
                                                 .arg(QString::fromStdString(c.id), describe(r))));
            // Only timing claims may be inconclusive; only the statements true by the way they
            // are measured are observations, shown without a verdict.
            QVERIFY(!c.inconclusive || c.timing);
            QCOMPARE(c.observation, observations().count(c.id) == 1);
            QCOMPARE(QString::fromStdString(c.outcome()),
                     c.observation    ? QStringLiteral("observation")
                     : c.inconclusive ? QStringLiteral("inconclusive")
                     : c.holds        ? QStringLiteral("holds")
                                      : QStringLiteral("does not hold"));
        }
        QCOMPARE(r.holds(), all);
        std::set<std::string> names;
        for (const auto &v : r.values) {
            QVERIFY2(std::isfinite(v.value), v.name.c_str());
            QVERIFY2(names.insert(v.name).second, v.name.c_str());
        }
        for (const auto &s : r.series) {
            QCOMPARE(s.x.size(), s.y.size());
            QVERIFY(!s.x.empty());
        }
    }

    // Core states each experiment's settings once (experimentLabSettings), the window shows
    // them, and the runner records the run they describe as the engine, the equivalence check
    // or its own loop read it back: the two must agree field by field. Figures the result
    // reports itself (named in the table, "" for none) must agree with the stated ones too.
    void statedSettingsAreTheOnesRun_data()
    {
        QTest::addColumn<QString>("id");
        QTest::addColumn<QString>("accumValue");
        QTest::addColumn<QString>("microValue");
        QTest::addColumn<QString>("lrValue");
        QTest::addColumn<QString>("stepsValue");
        QTest::newRow("sweep-flattening") << "sweep-flattening" << "" << "micro_batch" << "" << "steps_at_largest_accum";
        QTest::newRow("no-division") << "no-division" << "accum_steps" << "" << "" << "";
        QTest::newRow("adamw-state") << "adamw-state" << "window_accum_steps" << "" << "" << "";
        QTest::newRow("sync-count") << "sync-count" << "largest_accum_steps" << "" << "" << "";
        QTest::newRow("split-tolerance") << "split-tolerance" << "" << "" << "" << "";
        QTest::newRow("variable-length") << "variable-length" << "" << "" << "" << "";
        QTest::newRow("partial-window") << "partial-window" << "accum_steps" << "" << "" << "";
        QTest::newRow("batchnorm") << "batchnorm" << "accum_steps" << "" << "" << "";
        QTest::newRow("clipping") << "clipping" << "accum_steps" << "" << "" << "";
        QTest::newRow("lr-schedule") << "lr-schedule" << "accum_steps" << "" << "peak_lr" << "";
        QTest::newRow("linear-scaling") << "linear-scaling" << "accum_steps" << "micro_batch" << "scaled_lr" << "";
        QTest::newRow("loss-scaling") << "loss-scaling" << "accum_steps" << "micro_batch" << "" << "";
        QTest::newRow("resume-mid-window") << "resume-mid-window" << "accum_steps" << "" << "" << "";
    }
    void statedSettingsAreTheOnesRun()
    {
        QFETCH(QString, id);
        QFETCH(QString, accumValue);
        QFETCH(QString, microValue);
        QFETCH(QString, lrValue);
        QFETCH(QString, stepsValue);
        const ExperimentOptions options = fastOptions();
        const std::optional<ExperimentLabSettings> stated = experimentLabSettings(id.toStdString(), options);
        const ExperimentResult r = runExperiment(id.toStdString(), options);
        QCOMPARE(r.ran.has_value(), stated.has_value());
        if (!stated) {
            QCOMPARE(id, QStringLiteral("variable-length")); // a token model of its own
            return;
        }
        QCOMPARE(fieldsOf(*r.ran), fieldsOf(*stated));
        QCOMPARE(stated->config.seed, options.seed);
        if (!accumValue.isEmpty())
            QCOMPARE(r.value(accumValue.toStdString()), double(stated->config.accumSteps));
        if (!microValue.isEmpty())
            QCOMPARE(r.value(microValue.toStdString()), double(stated->config.microBatch));
        if (!lrValue.isEmpty())
            QCOMPARE(r.value(lrValue.toStdString()), stated->config.optimizer.lr);
        if (!stepsValue.isEmpty())
            QCOMPARE(r.value(stepsValue.toStdString()), double(stated->sweepSteps));
    }

    // Each loss-scaling verdict fails when the run it judges is replaced by the wrong one it exists
    // to catch; the others still hold.
    void lossScalingVerdictsFailOnPlantedRuns_data()
    {
        QTest::addColumn<int>("plant");
        QTest::addColumn<QString>("claim"); // the verdict the plant exists to fail ("|": and another)
        // Without float16 rounding nothing underflows, so the scaler has nothing to keep either.
        QTest::newRow("float32 where float16 should round") << 0 << "loss-over-n-underflows|scaler-keeps-gradients";
        // Without the scaler the unscaled difference can stay under the float16 bound; the elements
        // float16 zeroed cannot.
        QTest::newRow("the scaler off in the scaled run") << 1 << "scaler-keeps-gradients|scaled-within-float16-bound";
        QTest::newRow("no loss / N in the scaled run") << 2 << "scaled-within-float16-bound";
        QTest::newRow("only the overflowed micro-batch skipped") << 3 << "overflow-skips-window";
        QTest::newRow("the scale updated every micro-batch") << 4 << "overflow-skips-window";
        QTest::newRow("the pitfall run without its pitfall") << 5 << "skip-overflowed-micro-steps";
        QTest::newRow("no double-unscale check") << 6 << "unscale-every-micro-raises";
        QTest::newRow("update once per window in the pitfall run") << 7 << "update-every-micro-grows-early";
        QTest::newRow("the raw loss in the pitfall's log") << 8 << "logged-scaled-loss-scale-times";
    }
    void lossScalingVerdictsFailOnPlantedRuns()
    {
        QFETCH(int, plant);
        QFETCH(QString, claim);
        experiments::LossScalingRuns runs;
        switch (plant) {
        case 0: runs.unscaledDtype = DType::Float32; break;
        case 1: runs.scaledRunScaler = false; break;
        case 2: runs.scaledRunScaling = Scaling::None; break;
        case 3: runs.skipRunBug = ScalerBug::SkipOverflowedMicro; break;
        case 4: runs.skipRunBug = ScalerBug::UpdateEveryMicro; break;
        case 5: runs.droppedRunBug = ScalerBug::None; break;
        case 6: runs.doubleUnscaleRunBug = ScalerBug::None; break;
        case 7: runs.updateRunBug = ScalerBug::None; break;
        case 8: runs.logRunBug = ScalerBug::None; break;
        }
        ExperimentResult r = experiments::lossScalingWith(fastOptions(), nullptr, runs);
        r.id = "loss-scaling";
        for (const auto &c : r.claims) {
            const bool planted = claim.split(QLatin1Char('|')).contains(QString::fromStdString(c.id));
            QVERIFY2(c.holds != planted, qPrintable(QStringLiteral("%1 %2 under the plant:\n%3")
                                                        .arg(QString::fromStdString(c.id),
                                                             planted ? "holds" : "fails", describe(r))));
        }
    }

    // Each pitfall experiment's claim that its correct arm holds fails when that arm runs with
    // the pitfall the experiment exists to catch (ExperimentOptions::plantPitfall: the
    // experiment's own wrong arm, reused): a verdict that does not hold, neither an
    // observation nor inconclusive.
    void pitfallClaimsFailWithThePitfallPlanted_data()
    {
        QTest::addColumn<QString>("id");
        QTest::addColumn<QString>("claim");
        // Each micro-batch's per-token mean divided by N instead of the window's token count.
        QTest::newRow("variable-length: mean over N") << "variable-length" << "window-tokens-match";
        // The short window divided by N; the ragged one by the micro-batches seen.
        QTest::newRow("partial-window: divide by N") << "partial-window" << "weight-by-samples-exact";
        QTest::newRow("partial-window: divide by the micro-batches seen") << "partial-window"
                                                                          << "ragged-weight-by-samples-exact";
        // BatchNorm where the arm should have LayerNorm.
        QTest::newRow("batchnorm: BatchNorm kept") << "batchnorm" << "layernorm-keeps";
        QTest::newRow("clipping: clip each micro-batch") << "clipping" << "clip-once-matches";
        // scheduler.step() in the micro-batch loop: the warmup ends N times early and drifts.
        QTest::newRow("lr-schedule: warmup length") << "lr-schedule" << "per-micro-ends-n-times-early";
        QTest::newRow("lr-schedule: schedule every micro-batch") << "lr-schedule" << "per-step-matches-full-batch";
        // The 4x batch at the small batch's rate.
        QTest::newRow("linear-scaling: rate not scaled, beats") << "linear-scaling" << "scaled-beats-unscaled";
        QTest::newRow("linear-scaling: rate not scaled, tracks") << "linear-scaling" << "scaled-tracks-small-batch";
        // step() on every micro-batch.
        QTest::newRow("adamw-state: state step") << "adamw-state" << "state-step-is-k";
        QTest::newRow("adamw-state: equivalence") << "adamw-state" << "right-matches-full-batch";
        // Resumed without the window's partial buffers; at a window's end, without the optimizer's state.
        QTest::newRow("resume-mid-window: buffers dropped") << "resume-mid-window" << "mid-window-identical";
        QTest::newRow("resume-mid-window: optimizer state dropped") << "resume-mid-window" << "window-end-identical";
    }
    void pitfallClaimsFailWithThePitfallPlanted()
    {
        QFETCH(QString, id);
        QFETCH(QString, claim);
        // One planted run per experiment, shared by its rows.
        static std::map<QString, ExperimentResult> runs;
        if (!runs.count(id)) {
            ExperimentOptions o = fastOptions();
            o.plantPitfall = true;
            runs.emplace(id, runExperiment(id.toStdString(), o));
        }
        const ExperimentResult &r = runs.at(id);
        const ExperimentClaim &c = r.claim(claim.toStdString());
        QVERIFY(!c.observation);
        QVERIFY(!c.inconclusive);
        QVERIFY2(!c.holds, qPrintable(QStringLiteral("%1 holds with the pitfall planted:\n%2").arg(claim, describe(r))));
        QCOMPARE(QString::fromStdString(c.outcome()), QStringLiteral("does not hold"));
        QVERIFY(!r.holds());
    }

    void labSettingsFollowTheOptions()
    {
        ExperimentOptions o;
        o.seed = 11;
        o.sweepSteps = 40;
        const auto sweep = experimentLabSettings("sweep-flattening", o);
        QVERIFY(sweep);
        QCOMPARE(sweep->config.seed, uint64_t{11});
        QCOMPARE(sweep->sweepSteps, int64_t{40});
        o.fast = true;
        QCOMPARE(experimentLabSettings("sweep-flattening", o)->sweepSteps, int64_t{6});
        QVERIFY(!experimentLabSettings("variable-length", o));
        QVERIFY_THROWS_EXCEPTION(ConfigError, experimentLabSettings("no-such-experiment", o));
    }

    // The sync-count explanation is chosen by world size: the one-rank sentence with one rank,
    // the multi-rank one with several. A missing or unknown variant is a content error, never
    // a silent pick.
    void syncCountExplanationFollowsTheWorldSize()
    {
        const auto one = runExperiment("sync-count", fastOptions());
        QCOMPARE(QString::fromStdString(one.explanationVariant), QStringLiteral("one_rank"));
        ExperimentOptions o = fastOptions();
        o.makeSync = [] { return std::make_shared<TwoRankSync>(); };
        const auto two = runExperiment("sync-count", o);
        QCOMPARE(QString::fromStdString(two.explanationVariant), QStringLiteral("multi_rank"));
        QVERIFY(explanation(one) != explanation(two));
        ExperimentResult shown = one;
        shown.explanationVariant.clear();
        QVERIFY_THROWS_EXCEPTION(ContentError, explanation(shown));
        shown.explanationVariant = "no-such-variant";
        QVERIFY_THROWS_EXCEPTION(ContentError, explanation(shown));
        QCOMPARE(explanationVariants("sync-count"), (std::vector<std::string>{"multi_rank", "one_rank"}));
        QVERIFY(explanationVariants("no-division").empty());
    }

    // The flagship's model verdict, judged against planted timings: blocks whose measured
    // costs (t_micro, t_window) predict their samples/sec hold; a point that runs at another
    // speed than its costs say fails; noise as wide as the error is inconclusive. Per point
    // the blocks are m * (1 + d * spread), d over -1..1, m = the model's figure times
    // (1 + offset) at the planted point. A machine that slows `slowdown` times in rounds 2 and
    // 4 slows those rounds' costs and samples/sec alike: each block is judged against its own
    // round's costs, so that holds (a median against a median saw two wide spreads).
    void sweepFlatteningJudgedAgainstTheModel_data()
    {
        QTest::addColumn<double>("tMicro");  // ms
        QTest::addColumn<double>("tWindow"); // ms
        QTest::addColumn<int>("offPoint");   // the point whose speed is planted off (-1: none)
        QTest::addColumn<double>("offset");
        QTest::addColumn<double>("spread");
        QTest::addColumn<double>("slowdown");
        QTest::addColumn<QString>("outcome");
        QTest::newRow("a slow window: rises, as the costs say") << 0.2 << 0.6 << -1 << 0.0 << 0.01 << 1.0 << "holds";
        QTest::newRow("a fast window: flat, as the costs say") << 0.2 << 0.02 << -1 << 0.0 << 0.01 << 1.0 << "holds";
        QTest::newRow("planted: accum 1 runs 40% faster") << 0.2 << 0.6 << 0 << 0.4 << 0.01 << 1.0 << "does not hold";
        QTest::newRow("planted: accum 16 runs 40% slower") << 0.2 << 0.02 << 4 << -0.4 << 0.01 << 1.0 << "does not hold";
        QTest::newRow("noise as wide as the error") << 0.2 << 0.6 << 0 << 0.25 << 0.5 << 1.0 << "inconclusive";
        QTest::newRow("a machine slowing in two rounds") << 0.2 << 0.02 << -1 << 0.0 << 0.01 << 1.8 << "holds";
        QTest::newRow("planted: accum 16 40% slower on a slowing machine") << 0.2 << 0.02 << 4 << -0.4 << 0.01 << 1.8
                                                                           << "does not hold";
    }
    void sweepFlatteningJudgedAgainstTheModel()
    {
        QFETCH(double, tMicro);
        QFETCH(double, tWindow);
        QFETCH(int, offPoint);
        QFETCH(double, offset);
        QFETCH(double, spread);
        QFETCH(double, slowdown);
        QFETCH(QString, outcome);
        SweepResult sweep;
        sweep.config.numSteps = 5;
        sweep.config.repeats = 5;
        sweep.config.base.microBatch = 4;
        for (int i = 0; i < 5; ++i) {
            SweepPoint p;
            p.accumSteps = int64_t(1) << i;
            p.microBatch = 4;
            p.effectiveBatch = 4 * p.accumSteps;
            p.steps = 5;
            p.syncCalls = 5;
            const double n = static_cast<double>(p.accumSteps);
            const double m = 1000.0 * n * 4.0 / (n * tMicro + tWindow) * (i == offPoint ? 1.0 + offset : 1.0);
            int round = 0;
            for (double d : {-1.0, -0.5, 0.0, 0.5, 1.0}) {
                const double slow = round++ % 2 == 1 ? slowdown : 1.0;
                p.blockSamplesPerSec.push_back(m * (1.0 + d * spread) / slow);
                p.blockMicroMs.push_back(tMicro * slow);
                p.blockWindowMs.push_back(tWindow * slow);
            }
            p.samplesPerSec = m;
            sweep.points.push_back(p);
        }
        const ExperimentResult r = experiments::judgeSweepFlattening(sweep);
        QCOMPARE(QString::fromStdString(r.claim("follows-the-model").outcome()), outcome);
        QCOMPARE(r.value("t_micro_ms"), tMicro);
        QCOMPARE(r.value("t_window_ms"), tWindow);
        ACCUMLAB_COMPARE_REL(r.value("plateau_model_samples_per_sec"), 4000.0 / tMicro, 1e-12);
        ACCUMLAB_COMPARE_REL(r.value("window_share_at_1"), tWindow / (tMicro + tWindow), 1e-12);
        ACCUMLAB_COMPARE_REL(r.value("predicted_samples_per_sec_accum_16"), 1000.0 * 64.0 / (16.0 * tMicro + tWindow),
                             1e-12);
        // The prediction is drawn beside the measured points.
        QCOMPARE(r.series.size(), size_t(3));
        QCOMPARE(QString::fromStdString(r.series[1].name), QStringLiteral("predicted_samples_per_sec"));
        QCOMPARE(r.series[1].yLabel, r.series[0].yLabel);
        // An inconclusive claim is not a failure; a failed one is.
        QCOMPARE(r.holds(), outcome != "does not hold");
    }

    // Only the sweep's claims read clocks; every other verdict is a function of tensors alone.
    void onlyTheSweepHasTimingClaims()
    {
        for (const auto &info : experimentCatalog()) {
            if (info.id == "sweep-flattening")
                continue;
            const auto r = runExperiment(info.id, fastOptions());
            for (const auto &c : r.claims)
                QVERIFY2(!c.timing, c.id.c_str());
        }
    }

    // The headline numbers, read back against the arithmetic the lesson states.
    void noDivisionRatios()
    {
        const auto r = runExperiment("no-division", fastOptions());
        const double n = r.value("accum_steps");
        QCOMPARE(n, 4.0);
        ACCUMLAB_COMPARE_REL(r.value("sgd_update_ratio"), n, 1e-4);
        ACCUMLAB_COMPARE_REL(r.value("adamw_update_ratio"), 1.0, 1e-4);
        ACCUMLAB_COMPARE_REL(r.value("logged_loss_undivided"), n * r.value("true_mean_loss"), 1e-5);
        ACCUMLAB_COMPARE_REL(r.value("logged_loss_divided"), r.value("true_mean_loss"), 1e-5);
    }

    void sweepPointsShareOfPlateau()
    {
        const auto r = runExperiment("sweep-flattening", fastOptions());
        for (int a : {1, 2, 4, 8, 16}) {
            const std::string at = "_accum_" + std::to_string(a);
            const double share = r.value("share_of_plateau" + at);
            QVERIFY(share > 0.0 && share <= 1.0);
            QVERIFY(r.value("share_of_plateau_q25" + at) <= share && share <= r.value("share_of_plateau_q75" + at));
            // Equal work: every point timed the same micro-batches, one sync per step.
            QCOMPARE(r.value("timed_steps" + at), r.value("steps_at_largest_accum") * 16 / a);
            QCOMPARE(r.value("sync_calls" + at), r.value("timed_steps" + at));
            // Each point's costs were measured, and its prediction follows from the pooled ones.
            QVERIFY(r.value("t_micro_ms" + at) > 0.0 && r.value("t_window_ms" + at) > 0.0);
            ACCUMLAB_COMPARE_REL(r.value("predicted_samples_per_sec" + at),
                                 1000.0 * a * 4.0 / (a * r.value("t_micro_ms") + r.value("t_window_ms")), 0.2);
        }
        QCOMPARE(r.series.size(), size_t(3)); // measured, predicted, share of the plateau
        QCOMPARE(r.series[0].x, (std::vector<double>{4, 8, 16, 32, 64}));
        QCOMPARE(r.series[1].x, r.series[0].x);
    }

    void splitToleranceUlps()
    {
        const auto r = runExperiment("split-tolerance", fastOptions());
        // One ulp of max|g| in float32 is 2^(floor(log2 max|g|) - 23).
        const double m = r.value("float32_max_abs_grad");
        QCOMPARE(r.value("float32_ulp_of_max_abs_grad"), std::ldexp(1.0, std::ilogb(m) - 23));
        QVERIFY(r.value("bfloat16_max_grad_diff_vs_full") > r.value("fixed_tolerance"));
        QVERIFY(r.value("float32_max_grad_diff_vs_full") < r.value("fixed_tolerance"));
    }

    void lrScheduleWarmupLengths()
    {
        const auto r = runExperiment("lr-schedule", fastOptions());
        const double w = r.value("warmup_steps"), n = r.value("accum_steps");
        QCOMPARE(r.value("warmup_done_at_step_full_batch"), w);
        QCOMPARE(r.value("warmup_done_at_step_per_effective_step"), w);
        QCOMPARE(r.value("warmup_done_at_step_per_micro_batch"), w / n);
        QCOMPARE(r.series.size(), size_t(3));
        // Per effective step the schedule is the full-batch one, rate for rate.
        QCOMPARE(r.series[1].y, r.series[0].y);
        QVERIFY(r.series[2].y != r.series[0].y);
    }

    void linearScalingCurvesShareTheSampleAxis()
    {
        const auto r = runExperiment("linear-scaling", fastOptions());
        QCOMPARE(r.series.size(), size_t(3));
        QCOMPARE(r.series[0].x, r.series[1].x);
        QCOMPARE(r.series[1].x, r.series[2].x);
        QCOMPARE(r.series[0].x.back(), r.value("samples_seen"));
        QCOMPARE(r.series[1].y.back(), r.value("final_eval_loss_scaled_lr"));
        QCOMPARE(r.series[2].y.back(), r.value("final_eval_loss_unscaled_lr"));
        QCOMPARE(r.series[0].y.front(), r.series[1].y.front()); // one seed, one starting model
    }

    // The hook for real ranks: sync-count takes its gradient sync from a factory and counts
    // the calls that reach it; with two ranks the counts are per rank and unchanged.
    void syncCountWithTwoRanks()
    {
        std::vector<std::shared_ptr<TwoRankSync>> made;
        ExperimentOptions o = fastOptions();
        o.makeSync = [&made] {
            made.push_back(std::make_shared<TwoRankSync>());
            return made.back();
        };
        const auto r = runExperiment("sync-count", o);
        QCOMPARE(r.value("world_size"), 2.0);
        QVERIFY2(r.holds(), qPrintable(describe(r)));
        QCOMPARE(made.size(), size_t(8)); // 4 accumulation settings x no-sync on/off
        QCOMPARE(made[0]->calls, qint64(r.value("allreduces_issued_no_sync_on_accum_1")));
        QCOMPARE(made[7]->calls, qint64(r.value("allreduces_issued_no_sync_off_accum_8")));
        QCOMPARE(made[7]->calls, qint64(4 * 8));
    }

    void sameSeedSameFigures()
    {
        const auto a = runExperiment("clipping", fastOptions());
        const auto b = runExperiment("clipping", fastOptions());
        QCOMPARE(a.values.size(), b.values.size());
        for (size_t i = 0; i < a.values.size(); ++i)
            QCOMPARE(a.values[i].value, b.values[i].value);
    }

    void jsonForm()
    {
        const auto r = runExperiment("partial-window", fastOptions());
        const auto parsed = nlohmann::json::parse(toJson(r).dump());
        QCOMPARE(parsed.at("id").get<std::string>(), r.id);
        QCOMPARE(parsed.at("title").get<std::string>(), experimentTitle(r.id));
        QCOMPARE(parsed.at("holds").get<bool>(), r.holds());
        QCOMPARE(parsed.at("values").size(), r.values.size());
        for (const auto &v : r.values)
            QCOMPARE(parsed.at("values").at(v.name).get<double>(), v.value);
        QCOMPARE(parsed.at("claims").size(), r.claims.size());
        for (size_t i = 0; i < r.claims.size(); ++i) {
            const auto &c = parsed.at("claims")[i];
            QCOMPARE(c.at("id").get<std::string>(), r.claims[i].id);
            QCOMPARE(c.at("statement").get<std::string>(), claimStatement(r, r.claims[i], {"en", false}));
            QCOMPARE(c.at("statement_fa").get<std::string>(), claimStatement(r, r.claims[i], {"fa", false}));
            QCOMPARE(c.at("holds").get<bool>(), r.claims[i].holds);
        }
        QCOMPARE(parsed.at("explanation").get<std::string>(), explanation(r, {"en", false}));
        QCOMPARE(parsed.at("explanation_fa").get<std::string>(), explanation(r, {"fa", false}));
    }

    void textForm()
    {
        const auto r = runExperiment("batchnorm", fastOptions());
        const std::string text = toText(r);
        QVERIFY(text.find(experimentTitle(r.id)) != std::string::npos);
        for (const auto &c : r.claims)
            QVERIFY(text.find(claimStatement(r, c)) != std::string::npos);
        QVERIFY(text.find("[holds]") != std::string::npos);
    }

    void unknownIdIsAConfigError()
    {
        QVERIFY_THROWS_EXCEPTION(ConfigError, runExperiment("no-such-experiment"));
    }

    void cancelledBeforeStart()
    {
        CancelToken token;
        token.cancel();
        QVERIFY_THROWS_EXCEPTION(Cancelled, runExperiment("linear-scaling", fastOptions(), &token));
    }
};

QTEST_GUILESS_MAIN(TestExperiments)
#include "tst_experiments.moc"
