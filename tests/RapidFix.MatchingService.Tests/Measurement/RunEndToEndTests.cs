using System.Text.RegularExpressions;
using RapidFix.TradeDriver.Measure;
using RapidFix.TradeDriver.Report;

namespace RapidFix.MatchingService.Tests.Measurement;

/// <summary>
/// The main command end to end, short: the service in its own process with its journal, the driver and sink here,
/// ten seconds measured, the report written, every input acknowledged and the service's continuous phase without a
/// GC. The rate is low: the build machine is loaded, and this checks behaviour, not speed.
/// </summary>
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
    public void A_ten_second_run_measures_every_answer_writes_the_report_and_the_service_collects_nothing()
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
        var progress = new StringWriter();
        var run = MeasuredRun.Execute(options, progress);

        Assert.Equal(run.Schedule.Total, run.Sent);
        Assert.Equal(0, run.Refused);
        Assert.Equal(run.ExpectedAcks, run.Acks);
        Assert.Equal(0, run.Rejected);
        Assert.Equal(0, run.Untraced);
        Assert.True(run.Cls > 0, "the good trades matched");
        Assert.Equal(0L, run.ServiceContinuous?.Collections);
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
    }

    [GeneratedRegex(@"^processed \d+ messages at \d+/s, p99\.99 [\d.]+ us, GC 0$")]
    private static partial Regex LastLine();
}
