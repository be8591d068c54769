// The skill recipe: fixed guidance followed by this run's measured figures, in English or Persian.
// Figures use the C locale (Latin digits, a dot) in both, so they can be copied into code.
#include "core/skill.h"

#include <algorithm>
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

// The window loop, shared by both languages' recipes (code stays code).
const char *const kWindowLoop = R"md(   ```python
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
   ```)md";

const std::string kRecipe = R"md(---
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
)md" + std::string(kWindowLoop) + R"md(
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

const std::string kRecipePersian = R"md(---
name: gradient-accumulation
description: آموزش با دسته‌ی مؤثری بزرگ‌تر از آنچه حافظه‌ی دستگاه جا می‌دهد، با انباشت گرادیان روی میکروبچ‌ها؛ با مقیاس‌دهی درست زیان، آهنگ درست گام بهینه‌ساز و همگام‌سازی درست در موازی‌سازی داده.
version: 1.0.0
tags: [training, gradient-accumulation, memory, distributed, pytorch]
---

# انباشت گرادیان

## چه وقت به کارش ببریم
- اندازه‌ی دسته‌ای که بهینه‌ساز و زمان‌بندی نرخ یادگیری برایش تنظیم شده‌اند در حافظه‌ی دستگاه جا نمی‌شود.
- می‌خواهید روی ماشین‌هایی با حافظه‌ی متفاوت یا تعداد GPU متفاوت، همان دسته‌ی مؤثر را داشته باشید.
- نه وقتی مدل با دسته‌ای که در حافظه جا می‌شود به‌خوبی آموزش می‌بیند: انباشت زمان می‌گیرد و از محاسبه چیزی کم نمی‌کند.

## دستورالعمل
1. **حافظه را با میکروبچ پر کنید.** بزرگ‌ترین `micro_batch` را بردارید که روی یک دستگاه بدون کمبود حافظه آموزش می‌بیند (برای بلندترین دنباله حاشیه‌ی امن بگذارید).
2. **دسته‌ی مؤثر را از زمان‌بندی بگیرید.** `effective_batch` همان دسته‌ای است که نرخ یادگیری و گرمایش برایش تنظیم شده‌اند؛ وقتی سخت‌افزار عوض می‌شود آن را ثابت نگه دارید.
3. **تعداد گام‌ها را به دست آورید و بررسی کنید.**
   ```python
   accum_steps = effective_batch // (micro_batch * world_size)
   assert micro_batch * accum_steps * world_size == effective_batch, "effective batch must divide"
   ```
4. **زیان را پیش از `backward()` بر `accum_steps` تقسیم کنید.** گرادیان‌ها در بافرهای پارامترها با هم جمع می‌شوند؛ با تقسیم میانگین زیان هر میکروبچ، مجموع آن‌ها میانگینِ کل دسته‌ی مؤثر می‌شود. بدون تقسیم، جهت درست است اما گام SGD به اندازه‌ی `accum_steps` برابر بزرگ‌تر از حد است.
5. **در میکروبچ‌های غیرپایانی all-reduce را حذف کنید.** در DDP آن‌ها را درون `model.no_sync()` اجرا کنید؛ فقط آخرین backward هر پنجره all-reduce می‌کند، پس گرادیان‌ها در هر پنجره یک بار از شبکه می‌گذرند، نه `accum_steps` بار.
6. **در هر پنجره یک بار گام بردارید.**
)md" + std::string(kWindowLoop) + R"md(
7. **وضعیت را در هر گام مؤثر جلو ببرید.** تکانه، گشتاورها و شمارنده‌ی گام Adam، زمان‌بند نرخ یادگیری و شمارنده‌ی سراسری گام همه در هر پنجره یک بار جلو می‌روند، هرگز در هر میکروبچ.

## چه چیزهایی را ثبت کنیم
- در شروع اجرا: `effective_batch`، `micro_batch`، `accum_steps`، `world_size` و بررسیِ بالا.
- در هر گام بهینه‌ساز: میانگین زیانِ مقیاس‌نخورده (زیان مقیاس‌خورده را دوباره ضرب کنید، یا زیان‌های خام میکروبچ‌ها را میانگین بگیرید)، نُرم سراسری گرادیان پس از انباشت، نرخ یادگیری و شمارنده‌ی گام بهینه‌ساز.
- توان عملیاتی بر حسب نمونه در ثانیه و زمان هر گام بهینه‌ساز؛ تعداد all-reduceهای گرادیان در هر گام (با `no_sync` یکی).

## خطاهای رایج
- **زیان تقسیم نشده:** گرادیان‌ها و زیان ثبت‌شده `accum_steps` برابر بزرگ‌ترند؛ SGD به همین نسبت از هدف می‌گذرد. Adam این را پنهان می‌کند (مقیاس گرادیان را نرمال می‌کند)، اما آستانه‌های برش و گزارش‌ها نادرست می‌شوند.
- **گام بهینه‌ساز یا زمان‌بند در هر میکروبچ:** شمارنده‌ی گام Adam و زمان‌بندی `accum_steps` برابر تندتر پیش می‌روند؛ گرمایش زود تمام می‌شود.
- **پنجره‌ی آخرِ ناقص:** وقتی داده وسط پنجره تمام می‌شود، تقسیم بر کل `accum_steps` وزنش را کم می‌کند؛ بر تعداد میکروبچ‌هایی که واقعاً دیده شده‌اند تقسیم کنید.
- **دنباله‌های با طول متغیر:** تقسیم میانگینِ هر توکنِ هر میکروبچ بر `accum_steps` به دنباله‌های کوتاه وزن بیشتری می‌دهد؛ با تعداد کل توکن‌های پنجره نرمال کنید.
- **BatchNorm:** آماره‌ها برای هر میکروبچ جدا حساب می‌شوند، پس انباشت با دسته‌ی کامل هم‌ارز نیست؛ LayerNorm و GroupNorm هم‌ارزند.
- **برش گرادیان در هر میکروبچ:** فقط یک بار، پس از آخرین backward برش بزنید.
- **all-reduce در هر میکروبچ:** درست است اما کند؛ در همه جز آخری از `no_sync` استفاده کنید.

## در مخزن خودتان بررسی کنید
یک دسته‌ی کامل را در برابر همان نمونه‌ها در `accum_steps` تکه با `loss / accum_steps` بگذارید، با دو مدل یکسان: بافرهای گرادیان و پارامترها پس از یک گام باید تا حد ترتیب جمع ممیز شناور برابر باشند (بیشینه‌ی اختلاف مطلق کمتر از 1e-4 در float32؛ در bfloat16 کرانی به اندازه‌ی چند ulp از بزرگ‌ترین گرادیان به کار ببرید).
)md";

// The measured section's words in one language; the figures are formatted the same in both.
struct MeasuredWords {
    const char *heading;
    const char *equivalenceIntro; // printf: in, hidden, classes, batch, accum, micro, optimizer, lr, dtype, scaling
    const char *quantityHeader;
    const char *gradDiff;
    const char *paramDiff;
    const char *initMatch;
    const char *updateRatio;
    const char *tolerance;
    const char *dtypeBound;
    const char *holds;
    const char *yes;
    const char *no;
    const char *sweepIntro; // printf: preset, micro, steps, warmup, optimizer, device, threads
    const char *sweepHeader;
    const char *diverged;
    const char *closing;
};

const MeasuredWords kEnglishWords{
    "## Measured in this run",
    "Equivalence (in %lld, hidden %lld, %lld classes; a batch of %lld as %lld micro-batches of %lld; %s lr %g; %s; "
    "loss scaling %s):",
    "| quantity | value |",
    "max abs grad diff",
    "max abs param diff",
    "parameters start identical",
    "update ratio (accumulated / full)",
    "tolerance",
    "dtype-aware bound",
    "holds",
    "yes",
    "no",
    "Throughput sweep (%s model, micro-batch %lld, %lld timed steps per point after %lld warm-up, %s, %s, %d threads):",
    "| effective batch | accum steps | micro-batch | samples/sec | share of plateau | median step ms | sync calls | avg loss |",
    "diverged",
    "Samples/sec saturates as the effective batch grows (the fixed cost per optimizer step is spread over more samples) "
    "while the time per optimizer step grows with accum_steps: memory is traded for time.",
};

const MeasuredWords kPersianWords{
    "## اندازه‌گیری‌شده در این اجرا",
    "هم‌ارزی (ورودی %lld، لایه‌ی پنهان %lld، %lld کلاس؛ دسته‌ای %lld‌تایی به‌صورت %lld میکروبچ %lld‌تایی؛ %s با نرخ "
    "یادگیری %g؛ %s؛ مقیاس‌دهی زیان %s):",
    "| کمیت | مقدار |",
    "بیشینه‌ی اختلاف مطلق گرادیان",
    "بیشینه‌ی اختلاف مطلق پارامتر",
    "پارامترها از ابتدا یکسان‌اند",
    "نسبت به‌روزرسانی (انباشته / کامل)",
    "رواداری",
    "کران وابسته به dtype",
    "هم‌ارزی برقرار است",
    "بله",
    "خیر",
    "پیمایش توان عملیاتی (مدل %s، میکروبچ %lld، %lld گام زمان‌سنجی‌شده برای هر نقطه پس از %lld گام گرمایش، %s، %s، "
    "%d رشته):",
    "| دسته‌ی مؤثر | گام‌های انباشت | میکروبچ | نمونه در ثانیه | سهم از فلات | میانه‌ی زمان گام (ms) | فراخوانی‌های همگام‌سازی | "
    "میانگین زیان |",
    "واگرا شد",
    "با بزرگ شدن دسته‌ی مؤثر، نمونه در ثانیه به سقفی می‌رسد (هزینه‌ی ثابت هر گام بهینه‌ساز میان نمونه‌های بیشتری پخش "
    "می‌شود)، در حالی که زمان هر گام بهینه‌ساز با accum_steps بالا می‌رود: حافظه با زمان معاوضه می‌شود.",
};

std::string printfString(const char *format, auto... args)
{
    const int n = std::snprintf(nullptr, 0, format, args...);
    std::string out(static_cast<size_t>(std::max(n, 0)) + 1, '\0');
    std::snprintf(out.data(), out.size(), format, args...);
    out.resize(static_cast<size_t>(std::max(n, 0)));
    return out;
}

} // namespace

std::string skillMarkdown(const EquivalenceResult &eq, const SweepResult &sweep, Language language)
{
    const bool persian = language == Language::Persian;
    const MeasuredWords &w = persian ? kPersianWords : kEnglishWords;
    std::ostringstream out;
    out << (persian ? kRecipePersian : kRecipe);
    const auto &c = eq.config;
    out << "\n" << w.heading << "\n\n";
    out << printfString(w.equivalenceIntro, static_cast<long long>(c.shape.inFeatures),
                        static_cast<long long>(c.shape.hidden), static_cast<long long>(c.shape.classes),
                        static_cast<long long>(c.bigBatch), static_cast<long long>(c.accumSteps),
                        static_cast<long long>(c.bigBatch / c.accumSteps), toString(c.optimizer.kind).c_str(),
                        c.optimizer.lr, toString(c.dtype).c_str(), toString(c.scaling).c_str())
        << "\n\n";
    out << w.quantityHeader << "\n|---|---|\n";
    out << "| " << w.gradDiff << " | " << fmt("%.3e", eq.maxGradDiff) << " |\n";
    out << "| " << w.paramDiff << " | " << fmt("%.3e", eq.maxParamDiff) << " |\n";
    out << "| " << w.initMatch << " | " << (eq.paramsInitMatch ? w.yes : w.no) << " |\n";
    out << "| " << w.updateRatio << " | " << fmt("%.4f", eq.updateRatio) << " |\n";
    out << "| " << w.tolerance << " | " << fmt("%.0e", c.fixedTolerance) << " (" << w.dtypeBound << " "
        << fmt("%.3e", eq.gradBoundDtype) << ") |\n";
    out << "| " << w.holds << " | " << (eq.holds ? w.yes : w.no) << " |\n\n";

    const auto &s = sweep.config;
    out << printfString(w.sweepIntro, toString(s.base.preset).c_str(), static_cast<long long>(s.base.microBatch),
                        static_cast<long long>(s.numSteps), static_cast<long long>(s.warmupSteps),
                        toString(s.base.optimizer.kind).c_str(),
                        sweep.points.empty() ? "" : sweep.points.front().device.c_str(),
                        sweep.points.empty() ? 0 : static_cast<int>(sweep.points.front().threads))
        << "\n\n";
    out << w.sweepHeader << "\n";
    out << "|---|---|---|---|---|---|---|---|\n";
    const double plateau = sweep.plateauSamplesPerSec();
    for (const auto &p : sweep.points) {
        out << "| " << p.effectiveBatch << " | " << p.accumSteps << " | " << p.microBatch << " | "
            << fmt("%.1f", p.samplesPerSec) << " | " << fmt("%.0f%%", plateau > 0 ? 100.0 * p.samplesPerSec / plateau : 0.0)
            << " | " << fmt("%.3f", p.medianStepMs) << " | " << p.syncCalls << " | "
            << (p.diverged ? std::string(w.diverged) : fmt("%.4f", p.avgLoss)) << " |\n";
    }
    out << "\n" << w.closing << "\n";
    return out.str();
}

} // namespace accumlab
