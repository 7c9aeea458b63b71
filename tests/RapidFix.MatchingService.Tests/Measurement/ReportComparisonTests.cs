using System.Text.Json;
using RapidFix.TradeDriver.Report;

namespace RapidFix.MatchingService.Tests.Measurement;

/// <summary>
/// <c>compare</c> (issue 13's "reproduced within noise by rerunning the printed command"): each figure against its
/// fixed tolerance, the verdicts equal, the command the same apart from <c>--out</c>.
/// </summary>
public sealed class ReportComparisonTests
{
    private static JsonElement Report(double achieved = 14_400, long cls = 4_996_356, bool sustainable = true, double median = 3_500, double p99 = 100_000,
        double p9999 = 500_000, long resident = 1_145_536_512, string bottleneck = "socket inbound",
        string scheduling = "SCHED_FIFO 1 (5 threads: the sending thread and the sessions' receiving threads)",
        string writeback = "background writeback from 10 % of memory dirty (vm.dirty_background_ratio), pages written once 30 s old, flusher every 5 s")
    {
        string json = $$"""
        {
          "command": "dotnet run -- soak --duration 600 --rate 14400 --out a",
          "run": {
            "sentPerSecond": 14400.0, "achievedPerSecond": {{achieved}}, "sent": 8743680, "acks": 6245486, "cls": {{cls}},
            "exceptions": 0, "refused": 0, "hostWriteback": "{{writeback}}", "sustainable": {{(sustainable ? "true" : "false")}}, "bounded": true, "gcCount": 0,
            "persister": { "verdict": { "Bounded": true } },
            "driver": { "zeroGc": true, "scheduling": "{{scheduling}}" },
            "soak": { "Met": true, "LatencyFlat": true, "MemoryFlat": true, "LastResident": {{resident}} },
            "operationalAnalysis": { "bottleneck": "{{bottleneck}}" },
            "tables": { "steady": [ { "Name": "input to ack (e2e)", "Median": {{median}}, "P99": {{p99}}, "P9999": {{p9999}} } ] }
          }
        }
        """;
        return JsonDocument.Parse(json).RootElement;
    }

    private static ReportComparison.Row Only(List<ReportComparison.Row> rows, string figure) => Assert.Single(rows, r => r.Figure == figure);

    [Fact]
    public void Two_runs_within_every_tolerance_are_reproduced()
    {
        var rows = ReportComparison.Compare(Report(), Report(achieved: 14_399, median: 4_900, p99: 140_000, p9999: 990_000, resident: 1_200_000_000), new());
        Assert.Equal(22, rows.Count);
        Assert.All(rows, r => Assert.True(r.Within, r.Figure));
        Assert.EndsWith("reproduced within noise: 22 of 22 figures within their tolerances" + Environment.NewLine,
            ReportComparison.Format(rows, "a", "b", "cmd"), StringComparison.Ordinal);
    }

    [Fact]
    public void Each_figure_outside_its_tolerance_is_named()
    {
        var rows = ReportComparison.Compare(Report(), Report(achieved: 14_000, cls: 4_900_000, sustainable: false, median: 5_300, p9999: 1_010_000,
            resident: 1_300_000_000, bottleneck: "matcher ring + thread"), new());
        Assert.False(Only(rows, "achievedPerSecond").Within); // 2.8 % against 1 %
        Assert.False(Only(rows, "cls").Within);
        Assert.False(Only(rows, "sustainable").Within);
        Assert.False(Only(rows, "input to ack (e2e) median (us)").Within); // x1.51 against x1.5
        Assert.True(Only(rows, "input to ack (e2e) p99 (us)").Within);
        Assert.False(Only(rows, "input to ack (e2e) p99.99 (us)").Within); // x2.02 against x2
        Assert.False(Only(rows, "service resident memory (last third)").Within); // 12 % against 10 %
        Assert.False(Only(rows, "bottleneck").Within);
        Assert.True(Only(rows, "sent").Within);
        string text = ReportComparison.Format(rows, "a", "b", "cmd");
        Assert.Contains("NOT reproduced: 7 of 22 figures outside their tolerances (achievedPerSecond, cls, sustainable, ", text, StringComparison.Ordinal);
    }

