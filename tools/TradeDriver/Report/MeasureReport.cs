using System.Diagnostics;
using System.Globalization;
using System.Runtime;
using System.Runtime.InteropServices;
using System.Text;
using System.Text.Json;
using HdrHistogram;
using RapidFix.TradeDriver.Measure;

namespace RapidFix.TradeDriver.Report;

/// <summary>
/// What a measuring command reports: its header (machine, runtime, GC mode, commit, transport, store, rates asked
/// and achieved), the 4-day tables per phase, the steps of a curve or an MST search, the operational analysis, and
/// notes. Written as terminal text, JSON, <c>.hgrm</c> files and one self-contained HTML page (docs/measurement.md).
/// </summary>
internal sealed class MeasureReport
{
    private static readonly CultureInfo Inv = CultureInfo.InvariantCulture;

    public required string Title { get; init; }

    /// <summary>The command line that reproduces the report.</summary>
    public required string Command { get; init; }

    /// <summary>The run whose tables, distribution and time series the report shows (the last one of a sweep).</summary>
    public RunResult? Run { get; init; }

    /// <summary>Steps of a sweep or search (offered vs achieved, throughput vs latency).</summary>
    public IReadOnlyList<StepResult> Steps { get; init; } = [];

    public MstResult? Mst { get; init; }

    /// <summary>A soak: the report judges the soak bar (flat p99.99 and memory, no GC; <see cref="SoakVerdict"/>).</summary>
    public bool Soak { get; init; }

    /// <summary>RapidFix and QuickFIX/n doing the same echo work under the same driver (<see cref="SideBySideResult"/>), or null.</summary>
    public SideBySideResult? SideBySide { get; init; }

    public List<string> Notes { get; } = [];

    /// <summary>The header's lines, name and value.</summary>
    public IReadOnlyList<(string Name, string Value)> Header()
    {
        var h = new List<(string, string)>
        {
            ("machine", $"{Environment.MachineName}, {Environment.ProcessorCount} logical cores, {RuntimeInformation.OSDescription} {RuntimeInformation.OSArchitecture}, load average {LoadAverage()}"),
            ("runtime", $"{RuntimeInformation.FrameworkDescription} (driver); the service runs on the same runtime"),
            ("GC mode", $"{(GCSettings.IsServerGC ? "server" : "workstation")}, {(AppContext.TryGetSwitch("System.GC.Concurrent", out bool c) && c ? "concurrent" : "non-concurrent")}, latency mode {GCSettings.LatencyMode} (the service's project sets workstation, non-concurrent)"),
            ("commit", Commit()),
            ("transport", Run is null && SideBySide is not null
                ? "FIX 4.4 over loopback TCP, one RapidFix initiator session per participant (IM1, IM2, EB1, EB2) to each echo acceptor, each in its own process"
                : "FIX 4.4 over loopback TCP, one RapidFix initiator session per participant (IM1, IM2, EB1, EB2) to the matching service's acceptor, each in its own process"),
        };
        if (Run is { } r)
        {
            h.Add(("store", $"journal session stores and input journal (write window {r.Sizing.JournalBytes / (1 << 20):N0} MiB, committed at startup; session stores committed at startup), StoreFlushPolicy={r.Options.FlushPolicy}, durable before send; " +
                            (r.Persister is { } p ? p.Description : r.PersisterSkipped is { } why ? $"no PostgreSQL persister ({why})" : "no PostgreSQL persister")));
            h.Add(("path", PathLine(r)));
            h.Add(("writeback", r.HostWriteback + " (the kernel's; docs/measurement.md#the-hosts-writeback)"));
            h.Add(("driver", string.Create(Inv, $"the set streamed (formatted a little ahead into a fixed ring, nothing held for the run), about {r.DriverBytes / (1 << 20):N0} MiB whatever the run's length; {SendLine(r)}; its timing threads: {r.DriverScheduling}; its own GC verdict with the service's, below")));
            h.Add(("rates", $"asked {r.Schedule.Rate:N0} messages/s; sent {r.SentPerSecond:N0}/s, achieved (matched) {r.AchievedPerSecond:N0}/s over the steady {r.Schedule.SecondsOf(RunPhase.Steady):F0} s"));
        }

        if (SideBySide is { } sbs)
        {
            h.Add(("echo", string.Create(Inv, $"side by side: asked {sbs.RapidFix.Offered:N0} messages/s of the same set to a RapidFix and a QuickFIX/n echo acceptor (FIX 4.4, loopback TCP, memory stores, each validating against its FIX 4.4 dictionary), each in its own process, one after the other")));
        }

        if (Steps.Count > 0)
        {
            h.Add(("steps", string.Join("; ", Steps.Select(s => string.Create(Inv, $"{s.Offered:N0} -> {s.Achieved:N0}/s")))));
        }

        h.Add(("command", Command));
        return h;
    }

