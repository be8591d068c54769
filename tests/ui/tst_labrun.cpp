// LabRun keeps the teaching run and its check in step with the controls: a burst of control
// edits rebuilds the engine once and asks for one check, for the settings the burst ended on;
// of several checks asked for in a row only the newest answer reaches the panel; Step applies
// a pending edit first (editsPending), and holdEdits drops it. Planted: an engine rebuilt on
// every edit, or an older answer shown, fails here. "Nothing more follows" is known by events:
// no debounce left running, and the engine's flush answered (EngineController::flush()).
#include "ui/worker/labrun.h"

#include "ui/panels/accumulationpanel.h"
#include "ui/panels/codepanel.h"
#include "ui/panels/controlpanel.h"
#include "ui/worker/enginecontroller.h"
#include "ui/panels/equivalencepanel.h"
#include "ui/charts/losschart.h"
#include "ui/panels/memoryview.h"

#include "wait_helpers.h"

#include <QSignalSpy>
#include <QTest>

using namespace accumlab;
using namespace accumlab::ui;

namespace {
// The controls and panels a window would lay out, driven by one LabRun.
struct Lab {
    EngineController controller;
    ControlPanel controls;
    AccumulationPanel accumulation;
    EquivalencePanel equivalence;
    MemoryView memory;
    LossChart loss;
    CodePanel code;
    LabRun run{{&controller, &controls, &accumulation, &equivalence, &memory, &loss, &code}, nullptr};
};

// One edit as the teacher makes it: the controls take a new seed and say so.
void editSeed(ControlPanel &controls, uint64_t seed)
{
    Preset p = controls.preset();
    p.run.seed = seed;
    controls.setPreset(p);
}
} // namespace

class TestLabRun : public QObject {
    Q_OBJECT
private slots:
    void editsAreDebounced_data();
    void editsAreDebounced();
    void onlyTheNewestCheckIsShown_data();
    void onlyTheNewestCheckIsShown();
    void heldEditsAreDropped();
};

void TestLabRun::editsAreDebounced_data()
{
    QTest::addColumn<int>("edits");
    QTest::addColumn<int>("gapMs"); // between two edits, inside the debounce: the drag's own pace
    QTest::newRow("one edit") << 1 << 0;
    QTest::newRow("five edits at once") << 5 << 0;
    QTest::newRow("a slider dragged over 20 values") << 20 << 20;
}

void TestLabRun::editsAreDebounced()
{
    QFETCH(int, edits);
    QFETCH(int, gapMs);
    Lab lab;
    QSignalSpy configured(&lab.controller, &EngineController::engineConfigured);
    QSignalSpy applied(&lab.run, &LabRun::configApplied);
    QSignalSpy checked(&lab.run, &LabRun::equivalenceUpdated);
    const uint64_t firstSeed = lab.controls.config().seed + 1;
    for (int i = 0; i < edits; ++i) {
        editSeed(lab.controls, firstSeed + i);
        QVERIFY(lab.run.editsPending());
        if (gapMs)
            QTest::qWait(gapMs); // a timed wait by design: edits spaced as a hand drags a slider
    }
    QTRY_COMPARE_WITH_TIMEOUT(configured.count(), 1, 30'000);
    QTRY_COMPARE_WITH_TIMEOUT(checked.count(), 1, 60'000);
    // Nothing more follows: no debounce runs, and every answer the engine owes has arrived.
    QVERIFY(!lab.run.editsPending());
    QVERIFY(!lab.run.equivalenceScheduled());
    QVERIFY(accumlab::ui::test::flushEngine(lab.controller));
    QCOMPARE(applied.count(), 1);
    QCOMPARE(configured.count(), 1);
    QCOMPARE(checked.count(), 1);
    QVERIFY(!lab.run.editsPending());
    // The rebuild and the check are the burst's last settings.
    const auto info = configured.first().first().value<EngineInfo>();
    QCOMPARE(info.config.seed, firstSeed + uint64_t(edits - 1));
    QVERIFY(lab.run.lastEquivalence().has_value());
    QCOMPARE(lab.run.lastEquivalence()->config.run.seed, firstSeed + uint64_t(edits - 1));
}

void TestLabRun::onlyTheNewestCheckIsShown_data()
{
    QTest::addColumn<int>("requests");
    QTest::newRow("two") << 2;
    QTest::newRow("four") << 4;
}

void TestLabRun::onlyTheNewestCheckIsShown()
{
    QFETCH(int, requests);
    Lab lab;
    QSignalSpy checked(&lab.run, &LabRun::equivalenceUpdated);
    QSignalSpy answered(&lab.controller, &EngineController::equivalenceFinished);
    const uint64_t firstSeed = lab.controls.config().seed + 1;
    for (int i = 0; i < requests; ++i) {
        const QSignalBlocker quiet(lab.controls); // no debounce: the requests go out now
        editSeed(lab.controls, firstSeed + i);
        lab.run.requestEquivalenceNow();
        QVERIFY(lab.run.equivalencePending());
    }
    QTRY_VERIFY_WITH_TIMEOUT(!lab.run.equivalencePending(), 60'000);
    QVERIFY(accumlab::ui::test::flushEngine(lab.controller)); // an older answer still queued arrives
    QCOMPARE(checked.count(), 1);
    QVERIFY(lab.run.lastEquivalence().has_value());
    QCOMPARE(lab.run.lastEquivalence()->config.run.seed, firstSeed + uint64_t(requests - 1));
}

void TestLabRun::heldEditsAreDropped()
{
    Lab lab;
    QSignalSpy configured(&lab.controller, &EngineController::engineConfigured);
    QSignalSpy checked(&lab.run, &LabRun::equivalenceUpdated);
    editSeed(lab.controls, lab.controls.config().seed + 1);
    QVERIFY(lab.run.editsPending());
    lab.run.holdEdits();
    QVERIFY(!lab.run.editsPending());
    // The same edit's check is not held: its debounce is the longer one, so its answer comes
    // after the rebuild's would have, had the rebuild not been dropped.
    QVERIFY(lab.run.equivalenceScheduled());
    QVERIFY(checked.wait(60'000));
    QVERIFY(accumlab::ui::test::flushEngine(lab.controller));
    QCOMPARE(configured.count(), 0);
}

QTEST_MAIN(TestLabRun)
#include "tst_labrun.moc"
