<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="fa_IR">
<context>
    <name>Exports</name>
    <message>
        <source>Could not write %1: %2</source>
        <translation>نوشتن %1 ممکن نشد: %2</translation>
    </message>
    <message>
        <source>there is nothing to write.</source>
        <translation>چیزی برای نوشتن نیست.</translation>
    </message>
    <message>
        <source>the folder %1 does not exist.</source>
        <translation>پوشه‌ی %1 وجود ندارد.</translation>
    </message>
</context>
<context>
    <name>FileReading</name>
    <message>
        <source>it is not a regular file (a FIFO, a device or a folder)</source>
        <translation>فایلی معمولی نیست (یک FIFO، یک دستگاه یا یک پوشه است)</translation>
    </message>
    <message>
        <source>it is larger than %1 MiB</source>
        <translation>بزرگ‌تر از %1 مگابایت است</translation>
    </message>
</context>
<context>
    <name>ImportErrors</name>
    <message>
        <source>the file is %1 MiB; an accum-curve file is at most %2 MiB</source>
        <translation>حجم فایل %1 مگابایت است؛ فایل accum-curve حداکثر %2 مگابایت است</translation>
    </message>
    <message>
        <source>it is not valid JSON: the text breaks off or goes wrong at byte %1</source>
        <translation>JSON معتبری نیست: متن در بایت %1 قطع می‌شود یا خراب است</translation>
    </message>
    <message>
        <source>it is not valid JSON</source>
        <translation>JSON معتبری نیست</translation>
    </message>
    <message>
        <source>the file nests deeper than %1 levels; it is not an accum-curve file</source>
        <translation>تودرتویی فایل بیش از %1 سطح است؛ این فایل accum-curve نیست</translation>
    </message>
    <message>
        <source>the file is JSON but not an object with a schema and points; it is not an accum-curve file</source>
        <translation>فایل JSON است، اما شیئی با schema و points نیست؛ این فایل accum-curve نیست</translation>
    </message>
    <message>
        <source>the file names no schema; an accum-curve file says &quot;%1&quot;</source>
        <translation>فایل schema ندارد؛ در فایل accum-curve مقدار آن «%1» است</translation>
    </message>
    <message>
        <source>the file&apos;s schema is &quot;%1&quot;, not &quot;%2&quot;</source>
        <translation>schema فایل «%1» است، نه «%2»</translation>
    </message>
    <message>
        <source>the file has no &apos;points&apos; list</source>
        <translation>فایل فهرست «points» ندارد</translation>
    </message>
    <message>
        <source>the file&apos;s &apos;points&apos; list is empty</source>
        <translation>فهرست «points» فایل خالی است</translation>
    </message>
    <message>
        <source>point %1 is not an object with fields</source>
        <translation>نقطه‌ی %1 شیئی با فیلد نیست</translation>
    </message>
    <message>
        <source>point %1 has no field &apos;%2&apos;</source>
        <translation>نقطه‌ی %1 فیلد «%2» را ندارد</translation>
    </message>
    <message>
        <source>in point %1, field &apos;%2&apos; is not a number</source>
        <translation>در نقطه‌ی %1، فیلد «%2» عدد نیست</translation>
    </message>
    <message>
        <source>in point %1, field &apos;%2&apos; is not a finite number</source>
        <translation>در نقطه‌ی %1، فیلد «%2» عددی متناهی نیست</translation>
    </message>
    <message>
        <source>in point %1, field &apos;%2&apos; must be a whole number of at least %3</source>
        <translation>در نقطه‌ی %1، فیلد «%2» باید عددی صحیح و دست‌کم %3 باشد</translation>
    </message>
    <message>
        <source>in point %1, field &apos;%2&apos; is negative</source>
        <translation>در نقطه‌ی %1، فیلد «%2» منفی است</translation>
    </message>
    <message>
        <source>in point %1, field &apos;%2&apos; is neither true nor false</source>
        <translation>در نقطه‌ی %1، فیلد «%2» نه true است و نه false</translation>
    </message>
    <message>
        <source>in point %1, field &apos;%2&apos; is not a list</source>
        <translation>در نقطه‌ی %1، فیلد «%2» فهرست نیست</translation>
    </message>
    <message>
        <source>it is not a valid accum-curve file</source>
        <translation>فایل accum-curve معتبری نیست</translation>
    </message>
    <message>
        <source>in point %1, effective_batch is %2, which is not %3</source>
        <translation>در نقطه‌ی %1، effective_batch برابر %2 است که حاصل %3 نیست</translation>
    </message>
    <message>
        <source>in point %1, field &apos;%2&apos; holds a value no measurement gives (too large, or too close to zero)</source>
        <translation>در نقطه‌ی %1، فیلد «%2» مقداری دارد که هیچ اندازه‌گیری‌ای به دست نمی‌دهد (بیش از حد بزرگ یا بیش از حد نزدیک به صفر)</translation>
    </message>
</context>
<context>
    <name>LocalizedText</name>
    <message>
        <source>graphics card %1</source>
        <translation>کارت گرافیک %1</translation>
    </message>
    <message>
        <source>processor (CPU)</source>
        <translation>پردازنده (CPU)‎</translation>
    </message>
</context>
<context>
    <name>Preset</name>
    <message>
        <source>The preset is not a JSON object: %1</source>
        <translation>پیش‌تنظیم یک شیء JSON نیست: %1</translation>
    </message>
    <message>
        <source>The preset is not a JSON object but %1.</source>
        <translation>پیش‌تنظیم یک شیء JSON نیست، بلکه %1 است.</translation>
    </message>
    <message>
        <source>The preset nests deeper than %1 levels; a preset nests 2.</source>
        <translation>پیش‌تنظیم بیش از %1 سطح تودرتوست؛ یک پیش‌تنظیم ۲ سطح دارد.</translation>
    </message>
    <message>
        <source>The file is not an AccumLab preset (schema %1 expected).</source>
        <translation>این فایل پیش‌تنظیم AccumLab نیست (طرح‌واره‌ی %1 انتظار می‌رفت).</translation>
    </message>
    <message>
        <source>The preset has an invalid setting: %1</source>
        <translation>پیش‌تنظیم یک تنظیم نامعتبر دارد: %1</translation>
    </message>
    <message>
        <source>The preset names an unknown %1: %2</source>
        <translation>پیش‌تنظیم یک %1 ناشناخته را نام می‌برد: %2</translation>
    </message>
</context>
<context>
    <name>QObject</name>
    <message>
        <source>AccumLab</source>
        <translation>آزمایشگاه انباشت</translation>
    </message>
</context>
<context>
    <name>QShortcut</name>
    <message>
        <source>Return</source>
        <translation>اینتر</translation>
    </message>
    <message>
        <source>Enter</source>
        <translation>اینتر</translation>
    </message>
</context>
<context>
    <name>accumlab::ui::AccumulationPanel</name>
    <message>
        <source>Gradient buffers: one bar per parameter tensor, the buffer&apos;s projection onto the window&apos;s full-batch gradient (%1× at the marker)</source>
        <translation>بافرهای گرادیان: یک میله برای هر تانسور پارامتر، تصویر بافر بر گرادیانِ دسته‌ی کامل پنجره (روی نشانگر، %1×)</translation>
    </message>
    <message>
        <source>Gradient buffers</source>
        <translation>بافرهای گرادیان</translation>
    </message>
    <message>
        <source>micro-batches seen</source>
        <translation>میکروبچ‌های دیده‌شده</translation>
    </message>
    <message>
        <source>optimizer steps</source>
        <translation>گام‌های بهینه‌ساز</translation>
    </message>
    <message>
        <source>optimizer state step</source>
        <translation>گامِ وضعیت بهینه‌ساز</translation>
    </message>
    <message>
        <source>sync_calls</source>
        <translation>sync_calls (همگام‌سازی‌ها)</translation>
    </message>
    <message>
        <source>micro-batch loss</source>
        <translation>زیان میکروبچ</translation>
    </message>
    <message>
        <source>accumulated / full batch: not measured yet</source>
        <translation>انباشته / دسته‌ی کامل: هنوز اندازه‌گیری نشده</translation>
    </message>
    <message>
        <source>accumulated / full batch = %1× after all %2 micro-batches</source>
        <translation>انباشته / دسته‌ی کامل = %1 برابر، پس از هر %2 میکروبچ</translation>
    </message>
    <message>
        <source>accumulated / full batch = %1× so far</source>
        <translation>انباشته / دسته‌ی کامل = %1 برابر تا این‌جا</translation>
    </message>
    <message>
        <source>micro-batch %1 of %2 in optimizer window %3%4</source>
        <translation>میکروبچ %1 از %2 در پنجره‌ی %3 بهینه‌ساز%4</translation>
    </message>
    <message>
        <source> — optimizer stepped</source>
        <translation> — بهینه‌ساز گام برداشت</translation>
    </message>
    <message>
        <source>not run</source>
        <translation>اجرا نشد</translation>
    </message>
    <message>
        <source>float16 on real float16 kernels</source>
        <translation>float16 روی هسته‌های واقعی float16</translation>
    </message>
    <message>
        <source>float16, emulated by rounding through float16</source>
        <translation>float16، شبیه‌سازی‌شده با گرد کردن از راه float16</translation>
    </message>
    <message>
        <source>%1 · loss scale %2 · skipped windows %3 · unscale calls %4</source>
        <translation>%1 · مقیاس زیان %2 · پنجره‌های کنارگذاشته %3 · دفعات برگرداندن مقیاس %4</translation>
    </message>
    <message>
        <source>%1 · no loss scaler</source>
        <translation>%1 · بدون مقیاس‌دهنده‌ی زیان</translation>
    </message>
    <message>
        <source>micro-batch %1 of %2 on each of %3 ranks in optimizer window %4, bars of rank %5%6</source>
        <translation>میکروبچ %1 از %2 روی هر یک از %3 رنک در پنجره‌ی %4 بهینه‌ساز، میله‌های رنک %5%6</translation>
    </message>