    /// <summary>The terminal text: header, tables, steps, analysis, notes.</summary>
    public string Text()
    {
        var t = new StringBuilder();
        t.Append(Inv, $"== {Title} ==\n");
        foreach (var (name, value) in Header())
        {
            t.Append(Inv, $"{name,-10} {value}\n");
        }

        if (Run is { } r)
        {
            t.Append(Inv, $"\nsteady part ({r.Schedule.SecondsOf(RunPhase.Steady):F0} s at {r.Schedule.Rate:N0}/s; warm-up and ramps excluded, below)\n");
            t.Append(LatencyRow.Format(r.Rows(RunPhase.Steady)));
            foreach (var phase in new[] { RunPhase.WarmUp, RunPhase.RampUp, RunPhase.RampDown })
            {
                if (r.Schedule.CountOf(phase) > 0)
                {
                    t.Append(Inv, $"\n{PhaseName(phase)} ({r.Schedule.SecondsOf(phase):F0} s, {r.Schedule.CountOf(phase):N0} messages: not in the figures above)\n");
                    t.Append(LatencyRow.Format(r.Rows(phase)));
                }
            }

            t.Append(Inv, $"\nsent {r.Sent:N0}, refused {r.Refused:N0}; acks {r.Acks:N0} of {r.ExpectedAcks:N0} (rejecting {r.Rejected:N0}), CLS {r.Cls:N0}, exceptions {r.Notices:N0}; drained in {r.DrainSeconds:F1} s\n");
            t.Append(Inv, $"queues {(r.Bounded ? "bounded" : "NOT bounded")} (growth {r.GrowthPerSecond:F1} messages/s over the steady part, typical level {r.LevelRise:+0;-0;0} messages)");
            if (r.PersisterVerdict is { } pv)
            {
                t.Append("; ").Append(pv.Line);
            }

            var step = r.Step;
            t.Append(Inv, $": {(step.Sustainable(0) ? "sustainable" : "UNSUSTAINABLE")} at {r.Schedule.Rate:N0}/s ({step.Path}){(step.Sustainable(0) ? "" : ": " + step.Why(0))}\n");
            t.Append(Inv, $"GC of the service's continuous phase: {GcLine(r)}\n");
            t.Append(Inv, $"GC of the driver's measured phase: {DriverGcLine(r)}\n");
            if (r.Persister is { } persister)
            {
                t.Append(persister.Line).Append('\n');
            }

            if (Soak)
            {
                t.Append(SoakVerdict.Of(r.Intervals, GcCount(r))?.Line ?? string.Create(Inv, $"soak bar: not judged (fewer than {SoakVerdict.MinIntervals} steady intervals)")).Append('\n');
            }

            if (r.Analysis is { } oa)
            {
                t.Append('\n').Append(AnalysisText(oa));
            }

            Notes.AddRange(r.Notes.Where(n => !Notes.Contains(n)));
        }

        if (Steps.Count > 0)
        {
            t.Append(Inv, $"\n{"offered/s",12}{"achieved/s",12}{"bounded",9}{"growth/s",10}{"persister",11}{"p50 us",10}{"p99 us",10}{"p99.99 us",11}{"refused",9}  state\n");
            double limit = Mst?.P99LimitMicros ?? 0;
            foreach (var s in Steps.OrderBy(s => s.Offered))
            {
                string persister = s.Persister is { } p ? (p.Bounded ? "ok " : "GREW ") + p.GrowthPerSecond.ToString("F0", Inv) : "-";
                t.Append(Inv, $"{s.Offered,12:F0}{s.Achieved,12:F0}{(s.Bounded ? "yes" : "no"),9}{s.GrowthPerSecond,10:F1}{persister,11}{s.P50Micros,10:F1}{s.P99Micros,10:F1}{s.P9999Micros,11:F1}{s.Refused,9}  {(s.Sustainable(limit) ? "sustainable" : "unsustainable: " + s.Why(limit))}{(s.Confirmation ? " (confirmation step)" : "")}\n");
            }
        }

        if (Mst is { } mst)
        {
            t.Append('\n').Append(MstLine(mst)).Append('\n');
        }

        if (SideBySide is { } sideBySide)
        {
            t.Append('\n').Append(sideBySide.Text());
        }

        foreach (var n in Notes)
        {
            t.Append(Inv, $"note: {n}\n");
        }

        return t.ToString();
    }

