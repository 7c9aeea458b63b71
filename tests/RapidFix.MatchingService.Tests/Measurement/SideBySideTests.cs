using System.Diagnostics;
using RapidFix.Engine.Codec;
using RapidFix.Engine.Configuration;
using RapidFix.Engine.Hosting;
using RapidFix.Tests.Shared;
using RapidFix.TradeDriver;
using RapidFix.TradeDriver.Measure;
using RapidFix.TradeDriver.Report;

namespace RapidFix.MatchingService.Tests.Measurement;

/// <summary>
/// RapidFix and QuickFIX/n side by side (docs/measurement.md): the RapidFix echo answers every trade input with the
/// ack the sink classifies without allocating, and a short side-by-side run against the QuickFIX/n built from its
/// source gives both rows and their ratio.
/// </summary>
public sealed class SideBySideTests : IDisposable
{
    private readonly string _directory = Directory.CreateTempSubdirectory("rapidfix-sbs-").FullName;

    [Fact]
    public void The_RapidFix_echo_answers_each_input_with_the_ack_the_sink_classifies_without_allocating()
    {
        var participants = TradeGenerator.Participants;
        int port = Participants.FreePort();
        var echo = new EchoApplication();
        using var acceptor = FixEngine.Create(SettingsFile.Parse(EchoAcceptor.Settings(port, EchoPeer.CompId, participants, 50_000), "echo"), _ => echo);
        acceptor.Start();
        var schedule = new OpenLoopSchedule(1000, 0, 0, 10, 0, Stopwatch.Frequency);
        var latency = new LatencyRecorder(Stopwatch.Frequency);
        var intended = new IntendedTimes(10);
        for (int trade = 1; trade <= 10; trade++)
        {
            for (int kind = 0; kind < IntendedTimes.SlotsPerTrade; kind++)
            {
                intended.Set(trade, kind, 1);
            }
        }

        var sink = new TradeSink(intended, schedule, latency);
        using var initiators = Initiators.Start(participants, EchoPeer.CompId, "127.0.0.1", port, sink);
        Assert.True(Initiators.WaitForLogons(initiators, TimeSpan.FromSeconds(60)), "the initiators did not log on");
        var session = acceptor.Sessions.First(s => s.Id.TargetCompId == participants[0]);
        string[] inputs =
        [
            "8=FIX.4.4|35=AE|49=IM1|56=MATCH|34=2|52=20261123-10:00:00.000|571=T5-NOE|487=0|856=0|570=N|55=[N/A]|",
            "8=FIX.4.4|35=J|49=IM1|56=MATCH|34=3|52=20261123-10:00:00.000|70=T5-ALC2|71=0|626=1|",
            "8=FIX.4.4|35=AK|49=IM1|56=MATCH|34=4|52=20261123-10:00:00.000|664=T6-NPR1|666=0|773=2|75=20261123|",
            "8=FIX.4.4|35=T|49=IM1|56=MATCH|34=5|52=20261123-10:00:00.000|777=T6-SET1|",
        ];
        var messages = inputs.Select(t =>
        {
            var m = new FixMessage();
            Assert.Equal(FixParseError.None, m.ParseCopy(FixSamples.Wire(t)));
            return m;
        }).ToArray();
        var state = (echo, session, messages, calls: new long[1]);
        long bytes = Allocations.Measure(state, static s =>
        {
            if (s.echo.Answer(s.session, s.messages[s.calls[0] % s.messages.Length]) != Engine.Sessions.SendResult.Sent)
            {
                throw new InvalidOperationException("the echo's ack was not sent");
            }

            s.calls[0]++;
        }, iterations: 8_000, warmup: 800); // each kind as often, a T answered by nothing
        Assert.Equal(0, bytes);

        // Three acks per four inputs, each one the sink takes for an accepting ack of the input's own ID.
        long calls = state.calls[0];
        long acks = (calls / 4 * 3) + Math.Min(3, calls % 4);
        Assert.True(calls >= 8_800, $"{calls} inputs answered");
        Assert.Equal(acks, echo.Answered);
        var deadline = Stopwatch.StartNew();
        while (sink.Acks < acks && deadline.Elapsed < TimeSpan.FromSeconds(60))
        {
            Thread.Sleep(10);
        }

        Assert.Equal(acks, sink.Acks);
        Assert.Equal(0, sink.Rejected);
        Assert.Equal(0, sink.Untraced);
        Assert.Equal(acks, latency.Of(LatencyChannel.Ack, RunPhase.Steady).TotalCount);
    }