    /// <summary>The driver's timing threads ordinary in one run and real-time in the other: not the same measurement.</summary>
    [Fact]
    public void A_rerun_whose_driver_threads_were_scheduled_otherwise_does_not_reproduce()
    {
        var rows = ReportComparison.Compare(Report(), Report(scheduling: "ordinary threads: raising them was refused (EPERM: needs CAP_SYS_NICE or an RLIMIT_RTPRIO above zero)"), new());
        Assert.False(Only(rows, "driver timing threads").Within);
        Assert.True(Only(rows, "driver zero-GC").Within);
    }

    /// <summary>
    /// A rerun whose sessions reconnected raised more receiving threads to the same real-time policy: the same
    /// scheduling. Some threads refused is another, and the reason the kernel gave is kept.
    /// </summary>
    [Fact]
    public void How_many_timing_threads_were_raised_is_not_the_scheduling()
    {
        var rows = ReportComparison.Compare(Report(), Report(scheduling: "SCHED_FIFO 1 (9 threads: the sending thread and the sessions' receiving threads)"), new());
        var row = Only(rows, "driver timing threads");
        Assert.True(row.Within);
        Assert.Contains("9 threads", row.Second, StringComparison.Ordinal); // shown as it was, judged by its kind

        const string some = "SCHED_FIFO 1 for 3 of 5 threads, refused for the rest (EPERM: needs CAP_SYS_NICE or an RLIMIT_RTPRIO above zero)";
        Assert.False(Only(ReportComparison.Compare(Report(), Report(scheduling: some), new()), "driver timing threads").Within);
        Assert.True(Only(ReportComparison.Compare(Report(scheduling: some),
            Report(scheduling: "SCHED_FIFO 1 for 2 of 6 threads, refused for the rest (EPERM: needs CAP_SYS_NICE or an RLIMIT_RTPRIO above zero)"), new()), "driver timing threads").Within);
        Assert.False(Only(ReportComparison.Compare(Report(scheduling: some),
            Report(scheduling: "SCHED_FIFO 1 for 3 of 5 threads, refused for the rest (errno 22)"), new()), "driver timing threads").Within);
    }

    /// <summary>The kernel's writeback set otherwise on the rerun's machine (it moved input-to-ack p99.99 from 222 to 40 ms): another machine.</summary>
    [Fact]
    public void A_rerun_on_a_host_whose_writeback_was_set_otherwise_does_not_reproduce()
    {
        var rows = ReportComparison.Compare(Report(), Report(writeback: "background writeback from 32 MiB dirty (vm.dirty_background_bytes), pages written once 30 s old, flusher every 5 s"), new());
        Assert.False(Only(rows, "host writeback").Within);
        Assert.Single(rows, r => !r.Within);
    }

    [Fact]
    public void A_faster_rerun_is_as_far_off_as_a_slower_one()
    {
        var rows = ReportComparison.Compare(Report(), Report(median: 2_300, p99: 60_000), new());
        Assert.False(Only(rows, "input to ack (e2e) median (us)").Within); // x0.66 against x0.67
        Assert.False(Only(rows, "input to ack (e2e) p99 (us)").Within);
        var looser = ReportComparison.Compare(Report(), Report(median: 2_300, p99: 60_000), new(LatencyFactor: 2));
        Assert.True(Only(looser, "input to ack (e2e) median (us)").Within);
    }

    [Fact]
    public void The_rerun_s_output_directory_does_not_make_it_another_command()
    {
        Assert.Equal(ReportComparison.Arguments("dotnet run -- soak --rate 14400 --out x --duration 600"),
            ReportComparison.Arguments("dotnet run -- soak --rate 14400 --out y/z --duration 600"));
        Assert.NotEqual(ReportComparison.Arguments("dotnet run -- soak --rate 14400 --out x"),
            ReportComparison.Arguments("dotnet run -- soak --rate 16000 --out x"));
    }
}