    /// <summary>Which path a run measured: the service with the persister (its lag a queue of the verdict), or the service alone and why.</summary>
    public static string PathLine(RunResult r) => r.Persister is not null
        ? "the whole path: the matching service and the PostgreSQL persister (the persister's lag is a queue of the sustainability verdict; --no-persister measures the service alone)"
        : $"the matching service alone (no persister: {r.PersisterSkipped ?? "not run"}); the persister's lag is not in the verdict";

    /// <summary>
    /// The MST search's line: the MST, the path it is of, and what made the first unsustainable step so (the queue
    /// that grew).
    /// </summary>
    public static string MstLine(MstResult mst)
    {
        var path = mst.Steps.Count > 0 ? mst.Steps[^1].Path : "no step ran";
        var bad = mst.Steps.Where(s => !s.Sustainable(mst.P99LimitMicros)).OrderBy(s => s.Offered).FirstOrDefault();
        string confirmed = mst.Confirmed switch
        {
            true => string.Create(Inv, $", confirmed over a {mst.ConfirmSeconds:F0}-s step"),
            false => string.Create(Inv, $" (no confirmation over {mst.ConfirmSeconds:F0}-s steps held)"),
            null => "",
        };
        return string.Create(Inv, $"maximum sustainable throughput: {mst.Mst:N0} messages/s of {path}{(mst.P99LimitMicros > 0 ? string.Create(Inv, $" (p99 limit {mst.P99LimitMicros:F0} us)") : "")}{confirmed}") +
               (bad is null ? "; no step was unsustainable" : string.Create(Inv, $"; {bad.Offered:N0}/s{(bad.Confirmation ? string.Create(Inv, $" over {mst.ConfirmSeconds:F0} s") : "")} was not: {bad.Why(mst.P99LimitMicros)}"));
    }

    /// <summary>How the driver paced its sends (<see cref="RunOptions.SendTick"/>).</summary>
    public static string SendLine(RunResult r) => r.Options.SendTick > TimeSpan.Zero && PreciseSleep.Available
        ? string.Create(Inv, $"it sends in turns at least {r.Options.SendTick.TotalMicroseconds:N0} µs apart ({r.DriverSleeps:N0} turns)")
        : "it yields between its sends (a busy core)";

    /// <summary>The service's GC verdict: the trace's when analyzed, else the service's own phase report.</summary>
    public static string GcLine(RunResult r) => r.Trace is { } tv
        ? string.Create(Inv, $"{tv.Collections?.ToString(Inv) ?? "?"} GCs ({tv.Verdict}, from its trace; the service's own report: {Own(r)})")
        : string.Create(Inv, $"{Own(r)} (the service's own report; not traced)");

    /// <summary>
    /// The driver's own GC verdict: collections and bytes allocated by its whole process from the warm-up's end to
    /// the end of the drain, then by each thread it counts: its sending thread, its run thread, its sampler, its
    /// persister-lag poller, its sessions' threads (the engine's counters), the threads reading its children's output,
    /// and what is left, the other threads' (the runtime's own); then what the runtime did in that window (methods
    /// compiled, thread-pool work items, threads started, its own threads that ran), which names the other threads.
    /// </summary>
    public static string DriverGcLine(RunResult r)
    {
        static string Bytes(long b) => b < 0 ? "?" : b.ToString("N0", Inv);
        string verdict = r.DriverZeroGc switch { true => "PASS", false => "FAIL", null => "not measured (the run ended before its warm-up did)" };
        string runtime = r.RuntimeInMeasuredPhase is { } a
            ? string.Create(Inv, $"; in the phase the runtime compiled {a.JitMethods:N0} methods, ran {a.ThreadPoolWorkItems:N0} thread-pool work items, {a.LockContentions:N0} lock contentions ({r.ThreadsInMeasuredPhase})")
            : "";
        return string.Create(Inv, $"{verdict}: {(r.DriverCollections < 0 ? "?" : r.DriverCollections.ToString(Inv))} GCs, {Bytes(r.DriverProcessAllocatedBytes)} bytes allocated by the driver's process over {r.DriverMeasuredSeconds:F1} s from its warm-up's end to the drain's end (sending thread {Bytes(r.DriverAllocatedBytes)}, run thread {Bytes(r.MainAllocatedBytes)}, sampler {Bytes(r.SamplerAllocatedBytes)}, persister-lag poller {(r.LagPollerAllocatedBytes < 0 && r.Persister is null ? "none" : Bytes(r.LagPollerAllocatedBytes))}, sessions' threads {Bytes(r.SessionThreadsAllocatedBytes)}, output readers {Bytes(r.OutputThreadsAllocatedBytes)}, other threads {Bytes(r.OtherThreadsAllocatedBytes)}){runtime}");
    }

    /// <summary>The GC count of the continuous phase: the trace's, else the service's report, else the stats file's.</summary>
    public static long GcCount(RunResult r) => r.Trace?.Collections ?? r.ServiceContinuous?.Collections ?? r.SteadyServiceCollections;