</context>
<context>
    <name>accumlab::ui::ActionTable</name>
    <message>
        <source>%1 (%2)</source>
        <translation>%1 (%2)‎</translation>
    </message>
</context>
<context>
    <name>accumlab::ui::CodePanel</name>
    <message>
        <source>The loop as you write it in PyTorch, for the settings the engine runs. Highlighted: what the last micro-batch ran (Step walks it). Red: a planted bug&apos;s line.</source>
        <translation>حلقه همان‌گونه که در PyTorch می‌نویسید، برای تنظیماتی که موتور اجرا می‌کند. پررنگ: آنچه آخرین میکروبچ اجرا کرد (با «یک گام» خط به خط پیش بروید). سرخ: خط خطای کاشته‌شده.</translation>
    </message>
    <message>
        <source>Copy code</source>
        <translation>رونوشت کد</translation>
    </message>
    <message>
        <source>Put this code on the clipboard</source>
        <translation>این کد را در حافظه‌ی موقت بگذار</translation>
    </message>
    <message>
        <source>The loop in PyTorch</source>
        <translation>حلقه در PyTorch</translation>
    </message>
</context>
<context>
    <name>accumlab::ui::ControlPanel</name>
    <message>
        <source>Micro-batch</source>
        <translation>میکروبچ</translation>
    </message>
    <message>
        <source>Accumulation steps</source>
        <translation>گام‌های انباشت</translation>
    </message>
    <message>
        <source>Learning rate</source>
        <translation>نرخ یادگیری</translation>
    </message>
    <message>
        <source>Optimizer</source>
        <translation>بهینه‌ساز</translation>
    </message>
    <message>
        <source>Bug: no division</source>
        <translation>باگ: بدون تقسیم</translation>
    </message>
    <message>
        <source>Bug: step every micro-batch</source>
        <translation>باگ: گام در هر میکروبچ</translation>
    </message>
    <message>
        <source>No-sync</source>
        <translation>بدون همگام‌سازی</translation>
    </message>
    <message>
        <source>Dtype</source>
        <translation>نوع داده (dtype)‎</translation>
    </message>
    <message>
        <source>Device</source>
        <translation>دستگاه</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>مدل</translation>
    </message>
    <message>
        <source>Seed</source>
        <translation>بذر تصادفی</translation>
    </message>
    <message>
        <source>Pace</source>
        <translation>سرعت نمایش</translation>
    </message>
    <message>
        <source>Sweep grid</source>
        <translation>نقاط پیمایش</translation>
    </message>
    <message>
        <source>Batch</source>
        <translation>دسته</translation>
    </message>
    <message>
        <source>Training</source>
        <translation>آموزش</translation>
    </message>
    <message>
        <source>Teaching mode</source>
        <translation>حالت تدریس</translation>
    </message>
    <message>
        <source>Throughput sweep</source>
        <translation>پیمایش توان عملیاتی</translation>
    </message>
    <message>
        <source>SGD</source>
        <translation>SGD</translation>
    </message>
    <message>
        <source>SGD + momentum</source>
        <translation>SGD با تکانه</translation>
    </message>
    <message>
        <source>AdamW</source>
        <translation>AdamW</translation>
    </message>
    <message>
        <source>loss not divided by N</source>
        <translation>زیان بر N تقسیم نمی‌شود</translation>
    </message>
    <message>
        <source>Each micro-batch&apos;s loss goes to backward() undivided: the summed gradient is N times too large.</source>
        <translation>زیان هر میکروبچ بدون تقسیم به backward()‎ می‌رود: گرادیانِ جمع‌شده N برابر بزرگ‌تر از حد است.</translation>
    </message>
    <message>
        <source>optimizer.step() inside the window</source>
        <translation>optimizer.step()‎ درون پنجره</translation>
    </message>
    <message>
        <source>The optimizer steps after every micro-batch instead of once per effective batch.</source>
        <translation>بهینه‌ساز به‌جای یک بار در هر دسته‌ی مؤثر، پس از هر میکروبچ گام برمی‌دارد.</translation>
    </message>
    <message>
        <source>sync only on the last micro-batch</source>
        <translation>همگام‌سازی فقط در آخرین میکروبچ</translation>
    </message>
    <message>
        <source>Like DDP&apos;s no_sync(): non-final micro-batches skip the gradient all-reduce.</source>
        <translation>مانند no_sync()‎ در DDP: میکروبچ‌های غیرپایانی all-reduce گرادیان را انجام نمی‌دهند.</translation>
    </message>
    <message>
        <source>float32</source>
        <translation>float32</translation>
    </message>
    <message>
        <source>float64</source>
        <translation>float64</translation>
    </message>
    <message>
        <source>bfloat16</source>
        <translation>bfloat16</translation>
    </message>
    <message>
        <source>Auto</source>
        <translation>خودکار</translation>
    </message>
    <message>
        <source>CPU</source>
        <translation>CPU</translation>
    </message>
    <message>
        <source>CUDA</source>
        <translation>CUDA</translation>
    </message>
    <message>
        <source>CUDA (not available)</source>
        <translation>CUDA (در دسترس نیست)</translation>
    </message>
    <message>
        <source>Available: CPU and CUDA</source>
        <translation>در دسترس: CPU و CUDA</translation>
    </message>
    <message>
        <source>Available: CPU only</source>
        <translation>در دسترس: فقط CPU</translation>
    </message>
    <message>
        <source>Accumulation steps to sweep, comma-separated</source>
        <translation>گام‌های انباشتی که پیمایش می‌شوند، جداشده با ویرگول لاتین (,)</translation>
    </message>
    <message>
        <source>Micro-batches per second while playing</source>
        <translation>تعداد میکروبچ در ثانیه هنگام اجرا</translation>
    </message>
    <message>
        <source>%1/s</source>
        <translation>%1 در ثانیه</translation>
    </message>
    <message>
        <source>micro %1 × accum %2 × world %3 = effective %4</source>
        <translation>میکروبچ %1 × انباشت %2 × رنک‌ها %3 = مؤثر %4</translation>
    </message>
    <message>
        <source>Lesson MLP (%1)</source>
        <translation>MLP درس (%1)‎</translation>
    </message>
    <message>
        <source>Wide MLP (%1)</source>
        <translation>MLP پهن (%1)‎</translation>
    </message>
    <message>
        <source>Fixture MLP (%1)</source>
        <translation>MLP آزمون (%1)‎</translation>
    </message>
    <message>
        <source>Ranks (world size)</source>
        <translation>رنک‌ها (تعداد رنک‌ها)</translation>
    </message>
    <message>
        <source>Bug: classic</source>
        <translation>باگ: کلاسیک</translation>
    </message>
    <message>
        <source>A bug that real training loops have shipped with, planted in the engine&apos;s window: the equivalence panel, teaching mode and the sweep all run it.</source>
        <translation>باگی که حلقه‌های آموزش واقعی با آن منتشر شده‌اند، کاشته‌شده در پنجره‌ی موتور: پنل هم‌ارزی، حالت تدریس و پیمایش همه آن را اجرا می‌کنند.</translation>
    </message>
    <message>
        <source>Bug: loss scaler</source>
        <translation>باگ: مقیاس‌دهنده‌ی زیان</translation>
    </message>
    <message>
        <source>Loss scaler</source>
        <translation>مقیاس‌دهنده‌ی زیان</translation>
    </message>
    <message>
        <source>float16</source>
        <translation>float16</translation>
    </message>
    <message>
        <source>dynamic loss scaling</source>
        <translation>مقیاس‌دهی پویای زیان</translation>
    </message>
    <message>
        <source>A pitfall of loss scaling under accumulation, planted in the engine&apos;s window with the loss scaler on; where PyTorch refuses it, the engine refuses it in PyTorch&apos;s words.</source>
        <translation>دامی از مقیاس‌دهی زیان در انباشت، کاشته‌شده در پنجره‌ی موتور وقتی مقیاس‌دهنده‌ی زیان روشن است؛ جایی که PyTorch آن را نمی‌پذیرد، موتور هم با همان کلمات PyTorch آن را نمی‌پذیرد.</translation>
    </message>
    <message>
        <source>Like PyTorch&apos;s GradScaler: the loss is multiplied by a scale before backward, the buffers are unscaled once per window, and a window with an Inf or NaN is skipped and the scale halved.</source>
        <translation>مانند GradScaler در PyTorch: زیان پیش از پس‌انتشار در یک مقیاس ضرب می‌شود، مقیاس بافرها در هر پنجره یک بار برگردانده می‌شود، و پنجره‌ای که Inf یا NaN دارد کنار گذاشته و مقیاس نصف می‌شود.</translation>
    </message>
    <message>
        <source>Run sweep starts this many real rank processes on this machine, which all-reduce their gradients over c10d (Gloo); the equivalence panel and teaching mode run as many ranks as threads of the app, and teaching mode&apos;s bars show rank 0&apos;s buffers.</source>
        <translation>«اجرای پیمایش» این تعداد فرایند رنک واقعی را روی همین ماشین راه می‌اندازد که گرادیان‌هایشان را با c10d (Gloo)‎ all-reduce می‌کنند؛ پنل هم‌ارزی و حالت تدریس همین تعداد رنک را به‌صورت رشته‌های درون برنامه اجرا می‌کنند، و میله‌های حالت تدریس بافرهای رنک صفر را نشان می‌دهند.</translation>
    </message>
    <message>
        <source>Controls hidden in classroom mode</source>
        <translation>کنترل‌های پنهان در حالت کلاس</translation>
    </message>
    <message>
        <source>Checked controls are hidden while classroom mode is on. Save a preset to keep the choice.</source>
        <translation>کنترل‌های علامت‌خورده تا وقتی حالت کلاس روشن است پنهان می‌مانند. برای نگه داشتن این انتخاب یک پیش‌تنظیم ذخیره کنید.</translation>
    </message>
    <message>
        <source>Steps at largest N</source>
        <translation>گام‌ها در بزرگ‌ترین N</translation>
    </message>
    <message>
        <source>Timed optimizer steps of the grid&apos;s largest accum_steps; each smaller one runs as many micro-batches (more steps), so every point does the same work</source>
        <translation>گام‌های زمان‌گیری‌شده‌ی بهینه‌ساز در بزرگ‌ترین accum_steps شبکه؛ هر N کوچک‌تر همان تعداد میکروبچ را اجرا می‌کند (با گام‌های بیشتر)، پس همه‌ی نقطه‌ها کار یکسانی انجام می‌دهند</translation>
    </message>
