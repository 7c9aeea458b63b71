using System.Globalization;
using System.Text;
using RapidFix.EtwAnalyzer.Analysis;
using RapidFix.EtwAnalyzer.Reading;
using RapidFix.Pools.Diagnostics;

namespace RapidFix.EtwAnalyzer.Reporting;

/// <summary>The analysis as text for a terminal: a phase table, details per phase, the latency table, the verdict last.</summary>
public static class TextReport
{
    private static readonly CultureInfo Inv = CultureInfo.InvariantCulture;

    /// <summary>How many methods, types and exceptions each list shows.</summary>
    public const int ListLimit = 15;

    public static string Format(TraceAnalysis analysis, IReadOnlyList<string> writtenFiles)
    {
        ArgumentNullException.ThrowIfNull(analysis);
        var m = analysis.Model;
        var text = new StringBuilder();
        void Line(FormattableString s) => text.Append(s.ToString(Inv)).Append('\n');

        Line($"RapidFix trace analysis: {m.Path}");
        Line($"engine '{analysis.Engine}'; trace {(m.EndMs - m.StartMs) / 1000:F1} s, {m.EventCount:N0} events, {m.EventsLost:N0} lost");
        text.Append('\n');
        Line($"{"phase",-11}{"duration",10}  {"GCs g0/g1/g2",-14}{"GC pause ms (max)",19}{"suspensions",13}{"alloc ticks",13}{"~bytes",14}{"JIT methods",13}{"exceptions",12}");
        foreach (var p in analysis.Phases)
        {
            string gcs = $"{p.Collections.Count} ({p.CollectionsOfGeneration(0)}/{p.CollectionsOfGeneration(1)}/{p.CollectionsOfGeneration(2)})";
            string pause = string.Create(Inv, $"{p.GcPauseMs:F2} ({p.MaxGcPauseMs:F2})");
            Line($"{p.Name,-11}{p.DurationMs / 1000,9:F1}s  {gcs,-14}{pause,19}{p.Suspensions.Count,13:N0}{p.AllocationTicks.Count,13:N0}{p.AllocatedTickBytes,14:N0}{p.Compilations.Count,13:N0}{p.Exceptions.Count,12:N0}");
        }

        foreach (var p in analysis.Phases)
        {
            text.Append('\n');
            Line($"{p.Name}");
            if (p == analysis.Startup && analysis.WarmUp is { } warm)
            {
                Line($"  warm-up: {V(warm, "warmUpNanoseconds") / 1e6:N0} ms, {V(warm, "rounds")} rounds, {V(warm, "methodsCompiled"):N0} methods compiled, settled: {(V(warm, "settled") == 1 ? "yes" : "NO")}");
            }

            if (p == analysis.Continuous)
            {
                DescribeEngineCounters(analysis, Line);
            }

            Line($"  GCs: {(p.Collections.Count == 0 ? "none" : string.Join(", ", p.CollectionReasons.Select(r => $"{r.Reason} x{r.Count}")))}");
            Line($"  runtime suspensions: {(p.Suspensions.Count == 0 ? "none" : string.Join(", ", p.SuspensionsByReason.Select(g => string.Create(Inv, $"{g.Reason} x{g.Count} (total {g.TotalMs:F2} ms, max {g.MaxMs:F2} ms)"))))}");
            if (p.AllocationTicks.Count == 0)
            {
                Line($"  allocation ticks: none");
            }
            else
            {
                Line($"  allocation ticks: {p.AllocationTicks.Count:N0}, about {p.AllocatedTickBytes:N0} bytes (a tick per ~100 KB); top types:");
                foreach (var t in p.TopAllocatedTypes(ListLimit))
                {
                    Line($"    {t.Bytes,14:N0} bytes  {t.Ticks,6:N0} ticks  {t.TypeName}");
                }
            }

            if (p != analysis.Startup)
            {
                Line($"  methods JIT-compiled: {(p.Compilations.Count == 0 ? "none" : p.Compilations.Count.ToString("N0", Inv))}");
                foreach (var j in p.Compilations.Take(ListLimit))
                {
                    Line($"    {(j.TimeMs - analysis.Continuous.StartMs) / 1000,8:F3} s  {j.Tier,-18} {j.Method}");
                }

                if (p.Compilations.Count > ListLimit)
                {
                    Line($"    ... and {p.Compilations.Count - ListLimit:N0} more");
                }
            }

            if (p.Exceptions.Count == 0)
            {
                Line($"  exceptions: none");
            }
            else
            {
                Line($"  exceptions: {p.Exceptions.Count:N0}");
                foreach (var g in p.Exceptions.GroupBy(e => e.Type).OrderByDescending(g => g.Count()).Take(ListLimit))
                {
                    Line($"    {g.Count(),6:N0}  {g.Key}: {Shorten(g.First().Message)}");
                }
            }

            if (p.SessionEvents.Count > 0)
            {
                Line($"  session events: {string.Join(", ", p.SessionEvents.GroupBy(s => s.Name).Select(g => $"{g.Key} x{g.Count()}"))}");
            }
        }

        text.Append('\n');
        var c = analysis.Continuous;
        if (c.Receive.TotalCount + c.Send.TotalCount > 0)
        {
            Line($"latency of the continuous phase (engine processing time, from {c.LatencyIntervals.Count:N0} interval summaries)");
            text.Append(LatencyTable.Format(c.Send, c.Receive, TimeSpan.FromMilliseconds(c.DurationMs))).Append('\n');
        }
        else
        {
            Line($"latency: no latency summaries in the continuous phase (enable the RapidFix provider's Latency keyword, 0x4)");
        }

        foreach (var warning in m.Warnings.Take(ListLimit))
        {
            Line($"warning: {warning}");
        }

        foreach (var note in analysis.Notes)
        {
            Line($"note: {note}");
        }

        if (writtenFiles.Count > 0)
        {
            text.Append('\n');
            foreach (var f in writtenFiles)
            {
                Line($"wrote {f}");
            }
        }

        text.Append('\n');
        foreach (var reason in analysis.Reasons)
        {
            Line($"{(analysis.Verdict == Verdict.Fail ? "FAIL" : "INCONCLUSIVE")}: {reason}");
        }

        text.Append(VerdictLine(analysis));
        return text.ToString();
    }