    /// <summary>Writes report.txt, report.json, report.html and an .hgrm per channel of the steady part into the directory.</summary>
    public IReadOnlyList<string> WriteFiles(string directory)
    {
        Directory.CreateDirectory(directory);
        var written = new List<string>();
        string text = Text();
        Write("report.txt", text);
        Write("report.json", Json());
        if (Run is { } r)
        {
            foreach (var channel in new[] { LatencyChannel.Send, LatencyChannel.Ack, LatencyChannel.Cls })
            {
                var h = r.Latency.Of(channel, RunPhase.Steady);
                if (h.TotalCount > 0)
                {
                    using var w = new StringWriter(Inv);
                    h.OutputPercentileDistribution(w, 5, 1000.0, false);
                    Write($"steady-{channel.ToString().ToLowerInvariant()}.hgrm", w.ToString());
                }
            }

            if (File.Exists(Path.Combine(r.Options.OutputDirectory, "intervals.hlog")))
            {
                written.Add(Path.Combine(r.Options.OutputDirectory, "intervals.hlog"));
            }
        }

        Write("report.html", Html(text));
        return written;

        void Write(string name, string content)
        {
            string path = Path.Combine(directory, name);
            File.WriteAllText(path, content);
            written.Add(path);
        }
    }

    /// <summary>The report as JSON (figures in µs and messages per second).</summary>
    public string Json()
    {
        var r = Run;
        var model = new
        {
            title = Title,
            command = Command,
            header = Header().ToDictionary(h => h.Name, h => h.Value),
            run = r is null ? null : new
            {
                rate = r.Schedule.Rate,
                steadySeconds = r.Schedule.SecondsOf(RunPhase.Steady),
                sentPerSecond = r.SentPerSecond,
                achievedPerSecond = r.AchievedPerSecond,
                bounded = r.Bounded,
                growthPerSecond = r.GrowthPerSecond,
                levelRise = r.LevelRise,
                sustainable = r.Step.Sustainable(0),
                sent = r.Sent,
                refused = r.Refused,
                acks = r.Acks,
                expectedAcks = r.ExpectedAcks,
                rejected = r.Rejected,
                cls = r.Cls,
                exceptions = r.Notices,
                gcCount = GcCount(r),
                gc = GcLine(r),
                journalBytes = r.Sizing.JournalBytes,
                persister = r.Persister is { } p ? new
                {
                    description = p.Description,
                    maxLag = p.MaxLag,
                    meanLag = p.MeanLag,
                    catchUpSeconds = p.CatchUpSeconds,
                    finalLag = p.FinalLag,
                    lag = p.Points,
                    verdict = r.PersisterVerdict,
                } : null,
                persisterSkipped = r.PersisterSkipped,
                hostWriteback = r.HostWriteback,
                path = PathLine(r),
                why = r.Step.Why(0),
                driver = new
                {
                    bytes = r.DriverBytes,
                    scheduling = r.DriverScheduling,
                    zeroGc = r.DriverZeroGc,
                    measuredSeconds = r.DriverMeasuredSeconds,
                    collections = r.DriverCollections,
                    processAllocatedBytes = r.DriverProcessAllocatedBytes,
                    allocatedBytes = r.DriverAllocatedBytes,
                    runThreadAllocatedBytes = r.MainAllocatedBytes,
                    samplerAllocatedBytes = r.SamplerAllocatedBytes,
                    lagPollerAllocatedBytes = r.LagPollerAllocatedBytes,
                    sessionThreadsAllocatedBytes = r.SessionThreadsAllocatedBytes,
                    outputThreadsAllocatedBytes = r.OutputThreadsAllocatedBytes,
                    otherThreadsAllocatedBytes = r.OtherThreadsAllocatedBytes,
                    runtimeInMeasuredPhase = r.RuntimeInMeasuredPhase is { } rt ? new
                    {
                        jitMethods = rt.JitMethods,
                        threadPoolWorkItems = rt.ThreadPoolWorkItems,
                        threadPoolThreads = rt.ThreadPoolThreads,
                        lockContentions = rt.LockContentions,
                        threads = r.ThreadsInMeasuredPhase,
                    } : null,
                    line = DriverGcLine(r),
                },
                soak = Soak ? SoakVerdict.Of(r.Intervals, GcCount(r)) : null,
                tables = new[] { RunPhase.Steady, RunPhase.WarmUp, RunPhase.RampUp, RunPhase.RampDown }.ToDictionary(PhaseName, p => r.Rows(p)),
                intervals = r.Intervals,
                operationalAnalysis = r.Analysis is null ? null : new
                {
                    bottleneck = r.Analysis.BottleneckAnalysis.Name,
                    components = r.Analysis.Components.Select(c => new
                    {
                        name = c.Name,
                        arrivals = c.Arrivals,
                        completions = c.Completions,
                        seconds = c.Seconds,
                        throughput = c.Throughput,
                        arrivalRate = c.ArrivalRate,
                        utilisation = c.Utilisation,
                        serviceTimeMicros = c.ServiceTime * 1e6,
                        meanQueue = c.MeanQueue,
                        responseTimeMicros = c.ResponseTime * 1e6,
                        maxQueue = c.MaxQueue,
                    }),
                },
            },
            steps = Steps,
            mst = Mst?.Mst,
            mstConfirmed = Mst?.Confirmed,
            mstConfirmSeconds = Mst?.ConfirmSeconds,
            sideBySide = SideBySide is { } sbs ? new
            {
                peers = new[] { sbs.RapidFix, sbs.QuickFixN }.Where(e => e is not null).Select(e => new
                {
                    peer = e!.Peer,
                    offeredPerSecond = e.Offered,
                    offeredAcksPerSecond = e.OfferedAcks,
                    achievedAcksPerSecond = e.Achieved,
                    sustainable = e.Sustainable,
                    sent = e.Sent,
                    refused = e.Refused,
                    acks = e.Acks,
                    expectedAcks = e.ExpectedAcks,
                    gcCount = e.PeerGc?.Collections,
                    allocatedBytes = e.PeerGc?.AllocatedBytes,
                    table = e.Rows(),
                }),
                quickFixNSkipped = sbs.QuickFixNSkipped,
                latencyRatioP50 = sbs.LatencyRatio(50),
                latencyRatioP99 = sbs.LatencyRatio(99),
                latencyRatioP9999 = sbs.LatencyRatio(99.99),
                throughputRatio = sbs.ThroughputRatio,
                ratio = sbs.RatioLine,
            } : null,
            notes = Notes,
        };
        return JsonSerializer.Serialize(model, new JsonSerializerOptions { WriteIndented = true, NumberHandling = System.Text.Json.Serialization.JsonNumberHandling.AllowNamedFloatingPointLiterals });
    }

