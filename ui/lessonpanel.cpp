// The lesson panel. The texts are tr() strings with a little HTML, so they are translated in
// the .ts files like every other string; formulas and code are arguments, kept out of the
// translations and wrapped in left-to-right isolates so they read the same in Persian.
#include "ui/lessonpanel.h"

#include "ui/language.h"

#include <QEvent>
#include <QRegularExpression>
#include <QTextBrowser>
#include <QTextDocument>
#include <QTextOption>
#include <QUrl>
#include <QVBoxLayout>

namespace accumlab::ui {

namespace {

const char *const kLinkScheme = "accumlab";

struct Link {
    const char *target;
    QString text;
};

QString formula(const QString &text) { return LanguageManager::ltr(text.toHtmlEscaped()); }

// Code stays code in every language: an HTML <pre> block, left to right, wrapped at the panel's
// width rather than widening the whole document.
QString code(const QString &text)
{
    return QStringLiteral("<pre dir=\"ltr\" style=\"white-space: pre-wrap\">%1</pre>").arg(text.toHtmlEscaped());
}

} // namespace

LessonPanel::LessonPanel(QWidget *parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("lessonPanel"));
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_browser = new QTextBrowser;
    m_browser->setObjectName(QStringLiteral("lessonBrowser"));
    m_browser->setOpenLinks(false);
    m_browser->setOpenExternalLinks(false);
    layout->addWidget(m_browser);
    connect(m_browser, &QTextBrowser::anchorClicked, this, &LessonPanel::onAnchorClicked);
    retranslateUi();
}

void LessonPanel::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::LanguageChange || event->type() == QEvent::LayoutDirectionChange)
        retranslateUi();
    QWidget::changeEvent(event);
}

void LessonPanel::onAnchorClicked(const QUrl &url)
{
    if (url.scheme() == QLatin1String(kLinkScheme))
        activate(url.path());
}

void LessonPanel::activate(const QString &target) { emit targetActivated(target); }

QStringList LessonPanel::linkTargets() const
{
    QStringList targets;
    static const QRegularExpression href(QStringLiteral("href=\"%1:([^\"]+)\"").arg(QLatin1String(kLinkScheme)));
    // The HTML as written, before QTextDocument normalises it.
    const QString html = m_browser->property("lessonHtml").toString();
    for (auto it = href.globalMatch(html); it.hasNext();)
        targets << it.next().captured(1);
    return targets;
}