    /// <summary>The last line: the verdict with the continuous phase's GC count, allocation ticks, allocated bytes and p99.99.</summary>
    public static string VerdictLine(TraceAnalysis analysis)
    {
        ArgumentNullException.ThrowIfNull(analysis);
        var c = analysis.Continuous;
        string word = analysis.Verdict switch
        {
            Verdict.Pass => "PASS",
            Verdict.Fail => "FAIL",
            _ => "INCONCLUSIVE",
        };
        string allocated = analysis.ProcessAllocatedBytes is { } bytes
            ? string.Create(Inv, $"{bytes:N0} bytes allocated (process), {analysis.EngineThreadsAllocatedBytes ?? 0:N0} by engine threads")
            : "allocated bytes not traced";
        string P9999(LatencyHistogram h) => h.TotalCount == 0 ? "-" : string.Create(Inv, $"{h.ValueAtPercentile(99.99) / 1000.0:F2} us");
        return string.Create(Inv,
            $"verdict: {word}: continuous phase {c.DurationMs / 1000:F1} s: {c.Collections.Count} GCs, {c.AllocationTicks.Count} allocation ticks, {allocated}; p99.99 receive {P9999(c.Receive)}, send {P9999(c.Send)}");
    }

    private static void DescribeEngineCounters(TraceAnalysis analysis, Action<FormattableString> line)
    {
        if (analysis.ProcessAllocatedBytes is { } process)
        {
            line($"  engine counters at the phase boundaries: {process:N0} bytes allocated by the process (precise), {analysis.EngineThreadsAllocatedBytes ?? 0:N0} by engine threads");
        }

        var samples = analysis.Model.Counters.Where(s => s.TimeMs >= analysis.Continuous.StartMs && s.TimeMs <= analysis.Continuous.EndMs).ToList();
        if (samples.Count >= 2)
        {
            var first = samples[0].Values;
            var last = samples[^1].Values;
            long D(string name) => Get(last, name) - Get(first, name);
            double seconds = (samples[^1].TimeMs - samples[0].TimeMs) / 1000;
            line($"  engine counters over {seconds:F1} s: {D("messagesIn"):N0} messages in, {D("messagesOut"):N0} out ({(D("messagesIn") + D("messagesOut")) / Math.Max(seconds, 1e-9):N0}/s), pool rent failures {D("poolRentFailures"):N0}, most pool buffers in use {samples.Max(s => Get(s.Values, "poolsInUse")):N0}, deepest inbound queue {samples.Max(s => Get(s.Values, "inboundQueueDepth")):N0}, most outbound bytes waiting {samples.Max(s => Get(s.Values, "outboundPendingBytes")):N0}");
        }
    }

    private static long Get(IReadOnlyDictionary<string, long> values, string name) => values.TryGetValue(name, out long v) ? v : 0;

    private static long V(PhaseMarker marker, string name) => Get(marker.Values, name);

    private static string Shorten(string s) => s.Length <= 100 ? s : s[..100] + "...";
}