</context>
<context>
    <name>accumlab::ui::EngineWorker</name>
    <message>
        <source>The equivalence check was cancelled.</source>
        <translation>بررسی هم‌ارزی لغو شد.</translation>
    </message>
    <message>
        <source>The experiment was cancelled.</source>
        <translation>آزمایش لغو شد.</translation>
    </message>
    <message>
        <source>accumlab-cli, which runs the ranks, was not found next to the app.</source>
        <translation>برنامه‌ی accumlab-cli که رنک‌ها را اجرا می‌کند کنار برنامه پیدا نشد.</translation>
    </message>
    <message>
        <source>The memory run was cancelled.</source>
        <translation>اجرای حافظه لغو شد.</translation>
    </message>
    <message>
        <source>There is no run to save: the lab&apos;s settings were refused.</source>
        <translation>اجرایی برای ذخیره نیست: تنظیمات آزمایشگاه پذیرفته نشد.</translation>
    </message>
</context>
<context>
    <name>accumlab::ui::EquivalencePanel</name>
    <message>
        <source>Equivalence: full batch vs accumulated</source>
        <translation>هم‌ارزی: دسته‌ی کامل در برابر انباشته</translation>
    </message>
    <message>
        <source>max |grad diff|</source>
        <translation>بیشینه‌ی |اختلاف گرادیان|</translation>
    </message>
    <message>
        <source>max |param diff|</source>
        <translation>بیشینه‌ی |اختلاف پارامتر|</translation>
    </message>
    <message>
        <source>update ratio</source>
        <translation>نسبت به‌روزرسانی</translation>
    </message>
    <message>
        <source>tensor</source>
        <translation>تانسور</translation>
    </message>
    <message>
        <source>|grad diff|</source>
        <translation>|اختلاف گرادیان|</translation>
    </message>
    <message>
        <source>|param diff|</source>
        <translation>|اختلاف پارامتر|</translation>
    </message>
    <message>
        <source>batch %1 in one pass vs %2 micro-batches of %3</source>
        <translation>دسته‌ی %1‌تایی در یک گذر در برابر %2 میکروبچ %3‌تایی</translation>
    </message>
    <message>
        <source>checking…</source>
        <translation>در حال بررسی…</translation>
    </message>
    <message>
        <source>not checked</source>
        <translation>بررسی نشد</translation>
    </message>
    <message>
        <source>PASS: equivalent</source>
        <translation>قبول: هم‌ارز</translation>
    </message>
    <message>
        <source>FAIL: not equivalent</source>
        <translation>رد: هم‌ارز نیست</translation>
    </message>
    <message>
        <source>%1 (accumulated / full)</source>
        <translation>%1 (انباشته / کامل)</translation>
    </message>
    <message>
        <source>Differences per parameter tensor</source>
        <translation>تفاوت‌ها برای هر تانسور پارامتر</translation>
    </message>
    <message>
        <source>batch %1 in one pass vs %2 micro-batches of %3 on each of %4 ranks</source>
        <translation>دسته‌ی %1‌تایی در یک گذر در برابر %2 میکروبچ %3‌تایی روی هر یک از %4 رنک</translation>
    </message>
    <message>
        <source>lesson&apos;s bound</source>
        <translation>کران درس</translation>
    </message>
    <message>
        <source>decided by</source>
        <translation>داور</translation>
    </message>
    <message>
        <source>NO EFFECT: the planted bug changed nothing here</source>
        <translation>بی‌اثر: باگ کاشته‌شده این‌جا چیزی را تغییر نداد</translation>
    </message>
    <message>
        <source>both under %1</source>
        <translation>هر دو زیر %1</translation>
    </message>
    <message>
        <source>above %1</source>
        <translation>بالای %1</translation>
    </message>
    <message>
        <source>the float64 twin&apos;s sides differ in this tensor</source>
        <translation>دو سوی همزاد ⁦float64⁩ در این تانسور فرق دارند</translation>
    </message>
