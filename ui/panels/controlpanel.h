// The window's controls, sized for a projector: batch sliders with the live identity
// micro x accum x world = effective, optimizer, the teaching bugs, numerics, device, model,
// seed, pace and the sweep's grid. Reads and writes itself as a Preset; hides the rows a
// teacher chose in classroom mode. GUI thread only.
#pragma once

#include "ui/session/preset.h"

#include <QHash>
#include <QList>
#include <QWidget>

class QCheckBox;
class QComboBox;
class QGroupBox;
class QLabel;
class QLineEdit;
class QSlider;
class QSpinBox;

namespace accumlab::ui {

// What the controls can show: a value outside these would be clamped or snapped by a slider
// or spin box, so a command line that presets the window checks against them first.
struct ControlLimits {
    int maxMicroBatch = 0;
    int maxAccumSteps = 0;
    int maxWorldSize = 0;
    int maxSeed = 0;
    int minNumSteps = 0;
    int maxNumSteps = 0;
    int maxPace = 0;
    QList<double> learningRates; // the slider's stops, ascending
};

class LessonNavigator;

class ControlPanel : public QWidget {
    Q_OBJECT
public:
    explicit ControlPanel(QWidget *parent = nullptr);

    static ControlLimits limits();

    // Keys of the rows a classroom preset can hide.
    static QStringList controlKeys();
    QString controlTitle(const QString &key) const;
    // The name the window gives a classic bug (AccumBug), in the UI language.
    static QString bugTitle(AccumBug bug);
    // The row of `key` (its label and field), the widget that takes focus in it, and the live
    // identity label: what the lesson's links point at. Null for an unknown key.
    QWidget *rowField(const QString &key) const { return m_rowFields.value(key); }
    QWidget *rowFocusWidget(const QString &key) const;
    QLabel *identityLabel() const { return m_identityLabel; }
    // "control/<key>" for every row (outlined whole, its field focused) and "view/identity".
    void registerLessonTargets(LessonNavigator &navigator) const;

    Preset preset() const;
    void setPreset(const Preset &preset);
    // The run the controls show, over the rest of the last preset's run (an experiment's
    // warmup or labels, a resumed checkpoint's settings): what no control shows is kept.
    AccumConfig config() const { return preset().run; }

    void setClassroomMode(bool enabled, const QStringList &hidden);
    bool classroomMode() const { return m_classroomMode; }
    QStringList hiddenControls() const { return m_hidden; }
    // A dialog (over `parent`) that lets the teacher check the rows classroom mode hides;
    // true when the choice was accepted and applied.
    bool chooseHiddenControls(QWidget *parent);
    // The rows that can be edited while a sweep runs are the pace only.
    void setSweepRunning(bool running);

    // The least width: every box's names above their controls, the widest name or control.
    // The preferred width: the names beside their controls, at their preferred widths.
    QSize minimumSizeHint() const override;
    QSize sizeHint() const override;
    // Whether the names stand above their controls now (the panel is narrower than the names
    // beside their controls need).
    bool namesAbove() const { return m_namesAbove; }

signals:
    // Any engine setting changed (emitted once per user edit; the window debounces).
    void configChanged();
    void paceChanged(int microBatchesPerSecond);
    void sweepSettingsChanged();

protected:
    void changeEvent(QEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;
    bool event(QEvent *event) override;

private:
    void retranslateUi();
    void updateValueLabels();
    // A box's rows in order: a name and its control, or (no name) one widget across the box.
    struct FormRow {
        QLabel *name = nullptr;
        QWidget *field = nullptr;
    };
    struct Form {
        QGroupBox *box = nullptr;
        QList<FormRow> rows;
    };
    int addForm(QGroupBox *box);
    void addRow(int form, const QString &key, QWidget *field);
    void arrangeRows(bool namesAbove);
    void chooseArrangement();
    // The widest box with its names above or beside its controls, at least or preferred widths.
    int formsWidth(bool namesAbove, bool preferred) const;
    void applyVisibility();
    int lrIndex(double lr) const;

    QHash<QString, QLabel *> m_rowLabels;
    QHash<QString, QWidget *> m_rowFields;
    QList<Form> m_forms;
    bool m_namesAbove = false;
    QGroupBox *m_batchBox = nullptr;
    QGroupBox *m_trainingBox = nullptr;
    QGroupBox *m_teachingBox = nullptr;
    QGroupBox *m_sweepBox = nullptr;
    QSlider *m_microSlider = nullptr;
    QLabel *m_microValue = nullptr;
    QSlider *m_accumSlider = nullptr;
    QLabel *m_accumValue = nullptr;
    QSlider *m_lrSlider = nullptr;
    QLabel *m_lrValue = nullptr;
    QLabel *m_identityLabel = nullptr;
    QComboBox *m_optimizerCombo = nullptr;
    QCheckBox *m_noDivisionCheck = nullptr;
    QCheckBox *m_stepEveryMicroCheck = nullptr;
    QComboBox *m_bugCombo = nullptr; // AccumBug, "none" first
    QCheckBox *m_noSyncCheck = nullptr;
    QComboBox *m_dtypeCombo = nullptr;
    QCheckBox *m_lossScalingCheck = nullptr; // float16's dynamic loss scaler
    QComboBox *m_scalerBugCombo = nullptr;   // ScalerBug, "none" first; live while the scaler is on
    QComboBox *m_deviceCombo = nullptr;
    QComboBox *m_modelCombo = nullptr;
    QSpinBox *m_seedSpin = nullptr;
    QSlider *m_paceSlider = nullptr;
    QLabel *m_paceValue = nullptr;
    QLineEdit *m_gridEdit = nullptr;
    QSpinBox *m_stepsSpin = nullptr;
    QSlider *m_worldSlider = nullptr; // ranks for the sweep: real processes over c10d/Gloo
    QLabel *m_worldValue = nullptr;
    AccumConfig m_run = teachingDefaults(); // the last preset's run, under the controls
    int m_warmupSteps = 2;
    int m_threads = 0;
    bool m_classroomMode = false;
    bool m_cudaAvailable = false;
    QStringList m_hidden;
};

} // namespace accumlab::ui
