using RapidFix.EtwAnalyzer.Analysis;
using RapidFix.EtwAnalyzer.Reading;
using RapidFix.Engine.Diagnostics;
using RapidFix.Pools.Diagnostics;
using RapidFix.Pools.Phases;

namespace RapidFix.EtwAnalyzer.Tests;

/// <summary>Real EventPipe traces of this process, read back with TraceEvent.</summary>
[Collection(TracedRuns.Name)]
public sealed class SelfTracedTests : IDisposable
{
    private readonly string _folder = Directory.CreateTempSubdirectory("etw-self-").FullName;

    public void Dispose() => Directory.Delete(_folder, recursive: true);

    private sealed class FixedCounters : IEngineCounterSource
    {
        public void ReadCounters(out EngineCountersData counters) => counters = new EngineCountersData { MessagesIn = 7, MessagesOut = 9, PoolsCapacity = 64 };
    }

    [Fact]
    public void Garbage_made_in_the_continuous_phase_is_found_and_fails_the_gate()
    {
        string path = Path.Combine(_folder, "garbage.nettrace");
        using (var trace = new SelfTrace(path))
        {
            var phases = new PhaseController("self-garbage");
            phases.EnterContinuous();
            MakeGarbage();
            phases.EnterShutdown();
            phases.CompleteShutdown();
            trace.Stop();
        }

        var analysis = TraceAnalysis.Analyze(TraceReader.Read(path));
        string report = Reporting.TextReport.Format(analysis, []);
        Assert.Equal("self-garbage", analysis.Engine);
        Assert.Equal(Verdict.Fail, analysis.Verdict);
        Assert.True(analysis.Continuous.Collections.Any(c => c.Generation == 0 && c.Reason == "Induced"), report);
        Assert.True(analysis.Continuous.AllocationTicks.Count >= 50, $"{analysis.Continuous.AllocationTicks.Count} ticks for 20 MB");
        Assert.Equal("System.Byte[]", analysis.Continuous.TopAllocatedTypes(1).Single().TypeName);
        Assert.True(analysis.ProcessAllocatedBytes >= 20_000_000, $"engine counted {analysis.ProcessAllocatedBytes} bytes");
        Assert.Contains(analysis.Continuous.Suspensions, s => s.ForGc);
        Assert.Contains(analysis.Reasons, r => r.Contains("garbage collection", StringComparison.Ordinal));
    }

    [Fact]
    public void An_etlx_converted_from_the_trace_gives_the_same_verdict()
    {
        string path = Path.Combine(_folder, "convert.nettrace");
        using (var trace = new SelfTrace(path))
        {
            var phases = new PhaseController("self-etlx");
            phases.EnterContinuous();
            MakeGarbage();
            phases.EnterShutdown();
            trace.Stop();
        }

        string etlx = Microsoft.Diagnostics.Tracing.Etlx.TraceLog.CreateFromEventPipeDataFile(path, Path.Combine(_folder, "convert.etlx"));
        var fromNettrace = TraceAnalysis.Analyze(TraceReader.Read(path));
        var fromEtlx = TraceAnalysis.Analyze(TraceReader.Read(etlx));
        Assert.Equal(Verdict.Fail, fromEtlx.Verdict);
        Assert.Equal("self-etlx", fromEtlx.Engine);
        Assert.Equal(fromNettrace.Continuous.Collections.Count, fromEtlx.Continuous.Collections.Count);
        Assert.Equal(fromNettrace.Continuous.AllocationTicks.Count, fromEtlx.Continuous.AllocationTicks.Count);
        Assert.Equal(fromNettrace.ProcessAllocatedBytes, fromEtlx.ProcessAllocatedBytes);
    }

    private static void MakeGarbage()
    {
        object? keep = null;
        for (int i = 0; i < 20_000; i++)
        {
            keep = new byte[1_000];
        }

        GC.KeepAlive(keep);
        GC.Collect(0);
    }