</context>
<context>
    <name>accumlab::ui::ExperimentPanel</name>
    <message>
        <source>&amp;Experiment:</source>
        <translation>آزمایش (&amp;E)‎:</translation>
    </message>
    <message>
        <source>Ru&amp;n experiment</source>
        <translation>اجرای آزمایش (&amp;N)‎</translation>
    </message>
    <message>
        <source>Sets the controls to the experiment&apos;s settings where they apply, then runs it on real tensors in the background.</source>
        <translation>کنترل‌ها را هر جا که ممکن است روی تنظیمات آزمایش می‌گذارد، سپس آزمایش را در پس‌زمینه روی تانسورهای واقعی اجرا می‌کند.</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>لغو</translation>
    </message>
    <message>
        <source>Quick run</source>
        <translation>اجرای سریع</translation>
    </message>
    <message>
        <source>Fewer steps for the sweep and the training curves; every claim is still measured.</source>
        <translation>گام‌های کمتر برای پیمایش و منحنی‌های آموزش؛ همه‌ی ادعاها همچنان اندازه‌گیری می‌شوند.</translation>
    </message>
    <message>
        <source>Claims</source>
        <translation>ادعاها</translation>
    </message>
    <message>
        <source>Verdict</source>
        <translation>نتیجه</translation>
    </message>
    <message>
        <source>Claim</source>
        <translation>ادعا</translation>
    </message>
    <message>
        <source>Explanation</source>
        <translation>توضیح</translation>
    </message>
    <message>
        <source>Measured values</source>
        <translation>مقادیر اندازه‌گیری‌شده</translation>
    </message>
    <message>
        <source>Value</source>
        <translation>کمیت</translation>
    </message>
    <message>
        <source>Measured</source>
        <translation>مقدار</translation>
    </message>
    <message>
        <source>Measured curves</source>
        <translation>منحنی‌های اندازه‌گیری‌شده</translation>
    </message>
    <message>
        <source>%1. %2</source>
        <translation>%1. %2</translation>
    </message>
    <message>
        <source>Lesson exercise</source>
        <translation>تمرین درس</translation>
    </message>
    <message>
        <source>Pitfall beyond the lesson</source>
        <translation>خطای رایج، فراتر از درس</translation>
    </message>
    <message>
        <source>Running “%1”…</source>
        <translation>در حال اجرای «%1»…</translation>
    </message>
    <message>
        <source>All %1 claims hold.</source>
        <translation>هر %1 ادعا برقرار است.</translation>
    </message>
    <message>
        <source>%1 of %2 claims hold.</source>
        <translation>%1 از %2 ادعا برقرار است.</translation>
    </message>
    <message>
        <source>The experiment was cancelled.</source>
        <translation>آزمایش لغو شد.</translation>
    </message>
    <message>
        <source>The experiment failed: %1</source>
        <translation>آزمایش ناموفق بود: %1</translation>
    </message>
    <message>
        <source>Pick an experiment and run it.</source>
        <translation>یک آزمایش انتخاب و اجرا کنید.</translation>
    </message>
    <message>
        <source>holds</source>
        <translation>برقرار است</translation>
    </message>
    <message>
        <source>does not hold</source>
        <translation>برقرار نیست</translation>
    </message>
    <message>
        <source>Criterion: %1</source>
        <translation>معیار: %1</translation>
    </message>
    <message>
        <source>effective batch</source>
        <translation>دسته‌ی مؤثر</translation>
    </message>
    <message>
        <source>effective step</source>
        <translation>گام مؤثر</translation>
    </message>
    <message>
        <source>samples seen</source>
        <translation>نمونه‌های دیده‌شده</translation>
    </message>
    <message>
        <source>samples/sec</source>
        <translation>نمونه در ثانیه</translation>
    </message>
    <message>
        <source>share of the plateau</source>
        <translation>سهم از فلات</translation>
    </message>
    <message>
        <source>learning rate</source>
        <translation>نرخ یادگیری</translation>
    </message>
    <message>
        <source>full batch</source>
        <translation>دسته‌ی کامل</translation>
    </message>
    <message>
        <source>held-out loss</source>
        <translation>زیان روی داده‌ی کنارگذاشته</translation>
    </message>
    <message>
        <source>4x batch, 4x rate</source>
        <translation>دسته‌ی چهاربرابر، نرخ چهاربرابر</translation>
    </message>
    <message>
        <source>per effective step</source>
        <translation>هر گام مؤثر</translation>
    </message>
    <message>
        <source>per micro-batch</source>
        <translation>هر میکروبچ</translation>
    </message>
    <message>
        <source>small batch</source>
        <translation>دسته‌ی کوچک</translation>
    </message>
    <message>
        <source>4x batch only</source>
        <translation>فقط دسته چهاربرابر</translation>
    </message>
    <message>
        <source>%1 inconclusive within the timing spread.</source>
        <translation>%1 ادعا در محدوده‌ی پراکندگی زمان‌ها بی‌نتیجه است.</translation>
    </message>
    <message>
        <source>Rows marked %2 (%1) are observations: true by the way they are measured, so they carry no verdict.</source>
        <translation>ردیف‌های با نشان %2 (%1 ردیف) مشاهده‌اند: به خاطر شیوه‌ی اندازه‌گیری‌شان همیشه درست‌اند، پس حکمی ندارند.</translation>
    </message>
    <message>
        <source>an observation: true by the way it is measured, so no verdict</source>
        <translation>یک مشاهده: به خاطر شیوه‌ی اندازه‌گیری‌اش همیشه درست است، پس حکمی ندارد</translation>
    </message>
    <message>
        <source>inconclusive: the difference lies within the measured timing spread</source>
        <translation>بی‌نتیجه: اختلاف در محدوده‌ی پراکندگی اندازه‌گیری‌شده‌ی زمان‌ها است</translation>
    </message>
    <message>
        <source>Timing-based claims depend on the machine and its load: they are reported, not guaranteed.</source>
        <translation>ادعاهای مبتنی بر زمان‌سنجی به ماشین و بار آن بستگی دارند: گزارش می‌شوند، اما تضمین نمی‌شوند.</translation>
    </message>
    <message>
        <source>Experiment results</source>
        <translation>نتیجه‌های آزمایش</translation>
    </message>
    <message>
        <source>predicted: N·micro / (N·t_micro + t_window)</source>
        <translation>پیش‌بینی: ⁦N·micro / (N·t_micro + t_window)‎⁩</translation>
    </message>
</context>
<context>
    <name>accumlab::ui::GradientBufferView</name>
    <message>
        <source>Press Step or Play to run micro-batches.</source>
        <translation>برای اجرای میکروبچ‌ها «یک گام» یا «اجرا» را بزنید.</translation>
    </message>
    <message>
        <source>%1×</source>
        <translation>%1×</translation>
    </message>
    <message>
        <source>full batch</source>
        <translation>دسته‌ی کامل</translation>
    </message>
    <message>
        <source>faint: the correct loop&apos;s bar</source>
        <translation>کم‌رنگ: میله‌ی حلقه‌ی درست</translation>
    </message>
</context>
<context>
    <name>accumlab::ui::LocalizedFileModel</name>
    <message>
        <source>Folder</source>
        <translation>پوشه</translation>
    </message>
    <message>
        <source>File</source>
        <translation>فایل</translation>
    </message>
    <message>
        <source>%1 file</source>
        <translation>فایل %1</translation>
    </message>
</context>
<context>
    <name>accumlab::ui::LossChart</name>
    <message>
        <source>Loss per optimizer step</source>
        <translation>زیان در هر گام بهینه‌ساز</translation>
    </message>
    <message>
        <source>loss</source>
        <translation>زیان</translation>
    </message>
    <message>
        <source>batch %1</source>
        <translation>دسته‌ی %1</translation>
    </message>
    <message>
        <source>dashed: logged loss</source>
        <translation>خط‌چین: زیان ثبت‌شده</translation>
    </message>
    <message>
        <source>Loss chart</source>
        <translation>نمودار زیان</translation>
    </message>
    <message>
        <source>Play/Step, batch %1</source>
        <translation>اجرا و یک گام، دسته‌ی %1</translation>
    </message>
    <message>
        <source>samples seen</source>
        <translation>نمونه‌های دیده‌شده</translation>
    </message>