    /// <summary>The self-contained HTML page: header, tables, plots (inline SVG), analysis, the terminal text.</summary>
    public string Html(string text)
    {
        var h = new StringBuilder();
        h.Append("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>").Append(Svg.E(Title)).Append("</title><style>")
            .Append("body{font-family:system-ui,sans-serif;margin:24px;color:#222;max-width:1100px}table{border-collapse:collapse;margin:8px 0}")
            .Append("td,th{border:1px solid #ccc;padding:3px 8px;text-align:right;font-size:13px}th{background:#f0f0f0}td:first-child,th:first-child{text-align:left}")
            .Append(".header td{text-align:left}.bad{color:#b00;font-weight:bold}.good{color:#060;font-weight:bold}pre{background:#f7f7f7;padding:8px;font-size:11px;overflow:auto}")
            .Append("figure{margin:16px 0}</style></head><body>");
        h.Append("<h1>").Append(Svg.E(Title)).Append("</h1><table class=\"header\">");
        foreach (var (name, value) in Header())
        {
            h.Append("<tr><th>").Append(Svg.E(name)).Append("</th><td>").Append(Svg.E(value)).Append("</td></tr>");
        }

        h.Append("</table>");
        if (Run is { } r)
        {
            bool sustainable = r.Step.Sustainable(0);
            h.Append(Inv, $"<p>Verdict: <span class=\"{(sustainable ? "good" : "bad")}\">{(sustainable ? "sustainable" : "unsustainable")}</span> at {r.Schedule.Rate:N0}/s; ")
                .Append(Inv, $"GC of the service's continuous phase: <span class=\"{(GcCount(r) == 0 ? "good" : "bad")}\">{Svg.E(GcLine(r))}</span>; ")
                .Append(Inv, $"GC of the driver's measured phase: <span class=\"{(r.DriverZeroGc == true ? "good" : "bad")}\">{Svg.E(DriverGcLine(r))}</span>.</p>");
            h.Append("<h2>Latency, steady part (µs)</h2>").Append(Table(r.Rows(RunPhase.Steady)));
            h.Append("<h2>Warm-up and ramps (excluded from the figures above)</h2>");
            foreach (var phase in new[] { RunPhase.WarmUp, RunPhase.RampUp, RunPhase.RampDown })
            {
                h.Append("<h3>").Append(PhaseName(phase)).Append("</h3>").Append(Table(r.Rows(phase)));
            }

            h.Append("<h2>Percentile distribution</h2><figure>").Append(Svg.Plot("Latency by percentile, steady part", "percentile", "latency (µs)",
                [.. new[] { LatencyChannel.Ack, LatencyChannel.Cls, LatencyChannel.Send }.Select(c => new Series(ChannelName(c), Distribution(r.Latency.Of(c, RunPhase.Steady))))],
                percentileX: true)).Append("</figure>");
            var bands = new[] { RunPhase.WarmUp, RunPhase.RampUp, RunPhase.Steady, RunPhase.RampDown }
                .Select(p => new Band((r.Schedule.StartOf(p) - r.Schedule.Start) / (double)r.Schedule.Frequency,
                    (r.Schedule.StartOf(p) - r.Schedule.Start) / (double)r.Schedule.Frequency + r.Schedule.SecondsOf(p), PhaseName(p))).ToList();
            h.Append("<h2>Latency over time</h2><figure>").Append(Svg.Plot("Input to ack per interval", "seconds since the first send", "latency (µs)",
            [
                new Series("p50", [.. r.Intervals.Select(i => (i.Seconds, i.AckP50))]),
                new Series("p99", [.. r.Intervals.Select(i => (i.Seconds, i.AckP99))]),
                new Series("p99.99", [.. r.Intervals.Select(i => (i.Seconds, i.AckP9999))]),
            ], bands: bands)).Append("</figure>");
            h.Append("<figure>").Append(Svg.Plot("Throughput over time", "seconds since the first send", "messages per second",
            [
                new Series("sent", [.. r.Intervals.Select(i => (i.Seconds, i.SentPerSecond))]),
                new Series("matched", [.. r.Intervals.Select(i => (i.Seconds, i.MatchedPerSecond))], Dashed: true),
            ], bands: bands)).Append("</figure>");
            if (r.Analysis is { } oa)
            {
                h.Append("<h2>Operational analysis (steady part)</h2><figure>").Append(ExecutionGraph(oa)).Append("</figure>").Append(AnalysisTable(oa));
            }
        }

        var steps = Steps.Count > 0 ? Steps : Run is { } one ? [one.Step] : [];
        if (steps.Count > 0)
        {
            var ordered = steps.OrderBy(s => s.Achieved).ToList();
            h.Append("<h2>Throughput vs latency</h2><figure>").Append(Svg.Plot("End-to-end latency against achieved throughput", "achieved (messages/s)", "latency (µs)",
            [
                new Series("p50", [.. ordered.Select(s => (s.Achieved, s.P50Micros))], Markers: true),
                new Series("p99", [.. ordered.Select(s => (s.Achieved, s.P99Micros))], Markers: true),
                new Series("p99.99", [.. ordered.Select(s => (s.Achieved, s.P9999Micros))], Markers: true),
            ])).Append("</figure>");
            var byOffered = steps.OrderBy(s => s.Offered).ToList();
            h.Append("<h2>Offered vs achieved</h2><figure>").Append(Svg.Plot("Offered against achieved throughput (dashed: achieved = offered)", "offered (messages/s)", "achieved (messages/s)",
            [
                new Series("achieved", [.. byOffered.Select(s => (s.Offered, s.Achieved))], Markers: true),
                new Series("sustainable", [.. byOffered.Where(s => s.Sustainable(Mst?.P99LimitMicros ?? 0)).Select(s => (s.Offered, s.Achieved))], Markers: true),
            ], identityLine: true)).Append("</figure>");
            if (Mst is { } mst)
            {
                h.Append(Inv, $"<p>Maximum sustainable throughput: <b>{mst.Mst:N0} messages/s</b>{(mst.P99LimitMicros > 0 ? string.Create(Inv, $" under a p99 limit of {mst.P99LimitMicros:F0} µs") : "")}: the highest offered rate at which achieved kept up with offered and no queue grew.</p>");
            }
        }

        if (SideBySide is { } sideBySide)
        {
            h.Append("<h2>Side by side: RapidFix and QuickFIX/n doing the same echo work (steady part, µs)</h2>").Append(Table(sideBySide.Rows));
            h.Append("<p>").Append(Svg.E(sideBySide.RapidFix.Line)).Append("<br>").Append(Svg.E(sideBySide.QuickFixN?.Line ?? "QuickFIX/n: skipped (" + sideBySide.QuickFixNSkipped + ")"))
                .Append("</p><p><b>").Append(Svg.E(sideBySide.RatioLine)).Append("</b></p>");
            h.Append("<figure>").Append(Svg.Plot("Input to ack by percentile, echo, steady part", "percentile", "latency (µs)",
                [.. new[] { sideBySide.RapidFix, sideBySide.QuickFixN }.Where(e => e is not null)
                    .Select(e => new Series(e!.Peer, Distribution(e.Latency.Of(LatencyChannel.Ack, RunPhase.Steady))))],
                percentileX: true)).Append("</figure>");
        }

        if (Notes.Count > 0)
        {
            h.Append("<h2>Notes</h2><ul>");
            foreach (var n in Notes)
            {
                h.Append("<li>").Append(Svg.E(n)).Append("</li>");
            }

            h.Append("</ul>");
        }

        h.Append("<h2>As printed</h2><pre>").Append(Svg.E(text)).Append("</pre></body></html>");
        return h.ToString();
    }