    [Fact]
    public void Latency_summaries_and_counters_survive_the_trace_exactly()
    {
        string path = Path.Combine(_folder, "latency.nettrace");
        bool previous = EngineLatency.AlwaysRecord;
        var expected = new LatencyHistogram();
        using (var trace = new SelfTrace(path))
        {
            var phases = new PhaseController("self-latency");
            using var monitor = new EngineMonitor(phases, new FixedCounters(), TimeSpan.FromHours(1));
            var histogram = EngineThreads.Current.Histogram(LatencyChannel.Receive);
            monitor.Flush();
            phases.EnterContinuous();
            var before = new LatencyHistogram();
            before.Add(histogram);
            for (int i = 1; i <= 5_000; i++)
            {
                histogram.Record(i * 37L);
                expected.Record(i * 37L);
            }

            monitor.Flush();
            phases.EnterShutdown();
            trace.Stop();
        }

        EngineLatency.AlwaysRecord = previous;
        var model = TraceReader.Read(path);
        Assert.Empty(model.Warnings);
        var analysis = TraceAnalysis.Analyze(model);
        var receive = analysis.Continuous.Receive;
        Assert.Equal(expected.TotalCount, receive.TotalCount);
        Assert.Equal(expected.Sum, receive.Sum);
        Assert.Equal(expected.ValueAtPercentile(99.99), receive.ValueAtPercentile(99.99));
        var interval = Assert.Single(analysis.Continuous.LatencyIntervals);
        Assert.Equal((int)EnginePhase.Continuous, interval.Phase);
        Assert.Equal(expected.ValueAtPercentile(99), interval.P99);
        var counters = Assert.Single(model.Counters, c => c.TimeMs >= analysis.Continuous.StartMs);
        Assert.Equal(9, counters.Values["messagesOut"]);
        Assert.Equal(64, counters.Values["poolsCapacity"]);
    }

    [Fact]
    public void Writing_events_to_an_eventpipe_session_allocates_nothing()
    {
        string path = Path.Combine(_folder, "allocations.nettrace");
        using var trace = new SelfTrace(path);
        var phases = new PhaseController("self-allocations");
        using var monitor = new EngineMonitor(phases, new FixedCounters(), TimeSpan.FromHours(1));
        EngineThreads.Current.Histogram(LatencyChannel.Send).Record(1234);
        Assert.True(RapidFixEventSource.Log.IsEnabled());

        long bytes = RapidFix.Tests.Shared.Allocations.Measure(monitor, static m =>
        {
            var log = RapidFixEventSource.Log;
            EngineThreads.Current.Histogram(LatencyChannel.Send).Record(Environment.TickCount64 & 0xFFFF);
            m.Flush();
            log.WriteSession(RapidFixEventSource.SessionRejectId, "FIX.4.4:A->B", 0, 5, 35);
            log.ContinuousEnd("self-allocations");
            log.ContinuousBegin("self-allocations", 1, 2, 3, 4, 5, false);
        }, 2_000, warmup: 200);
        trace.Stop();
        Assert.Equal(0, bytes);
        Assert.True(monitor.Intervals >= 2_000);
    }

    [Fact]
    public void A_truncated_trace_is_reported_without_a_stack_trace()
    {
        string path = Path.Combine(_folder, "whole.nettrace");
        using (var trace = new SelfTrace(path))
        {
            var phases = new PhaseController("self-truncated");
            phases.EnterContinuous();
            phases.EnterShutdown();
            trace.Stop();
        }

        byte[] whole = File.ReadAllBytes(path);
        string cut = Path.Combine(_folder, "cut.nettrace");
        File.WriteAllBytes(cut, whole.AsSpan(0, whole.Length * 2 / 3).ToArray());
        var output = new StringWriter();
        var error = new StringWriter();
        int code = AnalyzerProgram.Run([cut, "--no-files"], output, error);
        Assert.Equal(2, code);
        string all = output + error.ToString();
        Assert.DoesNotContain("   at ", all, StringComparison.Ordinal);
        Assert.True(all.Contains("ends abruptly", StringComparison.Ordinal) || all.Contains("cannot be opened as a trace", StringComparison.Ordinal), all);
    }
}