</context>
<context>
    <name>accumlab::ui::MainWindow</name>
    <message>
        <source>AccumLab: gradient accumulation on real tensors</source>
        <translation>آزمایشگاه انباشت: انباشت گرادیان روی تانسورهای واقعی</translation>
    </message>
    <message>
        <source>Throughput and loss</source>
        <translation>توان عملیاتی و زیان</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>حافظه</translation>
    </message>
    <message>
        <source>Sweep table</source>
        <translation>جدول پیمایش</translation>
    </message>
    <message>
        <source>&amp;Play</source>
        <translation>اجرا (&amp;P)‎</translation>
    </message>
    <message>
        <source>Run micro-batches at the chosen pace</source>
        <translation>اجرای میکروبچ‌ها با سرعت انتخاب‌شده</translation>
    </message>
    <message>
        <source>P&amp;ause</source>
        <translation>مکث (&amp;A)‎</translation>
    </message>
    <message>
        <source>S&amp;tep</source>
        <translation>یک گام (&amp;T)‎</translation>
    </message>
    <message>
        <source>Run one micro-batch</source>
        <translation>اجرای یک میکروبچ</translation>
    </message>
    <message>
        <source>&amp;Reset</source>
        <translation>از نو (&amp;R)‎</translation>
    </message>
    <message>
        <source>Run s&amp;weep</source>
        <translation>اجرای پیمایش (&amp;W)‎</translation>
    </message>
    <message>
        <source>&amp;Stop</source>
        <translation>توقف (&amp;S)‎</translation>
    </message>
    <message>
        <source>&amp;Open preset…</source>
        <translation>باز کردن پیش‌تنظیم (&amp;O)‎…</translation>
    </message>
    <message>
        <source>&amp;Save preset…</source>
        <translation>ذخیره‌ی پیش‌تنظیم (&amp;S)‎…</translation>
    </message>
    <message>
        <source>Export accum-curve.json…</source>
        <translation>خروجی accum-curve.json…</translation>
    </message>
    <message>
        <source>Export skill markdown…</source>
        <translation>خروجی دستورالعمل (Markdown)‎…</translation>
    </message>
    <message>
        <source>Export charts as PNG…</source>
        <translation>خروجی نمودارها به‌صورت PNG…</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>خروج (&amp;Q)‎</translation>
    </message>
    <message>
        <source>&amp;Classroom mode</source>
        <translation>حالت کلاس (&amp;C)‎</translation>
    </message>
    <message>
        <source>Controls hidden in classroom mode…</source>
        <translation>کنترل‌های پنهان در حالت کلاس…</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>پرونده (&amp;F)‎</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>نما (&amp;V)‎</translation>
    </message>
    <message>
        <source>&amp;Language</source>
        <translation>زبان (&amp;Language)‎</translation>
    </message>
    <message>
        <source>Lesson</source>
        <translation>درس</translation>
    </message>
    <message>
        <source>Run</source>
        <translation>اجرا</translation>
    </message>
    <message>
        <source>E&amp;xperiments</source>
        <translation>آزمایش‌ها (&amp;X)‎</translation>
    </message>
    <message>
        <source>Lab</source>
        <translation>آزمایشگاه</translation>
    </message>
    <message>
        <source>Buffers, equivalence check and charts</source>
        <translation>بافرها، بررسی هم‌ارزی و نمودارها</translation>
    </message>
    <message>
        <source>Experiments</source>
        <translation>آزمایش‌ها</translation>
    </message>
    <message>
        <source>Guided experiments: the lesson&apos;s exercises and the pitfalls, measured</source>
        <translation>آزمایش‌های هدایت‌شده: تمرین‌های درس و خطاهای رایج، اندازه‌گیری‌شده</translation>
    </message>
    <message>
        <source>Quiz</source>
        <translation>آزمون</translation>
    </message>
    <message>
        <source>Questions before, during and after the lesson</source>
        <translation>پرسش‌های پیش از درس، حین درس و پس از آن</translation>
    </message>
    <message>
        <source>Open an experiment</source>
        <translation>باز کردن یک آزمایش</translation>
    </message>
    <message>
        <source>%1. %2</source>
        <translation>%1. %2</translation>
    </message>
    <message>
        <source>Import accum-curve.json…</source>
        <translation>ورود accum-curve.json…</translation>
    </message>
    <message>
        <source>Overlay a saved curve (AccumLab&apos;s or the lesson&apos;s) on the throughput chart</source>
        <translation>یک منحنی ذخیره‌شده (از AccumLab یا از درس) را روی نمودار توان عملیاتی نشان می‌دهد</translation>
    </message>
    <message>
        <source>About AccumLab</source>
        <translation>درباره‌ی آزمایشگاه انباشت گرادیان</translation>
    </message>
    <message>
        <source>&lt;h3&gt;AccumLab %1&lt;/h3&gt;&lt;p&gt;Gradient accumulation on real tensors: micro-batches, loss/N, one optimizer step, and the proof that it matches the full batch.&lt;/p&gt;&lt;p&gt;Persian font: Vazirmatn (SIL Open Font License 1.1).&lt;/p&gt;</source>
        <translation>&lt;h3&gt;آزمایشگاه انباشت گرادیان %1&lt;/h3&gt;&lt;p&gt;انباشت گرادیان روی تانسورهای واقعی: میکروبچ‌ها، زیانِ تقسیم‌شده بر N، یک گام بهینه‌ساز، و اثبات این‌که نتیجه با دسته‌ی کامل برابر است.&lt;/p&gt;&lt;p&gt;قلم فارسی: وزیرمتن (مجوز قلم باز SIL، نسخه‌ی ۱٫۱).&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>راهنما (&amp;H)‎</translation>
    </message>
    <message>
        <source>&amp;Teaching card</source>
        <translation>کارت تدریس (&amp;T)‎</translation>
    </message>
    <message>
        <source>The keys, the projector&apos;s settings and the 45-minute plan on one screen</source>
        <translation>کلیدها، تنظیمات پروژکتور و برنامه‌ی ۴۵ دقیقه‌ای در یک صفحه</translation>
    </message>
    <message>
        <source>&amp;About AccumLab</source>
        <translation>درباره‌ی آزمایشگاه انباشت گرادیان (&amp;A)‎</translation>
    </message>
    <message>
        <source>Runs on: %1</source>
        <translation>اجرا روی: %1</translation>
    </message>
    <message>
        <source>Latin digits (%1)</source>
        <translation>ارقام لاتین: %1</translation>
    </message>
    <message>
        <source>Controls</source>
        <translation>کنترل‌ها</translation>
    </message>
    <message>
        <source>&amp;Full screen</source>
        <translation>تمام‌صفحه (&amp;F)‎</translation>
    </message>
    <message>
        <source>Zoom &amp;in</source>
        <translation>بزرگ‌نمایی (&amp;I)‎</translation>
    </message>
    <message>
        <source>Zoom &amp;out</source>
        <translation>کوچک‌نمایی (&amp;O)‎</translation>
    </message>
    <message>
        <source>&amp;Normal size</source>
        <translation>اندازه‌ی عادی (&amp;N)‎</translation>
    </message>
    <message>
        <source>Restore the lab&apos;s settings</source>
        <translation>بازگرداندن تنظیمات آزمایشگاه</translation>
    </message>
    <message>
        <source>Put back the settings the lab had before the experiment changed them</source>
        <translation>تنظیماتی را که آزمایشگاه پیش از تغییرشان به دست آزمایش داشت برمی‌گرداند</translation>
    </message>
    <message>
        <source>The lab&apos;s settings are back as they were before the experiment.</source>
        <translation>تنظیمات آزمایشگاه به حالت پیش از آزمایش برگشت.</translation>
    </message>
    <message>
        <source>Save session…</source>
        <translation>ذخیره‌ی جلسه…</translation>
    </message>
    <message>
        <source>Save the lab&apos;s run where it stands, even inside a window, as a checkpoint folder</source>
        <translation>اجرای آزمایشگاه را همان‌جا که هست، حتی درون یک پنجره، در پوشه‌ی نقطه‌ی ذخیره نگه می‌دارد</translation>
    </message>
    <message>
        <source>Resume session…</source>
        <translation>ادامه‌ی جلسه…</translation>
    </message>
    <message>
        <source>Continue a saved run exactly where it stopped, with its settings</source>
        <translation>اجرای ذخیره‌شده را درست از همان‌جا که ایستاد، با تنظیمات خودش، ادامه می‌دهد</translation>
    </message>
    <message>
        <source>Stop after the running micro-batch</source>
        <translation>توقف پس از میکروبچِ در حال اجرا</translation>
    </message>
    <message>
        <source>A fresh model and data stream from the seed</source>
        <translation>مدل و جریان داده‌ی تازه از بذر تصادفی</translation>
    </message>
    <message>
        <source>Full-speed throughput sweep over the grid of accumulation steps</source>
        <translation>پیمایش توان عملیاتی با سرعت کامل روی گام‌های انباشت انتخاب‌شده</translation>
    </message>
    <message>
        <source>Stop the sweep, the play or the memory run</source>
        <translation>توقف پیمایش، پخش یا اجرای حافظه</translation>
    </message>
    <message>
        <source>&amp;Run</source>
        <translation>اجرا (&amp;R)‎</translation>
    </message>
    <message>
        <source>Export memory timeline…</source>
        <translation>خروجی خط زمانی حافظه…</translation>
    </message>
    <message>
        <source>The out-of-memory demo&apos;s allocations as memory-timeline.json and as a snapshot PyTorch&apos;s memory visualiser opens</source>
        <translation>تخصیص‌های نمایش کمبود حافظه به‌صورت memory-timeline.json و عکس‌فوری‌ای که نمایشگر حافظه‌ی PyTorch باز می‌کند</translation>
    </message>
    <message>
        <source>Export trained model…</source>
        <translation>خروجی مدلِ آموزش‌دیده…</translation>
    </message>
    <message>
        <source>The lab&apos;s parameters as they stand, as a safetensors file that PyTorch&apos;s load_state_dict takes (fc1.weight … fc3.bias)</source>
        <translation>پارامترهای آزمایشگاه همان‌گونه که هستند، در یک فایل safetensors که load_state_dict در PyTorch آن را می‌پذیرد (fc1.weight … fc3.bias)‎</translation>
    </message>
    <message>
        <source>Code</source>
        <translation>کد</translation>
    </message>
    <message>
        <source>The loop in PyTorch, lit as the engine runs it</source>
        <translation>حلقه در PyTorch، که هم‌زمان با اجرای موتور روشن می‌شود</translation>
    </message>
    <message>
        <source>Lab, experiments and quiz</source>
        <translation>آزمایشگاه، آزمایش‌ها و آزمون</translation>
    </message>
    <message>
        <source>&amp;Tabs take the lab&apos;s height</source>
        <translation>زبانه‌ها تمام ارتفاع آزمایشگاه را بگیرند (&amp;T)‎</translation>
    </message>
    <message>
        <source>Folds the buffers and the check away so that the charts, the memory and the code below them get the lab&apos;s whole height</source>
        <translation>بافرها و بررسی هم‌ارزی را جمع می‌کند تا نمودارها، حافظه و کد زیر آن‌ها تمام ارتفاع آزمایشگاه را بگیرند</translation>
    </message>
    <message>
        <source>Lab ta&amp;b</source>
        <translation>زبانه‌ی آزمایشگاه (&amp;B)‎</translation>
    </message>
