using RapidFix.EtwAnalyzer.Analysis;
using RapidFix.EtwAnalyzer.Collecting;
using RapidFix.EtwAnalyzer.Reading;

namespace RapidFix.EtwAnalyzer.Tests;

/// <summary>
/// The gate end to end, shortened: samples/FixLoad (a RapidFix initiator and acceptor exchanging orders and
/// executions over loopback) runs as a child process traced through the runtime's EventPipe environment variables;
/// the analyzer must pass the clean run and fail the run whose order handler allocates.
/// </summary>
[Collection(TracedRuns.Name)]
public sealed class ZeroGcGateTests : IDisposable
{
    private readonly string _folder = Directory.CreateTempSubdirectory("etw-gate-").FullName;

    public void Dispose() => Directory.Delete(_folder, recursive: true);

    private (int LoadExit, TraceAnalysis Analysis, string Output) RunLoad(string name, params string[] extra)
    {
        string trace = Path.Combine(_folder, name + ".nettrace");
        string load = Path.Combine(AppContext.BaseDirectory, "FixLoad.dll");
        var log = new StringWriter();
        string loadOutput = Path.Combine(_folder, name + ".log");
        int exit = TraceCollector.Launch(load, ["--seconds", "3", "--rate", "5000", "--warmup-burst", "1000", "--log", loadOutput, .. extra], trace, log, TimeSpan.FromMinutes(3));
        return (exit, TraceAnalysis.Analyze(TraceReader.Read(trace)), log.ToString());
    }

    [Fact]
    public void A_clean_run_passes_with_traffic_latency_and_no_garbage()
    {
        var (exit, a, output) = RunLoad("clean");
        Assert.True(exit == 0, output + Reporting.TextReport.Format(a, []));
        Assert.True(a.Verdict == Verdict.Pass, string.Join("; ", a.Reasons));
        Assert.Equal("fix-load", a.Engine);
        Assert.InRange(a.Continuous.DurationMs, 2_900, 4_000);
        Assert.Empty(a.Continuous.Collections);
        Assert.Empty(a.Continuous.AllocationTicks);
        Assert.Equal(0L, a.ProcessAllocatedBytes);
        // About 15,000 orders and as many executions, each sent once and received once.
        Assert.InRange(a.Continuous.Send.TotalCount, 28_000, 31_000);
        Assert.InRange(a.Continuous.Receive.TotalCount, 28_000, 31_000);
        Assert.NotNull(a.WarmUp);
        Assert.NotEmpty(a.Startup.Collections); // the full blocking collections that end startup
        Assert.Contains(a.Startup.SessionEvents, s => s.Name == "SessionLogon");
        Assert.Contains(a.Shutdown.SessionEvents, s => s.Name == "SessionLogout");
    }

    [Fact]
    public void An_allocating_handler_in_the_continuous_phase_fails_the_gate()
    {
        var (exit, a, output) = RunLoad("allocating", "--allocating-handler");
        Assert.True(exit == 1, output);
        Assert.Equal(Verdict.Fail, a.Verdict);
        Assert.NotEmpty(a.Continuous.AllocationTicks);
        Assert.Equal("System.String", a.Continuous.TopAllocatedTypes(1).Single().TypeName);
        Assert.True(a.ProcessAllocatedBytes > 3 * 5_000 * 100, $"engine counted {a.ProcessAllocatedBytes} bytes");
        Assert.True(a.EngineThreadsAllocatedBytes > 0);
        Assert.Contains(a.Reasons, r => r.Contains("allocation tick", StringComparison.Ordinal));
    }
}
