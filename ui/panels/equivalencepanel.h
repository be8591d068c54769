// The equivalence panel: the lesson's proof run at the window's current settings (one batch
// of micro x accum samples in one pass vs the same samples in accum chunks), with core's one
// verdict (PASS, FAIL, or a planted bug that had no effect here), the criterion it applied and
// the figures that decided it, the lesson's 1e-4 under its own label, the update ratio and
// per-layer diffs coloured by the verdict. Every number and every judgement comes from
// core::runEquivalence in the worker; the panel only shows them. GUI thread only.
#pragma once

#include "ui/worker/updates.h"

#include <QGroupBox>

class QLabel;
class QTableWidget;

namespace accumlab::ui {

class EquivalencePanel : public QGroupBox {
    Q_OBJECT
public:
    explicit EquivalencePanel(QWidget *parent = nullptr);

    void setPending(const EquivalenceConfig &config);
    void setResult(const EquivalenceUpdate &update);
    QString verdictText() const;
    QLabel *verdictLabel() const { return m_verdictLabel; }
    // The verdict enlarged to read from the back row.
    void setClassroomMode(bool on);
    QString causeText() const;
    QString criterionText() const;
    // Core's sentence in the UI language (the CLI prints the English one from the same code):
    // why the check failed, why a planted bug had no effect, or the run's dtype and the lesson's
    // 1e-4 explained beside the verdict; "" where there is nothing to say.
    QString describeCause(const EquivalenceResult &r) const;
    QString describeExplanation(const EquivalenceResult &r) const;

protected:
    void changeEvent(QEvent *event) override;

private:
    void retranslateUi();
    void showResult();
    void keepRoomForTheHeaders();

    QLabel *m_splitLabel = nullptr;
    QLabel *m_verdictLabel = nullptr;
    QLabel *m_gradLabel = nullptr;
    QLabel *m_paramLabel = nullptr;
    QLabel *m_toleranceLabel = nullptr;
    QLabel *m_ratioLabel = nullptr;
    QLabel *m_criterionLabel = nullptr;
    QLabel *m_causeLabel = nullptr;
    QLabel *m_gradCaption = nullptr;
    QLabel *m_paramCaption = nullptr;
    QLabel *m_toleranceCaption = nullptr;
    QLabel *m_ratioCaption = nullptr;
    QLabel *m_criterionCaption = nullptr;
    QTableWidget *m_layerTable = nullptr;
    bool m_pending = false;
    bool m_classroom = false;
    EquivalenceConfig m_pendingConfig;
    std::optional<EquivalenceUpdate> m_update;
};

} // namespace accumlab::ui
