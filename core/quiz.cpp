// The quiz's questions (English and Persian) and its scoring.
#include "core/quiz.h"

#include <algorithm>

namespace accumlab {

namespace {

using Q = QuizQuestion;
constexpr QuizStage kPre = QuizStage::PreLesson;
constexpr QuizStage kCheck = QuizStage::Check;
constexpr QuizStage kPost = QuizStage::PostLesson;

const std::vector<QuizQuestion> &table()
{
    static const std::vector<QuizQuestion> questions{
        // ---- pre-lesson: what a learner should know before the lesson ----
        Q{"pre-why-accumulate", kPre,
          {"Why would you accumulate gradients over several micro-batches before one optimizer step?",
           "چرا گرادیان‌ها را پیش از یک گام بهینه‌ساز روی چند میکروبچ انباشت می‌کنیم؟"},
          {{"a", {"To use less data per epoch", "برای مصرف داده‌ی کمتر در هر دوره (epoch)"}},
           {"b", {"To make each optimizer step faster", "برای سریع‌تر کردن هر گام بهینه‌ساز"}},
           {"c", {"To train with an effective batch larger than what fits in memory at once",
                  "برای آموزش با دسته‌ی مؤثری بزرگ‌تر از آنچه یک‌جا در حافظه جا می‌شود"}},
           {"d", {"To avoid computing the loss", "برای اینکه زیان را محاسبه نکنیم"}}},
          "c",
          {"Memory has to hold the activations of one micro-batch only. Accumulation adds up the gradients of "
           "several micro-batches so that a single update sees the whole effective batch.",
           "حافظه فقط باید فعال‌سازی‌های یک میکروبچ را نگه دارد. انباشت، گرادیان‌های چند میکروبچ را جمع می‌کند تا "
           "یک به‌روزرسانی کل دسته‌ی مؤثر را ببیند."},
          ""},
        Q{"pre-effective-batch", kPre,
          {"Micro-batch 8, accum_steps 4, two data-parallel ranks. What is the effective batch?",
           "میکروبچ ۸، accum_steps برابر ۴ و دو رنک موازی‌سازی داده. دسته‌ی مؤثر چقدر است؟"},
          {{"a", {"8", "۸"}}, {"b", {"16", "۱۶"}}, {"c", {"32", "۳۲"}}, {"d", {"64", "۶۴"}}},
          "d",
          {"effective batch = micro-batch x accum_steps x world size = 8 x 4 x 2 = 64.",
           "دسته‌ی مؤثر = میکروبچ × accum_steps × تعداد رنک‌ها = ۸ × ۴ × ۲ = ۶۴."},
          ""},
        Q{"pre-mean-gradient", kPre,
          {"A batch's loss is the mean of its samples' losses. How is its gradient related to the per-sample "
           "gradients?",
           "زیان یک دسته میانگین زیان نمونه‌های آن است. گرادیان آن چه رابطه‌ای با گرادیان تک‌تک نمونه‌ها دارد؟"},
          {{"a", {"It is their sum", "مجموع آن‌هاست"}},
           {"b", {"It is the mean of the per-sample gradients", "میانگین گرادیان‌های تک‌نمونه‌ای است"}},
           {"c", {"It is the gradient of the sample with the largest loss", "گرادیان نمونه‌ای است که بیشترین زیان را دارد"}},
           {"d", {"There is no simple relation", "رابطه‌ی ساده‌ای ندارد"}}},
          "b",
          {"Differentiation is linear, so the gradient of a mean is the mean of the gradients. This linearity is "
           "what lets a split batch give the same gradient as the whole batch.",
           "مشتق‌گیری خطی است، پس گرادیان میانگین همان میانگین گرادیان‌هاست. همین خطی بودن باعث می‌شود دسته‌ی "
           "تقسیم‌شده همان گرادیان دسته‌ی کامل را بدهد."},
          ""},
        Q{"pre-backward-adds", kPre,
          {"What does backward() do to a parameter's .grad buffer that already holds a value?",
           "وقتی بافر ‎.grad‎ یک پارامتر از قبل مقدار دارد، backward()‎ با آن چه می‌کند؟"},
          {{"a", {"Replaces it with the new gradient", "آن را با گرادیان جدید جایگزین می‌کند"}},
           {"b", {"Adds the new gradient to it", "گرادیان جدید را به آن اضافه می‌کند"}},
           {"c", {"Stores the average of the old and the new gradient", "میانگین گرادیان قبلی و جدید را ذخیره می‌کند"}},
           {"d", {"Raises an error", "خطا می‌دهد"}}},
          "b",
          {"PyTorch and LibTorch add into .grad. That is why training loops zero the buffers, and why "
           "accumulation needs no extra code to sum the micro-batches.",
           "PyTorch و LibTorch گرادیان را به ‎.grad‎ اضافه می‌کنند. به همین دلیل حلقه‌های آموزش بافرها را صفر "
           "می‌کنند، و انباشت برای جمع کردن میکروبچ‌ها به کد اضافه‌ای نیاز ندارد."},
          ""},
        Q{"pre-memory", kPre,
          {"Which of these grows with the micro-batch size but not with accum_steps?",
           "کدام یک با اندازه‌ی میکروبچ بزرگ می‌شود ولی با accum_steps نه؟"},
          {{"a", {"The number of optimizer steps per epoch", "تعداد گام‌های بهینه‌ساز در هر دوره"}},
           {"b", {"The number of parameters", "تعداد پارامترها"}},
           {"c", {"The learning rate", "نرخ یادگیری"}},
           {"d", {"The memory taken by activations", "حافظه‌ای که فعال‌سازی‌ها می‌گیرند"}}},
          "d",
          {"Activations are kept for one micro-batch at a time. More micro-batches per window cost time, not "
           "activation memory.",
           "فعال‌سازی‌ها هر بار فقط برای یک میکروبچ نگه داشته می‌شوند. میکروبچ‌های بیشتر در هر پنجره زمان می‌برند، "
           "نه حافظه‌ی فعال‌سازی."},
          ""},

        // ---- check: during the lesson ----
        Q{"check-divide-by-n", kCheck,
          {"Inside a window, why is each micro-batch's loss divided by N (accum_steps)?",
           "درون یک پنجره، چرا زیان هر میکروبچ بر N (همان accum_steps) تقسیم می‌شود؟"},
          {{"a", {"Because optimizers only accept small gradients", "چون بهینه‌سازها فقط گرادیان کوچک می‌پذیرند"}},
           {"b", {"To keep the loss from overflowing", "تا زیان سرریز نکند"}},
           {"c", {"So that the summed gradients equal the gradient of the window's mean loss",
                  "تا مجموع گرادیان‌ها برابر گرادیان میانگین زیان کل پنجره شود"}},
           {"d", {"Only to make the logged loss look right", "فقط برای اینکه زیان ثبت‌شده درست به نظر برسد"}}},
          "c",
          {"N micro-batch means added together are N times the window's mean. Dividing each by N turns the sum "
           "into the mean, so the buffers hold exactly the full batch's gradient.",
           "مجموع N میانگین میکروبچ‌ها N برابر میانگین پنجره است. تقسیم هر کدام بر N مجموع را به میانگین تبدیل "
           "می‌کند و بافرها دقیقاً گرادیان دسته‌ی کامل را نگه می‌دارند."},
          "no-division"},
        Q{"check-sgd-no-division", kCheck,
          {"With SGD and accum_steps 4 you forget the division. Compared with the full-batch step, the update is:",
           "با SGD و accum_steps برابر ۴ تقسیم را فراموش کرده‌اید. به‌روزرسانی در مقایسه با گام دسته‌ی کامل:"},
          {{"a", {"the same", "یکسان است"}},
           {"b", {"4 times larger", "۴ برابر بزرگ‌تر است"}},
           {"c", {"4 times smaller", "۴ برابر کوچک‌تر است"}},
           {"d", {"unpredictable", "قابل پیش‌بینی نیست"}}},
          "b",
          {"SGD moves by learning rate x gradient, and the gradient is 4 times too large: the step is exactly "
           "4 times the correct one, as if the learning rate had been multiplied by 4.",
           "SGD به اندازه‌ی نرخ یادگیری × گرادیان جابه‌جا می‌شود و گرادیان ۴ برابر بزرگ است: گام دقیقاً ۴ برابر "
           "گام درست است، انگار نرخ یادگیری در ۴ ضرب شده باشد."},
          "no-division"},
        Q{"check-adamw-no-division", kCheck,
          {"The same bug with AdamW. What do you observe?", "همین اشکال با AdamW. چه می‌بینید؟"},
          {{"a", {"The update is 4 times larger", "به‌روزرسانی ۴ برابر بزرگ‌تر است"}},
           {"b", {"Training diverges at once", "آموزش بلافاصله واگرا می‌شود"}},
           {"c", {"Nothing changes anywhere", "هیچ چیز تغییر نمی‌کند"}},
           {"d", {"The update barely changes, but the logged loss and the gradient norm are 4 times too large",
                  "به‌روزرسانی تقریباً تغییر نمی‌کند، اما زیان ثبت‌شده و نُرم گرادیان ۴ برابر بزرگ‌اند"}}},
          "d",
          {"Adam divides the first moment by the square root of the second; a gradient scaled by 4 scales both "
           "by the same factor, which cancels (up to eps). The bug hides from the update but stays in the logs "
           "and in anything tuned on the gradient norm, such as clipping thresholds.",
           "Adam گشتاور اول را بر ریشه‌ی گشتاور دوم تقسیم می‌کند؛ ضرب گرادیان در ۴ هر دو را به یک نسبت بزرگ می‌کند "
           "و اثرش (تا حد eps) خنثی می‌شود. اشکال در به‌روزرسانی پنهان می‌ماند ولی در گزارش‌ها و هر چیزی که بر "
           "اساس نُرم گرادیان تنظیم شده، مثل آستانه‌ی برش، باقی است."},
          "no-division"},
        Q{"check-zero-when", kCheck,
          {"When must the gradient buffers be zeroed?", "بافرهای گرادیان را کی باید صفر کرد؟"},
          {{"a", {"Before every micro-batch", "پیش از هر میکروبچ"}},
           {"b", {"Once, at the start of each window", "یک بار، در آغاز هر پنجره"}},
           {"c", {"Never", "هرگز"}},
           {"d", {"After every micro-batch's backward", "پس از backward هر میکروبچ"}}},
          "b",
          {"Zeroing inside the window throws away what was accumulated. Zero once when a window opens "
           "(equivalently, right after the optimizer step).",
           "صفر کردن درون پنجره آنچه را انباشته شده دور می‌ریزد. در آغاز هر پنجره یک بار صفر کنید (یا معادل آن، "
           "درست پس از گام بهینه‌ساز)."},
          ""},
        Q{"check-adam-step-count", kCheck,
          {"After 10 effective steps with accum_steps 8, what should AdamW's step count read?",
           "پس از ۱۰ گام مؤثر با accum_steps برابر ۸، شمارنده‌ی گام AdamW باید چه عددی نشان دهد؟"},
          {{"a", {"10", "۱۰"}}, {"b", {"80", "۸۰"}}, {"c", {"8", "۸"}}, {"d", {"1", "۱"}}},
          "a",
          {"The step count counts optimizer updates and drives Adam's bias correction. 80 would mean the "
           "optimizer stepped after every micro-batch.",
           "این شمارنده تعداد به‌روزرسانی‌های بهینه‌ساز را می‌شمارد و تصحیح بایاس Adam به آن وابسته است. عدد ۸۰ "
           "یعنی بهینه‌ساز پس از هر میکروبچ گام برداشته است."},
          "adamw-state"},
        Q{"check-no-sync", kCheck,
          {"With data parallelism and accum_steps 4, how many gradient all-reduces does one window need?",
           "با موازی‌سازی داده و accum_steps برابر ۴، هر پنجره به چند all-reduce گرادیان نیاز دارد؟"},
          {{"a", {"4", "۴"}}, {"b", {"0", "۰"}}, {"c", {"1", "۱"}}, {"d", {"8", "۸"}}},
          "c",
          {"Only the window's final sum has to be averaged across ranks. Non-final micro-batches skip the sync "
           "(no_sync) and the last one syncs the whole sum at once.",
           "فقط مجموع نهایی پنجره باید بین رنک‌ها میانگین گرفته شود. میکروبچ‌های غیرپایانی همگام‌سازی را رد "
           "می‌کنند (no_sync) و آخرین میکروبچ کل مجموع را یک‌جا همگام می‌کند."},
          "sync-count"},
        Q{"check-bf16-tolerance", kCheck,
          {"In bfloat16 the equivalence check shows differences near 1e-3, above the lesson's 1e-4 bound. The most "
           "likely reason?",
           "در bfloat16 بررسی هم‌ارزی اختلاف‌هایی حدود 1e-3 نشان می‌دهد که از مرز 1e-4 درس بیشتر است. محتمل‌ترین "
           "دلیل چیست؟"},
          {{"a", {"Rounding: bfloat16 keeps 8 significant bits, so the bound must scale with the dtype's epsilon",
                  "گرد کردن: bfloat16 فقط ۸ بیت معنادار دارد، پس مرز باید با اپسیلون نوع داده مقیاس شود"}},
           {"b", {"The accumulation loop is wrong", "حلقه‌ی انباشت اشتباه است"}},
           {"c", {"The two models used different seeds", "دو مدل با بذرهای متفاوت ساخته شده‌اند"}},
           {"d", {"bfloat16 cannot compute gradients", "bfloat16 نمی‌تواند گرادیان حساب کند"}}},
          "a",
          {"Different groupings of the same sum round differently; the error is a few units in the last place of "
           "the largest value. bfloat16's epsilon is 2^-7, so at a magnitude of 0.1 one unit is about 5e-4.",
           "گروه‌بندی‌های مختلف یک مجموع، متفاوت گرد می‌شوند؛ خطا چند واحد در رقم آخرِ بزرگ‌ترین مقدار است. "
           "اپسیلون bfloat16 برابر 2^-7 است، پس در اندازه‌ی 0.1 هر واحد حدود 5e-4 است."},
          "split-tolerance"},

        // ---- post-lesson: the pitfalls beyond the lesson ----
        Q{"post-variable-length", kPost,
          {"Sequences of different lengths with a per-token loss. Which normalisation matches the full batch?",
           "دنباله‌هایی با طول‌های مختلف و زیان به ازای هر توکن. کدام نرمال‌سازی با دسته‌ی کامل برابر است؟"},
          {{"a", {"Each micro-batch's mean token loss divided by N", "میانگین زیان توکن‌های هر میکروبچ تقسیم بر N"}},
           {"b", {"Each micro-batch's mean token loss, not divided", "میانگین زیان توکن‌های هر میکروبچ، بدون تقسیم"}},
           {"c", {"Each micro-batch's summed token loss divided by N", "مجموع زیان توکن‌های هر میکروبچ تقسیم بر N"}},
           {"d", {"Each micro-batch's summed token loss divided by the window's total token count",
                  "مجموع زیان توکن‌های هر میکروبچ تقسیم بر کل توکن‌های پنجره"}}},
          "d",
          {"The full batch weighs every token by 1 / (all tokens of the batch). A per-micro-batch mean divided by "
           "N gives each token of a short micro-batch more weight than a token of a long one.",
           "دسته‌ی کامل به هر توکن وزن ۱ / (کل توکن‌های دسته) می‌دهد. میانگین هر میکروبچ تقسیم بر N به توکن‌های "
           "میکروبچ کوتاه وزنی بیشتر از توکن‌های میکروبچ بلند می‌دهد."},
          "variable-length"},
        Q{"post-partial-window", kPost,
          {"The data ends after 3 of the 4 micro-batches of the last window, and the loop still divides by 4. The "
           "last update uses:",
           "داده پس از ۳ میکروبچ از ۴ میکروبچ پنجره‌ی آخر تمام می‌شود و حلقه همچنان بر ۴ تقسیم می‌کند. آخرین "
           "به‌روزرسانی از چه استفاده می‌کند؟"},
          {{"a", {"3/4 of the mean gradient of the 3 micro-batches", "۳/۴ میانگین گرادیان ۳ میکروبچ"}},
           {"b", {"exactly the mean gradient of the 3 micro-batches", "دقیقاً میانگین گرادیان ۳ میکروبچ"}},
           {"c", {"4/3 of the mean gradient of the 3 micro-batches", "۴/۳ میانگین گرادیان ۳ میکروبچ"}},
           {"d", {"no gradient at all", "هیچ گرادیانی"}}},
          "a",
          {"Three means, each weighted 1/4, add up to 3/4 of their mean. Weight each micro-batch by its samples "
           "over the samples actually seen, or drop the incomplete window.",
           "سه میانگین که هر کدام وزن ۱/۴ دارند، روی هم ۳/۴ میانگینشان می‌شوند. هر میکروبچ را با نسبت نمونه‌هایش به "
           "نمونه‌هایی که واقعاً دیده شده وزن دهید، یا پنجره‌ی ناقص را کنار بگذارید."},
          "partial-window"},
        Q{"post-batchnorm", kPost,
          {"Which layer breaks the equality between accumulation and the full batch?",
           "کدام لایه برابری انباشت و دسته‌ی کامل را از بین می‌برد؟"},
          {{"a", {"LayerNorm", "LayerNorm"}},
           {"b", {"GELU", "GELU"}},
           {"c", {"BatchNorm in training mode", "BatchNorm در حالت آموزش"}},
           {"d", {"Linear", "Linear"}}},
          "c",
          {"BatchNorm normalises with the statistics of the batch it is given. Fed micro-batches, it uses "
           "per-micro-batch statistics, so the forward pass itself differs from the full batch. LayerNorm "
           "normalises each sample on its own.",
           "BatchNorm با آمار همان دسته‌ای که دریافت می‌کند نرمال‌سازی می‌کند. وقتی میکروبچ بگیرد از آمار هر "
           "میکروبچ استفاده می‌کند، پس خود گذر رو به جلو با دسته‌ی کامل فرق دارد. LayerNorm هر نمونه را جداگانه "
           "نرمال می‌کند."},
          "batchnorm"},
        Q{"post-clipping", kPost,
          {"Where does clip_grad_norm_ belong in an accumulation loop?",
           "جای clip_grad_norm_ در حلقه‌ی انباشت کجاست؟"},
          {{"a", {"After every micro-batch's backward", "پس از backward هر میکروبچ"}},
           {"b", {"Once, after the last micro-batch and before the optimizer step",
                  "یک بار، پس از آخرین میکروبچ و پیش از گام بهینه‌ساز"}},
           {"c", {"Before the first forward of the window", "پیش از اولین گذر رو به جلوی پنجره"}},
           {"d", {"After the optimizer step", "پس از گام بهینه‌ساز"}}},
          "b",
          {"Only after the last micro-batch do the buffers hold the full batch's gradient; clipping there equals "
           "clipping the full batch once. Clipping each micro-batch rescales the pieces by their own norms.",
           "فقط پس از آخرین میکروبچ بافرها گرادیان دسته‌ی کامل را دارند؛ برش در آنجا با یک بار برش دسته‌ی کامل "
           "برابر است. برش هر میکروبچ هر تکه را با نُرم خودش مقیاس می‌کند."},
          "clipping"},
        Q{"post-lr-schedule", kPost,
          {"A warmup of 1000 steps, accum_steps 4, and scheduler.step() is called after every micro-batch. When "
           "does the warmup end?",
           "گرمایش ۱۰۰۰ گامی، accum_steps برابر ۴، و scheduler.step()‎ پس از هر میکروبچ صدا زده می‌شود. "
           "گرمایش کی تمام می‌شود؟"},
          {{"a", {"After 1000 effective steps", "پس از ۱۰۰۰ گام مؤثر"}},
           {"b", {"After 4000 effective steps", "پس از ۴۰۰۰ گام مؤثر"}},
           {"c", {"After 250 effective steps", "پس از ۲۵۰ گام مؤثر"}},
           {"d", {"Never", "هرگز"}}},
          "c",
          {"The scheduler advances 4 times per optimizer update, so its 1000 steps are used up after 250 "
           "updates: the warmup ends 4 times too early. Step the scheduler once per effective step.",
           "زمان‌بند در هر به‌روزرسانی بهینه‌ساز ۴ بار جلو می‌رود، پس ۱۰۰۰ گامش پس از ۲۵۰ به‌روزرسانی تمام می‌شود: "
           "گرمایش ۴ برابر زودتر پایان می‌یابد. زمان‌بند را در هر گام مؤثر یک بار جلو ببرید."},
          "lr-schedule"},
        Q{"post-linear-scaling", kPost,
          {"You make the effective batch 4 times larger by accumulation and train on the same number of samples. "
           "What does the linear scaling rule suggest?",
           "دسته‌ی مؤثر را با انباشت ۴ برابر می‌کنید و با همان تعداد نمونه آموزش می‌دهید. قاعده‌ی مقیاس‌دهی خطی چه "
           "پیشنهادی می‌دهد؟"},
          {{"a", {"Multiply the learning rate by 4, with a warmup", "نرخ یادگیری را در ۴ ضرب کنید، همراه با گرمایش"}},
           {"b", {"Keep the learning rate", "نرخ یادگیری را ثابت نگه دارید"}},
           {"c", {"Divide the learning rate by 4", "نرخ یادگیری را بر ۴ تقسیم کنید"}},
           {"d", {"Train for 4 times fewer samples", "با ۴ برابر نمونه‌ی کمتر آموزش دهید"}}},
          "a",
          {"There are 4 times fewer updates, each averaging 4 times more samples. A 4 times larger rate lets one "
           "update go about as far as 4 small ones (a first-order rule, Goyal et al. 2017); the warmup avoids "
           "instability early in training.",
           "تعداد به‌روزرسانی‌ها ۴ برابر کمتر است و هر کدام میانگین ۴ برابر نمونه است. نرخ ۴ برابر به هر "
           "به‌روزرسانی اجازه می‌دهد تقریباً به اندازه‌ی ۴ به‌روزرسانی کوچک پیش برود (قاعده‌ای مرتبه‌ی اول، Goyal و "
           "همکاران ۲۰۱۷)؛ گرمایش از ناپایداری در آغاز آموزش جلوگیری می‌کند."},
          "linear-scaling"},
        Q{"post-not-faster", kPost,
          {"Is accumulation faster than the same effective batch in one pass, if that batch fitted in memory?",
           "اگر دسته‌ی مؤثر یک‌جا در حافظه جا می‌شد، آیا انباشت از پردازش یک‌باره‌ی آن سریع‌تر بود؟"},
          {{"a", {"Yes, always", "بله، همیشه"}},
           {"b", {"Only on GPUs", "فقط روی GPU"}},
           {"c", {"It halves the training time", "زمان آموزش را نصف می‌کند"}},
           {"d", {"No: it trades time for memory and at best approaches the speed of forward and backward alone",
                  "نه: زمان را با حافظه معاوضه می‌کند و در بهترین حالت به سرعت خود گذر رو به جلو و رو به عقب نزدیک می‌شود"}}},
          "d",
          {"The same samples need the same forward and backward work; accumulation only spreads the fixed cost "
           "of an optimizer step over more samples, which is why throughput flattens in the sweep.",
           "همان نمونه‌ها به همان کار گذر رو به جلو و رو به عقب نیاز دارند؛ انباشت فقط هزینه‌ی ثابت گام بهینه‌ساز "
           "را روی نمونه‌های بیشتری پخش می‌کند، و به همین دلیل توان عملیاتی در پیمایش به فلات می‌رسد."},
          "sweep-flattening"},
    };
    return questions;
}

} // namespace

std::string toString(QuizStage stage)
{
    switch (stage) {
    case QuizStage::PreLesson: return "pre-lesson";
    case QuizStage::Check: return "check";
    case QuizStage::PostLesson: return "post-lesson";
    }
    return "?";
}

QuizStage quizStageFromString(const std::string &text)
{
    for (QuizStage s : {QuizStage::PreLesson, QuizStage::Check, QuizStage::PostLesson})
        if (toString(s) == text)
            return s;
    throw ConfigError("unknown quiz stage '" + text + "' (expected one of: pre-lesson, check, post-lesson)");
}

const std::vector<QuizQuestion> &quizQuestions() { return table(); }

std::vector<QuizQuestion> quizQuestions(QuizStage stage)
{
    std::vector<QuizQuestion> out;
    std::copy_if(table().begin(), table().end(), std::back_inserter(out),
                 [stage](const QuizQuestion &q) { return q.stage == stage; });
    return out;
}

QuizScore scoreQuiz(QuizStage stage, const std::map<std::string, std::string> &answers)
{
    QuizScore score;
    for (const auto &q : table()) {
        if (q.stage != stage)
            continue;
        ++score.total;
        const auto it = answers.find(q.id);
        if (it == answers.end())
            continue;
        ++score.answered;
        if (it->second == q.correct)
            ++score.correct;
        else
            score.wrong.push_back(q.id);
    }
    return score;
}

} // namespace accumlab