</context>
<context>
    <name>accumlab::ui::MemoryTimelineChart</name>
    <message>
        <source>Memory timeline chart</source>
        <translation>نمودار خط زمانی حافظه</translation>
    </message>
    <message>
        <source>Live memory through one window, allocation by allocation</source>
        <translation>حافظه‌ی زنده در طول یک پنجره، تخصیص به تخصیص</translation>
    </message>
    <message>
        <source>through the window, %</source>
        <translation>پیشروی در پنجره، درصد</translation>
    </message>
    <message>
        <source>live, MiB</source>
        <translation>زنده، مگابایت</translation>
    </message>
    <message>
        <source>live, KiB</source>
        <translation>زنده، کیلوبایت</translation>
    </message>
    <message>
        <source>full batch in one pass</source>
        <translation>کل دسته در یک گذر</translation>
    </message>
    <message>
        <source>micro-batches</source>
        <translation>میکروبچ‌ها</translation>
    </message>
    <message>
        <source>resident floor</source>
        <translation>کف ماندگار</translation>
    </message>
    <message>
        <source>budget</source>
        <translation>بودجه</translation>
    </message>
    <message>
        <source>fails here</source>
        <translation>شکست در این نقطه</translation>
    </message>
    <message>
        <source>Live memory of the window running now (Play/Step)</source>
        <translation>حافظه‌ی زنده‌ی پنجره‌ی در حال اجرا (اجرا و یک گام)</translation>
    </message>
    <message>
        <source>micro-batch of the window</source>
        <translation>میکروبچ پنجره</translation>
    </message>
    <message>
        <source>this window</source>
        <translation>این پنجره</translation>
    </message>
    <message>
        <source>forward</source>
        <translation>گذر رو به جلو</translation>
    </message>
    <message>
        <source>backward</source>
        <translation>گذر رو به عقب</translation>
    </message>
    <message>
        <source>optimizer step</source>
        <translation>گام بهینه‌ساز</translation>
    </message>
</context>
<context>
    <name>accumlab::ui::MemoryView</name>
    <message>
        <source>budget: fails after %1 samples</source>
        <translation>بودجه: بیش از %1 نمونه جا نمی‌شود</translation>
    </message>
    <message>
        <source>Out of memory even for the micro-batch: lower the micro-batch.</source>
        <translation>حافظه حتی برای میکروبچ کم است: میکروبچ را کوچک‌تر کنید.</translation>
    </message>
    <message>
        <source>The effective batch in one pass is out of memory; %1 micro-batches of %2 fit and give the same update.</source>
        <translation>دسته‌ی مؤثر در یک گذر در حافظه جا نمی‌شود؛ %1 میکروبچ %2‌تایی جا می‌شوند و همان به‌روزرسانی را می‌دهند.</translation>
    </message>
    <message>
        <source>Both fit: with this budget accumulation is not needed for memory.</source>
        <translation>هر دو جا می‌شوند: با این بودجه برای حافظه نیازی به انباشت نیست.</translation>
    </message>
    <message>
        <source>Run the out-of-memory demo</source>
        <translation>اجرای نمایش کمبود حافظه</translation>
    </message>
    <message>
        <source>Memory of one training pass: the micro-batch vs the whole effective batch, estimated and measured</source>
        <translation>حافظه‌ی یک گذر آموزش: میکروبچ در برابر کل دسته‌ی مؤثر، برآوردشده و اندازه‌گیری‌شده</translation>
    </message>
    <message>
        <source>Effective batch</source>
        <translation>دسته‌ی مؤثر</translation>
    </message>
    <message>
        <source>Memory fails after (samples)</source>
        <translation>حافظه پس از این تعداد نمونه کم می‌آید</translation>
    </message>
    <message>
        <source>Memory budget</source>
        <translation>بودجه‌ی حافظه</translation>
    </message>
    <message>
        <source>Light bars: the estimate from the model shape, dtype and optimizer (weights, gradient buffers, optimizer state, the window&apos;s samples, one pass&apos;s activations). Solid bars: measured on this device by the out-of-memory demo, temporaries of the backward and the step included.</source>
        <translation>میله‌های کم‌رنگ: برآورد از شکل مدل، نوع داده و بهینه‌ساز (وزن‌ها، بافرهای گرادیان، وضعیت بهینه‌ساز، نمونه‌های پنجره، فعال‌سازی‌های یک گذر). میله‌های پررنگ: اندازه‌گیری‌شده روی همین دستگاه با نمایش کمبود حافظه، با احتساب داده‌های موقت گذر رو به عقب و گام.</translation>
    </message>
    <message>
        <source>Runs the whole effective batch in one pass under the budget, where it fails with LibTorch&apos;s out-of-memory error, then the same samples by accumulation under the same budget, and compares the parameters with the full batch&apos;s.</source>
        <translation>کل دسته‌ی مؤثر را در یک گذر زیر این بودجه اجرا می‌کند که با خطای کمبود حافظه‌ی خود LibTorch شکست می‌خورد، سپس همان نمونه‌ها را با انباشت زیر همان بودجه اجرا می‌کند و پارامترها را با پارامترهای دسته‌ی کامل مقایسه می‌کند.</translation>
    </message>
    <message>
        <source>Trade-off sweep</source>
        <translation>پیمایش بده‌بستان</translation>
    </message>
    <message>
        <source>At the effective batch, every micro-batch from 1 up: time per optimizer step and measured peak memory; the points beyond the budget fail.</source>
        <translation>در همین دسته‌ی مؤثر، هر میکروبچ از یک به بالا: زمان هر گام بهینه‌ساز و اوج اندازه‌گیری‌شده‌ی حافظه؛ نقطه‌های فراتر از بودجه شکست می‌خورند.</translation>
    </message>
    <message>
        <source>Find the micro-batch</source>
        <translation>یافتن میکروبچ</translation>
    </message>
    <message>
        <source>Doubles the micro-batch, then bisects, until the largest that fits the budget is found; accum_steps makes up the effective batch.</source>
        <translation>میکروبچ را دوبرابر و سپس نصف‌به‌نصف جست‌وجو می‌کند تا بزرگ‌ترین میکروبچی که در بودجه جا می‌شود پیدا شود؛ accum_steps بقیه‌ی دسته‌ی مؤثر را می‌سازد.</translation>
    </message>
    <message>
        <source>%1, measured</source>
        <translation>%1، اندازه‌گیری‌شده</translation>
    </message>
    <message>
        <source>%1, estimated</source>
        <translation>%1، برآوردشده</translation>
    </message>
    <message>
        <source>micro-batch of %1, estimate: %2</source>
        <translation>میکروبچ %1 نمونه‌ای، برآورد: %2</translation>
    </message>
    <message>
        <source>micro-batch of %1, measured: %2</source>
        <translation>میکروبچ %1 نمونه‌ای، اندازه‌گیری‌شده: %2</translation>
    </message>
    <message>
        <source>micro-batch of %1, measured: run the demo</source>
        <translation>میکروبچ %1 نمونه‌ای، اندازه‌گیری‌شده: نمایش را اجرا کنید</translation>
    </message>
    <message>
        <source>effective batch of %1 in one pass, estimate: %2</source>
        <translation>دسته‌ی مؤثر %1 نمونه‌ای در یک گذر، برآورد: %2</translation>
    </message>
    <message>
        <source>effective batch of %1 in one pass, measured: %2</source>
        <translation>دسته‌ی مؤثر %1 نمونه‌ای در یک گذر، اندازه‌گیری‌شده: %2</translation>
    </message>
    <message>
        <source>effective batch of %1 in one pass, measured: run the demo</source>
        <translation>دسته‌ی مؤثر %1 نمونه‌ای در یک گذر، اندازه‌گیری‌شده: نمایش را اجرا کنید</translation>
    </message>
    <message>
        <source>budget: the estimate fits %1 samples per pass</source>
        <translation>بودجه: طبق برآورد %1 نمونه در هر گذر جا می‌شود</translation>
    </message>
    <message>
        <source>A micro-batch of %1 does not divide the effective batch of %2.</source>
        <translation>میکروبچ %1 نمونه‌ای دسته‌ی مؤثر %2 نمونه‌ای را بخش نمی‌کند.</translation>
    </message>
    <message>
        <source>Running the out-of-memory demo…</source>
        <translation>در حال اجرای نمایش کمبود حافظه…</translation>
    </message>
    <message>
        <source>Running the trade-off sweep…</source>
        <translation>در حال اجرای پیمایش بده‌بستان…</translation>
    </message>
    <message>
        <source>Finding the largest micro-batch that fits…</source>
        <translation>در حال یافتن بزرگ‌ترین میکروبچی که جا می‌شود…</translation>
    </message>
    <message>
        <source>The memory run was cancelled.</source>
        <translation>اجرای حافظه لغو شد.</translation>
    </message>
    <message>
        <source>The memory run failed: %1</source>
        <translation>اجرای حافظه ناموفق بود: %1</translation>
    </message>
    <message>
        <source>Memory lab</source>
        <translation>آزمایشگاه حافظه</translation>
    </message>
    <message>
        <source>The settings changed after the last memory run, and its figures were for the old ones: run it again for these.</source>
        <translation>تنظیمات پس از آخرین اجرای حافظه تغییر کرد و عددهای آن برای تنظیمات قبلی بود: برای این تنظیمات دوباره اجرا کنید.</translation>
    </message>
