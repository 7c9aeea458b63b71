using System.Text.RegularExpressions;
using RapidFix.TradeDriver.Measure;
using RapidFix.TradeDriver.Report;

namespace RapidFix.MatchingService.Tests.Measurement;

/// <summary>
/// The main command end to end, short: the service in its own process with its journal, the driver and sink here,
/// ten seconds measured, the report written, every input acknowledged and the service's continuous phase without a
/// GC, nor the driver's own process after its warm-up. The rate is low: the build machine is loaded, and this checks
/// behaviour, not speed. It runs alone (the driver's verdict is of the whole test process's allocations).
/// </summary>
[Collection(nameof(ServiceProcesses))]
public sealed partial class RunEndToEndTests : IDisposable
{
    private readonly string _work = Path.Combine(Path.GetTempPath(), "rapidfix-run-" + Guid.NewGuid().ToString("N"));

    public void Dispose()
    {
        if (Directory.Exists(_work))
        {
            Directory.Delete(_work, recursive: true);
        }
    }

    [Fact]
    public void A_ten_second_run_measures_every_answer_writes_the_report_and_neither_the_service_nor_the_driver_collects()
    {
        var options = new RunOptions
        {
            Rate = 300,
            WarmUpSeconds = 2,
            RampSeconds = 1,
            SteadySeconds = 10,
            DrainSeconds = 180,
            Trace = false,
            FlushPolicy = "OsOnly",
            StaticData = DocumentedExamplesTests.GeneratedStaticData,
            OutputDirectory = _work,
            Progress = true,
        };
        // The progress lines go into a buffer sized now: a growing one would allocate in the measured phase.
        var progress = new StringWriter(new System.Text.StringBuilder(1 << 20));
        var run = MeasuredRun.Execute(options, progress);

        Assert.Equal(run.Schedule.Total, run.Sent);
        Assert.Equal(0, run.Refused);
        Assert.Equal(run.ExpectedAcks, run.Acks);
        Assert.Equal(0, run.Rejected);
        Assert.Equal(0, run.Untraced);
        Assert.True(run.Cls > 0, "the good trades matched");
        Assert.Equal(0L, run.ServiceContinuous?.Collections);
        // The driver's own threads, from its warm-up's end to the drain's end (sending, sampling and the .hlog, the
        // persister's lag when PostgreSQL is here, the run's own waits): not a byte, and no collection. The whole
        // process's bytes are the next test's (this one shares its process with the test host's threads).
        Assert.True(run.DriverMeasuredSeconds >= options.SteadySeconds,
            $"measured {run.DriverMeasuredSeconds:F1} s: the window opened {run.DriverWindowLateSeconds:F2} s after the warm-up's end, the sending ended {run.DriverSendingSeconds:F2} s after it");
        Assert.Equal(0, run.DriverCollections);
        Assert.Equal(0, run.DriverAllocatedBytes);
        Assert.Equal(0, run.MainAllocatedBytes);
        Assert.Equal(0, run.SamplerAllocatedBytes);
        Assert.Equal(0, run.OutputThreadsAllocatedBytes);
        Assert.NotNull(run.RuntimeInMeasuredPhase);
        Assert.NotNull(run.ThreadsInMeasuredPhase);
        if (run.Persister is { } persister)
        {
            Assert.Equal(0, run.LagPollerAllocatedBytes);
            Assert.True(persister.Points.Count >= options.SteadySeconds / 2, $"{persister.Points.Count} lag points");
            Assert.NotNull(persister.CatchUpSeconds);
        }

        // Every steady input was measured from its intended time; warm-up and ramps on their own.
        var ack = run.Latency.Of(LatencyChannel.Ack, RunPhase.Steady);
        Assert.InRange(ack.TotalCount, (run.Schedule.CountOf(RunPhase.Steady) * 5 / 7) - 10, run.Schedule.CountOf(RunPhase.Steady));
        Assert.True(run.Latency.Of(LatencyChannel.Ack, RunPhase.WarmUp).TotalCount > 0);
        Assert.NotNull(run.Analysis);
        Assert.True(run.Intervals.Count >= 10, $"{run.Intervals.Count} intervals");
        Assert.Contains(" s left)", progress.ToString(), StringComparison.Ordinal);

        var report = new MeasureReport { Title = "run", Command = "run --duration 10", Run = run };
        report.WriteFiles(_work);
        Assert.True(File.Exists(Path.Combine(_work, "report.html")));
        Assert.StartsWith("#[Histogram log format version", File.ReadAllText(Path.Combine(_work, "intervals.hlog")), StringComparison.Ordinal);
        Assert.Matches(LastLine(), MeasureCommands.LastLine(run));
        Assert.Contains("GC of the driver's measured phase: ", File.ReadAllText(Path.Combine(_work, "report.txt")), StringComparison.Ordinal);
    }

