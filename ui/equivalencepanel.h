// The equivalence panel: the lesson's proof run at the window's current settings (one batch
// of micro x accum samples in one pass vs the same samples in accum chunks), with the
// differences, the tolerance that applies, pass/fail, the update ratio and per-layer diffs.
// Every number comes from core::runEquivalence in the worker. GUI thread only.
#pragma once

#include "ui/updates.h"

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
    // Why the check failed, in the UI language, from the result's cause code and figures (the
    // CLI prints core's English sentence from the same code).
    QString describeCause(const EquivalenceResult &r) const;
    // Why a check that passes may show parameter differences above the lesson's 1e-4 (its
    // bound is per element: tolerance + lr x the first update's response), "" otherwise; and
    // the derivation, for the tooltip.
    QString describeBound(const EquivalenceResult &r) const;
    QString boundDerivation(const EquivalenceResult &r) const;

protected:
    void changeEvent(QEvent *event) override;

private:
    void retranslateUi();
    void showResult();

    QLabel *m_splitLabel = nullptr;
    QLabel *m_verdictLabel = nullptr;
    QLabel *m_gradLabel = nullptr;
    QLabel *m_paramLabel = nullptr;
    QLabel *m_toleranceLabel = nullptr;
    QLabel *m_ratioLabel = nullptr;
    QLabel *m_causeLabel = nullptr;
    QLabel *m_gradCaption = nullptr;
    QLabel *m_paramCaption = nullptr;
    QLabel *m_toleranceCaption = nullptr;
    QLabel *m_ratioCaption = nullptr;
    QTableWidget *m_layerTable = nullptr;
    bool m_pending = false;
    bool m_classroom = false;
    EquivalenceConfig m_pendingConfig;
    std::optional<EquivalenceUpdate> m_update;
};

} // namespace accumlab::ui
