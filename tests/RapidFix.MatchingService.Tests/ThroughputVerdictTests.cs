using RapidFix.TradeDriver;

namespace RapidFix.MatchingService.Tests;

/// <summary>
/// The throughput verdict: a run that refused messages for back-pressure, or matched fewer than it was sent, is not
/// sustainable, whatever its backlog (the lead's run at 100,000/s refused two thirds with BusinessMessageReject 4,
/// counted the refusals as acks, printed a negative backlog, and called it bounded).
/// </summary>
[Collection(nameof(ServiceProcesses))]
public sealed class ThroughputVerdictTests : IDisposable
{
    private readonly string _work = Path.Combine(Path.GetTempPath(), "rapidfix-throughput-" + Guid.NewGuid().ToString("N"));

    public void Dispose()
    {
        if (Directory.Exists(_work))
        {
            Directory.Delete(_work, recursive: true);
        }
    }

    [Fact]
    public void A_run_whose_inputs_are_refused_for_back_pressure_is_not_sustainable()
    {
        // A service whose journal takes 20 inputs: every later message is refused (BusinessMessageReject 4), and each
        // refusal is an answer to the message it refuses. The backlog of unanswered messages is empty at the end.
        Directory.CreateDirectory(_work);
        string config = Path.Combine(_work, "service.cfg");
        File.WriteAllText(config, Verifier.ServiceSettings(TradeGenerator.Participants, "MATCH", 100));
        using var server = MatchingServer.Start(new ServiceOptions
        {
            SettingsPath = config,
            StaticDataPath = DocumentedExamplesTests.GeneratedStaticData,
            Port = Participants.FreePort(),
            DataDirectory = Path.Combine(_work, "data"),
            BusinessDate = 20261123,
            WarmUp = false,
            LogPath = Path.Combine(_work, "engine.log"),
            MaxInputs = 20,
        });
        server.EnterContinuous();
        var output = new StringWriter();
        int exit = Throughput.Run(
            new ThroughputOptions { Rate = 200, Seconds = 2, Host = "127.0.0.1", Port = server.Port, StaticData = DocumentedExamplesTests.GeneratedStaticData },
            output);
        string last = output.ToString().TrimEnd().Split('\n')[^1].Trim();
        Assert.True(server.Counters.InputsRefused > 300, output.ToString());
        Assert.Equal(1, exit);
        Assert.StartsWith("rate 200 messages/s for 2 s: NOT sustainable: ", last, StringComparison.Ordinal);
        Assert.Contains("refused for back-pressure", last, StringComparison.Ordinal);
        Assert.DoesNotContain("backlog at end -", output.ToString(), StringComparison.Ordinal);
    }

    [Fact]
    public void The_lead_s_100000_run_is_not_sustainable_and_the_50000_run_is()
    {
        // The figures of the two quiet runs on cacf0c4 (30 s each): at 100,000/s 2,005,575 refusals made the acks
        // exceed the ackable messages; at 50,000/s everything was matched and nothing refused.
        var refused = ThroughputVerdict.Judge(100_000, 3_000_005, 2_142_860, 2_607_875 - 2_005_575, 0, 0, 2_005_575, 845_824);
        Assert.False(refused.Sustainable);
        Assert.Contains("2005575 refused for back-pressure", refused.Line, StringComparison.Ordinal);
        Assert.Contains("matched 845824 of 3000005 sent", refused.Line, StringComparison.Ordinal);

        var good = ThroughputVerdict.Judge(50_000, 1_500_002, 1_071_431, 1_071_431, 74, 10, 0, 1_500_002);
        Assert.True(good.Sustainable, good.Line);

        // Fewer matched than sent (a service in process) or a growing backlog: not sustainable either.
        Assert.False(ThroughputVerdict.Judge(50_000, 1_500_002, 1_071_431, 1_071_431, 74, 10, 0, 1_400_000).Sustainable);
        Assert.False(ThroughputVerdict.Judge(50_000, 1_500_002, 1_071_431, 1_071_431, 60_000, 10, 0, 1_500_002).Sustainable);
    }
}