</context>
<context>
    <name>accumlab::ui::QuizWidget</name>
    <message>
        <source>&amp;Quiz:</source>
        <translation>آزمون (&amp;Q)‎:</translation>
    </message>
    <message>
        <source>Before the lesson</source>
        <translation>پیش از درس</translation>
    </message>
    <message>
        <source>During the lesson (check)</source>
        <translation>حین درس (بررسی)</translation>
    </message>
    <message>
        <source>After the lesson</source>
        <translation>پس از درس</translation>
    </message>
    <message>
        <source>&amp;Check answer</source>
        <translation>بررسی پاسخ (&amp;C)‎</translation>
    </message>
    <message>
        <source>&amp;Previous</source>
        <translation>قبلی (&amp;P)‎</translation>
    </message>
    <message>
        <source>Start &amp;again</source>
        <translation>شروع دوباره (&amp;A)‎</translation>
    </message>
    <message>
        <source>Question %1 of %2</source>
        <translation>پرسش %1 از %2</translation>
    </message>
    <message>
        <source>✓ Correct.</source>
        <translation>✓ درست است.</translation>
    </message>
    <message>
        <source>✗ Not quite. The answer is: %1</source>
        <translation>✗ نه کاملاً. پاسخ درست: %1</translation>
    </message>
    <message>
        <source>Open the experiment “%1”</source>
        <translation>باز کردن آزمایش «%1»</translation>
    </message>
    <message>
        <source>See the r&amp;esult</source>
        <translation>دیدن نتیجه (&amp;E)‎</translation>
    </message>
    <message>
        <source>&amp;Next</source>
        <translation>بعدی (&amp;N)‎</translation>
    </message>
    <message>
        <source>Result</source>
        <translation>نتیجه</translation>
    </message>
    <message>
        <source>%1 of %2 correct</source>
        <translation>%1 از %2 درست</translation>
    </message>
    <message>
        <source>Every answer is right.</source>
        <translation>همه‌ی پاسخ‌ها درست است.</translation>
    </message>
    <message>
        <source>Worth another look:</source>
        <translation>این‌ها ارزش دوباره دیدن دارند:</translation>
    </message>
    <message>
        <source>Unanswered questions: %1</source>
        <translation>پرسش‌های بی‌پاسخ: %1</translation>
    </message>
</context>
<context>
    <name>accumlab::ui::SessionFiles</name>
    <message>
        <source>JSON files</source>
        <translation>فایل‌های JSON</translation>
    </message>
    <message>
        <source>Markdown files</source>
        <translation>فایل‌های Markdown</translation>
    </message>
    <message>
        <source>AccumLab presets</source>
        <translation>پیش‌تنظیم‌های AccumLab</translation>
    </message>
    <message>
        <source>Wrote %1</source>
        <translation>%1 نوشته شد</translation>
    </message>
    <message>
        <source>Could not open %1: %2</source>
        <translation>باز کردن %1 ممکن نشد: %2</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1: %2</translation>
    </message>
    <message>
        <source>Open preset</source>
        <translation>باز کردن پیش‌تنظیم</translation>
    </message>
    <message>
        <source>Save preset</source>
        <translation>ذخیره‌ی پیش‌تنظیم</translation>
    </message>
    <message>
        <source>lesson.json</source>
        <translation>lesson.json</translation>
    </message>
    <message>
        <source>No sweep has completed yet: run a sweep first.</source>
        <translation>هنوز هیچ پیمایشی کامل نشده است: نخست یک پیمایش اجرا کنید.</translation>
    </message>
    <message>
        <source>Imported %1: %2 points</source>
        <translation>%1 وارد شد: %2 نقطه</translation>
    </message>
    <message>
        <source>Could not import %1: %2</source>
        <translation>وارد کردن %1 ممکن نشد: %2</translation>
    </message>
    <message>
        <source>Import accum-curve.json</source>
        <translation>ورود accum-curve.json</translation>
    </message>
    <message>
        <source>Export accum-curve.json</source>
        <translation>خروجی accum-curve.json</translation>
    </message>
    <message>
        <source>Export skill markdown</source>
        <translation>خروجی دستورالعمل (Markdown)‎</translation>
    </message>
    <message>
        <source>Folder for the chart PNGs</source>
        <translation>پوشه‌ی فایل‌های PNG نمودارها</translation>
    </message>
    <message>
        <source>%1× (as on screen)</source>
        <translation>%1× (به اندازه‌ی روی صفحه)</translation>
    </message>
    <message>
        <source>%1× (for slides)</source>
        <translation>%1× (برای اسلاید)</translation>
    </message>
    <message>
        <source>%1×</source>
        <translation>%1×</translation>
    </message>
    <message>
        <source>Export chart PNGs</source>
        <translation>خروجی نمودارها به‌صورت PNG</translation>
    </message>
    <message>
        <source>Size of the pictures:</source>
        <translation>اندازه‌ی تصویرها:</translation>
    </message>
    <message>
        <source>Wrote %1 PNG files to %2</source>
        <translation>%1 فایل PNG در %2 نوشته شد</translation>
    </message>
    <message>
        <source>%1 windows done and %2 micro-batches into the next</source>
        <translation>%1 پنجره تمام شده و %2 میکروبچ از پنجره‌ی بعد</translation>
    </message>
    <message>
        <source>%1 windows done</source>
        <translation>%1 پنجره تمام شده</translation>
    </message>
    <message>
        <source>Resumed the session from %1: %2</source>
        <translation>جلسه از %1 ادامه یافت: %2</translation>
    </message>
    <message>
        <source>Saved the session to %1: %2</source>
        <translation>جلسه در %1 ذخیره شد: %2</translation>
    </message>
    <message>
        <source>Folder to save the session in</source>
        <translation>پوشه‌ای برای ذخیره‌ی جلسه</translation>
    </message>
    <message>
        <source>Folder of the session to resume</source>
        <translation>پوشه‌ی جلسه‌ای که ادامه می‌یابد</translation>
    </message>
    <message>
        <source>No memory timeline yet: run the out-of-memory demo first.</source>
        <translation>هنوز خط زمانی حافظه‌ای نیست: نخست نمایش کمبود حافظه را اجرا کنید.</translation>
    </message>
    <message>
        <source>Folder for the memory timeline</source>
        <translation>پوشه برای خط زمانی حافظه</translation>
    </message>
    <message>
        <source>Wrote memory-timeline.json and memory-snapshot.pickle (for PyTorch&apos;s memory visualiser) to %1</source>
        <translation>فایل‌های memory-timeline.json و memory-snapshot.pickle (برای نمایشگر حافظه‌ی PyTorch)‎ در %1 نوشته شد</translation>
    </message>
    <message>
        <source>safetensors files</source>
        <translation>فایل‌های safetensors</translation>
    </message>
    <message>
        <source>Wrote the trained model to %1 (%2)</source>
        <translation>مدلِ آموزش‌دیده در %1 نوشته شد (%2)‎</translation>
    </message>
    <message>
        <source>Export the trained model</source>
        <translation>خروجی مدلِ آموزش‌دیده</translation>
    </message>
    <message>
        <source>The skill file needs a completed sweep: run a sweep first.</source>
        <translation>دستورالعمل به یک پیمایشِ کامل‌شده نیاز دارد: نخست یک پیمایش اجرا کنید.</translation>
    </message>
