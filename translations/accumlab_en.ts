<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en">
<context>
    <name>Exports</name>
    <message>
        <source>Could not write %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>there is nothing to write.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the folder %1 does not exist.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>FileReading</name>
    <message>
        <source>it is not a regular file (a FIFO, a device or a folder)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>it is larger than %1 MiB</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ImportErrors</name>
    <message>
        <source>the file is %1 MiB; an accum-curve file is at most %2 MiB</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>it is not valid JSON: the text breaks off or goes wrong at byte %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>it is not valid JSON</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the file nests deeper than %1 levels; it is not an accum-curve file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the file is JSON but not an object with a schema and points; it is not an accum-curve file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the file names no schema; an accum-curve file says &quot;%1&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the file&apos;s schema is &quot;%1&quot;, not &quot;%2&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the file has no &apos;points&apos; list</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the file&apos;s &apos;points&apos; list is empty</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>point %1 is not an object with fields</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>point %1 has no field &apos;%2&apos;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>in point %1, field &apos;%2&apos; is not a number</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>in point %1, field &apos;%2&apos; is not a finite number</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>in point %1, field &apos;%2&apos; must be a whole number of at least %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>in point %1, field &apos;%2&apos; is negative</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>in point %1, field &apos;%2&apos; is neither true nor false</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>in point %1, field &apos;%2&apos; is not a list</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>it is not a valid accum-curve file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>in point %1, effective_batch is %2, which is not %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>in point %1, field &apos;%2&apos; holds a value no measurement gives (too large, or too close to zero)</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>LocalizedText</name>
    <message>
        <source>graphics card %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>processor (CPU)</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>Preset</name>
    <message>
        <source>The preset is not a JSON object: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The preset is not a JSON object but %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The preset nests deeper than %1 levels; a preset nests 2.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The file is not an AccumLab preset (schema %1 expected).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The preset has an invalid setting: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The preset names an unknown %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>QObject</name>
    <message>
        <source>AccumLab</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>QShortcut</name>
    <message>
        <source>Return</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Enter</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>accumlab::ui::AccumulationPanel</name>
    <message>
        <source>Gradient buffers: one bar per parameter tensor, the buffer&apos;s projection onto the window&apos;s full-batch gradient (%1× at the marker)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Gradient buffers</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>micro-batches seen</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>optimizer steps</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>optimizer state step</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>sync_calls</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>micro-batch loss</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>accumulated / full batch: not measured yet</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>accumulated / full batch = %1× after all %2 micro-batches</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>accumulated / full batch = %1× so far</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>micro-batch %1 of %2 in optimizer window %3%4</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> — optimizer stepped</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not run</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>float16 on real float16 kernels</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>float16, emulated by rounding through float16</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 · loss scale %2 · skipped windows %3 · unscale calls %4</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 · no loss scaler</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>micro-batch %1 of %2 on each of %3 ranks in optimizer window %4, bars of rank %5%6</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>accumlab::ui::ActionTable</name>
    <message>
        <source>%1 (%2)</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>accumlab::ui::CodePanel</name>
    <message>
        <source>The loop as you write it in PyTorch, for the settings the engine runs. Highlighted: what the last micro-batch ran (Step walks it). Red: a planted bug&apos;s line.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Copy code</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Put this code on the clipboard</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The loop in PyTorch</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>accumlab::ui::ControlPanel</name>
    <message>
        <source>Micro-batch</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Accumulation steps</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Learning rate</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Optimizer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Bug: no division</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Bug: step every micro-batch</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No-sync</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Dtype</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Device</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Seed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Pace</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sweep grid</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Batch</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Training</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Teaching mode</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Throughput sweep</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>SGD</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>SGD + momentum</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>AdamW</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>loss not divided by N</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Each micro-batch&apos;s loss goes to backward() undivided: the summed gradient is N times too large.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>optimizer.step() inside the window</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The optimizer steps after every micro-batch instead of once per effective batch.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>sync only on the last micro-batch</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Like DDP&apos;s no_sync(): non-final micro-batches skip the gradient all-reduce.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>float32</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>float64</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>bfloat16</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Auto</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>CPU</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>CUDA</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>CUDA (not available)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Available: CPU and CUDA</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Available: CPU only</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Accumulation steps to sweep, comma-separated</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Micro-batches per second while playing</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1/s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>micro %1 × accum %2 × world %3 = effective %4</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Lesson MLP (%1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Wide MLP (%1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Fixture MLP (%1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Ranks (world size)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Bug: classic</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A bug that real training loops have shipped with, planted in the engine&apos;s window: the equivalence panel, teaching mode and the sweep all run it.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Bug: loss scaler</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Loss scaler</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>float16</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>dynamic loss scaling</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A pitfall of loss scaling under accumulation, planted in the engine&apos;s window with the loss scaler on; where PyTorch refuses it, the engine refuses it in PyTorch&apos;s words.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Like PyTorch&apos;s GradScaler: the loss is multiplied by a scale before backward, the buffers are unscaled once per window, and a window with an Inf or NaN is skipped and the scale halved.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Run sweep starts this many real rank processes on this machine, which all-reduce their gradients over c10d (Gloo); the equivalence panel and teaching mode run as many ranks as threads of the app, and teaching mode&apos;s bars show rank 0&apos;s buffers.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Controls hidden in classroom mode</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Checked controls are hidden while classroom mode is on. Save a preset to keep the choice.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Steps at largest N</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Timed optimizer steps of the grid&apos;s largest accum_steps; each smaller one runs as many micro-batches (more steps), so every point does the same work</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>accumlab::ui::EngineWorker</name>
    <message>
        <source>The equivalence check was cancelled.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The experiment was cancelled.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>accumlab-cli, which runs the ranks, was not found next to the app.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The memory run was cancelled.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>There is no run to save: the lab&apos;s settings were refused.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>accumlab::ui::EquivalencePanel</name>
    <message>
        <source>Equivalence: full batch vs accumulated</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>max |grad diff|</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>max |param diff|</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>update ratio</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>tensor</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>|grad diff|</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>|param diff|</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>batch %1 in one pass vs %2 micro-batches of %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>checking…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not checked</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>PASS: equivalent</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>FAIL: not equivalent</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 (accumulated / full)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Differences per parameter tensor</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>batch %1 in one pass vs %2 micro-batches of %3 on each of %4 ranks</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>lesson&apos;s bound</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>decided by</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>NO EFFECT: the planted bug changed nothing here</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>both under %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>above %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the float64 twin&apos;s sides differ in this tensor</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>accumlab::ui::ExperimentPanel</name>
    <message>
        <source>&amp;Experiment:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Ru&amp;n experiment</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sets the controls to the experiment&apos;s settings where they apply, then runs it on real tensors in the background.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Quick run</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Fewer steps for the sweep and the training curves; every claim is still measured.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Claims</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Verdict</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Claim</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Explanation</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Measured values</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Value</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Measured</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Measured curves</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1. %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Lesson exercise</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Pitfall beyond the lesson</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Running “%1”…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>All %1 claims hold.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 of %2 claims hold.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The experiment was cancelled.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The experiment failed: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Pick an experiment and run it.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>holds</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>does not hold</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Criterion: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>effective batch</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>effective step</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>samples seen</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>samples/sec</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>share of the plateau</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>learning rate</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>full batch</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>held-out loss</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>4x batch, 4x rate</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>per effective step</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>per micro-batch</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>small batch</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>4x batch only</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 inconclusive within the timing spread.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Rows marked %2 (%1) are observations: true by the way they are measured, so they carry no verdict.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>an observation: true by the way it is measured, so no verdict</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>inconclusive: the difference lies within the measured timing spread</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Timing-based claims depend on the machine and its load: they are reported, not guaranteed.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Experiment results</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>predicted: N·micro / (N·t_micro + t_window)</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>accumlab::ui::GradientBufferView</name>
    <message>
        <source>Press Step or Play to run micro-batches.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1×</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>full batch</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>faint: the correct loop&apos;s bar</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>accumlab::ui::LocalizedFileModel</name>
    <message>
        <source>Folder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>File</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 file</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>accumlab::ui::LossChart</name>
    <message>
        <source>Loss per optimizer step</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>loss</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>batch %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>dashed: logged loss</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Loss chart</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Play/Step, batch %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>samples seen</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>accumlab::ui::MainWindow</name>
    <message>
        <source>AccumLab: gradient accumulation on real tensors</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Throughput and loss</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Memory</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sweep table</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Play</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Run micro-batches at the chosen pace</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>P&amp;ause</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>S&amp;tep</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Run one micro-batch</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Reset</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Run s&amp;weep</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Stop</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Open preset…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Save preset…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export accum-curve.json…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export skill markdown…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export charts as PNG…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Classroom mode</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Controls hidden in classroom mode…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Language</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Lesson</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Run</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>E&amp;xperiments</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Lab</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Buffers, equivalence check and charts</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Experiments</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Guided experiments: the lesson&apos;s exercises and the pitfalls, measured</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Quiz</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Questions before, during and after the lesson</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open an experiment</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1. %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Import accum-curve.json…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Overlay a saved curve (AccumLab&apos;s or the lesson&apos;s) on the throughput chart</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>About AccumLab</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&lt;h3&gt;AccumLab %1&lt;/h3&gt;&lt;p&gt;Gradient accumulation on real tensors: micro-batches, loss/N, one optimizer step, and the proof that it matches the full batch.&lt;/p&gt;&lt;p&gt;Persian font: Vazirmatn (SIL Open Font License 1.1).&lt;/p&gt;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Teaching card</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The keys, the projector&apos;s settings and the 45-minute plan on one screen</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;About AccumLab</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Runs on: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Latin digits (%1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Controls</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Full screen</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Zoom &amp;in</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Zoom &amp;out</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Normal size</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Restore the lab&apos;s settings</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Put back the settings the lab had before the experiment changed them</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The lab&apos;s settings are back as they were before the experiment.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Save session…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Save the lab&apos;s run where it stands, even inside a window, as a checkpoint folder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Resume session…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Continue a saved run exactly where it stopped, with its settings</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stop after the running micro-batch</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A fresh model and data stream from the seed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Full-speed throughput sweep over the grid of accumulation steps</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stop the sweep, the play or the memory run</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Run</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export memory timeline…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The out-of-memory demo&apos;s allocations as memory-timeline.json and as a snapshot PyTorch&apos;s memory visualiser opens</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export trained model…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The lab&apos;s parameters as they stand, as a safetensors file that PyTorch&apos;s load_state_dict takes (fc1.weight … fc3.bias)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Code</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The loop in PyTorch, lit as the engine runs it</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Lab, experiments and quiz</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Tabs take the lab&apos;s height</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Folds the buffers and the check away so that the charts, the memory and the code below them get the lab&apos;s whole height</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Lab ta&amp;b</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>accumlab::ui::MemoryTimelineChart</name>
    <message>
        <source>Memory timeline chart</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Live memory through one window, allocation by allocation</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>through the window, %</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>live, MiB</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>live, KiB</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>full batch in one pass</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>micro-batches</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>resident floor</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>budget</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>fails here</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Live memory of the window running now (Play/Step)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>micro-batch of the window</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>this window</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>forward</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>backward</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>optimizer step</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>accumlab::ui::MemoryView</name>
    <message>
        <source>budget: fails after %1 samples</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Out of memory even for the micro-batch: lower the micro-batch.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The effective batch in one pass is out of memory; %1 micro-batches of %2 fit and give the same update.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Both fit: with this budget accumulation is not needed for memory.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Run the out-of-memory demo</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Memory of one training pass: the micro-batch vs the whole effective batch, estimated and measured</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Effective batch</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Memory fails after (samples)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Memory budget</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Light bars: the estimate from the model shape, dtype and optimizer (weights, gradient buffers, optimizer state, the window&apos;s samples, one pass&apos;s activations). Solid bars: measured on this device by the out-of-memory demo, temporaries of the backward and the step included.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Runs the whole effective batch in one pass under the budget, where it fails with LibTorch&apos;s out-of-memory error, then the same samples by accumulation under the same budget, and compares the parameters with the full batch&apos;s.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Trade-off sweep</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>At the effective batch, every micro-batch from 1 up: time per optimizer step and measured peak memory; the points beyond the budget fail.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Find the micro-batch</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Doubles the micro-batch, then bisects, until the largest that fits the budget is found; accum_steps makes up the effective batch.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1, measured</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1, estimated</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>micro-batch of %1, estimate: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>micro-batch of %1, measured: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>micro-batch of %1, measured: run the demo</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>effective batch of %1 in one pass, estimate: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>effective batch of %1 in one pass, measured: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>effective batch of %1 in one pass, measured: run the demo</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>budget: the estimate fits %1 samples per pass</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A micro-batch of %1 does not divide the effective batch of %2.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Running the out-of-memory demo…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Running the trade-off sweep…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Finding the largest micro-batch that fits…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The memory run was cancelled.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The memory run failed: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Memory lab</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The settings changed after the last memory run, and its figures were for the old ones: run it again for these.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>accumlab::ui::QuizWidget</name>
    <message>
        <source>&amp;Quiz:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Before the lesson</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>During the lesson (check)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>After the lesson</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Check answer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Previous</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Start &amp;again</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Question %1 of %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>✓ Correct.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>✗ Not quite. The answer is: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open the experiment “%1”</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>See the r&amp;esult</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Next</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Result</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 of %2 correct</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Every answer is right.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Worth another look:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Unanswered questions: %1</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>accumlab::ui::SessionFiles</name>
    <message>
        <source>JSON files</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Markdown files</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>AccumLab presets</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Wrote %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Could not open %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open preset</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Save preset</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>lesson.json</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No sweep has completed yet: run a sweep first.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Imported %1: %2 points</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Could not import %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Import accum-curve.json</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export accum-curve.json</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export skill markdown</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Folder for the chart PNGs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1× (as on screen)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1× (for slides)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1×</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export chart PNGs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Size of the pictures:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Wrote %1 PNG files to %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 windows done and %2 micro-batches into the next</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 windows done</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Resumed the session from %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Saved the session to %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Folder to save the session in</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Folder of the session to resume</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No memory timeline yet: run the out-of-memory demo first.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Folder for the memory timeline</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Wrote memory-timeline.json and memory-snapshot.pickle (for PyTorch&apos;s memory visualiser) to %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>safetensors files</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Wrote the trained model to %1 (%2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export the trained model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The skill file needs a completed sweep: run a sweep first.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>accumlab::ui::StatusReporter</name>
    <message>
        <source>AccumLab</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>accumlab::ui::SweepRunner</name>
    <message>
        <source>The sweep settings are invalid: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sweep running…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sweep round %1 of %2, point %3 of %4</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The sweep failed: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sweep stopped after %1 of %2 points.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sweep done: best measured %1 samples/sec.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>accumlab::ui::SweepTableModel</name>
    <message>
        <source>diverged</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>effective batch</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>accum</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>micro</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>ranks</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>samples/sec</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>median step ms</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>syncs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>all-reduces</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>all-reduce ms</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>avg loss</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>accumlab::ui::TeachingCard</name>
    <message>
        <source>Teaching card</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>accumlab::ui::ThroughputChart</name>
    <message>
        <source>Throughput: samples/sec vs effective batch</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>effective batch (log2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>samples/sec</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>ms per step</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>median ms/step</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>earlier run %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>best %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>best</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>imported: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Throughput chart</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>cost model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>block spread</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>effective batch %1 (accum %2 × micro %3)
%4 samples/sec
median step %5 ms
%6 timing blocks: %7 to %8 samples/sec, median %9
the bar: the slowest block to the fastest; their middle half %10 to %11</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>accumlab::ui::TradeoffChart</name>
    <message>
        <source>Trade-off at an effective batch of %1: time per step and peak memory</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Trade-off: time per step and peak memory against the micro-batch</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>micro-batch (log2 axis)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>ms / step</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>peak, MiB</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>peak, KiB</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>ms per step</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>measured peak</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>budget</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>resident floor</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>step&apos;s peak</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>out of memory</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Memory and time trade-off chart</source>
        <translation type="unfinished"></translation>
    </message>
</context>
</TS>
