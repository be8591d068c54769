// The skill recipe: fixed guidance followed by this run's measured figures.
#include "core/skill.h"

#include <cmath>
#include <cstdio>
#include <sstream>

namespace accumlab {

namespace {

std::string fmt(const char *format, double v)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, format, v);
    return buf;
}

const char *const kRecipe = R"md(---
name: gradient-accumulation
description: Train with an effective batch larger than device memory allows by accumulating gradients over micro-batches, with the loss scaling, optimizer cadence and data-parallel sync done right.
version: 1.0.0
tags: [training, gradient-accumulation, memory, distributed, pytorch]
---

# Gradient accumulation

## When to use it
- The batch size your optimizer and learning-rate schedule were tuned for does not fit in device memory.
- You want the same effective batch on machines with different memory or a different number of GPUs.
- Not when the model already trains well at the batch size that fits: accumulation costs time, it saves no compute.

## The recipe
1. **Fill memory with the micro-batch.** Pick the largest `micro_batch` that trains without running out of memory on one device (leave headroom for the longest sequence).
2. **Take the effective batch from the schedule.** `effective_batch` is the batch your learning rate and warm-up were tuned for; keep it fixed when hardware changes.
3. **Derive the steps and check them.**
   ```python
   accum_steps = effective_batch // (micro_batch * world_size)
   assert micro_batch * accum_steps * world_size == effective_batch, "effective batch must divide"
   ```
4. **Divide the loss by `accum_steps` before `backward()`.** Gradients add up in the parameter buffers; dividing each micro-batch's mean loss makes their sum the mean over the effective batch. Without it the direction is right but SGD's step is `accum_steps` times too large.
5. **Skip the all-reduce on non-final micro-batches.** Under DDP run them inside `model.no_sync()`; only the last backward of the window all-reduces, so gradients cross the network once per window, not `accum_steps` times.
6. **Step once per window.**
   ```python
   optimizer.zero_grad(set_to_none=True)
   for i, (x, y) in enumerate(micro_batches):          # len(micro_batches) == accum_steps
       last = i == accum_steps - 1
       ctx = contextlib.nullcontext() if last else model.no_sync()
       with ctx:
           loss = loss_fn(model(x), y) / accum_steps
           loss.backward()
   clip_grad_norm_(model.parameters(), max_norm)          # once, after accumulation
   optimizer.step()
   scheduler.step()                                       # once per effective step
   ```
7. **Advance state per effective step.** Momentum, Adam's moments and step count, the LR scheduler and the global step counter all move once per window, never per micro-batch.

## What to log
- `effective_batch`, `micro_batch`, `accum_steps`, `world_size` at start-up, and the assertion above.
- Per optimizer step: the unscaled mean loss (multiply the scaled loss back, or average the raw micro-batch losses), the global gradient norm after accumulation, the learning rate, the optimizer's step count.
- Throughput as samples/sec and time per optimizer step; the number of gradient all-reduces per step (1 with `no_sync`).

## Failure modes
- **Loss not divided:** gradients and logged loss are `accum_steps` times too large; SGD overshoots by that factor, Adam hides it (it normalises gradient scale) but clipping thresholds and logs are off.
- **Optimizer or scheduler stepped per micro-batch:** Adam's step count and the schedule run `accum_steps` times too fast; warm-up ends early.
- **Partial last window:** when the data ends mid-window, dividing by the full `accum_steps` under-weights it; divide by the micro-batches actually seen.
- **Variable-length sequences:** dividing each micro-batch's per-token mean by `accum_steps` weights short sequences more; normalise by the window's total token count.
- **BatchNorm:** statistics are per micro-batch, so accumulation is not equivalent to the full batch; LayerNorm/GroupNorm are.
- **Clipping each micro-batch:** clip once, after the last backward.
- **All-reduce every micro-batch:** correct but slow; use `no_sync` on all but the last.

## Check it in your repo
One full batch against the same samples in `accum_steps` chunks with `loss / accum_steps`, from two identical models: gradient buffers and parameters after one step must agree up to float summation order (max abs diff < 1e-4 in float32; in bfloat16 use a bound of a few ulps of the largest gradient).
)md";

} // namespace

std::string skillMarkdown(const EquivalenceResult &eq, const SweepResult &sweep)
{
    std::ostringstream out;
    out << kRecipe;
    const auto &c = eq.config;
    out << "\n## Measured in this run\n\n";
    out << "Equivalence (in " << c.shape.inFeatures << ", hidden " << c.shape.hidden << ", " << c.shape.classes
        << " classes; a batch of " << c.bigBatch << " as " << c.accumSteps << " micro-batches of "
        << c.bigBatch / c.accumSteps << "; " << toString(c.optimizer.kind) << " lr " << c.optimizer.lr << "; "
        << toString(c.dtype) << "; loss scaling " << toString(c.scaling) << "):\n\n";
    out << "| quantity | value |\n|---|---|\n";
    out << "| max abs grad diff | " << fmt("%.3e", eq.maxGradDiff) << " |\n";
    out << "| max abs param diff | " << fmt("%.3e", eq.maxParamDiff) << " |\n";
    out << "| parameters start identical | " << (eq.paramsInitMatch ? "yes" : "no") << " |\n";
    out << "| update ratio (accumulated / full) | " << fmt("%.4f", eq.updateRatio) << " |\n";
    out << "| tolerance | " << fmt("%.0e", c.fixedTolerance) << " (dtype-aware bound "
        << fmt("%.3e", eq.gradBoundDtype) << ") |\n";
    out << "| holds | " << (eq.holds ? "yes" : "no") << " |\n\n";

    const auto &s = sweep.config;
    out << "Throughput sweep (" << toString(s.base.preset) << " model, micro-batch " << s.base.microBatch << ", "
        << s.numSteps << " timed steps per point after " << s.warmupSteps << " warm-up, "
        << toString(s.base.optimizer.kind) << ", " << (sweep.points.empty() ? "" : sweep.points.front().device)
        << ", " << (sweep.points.empty() ? 0 : sweep.points.front().threads) << " threads):\n\n";
    out << "| effective batch | accum steps | micro-batch | samples/sec | share of plateau | median step ms | sync calls | avg loss |\n";
    out << "|---|---|---|---|---|---|---|---|\n";
    const double plateau = sweep.plateauSamplesPerSec();
    for (const auto &p : sweep.points) {
        out << "| " << p.effectiveBatch << " | " << p.accumSteps << " | " << p.microBatch << " | "
            << fmt("%.1f", p.samplesPerSec) << " | " << fmt("%.0f%%", plateau > 0 ? 100.0 * p.samplesPerSec / plateau : 0.0)
            << " | " << fmt("%.3f", p.medianStepMs) << " | " << p.syncCalls << " | "
            << (p.diverged ? std::string("diverged") : fmt("%.4f", p.avgLoss)) << " |\n";
    }
    out << "\nSamples/sec saturates as the effective batch grows (the fixed cost per optimizer step is spread over "
           "more samples) while the time per optimizer step grows with accum_steps: memory is traded for time.\n";
    return out.str();
}

} // namespace accumlab