    /// <summary>The operational analysis as text.</summary>
    public static string AnalysisText(OperationalReport oa)
    {
        var t = new StringBuilder();
        t.Append(Inv, $"operational analysis ({oa.Samples} samples every {oa.IntervalSeconds * 1000:F0} ms):\n");
        t.Append(Inv, $"{"component",-28}{"A",12}{"C",12}{"X/s",10}{"U",7}{"S us",10}{"N",9}{"R us",11}{"max N",9}\n");
        foreach (var c in oa.Components)
        {
            t.Append(Inv, $"{c.Name,-28}{c.Arrivals,12}{c.Completions,12}{c.Throughput,10:F0}{c.Utilisation,7:F2}{c.ServiceTime * 1e6,10:F1}{c.MeanQueue,9:F1}{c.ResponseTime * 1e6,11:F1}{c.MaxQueue,9}\n");
        }

        t.Append(Inv, $"bottleneck: {oa.BottleneckAnalysis.Name} (U {oa.BottleneckAnalysis.Utilisation:F2}, mean queue {oa.BottleneckAnalysis.MeanQueue:F1})\n");
        return t.ToString();
    }

    /// <summary>The percentile distribution of a histogram of nanoseconds, as (percentile, µs) points.</summary>
    public static IReadOnlyList<(double Percentile, double Micros)> Distribution(HistogramBase h)
    {
        var points = new List<(double, double)>();
        if (h.TotalCount == 0)
        {
            return points;
        }

        foreach (var v in h.Percentiles(5))
        {
            points.Add((Math.Min(v.Percentile, 99.9999), h.HighestEquivalentValue(v.ValueIteratedTo) / 1000.0));
        }

        return points;
    }