void LessonPanel::retranslateUi()
{
    auto section = [](const QString &title, const QString &body, const QList<Link> &links) {
        QStringList anchors;
        for (const Link &l : links)
            anchors << QStringLiteral("<a href=\"%1:%2\">%3</a>")
                           .arg(QLatin1String(kLinkScheme), QLatin1String(l.target), l.text.toHtmlEscaped());
        return QStringLiteral("<h3>%1</h3>%2<p>%3 %4</p>")
            .arg(title.toHtmlEscaped(), body, tr("Show me:").toHtmlEscaped(), anchors.join(QStringLiteral(" · ")));
    };

    QString html = QStringLiteral("<h2>%1</h2><p>%2</p>")
                       .arg(tr("Gradient accumulation, step by step").toHtmlEscaped(),
                            tr("Each section ends with links to the part of the window that shows it live: "
                               "click one and the control or chart lights up."));

    html += section(
        tr("1. The effective batch"),
        tr("<p>An optimizer step uses the gradient of the <i>effective batch</i>. With gradient accumulation "
           "each rank runs several small micro-batches before the step; with data parallelism several ranks "
           "(accelerators) run at the same time:</p><p align=\"center\"><b>%1</b></p><p>The learning rate and "
           "its warm-up were tuned for the effective batch. When the hardware changes (less memory, fewer "
           "accelerators), keep the effective batch and change accum_steps so that the product stays the "
           "same.</p>")
            .arg(formula(QStringLiteral("micro_batch × accum_steps × world_size = effective_batch"))),
        {{"control/microBatch", tr("micro-batch slider")},
         {"control/accumSteps", tr("accumulation steps slider")},
         {"view/identity", tr("the live identity")}});

    html += section(
        tr("2. Divide the loss before backward()"),
        tr("<p>backward() does not replace the gradient in a parameter's buffer; it adds to it. After N "
           "micro-batches the buffer holds the sum of N gradients, each the gradient of one micro-batch's "
           "mean loss. The full batch's gradient is their mean, so each micro-batch's loss is divided by N "
           "before backward():</p>%1<p>Watch the bars: with the division they reach the full-batch marker "
           "after the last micro-batch. Switch on the bug and they overshoot to N times the marker; SGD would "
           "take a step N times too long.</p>")
            .arg(code(QStringLiteral("loss = loss_fn(model(x), y) / accum_steps\nloss.backward()"))),
        {{"control/noDivision", tr("the no-division bug")}, {"view/buffers", tr("gradient buffers")}});

    html += section(
        tr("3. One optimizer step per effective batch"),
        tr("<p>optimizer.step() and zero_grad() run once per window of N micro-batches, after the last "
           "backward(). The optimizer's state moves with its steps: momentum, Adam's moments and step count, "
           "and the learning-rate schedule all advance once per effective batch, never per "
           "micro-batch.</p><p>The counters show it: micro-batches seen grows N times faster than optimizer "
           "steps, and the optimizer state step follows the optimizer steps. Switch on the bug that steps "
           "inside the window and the state runs N times too fast: Adam's bias correction and the warm-up end "
           "early.</p>"),
        {{"view/counters", tr("counters")},
         {"control/stepEveryMicro", tr("the step-every-micro-batch bug")},
         {"control/optimizer", tr("optimizer")}});

    html += section(
        tr("4. Synchronise on the last micro-batch only"),
        tr("<p>With data parallelism (DDP) every backward() normally starts an all-reduce that averages the "
           "gradients across ranks. Inside a window only the sum at the end matters, so the first N−1 "
           "micro-batches run under model.no_sync() and only the last backward() communicates:</p>%1<p>The "
           "gradients are the same; the network carries them once per optimizer step instead of N times. The "
           "sync_calls counter counts the all-reduces.</p>")
            .arg(code(QStringLiteral("last = i == accum_steps - 1\n"
                                     "ctx = nullcontext() if last else model.no_sync()\n"
                                     "with ctx:\n"
                                     "    (loss_fn(model(x), y) / accum_steps).backward()"))),
        {{"control/noSync", tr("sync only on the last micro-batch")}, {"view/syncCalls", tr("sync_calls counter")}});

    html += section(
        tr("5. The proof in code"),
        tr("<p>Take two copies of the same model. Give the first the whole batch in one pass; give the second "
           "the same samples in N chunks, each loss divided by N, and compare the gradients (and the "
           "parameters after one step):</p>%1<p>They agree up to the order of the floating-point summation: "
           "rounding-sized differences, larger in bfloat16 than in float32, never a factor. The equivalence "
           "panel runs exactly this check at your settings, tensor by tensor.</p>")
            .arg(code(QStringLiteral("full.zero_grad(); loss_fn(full(X), Y).backward()\n"
                                     "acc.zero_grad()\n"
                                     "for x, y in zip(X.chunk(N), Y.chunk(N)):\n"
                                     "    (loss_fn(acc(x), y) / N).backward()\n"
                                     "for a, b in zip(full.parameters(), acc.parameters()):\n"
                                     "    assert (a.grad - b.grad).abs().max() < tol"))),
        {{"view/equivalence", tr("equivalence panel")}, {"control/dtype", tr("dtype")}});

    html += section(
        tr("6. The cost: memory traded for time"),
        tr("<p>Accumulation saves memory, not compute. Each micro-batch is a whole forward and backward pass; "
           "only one micro-batch's activations are alive at a time, so memory follows the micro-batch while "
           "the arithmetic follows the effective batch.</p><p>In the sweep, samples/sec rises and then "
           "saturates as the fixed cost of each optimizer step is spread over more samples, while the time per "
           "optimizer step grows in proportion to accum_steps. The memory tab shows the other side: the "
           "effective batch in one pass does not fit the budget, its micro-batches do.</p>"),
        {{"view/throughput", tr("throughput chart")},
         {"view/sweepTable", tr("sweep table")},
         {"view/memory", tr("memory view")}});

    html += section(
        tr("7. In production"),
        tr("<ul><li>Choose the micro-batch to fill the accelerator's memory, with some headroom.</li><li>Take "
           "the effective batch from the learning-rate schedule. Under the linear scaling rule (Goyal et al., "
           "2017) a batch k times larger takes a learning rate k times larger, reached through a "
           "warm-up.</li><li>Then %1. It is the knob you turn at run time: on a machine with half the memory "
           "or half the accelerators, double it and the training stays the same.</li></ul>")
            .arg(formula(QStringLiteral("accum_steps = effective_batch ÷ (micro_batch × world_size)"))),
        {{"view/memoryBudget", tr("memory budget")},
         {"control/lr", tr("learning rate")},
         {"control/accumSteps", tr("accumulation steps slider")}});

    // Paragraphs take the UI's direction, even one that opens with `backward()`; code blocks
    // say dir="ltr" themselves.
    QTextOption option = m_browser->document()->defaultTextOption();
    option.setTextDirection(layoutDirection());
    m_browser->document()->setDefaultTextOption(option);
    m_browser->setProperty("lessonHtml", html);
    m_browser->setHtml(html);
}

} // namespace accumlab::ui