    /// <summary>
    /// The driver as a program (the README's main command, short): its whole process allocated 0 bytes and collected
    /// nothing from its warm-up's end to the drain's end, and the verdict says so (issue 13: it measured 12
    /// collections and 182 MB in a 10-minute soak, from its .hlog encoder and its persister-lag query). Intervals of
    /// 4 s: the first falls after the warm-up, as a soak's 10-s intervals do, so its first calls are measured too.
    /// </summary>
    [Fact]
    public void The_driver_s_own_process_allocates_nothing_after_its_warm_up()
    {
        string output = Path.Combine(_work, "cli");
        var start = new System.Diagnostics.ProcessStartInfo(Environment.GetEnvironmentVariable("DOTNET_HOST_PATH") is { Length: > 0 } host ? host : "dotnet")
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        foreach (string argument in new[] { "exec", typeof(MeasuredRun).Assembly.Location, "run", "--duration", "10", "--rate", "300", "--warm-up", "2",
                     "--ramp", "1", "--interval", "4", "--no-trace", "--flush", "OsOnly", "--out", output })
        {
            start.ArgumentList.Add(argument);
        }

        using var driver = System.Diagnostics.Process.Start(start)!;
        var errors = new System.Text.StringBuilder();
        driver.ErrorDataReceived += (_, e) =>
        {
            lock (errors)
            {
                errors.AppendLine(e.Data);
            }
        };
        driver.BeginErrorReadLine();
        string text = driver.StandardOutput.ReadToEnd();
        Assert.True(driver.WaitForExit(TimeSpan.FromMinutes(10)), "the run ended");
        Assert.True(driver.ExitCode is 0 or 1, $"exit {driver.ExitCode}: {errors}\n{text}");

        using var report = System.Text.Json.JsonDocument.Parse(File.ReadAllText(Path.Combine(output, "report.json")));
        var d = report.RootElement.GetProperty("run").GetProperty("driver");
        string line = d.GetProperty("line").GetString()!;
        Assert.True(d.GetProperty("measuredSeconds").GetDouble() >= 10, line);
        // On a failure the line names the thread: each the driver counts, the rest ("other threads"), and what the
        // runtime did in the phase (methods compiled, thread-pool work, threads started and its own that ran).
        Assert.True(d.GetProperty("collections").GetInt64() == 0, line);
        Assert.True(d.GetProperty("processAllocatedBytes").GetInt64() == 0, line);
        Assert.Matches(@"\(sending thread \d+, run thread \d+, sampler \d+, persister-lag poller (\d+|none), sessions' threads \d+, output readers \d+, other threads \d+\); in the phase the runtime compiled \d+ methods, ran \d+ thread-pool work items, \d+ lock contentions \(", line);
        Assert.True(d.GetProperty("zeroGc").GetBoolean(), line);
        Assert.StartsWith("PASS: 0 GCs, 0 bytes allocated by the driver's process", line, StringComparison.Ordinal);
        Assert.Contains("GC of the driver's measured phase: PASS: 0 GCs, 0 bytes", text, StringComparison.Ordinal);

        // Its timing threads (the sending thread, the four sessions' receiving threads) ran real-time where the
        // kernel allows it, and the report says which; where it refused, the report says why.
        string scheduling = d.GetProperty("scheduling").GetString()!;
        if (OperatingSystem.IsLinux() && Environment.IsPrivilegedProcess)
        {
            Assert.StartsWith("SCHED_FIFO 1 (5 threads", scheduling, StringComparison.Ordinal);
        }
        else
        {
            Assert.StartsWith("ordinary threads", scheduling, StringComparison.Ordinal);
        }

        Assert.Contains("its timing threads: " + scheduling, File.ReadAllText(Path.Combine(output, "report.txt")), StringComparison.Ordinal);
        // The machine's writeback settings, which decide the tail, are in the header and the JSON.
        string writeback = report.RootElement.GetProperty("run").GetProperty("hostWriteback").GetString()!;
        if (OperatingSystem.IsLinux())
        {
            Assert.Matches(@"^background writeback from [\d,]+ (MiB|%( of memory)?) dirty \(vm\.dirty_background_(bytes|ratio)\), pages written once [\d.]+ s old, flusher every [\d.]+ s$", writeback);
        }

        Assert.Contains("writeback  " + writeback, File.ReadAllText(Path.Combine(output, "report.txt")), StringComparison.Ordinal);
        // The service's journal and stores are deleted once measured (--keep-data keeps them); its logs stay.
        Assert.False(Directory.Exists(Path.Combine(output, "service", "data")), "service/data deleted");
        Assert.True(File.Exists(Path.Combine(output, "service", "service.cfg")), "the service's configuration kept");
    }

    [GeneratedRegex(@"^processed \d+ messages at \d+/s, p99\.99 [\d.]+ us, GC 0$")]
    private static partial Regex LastLine();
}