    private static string ExecutionGraph(OperationalReport oa)
    {
        const int box = 170, gap = 40, y = 50, height = 120;
        int width = 2 * 90 + (oa.Components.Count * (box + gap));
        var s = new StringBuilder();
        s.Append(Inv, $"<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {width} 220\" width=\"{width}\" height=\"220\" role=\"img\" aria-label=\"execution graph\">");
        s.Append("<defs><marker id=\"arrow\" markerWidth=\"8\" markerHeight=\"8\" refX=\"7\" refY=\"4\" orient=\"auto\"><path d=\"M0,0 L8,4 L0,8 z\" fill=\"#555\"/></marker></defs>");
        s.Append("<text x=\"10\" y=\"20\" font-size=\"15\" font-weight=\"bold\">Execution graph: driver → service → sink (bottleneck in red)</text>");
        s.Append(Inv, $"<rect x=\"10\" y=\"{y + 35}\" width=\"60\" height=\"50\" rx=\"6\" fill=\"#eef\" stroke=\"#557\"/><text x=\"40\" y=\"{y + 65}\" text-anchor=\"middle\" font-size=\"12\">driver</text>");
        int x = 90;
        foreach (var c in oa.Components)
        {
            bool bottleneck = c.Component == oa.Bottleneck;
            s.Append(Inv, $"<line x1=\"{x - gap + 20}\" y1=\"{y + 60}\" x2=\"{x - 2}\" y2=\"{y + 60}\" stroke=\"#555\" marker-end=\"url(#arrow)\"/>");
            s.Append(Inv, $"<rect x=\"{x}\" y=\"{y}\" width=\"{box}\" height=\"{height}\" rx=\"8\" fill=\"{(bottleneck ? "#fde0e0" : "#f4f4f4")}\" stroke=\"{(bottleneck ? "#c00" : "#777")}\" stroke-width=\"{(bottleneck ? 3 : 1)}\"/>");
            s.Append(Inv, $"<text x=\"{x + (box / 2)}\" y=\"{y + 18}\" text-anchor=\"middle\" font-size=\"12\" font-weight=\"bold\">{Svg.E(c.Name)}</text>");
            string[] lines =
            [
                string.Create(Inv, $"X {c.Throughput:N0}/s"),
                string.Create(Inv, $"U {c.Utilisation:P0}  S {c.ServiceTime * 1e6:F1} µs"),
                string.Create(Inv, $"N {c.MeanQueue:F1} (max {c.MaxQueue})"),
                string.Create(Inv, $"R = N/X {c.ResponseTime * 1e6:F1} µs"),
            ];
            for (int i = 0; i < lines.Length; i++)
            {
                s.Append(Inv, $"<text x=\"{x + (box / 2)}\" y=\"{y + 42 + (i * 18)}\" text-anchor=\"middle\" font-size=\"11\">{Svg.E(lines[i])}</text>");
            }

            x += box + gap;
        }

        s.Append(Inv, $"<line x1=\"{x - gap + 2}\" y1=\"{y + 60}\" x2=\"{x + 8}\" y2=\"{y + 60}\" stroke=\"#555\" marker-end=\"url(#arrow)\"/>");
        s.Append(Inv, $"<rect x=\"{x + 10}\" y=\"{y + 35}\" width=\"60\" height=\"50\" rx=\"6\" fill=\"#eef\" stroke=\"#557\"/><text x=\"{x + 40}\" y=\"{y + 65}\" text-anchor=\"middle\" font-size=\"12\">sink</text>");
        s.Append("</svg>");
        return s.ToString();
    }

    private static string AnalysisTable(OperationalReport oa)
    {
        var t = new StringBuilder("<table><tr><th>component</th><th>A</th><th>C</th><th>X /s</th><th>U</th><th>S µs</th><th>N</th><th>R = N/X µs</th><th>max N</th></tr>");
        foreach (var c in oa.Components)
        {
            t.Append(Inv, $"<tr{(c.Component == oa.Bottleneck ? " class=\"bad\"" : "")}><td>{Svg.E(c.Name)}</td><td>{c.Arrivals:N0}</td><td>{c.Completions:N0}</td><td>{c.Throughput:N0}</td><td>{c.Utilisation:F2}</td><td>{c.ServiceTime * 1e6:F1}</td><td>{c.MeanQueue:F1}</td><td>{c.ResponseTime * 1e6:F1}</td><td>{c.MaxQueue:N0}</td></tr>");
        }

        return t.Append(Inv, $"</table><p>Bottleneck: <b>{Svg.E(oa.BottleneckAnalysis.Name)}</b>. U = B/T with B the sampled busy time (queue not empty), S = B/C, N = W/T, R = W/C (Little's law N = X·R).</p>").ToString();
    }

