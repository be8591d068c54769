// See labrun.h.
#include "ui/worker/labrun.h"

#include "ui/panels/accumulationpanel.h"
#include "ui/charts/gradientbufferview.h"
#include "ui/panels/codepanel.h"
#include "ui/panels/controlpanel.h"
#include "ui/worker/enginecontroller.h"
#include "ui/panels/equivalencepanel.h"
#include "ui/charts/losschart.h"
#include "ui/panels/memoryview.h"

#include <QSignalBlocker>
#include <QTimer>

namespace accumlab::ui {

namespace {
constexpr int kConfigDebounceMs = 150;
constexpr int kEquivalenceDebounceMs = 400;
constexpr int kMicroCoalesceMs = 15; // at most one buffer repaint per frame

QTimer *singleShot(int ms, QObject *parent)
{
    auto *timer = new QTimer(parent);
    timer->setSingleShot(true);
    timer->setInterval(ms);
    return timer;
}
} // namespace

LabRun::LabRun(const Parts &parts, QObject *parent)
    : QObject(parent), m_parts(parts), m_configTimer(singleShot(kConfigDebounceMs, this)),
      m_equivalenceTimer(singleShot(kEquivalenceDebounceMs, this)), m_microTimer(singleShot(kMicroCoalesceMs, this))
{
    connect(m_configTimer, &QTimer::timeout, this, &LabRun::applyConfigNow);
    connect(m_equivalenceTimer, &QTimer::timeout, this, &LabRun::requestEquivalenceNow);
    connect(m_microTimer, &QTimer::timeout, this, &LabRun::showMicroBatch);
    connect(m_parts.controls, &ControlPanel::configChanged, this, &LabRun::onConfigEdited);
    connect(m_parts.controller, &EngineController::microBatchDone, this, &LabRun::onMicroBatch);
    connect(m_parts.controller, &EngineController::equivalenceFinished, this, &LabRun::onEquivalence);
}

void LabRun::onConfigEdited()
{
    m_configTimer->start();
    m_equivalenceTimer->start();
    m_parts.equivalence->setPending(equivalenceConfig());
    m_parts.accumulation->bufferView()->setVerdict(std::nullopt);
    m_parts.memory->setConfig(m_parts.controls->config());
}

void LabRun::applyConfigNow()
{
    m_configTimer->stop();
    const AccumConfig config = m_parts.controls->config();
    m_parts.controller->setConfig(config);
    m_parts.memory->setConfig(config);
    m_parts.accumulation->clear();
    m_parts.code->clearLit();
    m_parts.loss->clearTeaching();
    m_pendingMicro.reset();
    emit configApplied();
}

bool LabRun::editsPending() const { return m_configTimer->isActive(); }

void LabRun::holdEdits() { m_configTimer->stop(); }

void LabRun::onMicroBatch(const MicroBatchUpdate &update)
{
    // Bursts (Step pressed quickly, a fast pace) collapse into one repaint per frame.
    m_pendingMicro = update;
    if (!m_microTimer->isActive())
        m_microTimer->start();
}

void LabRun::showMicroBatch()
{
    if (!m_pendingMicro)
        return;
    m_parts.accumulation->showMicroBatch(*m_pendingMicro);
    m_parts.code->showMicroBatch(*m_pendingMicro);
    if (m_pendingMicro->memory)
        m_parts.memory->showLiveWindow(*m_pendingMicro->memory);
    m_pendingMicro.reset();
}

EquivalenceConfig LabRun::equivalenceConfig() const { return equivalenceConfigOf(m_parts.controls->config()); }

void LabRun::requestEquivalenceNow()
{
    m_equivalenceTimer->stop();
    const EquivalenceConfig e = equivalenceConfig();
    m_parts.equivalence->setPending(e);
    m_parts.accumulation->bufferView()->setVerdict(std::nullopt);
    m_latestSerial = m_parts.controller->requestEquivalence(e);
}

void LabRun::requestEquivalenceSoon() { m_equivalenceTimer->start(); }

bool LabRun::equivalenceScheduled() const { return m_equivalenceTimer->isActive(); }

void LabRun::showRunSettings(const AccumConfig &config)
{
    Preset preset = m_parts.controls->preset();
    preset.run = config;
    {
        const QSignalBlocker block(m_parts.controls);
        m_parts.controls->setPreset(preset);
    }
    requestEquivalenceNow();
}

void LabRun::onEquivalence(const EquivalenceUpdate &update)
{
    if (update.serial < m_latestSerial)
        return; // a newer request is on its way
    m_answeredSerial = update.serial;
    m_parts.equivalence->setResult(update);
    if (update.ok)
        m_lastEquivalence = update.result;
    else
        m_lastEquivalence.reset();
    // The buffers' colours are the same verdict's, tensor by tensor.
    std::optional<QVector<bool>> differs;
    if (m_lastEquivalence) {
        differs.emplace();
        for (const LayerDiff &l : m_lastEquivalence->layers)
            differs->push_back(l.differs);
    }
    m_parts.accumulation->bufferView()->setVerdict(differs);
    emit equivalenceUpdated();
}

} // namespace accumlab::ui
