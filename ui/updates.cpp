// Registration of the cross-thread value structs.
#include "ui/updates.h"

namespace accumlab::ui {

void registerUpdateTypes()
{
    qRegisterMetaType<EngineInfo>();
    qRegisterMetaType<MicroBatchUpdate>();
    qRegisterMetaType<StepBatchUpdate>();
    qRegisterMetaType<SweepPointUpdate>();
    qRegisterMetaType<SweepDoneUpdate>();
    qRegisterMetaType<EquivalenceUpdate>();
    qRegisterMetaType<ExperimentUpdate>();
    qRegisterMetaType<MemoryLabUpdate>();
    qRegisterMetaType<EngineJob>();
}

} // namespace accumlab::ui