</context>
<context>
    <name>accumlab::ui::StatusReporter</name>
    <message>
        <source>AccumLab</source>
        <translation>آزمایشگاه انباشت</translation>
    </message>
</context>
<context>
    <name>accumlab::ui::SweepRunner</name>
    <message>
        <source>The sweep settings are invalid: %1</source>
        <translation>تنظیمات پیمایش نامعتبر است: %1</translation>
    </message>
    <message>
        <source>Sweep running…</source>
        <translation>پیمایش در حال اجرا…</translation>
    </message>
    <message>
        <source>Sweep round %1 of %2, point %3 of %4</source>
        <translation>دور %1 از %2 پیمایش، نقطه‌ی %3 از %4</translation>
    </message>
    <message>
        <source>The sweep failed: %1</source>
        <translation>پیمایش ناموفق بود: %1</translation>
    </message>
    <message>
        <source>Sweep stopped after %1 of %2 points.</source>
        <translation>پیمایش پس از %1 نقطه از %2 متوقف شد.</translation>
    </message>
    <message>
        <source>Sweep done: best measured %1 samples/sec.</source>
        <translation>پیمایش تمام شد: بیشترین اندازه‌گیری‌شده %1 نمونه در ثانیه.</translation>
    </message>
</context>
<context>
    <name>accumlab::ui::SweepTableModel</name>
    <message>
        <source>diverged</source>
        <translation>واگرا شد</translation>
    </message>
    <message>
        <source>effective batch</source>
        <translation>دسته‌ی مؤثر</translation>
    </message>
    <message>
        <source>accum</source>
        <translation>انباشت</translation>
    </message>
    <message>
        <source>micro</source>
        <translation>میکروبچ</translation>
    </message>
    <message>
        <source>ranks</source>
        <translation>رنک‌ها</translation>
    </message>
    <message>
        <source>samples/sec</source>
        <translation>نمونه در ثانیه</translation>
    </message>
    <message>
        <source>median step ms</source>
        <translation>میانه‌ی گام (میلی‌ثانیه)</translation>
    </message>
    <message>
        <source>syncs</source>
        <translation>همگام‌سازی‌ها</translation>
    </message>
    <message>
        <source>all-reduces</source>
        <translation>all-reduceها</translation>
    </message>
    <message>
        <source>all-reduce ms</source>
        <translation>میلی‌ثانیه‌ی all-reduce</translation>
    </message>
    <message>
        <source>avg loss</source>
        <translation>میانگین زیان</translation>
    </message>
</context>
<context>
    <name>accumlab::ui::TeachingCard</name>
    <message>
        <source>Teaching card</source>
        <translation>کارت تدریس</translation>
    </message>
</context>
<context>
    <name>accumlab::ui::ThroughputChart</name>
    <message>
        <source>Throughput: samples/sec vs effective batch</source>
        <translation>توان عملیاتی: نمونه در ثانیه بر حسب دسته‌ی مؤثر</translation>
    </message>
    <message>
        <source>effective batch (log2)</source>
        <translation>دسته‌ی مؤثر (محور لگاریتمی، پایه‌ی دو)</translation>
    </message>
    <message>
        <source>samples/sec</source>
        <translation>نمونه در ثانیه</translation>
    </message>
    <message>
        <source>ms per step</source>
        <translation>میلی‌ثانیه بر گام</translation>
    </message>
    <message>
        <source>median ms/step</source>
        <translation>میانه‌ی زمان گام</translation>
    </message>
    <message>
        <source>earlier run %1</source>
        <translation>اجرای پیشین %1</translation>
    </message>
    <message>
        <source>best %1</source>
        <translation>بیشینه %1</translation>
    </message>
    <message>
        <source>best</source>
        <translation>بیشینه</translation>
    </message>
    <message>
        <source>imported: %1</source>
        <translation>واردشده: %1</translation>
    </message>
    <message>
        <source>Throughput chart</source>
        <translation>نمودار توان عملیاتی</translation>
    </message>
    <message>
        <source>cost model</source>
        <translation>مدل هزینه</translation>
    </message>
    <message>
        <source>block spread</source>
        <translation>پراکندگی بلوک‌ها</translation>
    </message>
    <message>
        <source>effective batch %1 (accum %2 × micro %3)
%4 samples/sec
median step %5 ms
%6 timing blocks: %7 to %8 samples/sec, median %9
the bar: the slowest block to the fastest; their middle half %10 to %11</source>
        <translation>دسته‌ی مؤثر %1 (انباشت %2 × میکروبچ %3)‎
%4 نمونه در ثانیه
میانه‌ی زمان گام %5 میلی‌ثانیه
%6 بلوک زمان‌گیری: %7 تا %8 نمونه در ثانیه، میانه %9
میله: از کندترین بلوک تا تندترین؛ نیمه‌ی میانی آن‌ها %10 تا %11</translation>
    </message>
</context>
<context>
    <name>accumlab::ui::TradeoffChart</name>
    <message>
        <source>Trade-off at an effective batch of %1: time per step and peak memory</source>
        <translation>بده‌بستان در دسته‌ی مؤثر %1: زمان هر گام و اوج حافظه</translation>
    </message>
    <message>
        <source>Trade-off: time per step and peak memory against the micro-batch</source>
        <translation>بده‌بستان: زمان هر گام و اوج حافظه بر حسب میکروبچ</translation>
    </message>
    <message>
        <source>micro-batch (log2 axis)</source>
        <translation>میکروبچ (محور لگاریتمی، پایه‌ی دو)</translation>
    </message>
    <message>
        <source>ms / step</source>
        <translation>میلی‌ثانیه بر گام</translation>
    </message>
    <message>
        <source>peak, MiB</source>
        <translation>اوج، مگابایت</translation>
    </message>
    <message>
        <source>peak, KiB</source>
        <translation>اوج، کیلوبایت</translation>
    </message>
    <message>
        <source>ms per step</source>
        <translation>میلی‌ثانیه بر گام</translation>
    </message>
    <message>
        <source>measured peak</source>
        <translation>اوج اندازه‌گیری‌شده</translation>
    </message>
    <message>
        <source>budget</source>
        <translation>بودجه</translation>
    </message>
    <message>
        <source>resident floor</source>
        <translation>کف ماندگار</translation>
    </message>
    <message>
        <source>step&apos;s peak</source>
        <translation>اوجِ گام</translation>
    </message>
    <message>
        <source>out of memory</source>
        <translation>کمبود حافظه</translation>
    </message>
    <message>
        <source>Memory and time trade-off chart</source>
        <translation>نمودار بده‌بستان حافظه و زمان</translation>
    </message>
</context>
</TS>