    private static string Table(IReadOnlyList<LatencyRow> rows)
    {
        var t = new StringBuilder("<table><tr><th>latency (µs)</th><th>count</th><th>run s</th><th>min</th><th>mean</th><th>std</th><th>median</th><th>p90</th><th>p99</th><th>p99.9</th><th>p99.99</th><th>p99.999</th><th>max</th></tr>");
        foreach (var r in rows)
        {
            t.Append(Inv, $"<tr><td>{Svg.E(r.Name)}</td><td>{r.Count:N0}</td><td>{r.RunSeconds:F1}</td><td>{r.Min:F1}</td><td>{r.Mean:F1}</td><td>{r.Std:F1}</td><td>{r.Median:F1}</td><td>{r.P90:F1}</td><td>{r.P99:F1}</td><td>{r.P999:F1}</td><td>{r.P9999:F1}</td><td>{r.P99999:F1}</td><td>{r.Max:F1}</td></tr>");
        }

        return t.Append("</table>").ToString();
    }

    public static string PhaseName(RunPhase p) => p switch
    {
        RunPhase.WarmUp => "warm-up",
        RunPhase.RampUp => "ramp-up",
        RunPhase.Steady => "steady",
        _ => "ramp-down",
    };

    private static string ChannelName(LatencyChannel c) => c switch
    {
        LatencyChannel.Ack => "input to ack",
        LatencyChannel.Cls => "trade to CLS",
        _ => "driver send lag",
    };

    private static string Own(RunResult r) => r.ServiceContinuous is { } c ? string.Create(Inv, $"{c.Collections} collections, {c.AllocatedBytes} bytes allocated") : "none printed";

    private static string LoadAverage()
    {
        try
        {
            return File.Exists("/proc/loadavg") ? string.Join(' ', File.ReadAllText("/proc/loadavg").Split(' ').Take(3)) : "unknown";
        }
        catch (IOException)
        {
            return "unknown";
        }
    }

    private static string Commit()
    {
        try
        {
            var start = new ProcessStartInfo("git", "rev-parse --short HEAD")
            {
                RedirectStandardOutput = true,
                RedirectStandardError = true,
                UseShellExecute = false,
                WorkingDirectory = AppContext.BaseDirectory,
            };
            using var git = Process.Start(start)!;
            string commit = git.StandardOutput.ReadToEnd().Trim();
            git.WaitForExit();
            return git.ExitCode == 0 && commit.Length > 0 ? commit : "unknown (not a git checkout)";
        }
        catch (System.ComponentModel.Win32Exception)
        {
            return "unknown (git not found)";
        }
    }
}