    [QuickFixNMirrorFact]
    public void A_short_side_by_side_run_against_QuickFIX_n_built_from_its_source_gives_both_rows_and_the_ratio()
    {
        string checkout = Path.Combine(_directory, "quickfixn");
        QuickFixNMirrorFactAttribute.Extract(checkout);
        string output = Path.Combine(_directory, "out");
        var log = new StringWriter();

        string? echo = QuickFixNPeer.Prepare(checkout, output, log, TimeSpan.FromMinutes(20), out string? skipped);

        Assert.True(echo is not null, $"QuickFIX/n and its echo did not build: {skipped}");
        Assert.Null(skipped);
        var options = new RunOptions { Rate = 700, WarmUpSeconds = 2, RampSeconds = 1, SteadySeconds = 6, OutputDirectory = output, Progress = false, WriteHlog = false };
        var result = SideBySideResult.Execute(options, echo, null, log, () => false);

        Assert.NotNull(result.QuickFixN);
        foreach (var peer in new[] { result.RapidFix, result.QuickFixN! })
        {
            // Every ackable input came back as an ack the sink traced to its intended send time, on a loaded machine too.
            Assert.True(peer.ExpectedAcks > 0);
            Assert.True(peer.Acks == peer.ExpectedAcks, $"{peer.Peer}: {peer.Acks} of {peer.ExpectedAcks} acks ({string.Join("; ", peer.Notes)})");
            Assert.True(peer.Latency.Of(LatencyChannel.Ack, RunPhase.Steady).TotalCount > 0, $"{peer.Peer}: no steady latencies");
            Assert.True(peer.Achieved > 0, $"{peer.Peer}: nothing achieved in the steady part");
            Assert.NotNull(peer.PeerGc);
        }

        Assert.Equal(result.RapidFix.ExpectedAcks, result.QuickFixN!.ExpectedAcks);
        Assert.True(result.LatencyRatio(50) > 0);
        Assert.True(result.ThroughputRatio > 0);
        Assert.StartsWith("ratio QuickFIX/n / RapidFix, input to ack: p50 ", result.RatioLine, StringComparison.Ordinal);

        var report = new MeasureReport { Title = "side by side", Command = "test", SideBySide = result };
        report.WriteFiles(output);
        string text = File.ReadAllText(Path.Combine(output, "report.txt"));
        Assert.Contains("RapidFix: input to ack", text, StringComparison.Ordinal);
        Assert.Contains("QuickFIX/n: input to ack", text, StringComparison.Ordinal);
        Assert.Contains(result.RatioLine, text, StringComparison.Ordinal);
        string html = File.ReadAllText(Path.Combine(output, "report.html"));
        Assert.Contains("Side by side: RapidFix and QuickFIX/n", html, StringComparison.Ordinal);
        Assert.Contains("\"throughputRatio\"", File.ReadAllText(Path.Combine(output, "report.json")), StringComparison.Ordinal);
    }

    public void Dispose()
    {
        try
        {
            Directory.Delete(_directory, recursive: true);
        }
        catch (IOException)
        {
            // a build server may still hold a file: the temp folder is cleaned by the machine
        }
    }
}

/// <summary>
/// A fact that needs the QuickFIX/n source mirror (<c>/work/.mirror/connamara+quickfixn/repo</c>, or the bare git
/// directory <c>RAPIDFIX_QUICKFIXN_GIT</c> names); skipped, saying so, when it is absent.
/// </summary>
public sealed class QuickFixNMirrorFactAttribute : FactAttribute
{
    public QuickFixNMirrorFactAttribute()
    {
        if (GitDirectory is null)
        {
            Skip = "no QuickFIX/n source mirror (/work/.mirror/connamara+quickfixn/repo or RAPIDFIX_QUICKFIXN_GIT): the side-by-side run is skipped";
        }
    }

    /// <summary>The mirror's bare git directory, or null.</summary>
    public static string? GitDirectory =>
        new[] { Environment.GetEnvironmentVariable("RAPIDFIX_QUICKFIXN_GIT"), "/work/.mirror/connamara+quickfixn/repo" }
            .FirstOrDefault(d => !string.IsNullOrEmpty(d) && Directory.Exists(d));

    /// <summary>A checkout of the mirror's HEAD in <paramref name="directory"/> (git archive, untarred).</summary>
    public static void Extract(string directory)
    {
        Directory.CreateDirectory(directory);
        var start = new ProcessStartInfo("sh") { UseShellExecute = false, RedirectStandardError = true };
        start.ArgumentList.Add("-c");
        start.ArgumentList.Add("git --git-dir=\"$0\" archive HEAD | tar -x -C \"$1\"");
        start.ArgumentList.Add(GitDirectory!);
        start.ArgumentList.Add(directory);
        using var process = Process.Start(start)!;
        string errors = process.StandardError.ReadToEnd();
        process.WaitForExit();
        Assert.True(process.ExitCode == 0, "git archive of the QuickFIX/n mirror failed: " + errors);
    }
}
