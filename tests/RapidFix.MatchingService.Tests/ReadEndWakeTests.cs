using System.Text;
using RapidFix.Engine.Sessions;
using RapidFix.TradeDriver;

namespace RapidFix.MatchingService.Tests;

/// <summary>
/// The connection thread wakes the matcher thread once per socket read that queued inputs (the session's read-end
/// hook), not once per input: when the matcher thread sleeps, each wake is a futex call and a context switch.
/// </summary>
[Collection(nameof(ServiceProcesses))]
public sealed class ReadEndWakeTests : IDisposable
{
    private const int Messages = 400;
    private readonly string _work = Path.Combine(Path.GetTempPath(), "rapidfix-wakes-" + Guid.NewGuid().ToString("N"));

    public void Dispose()
    {
        if (Directory.Exists(_work))
        {
            Directory.Delete(_work, recursive: true);
        }
    }

    [Fact]
    public void A_burst_of_inputs_in_few_reads_wakes_the_matcher_once_per_read_and_every_input_is_answered()
    {
        var (messages, _) = TradeGenerator.Generate(new GeneratorOptions { Trades = 200, Seed = 11 });
        var burst = messages.Where(m => m.Sender == "IM1").Take(Messages).ToList();
        Assert.Equal(Messages, burst.Count);
        using var server = Start();
        var collector = new AnswerCollector();
        using var participants = new Participants(TradeGenerator.Participants, "MATCH", "127.0.0.1", server.Port, collector);
        Assert.True(participants.WaitForLogons(TimeSpan.FromSeconds(30)), "logons");
        long wakesBefore = server.MatcherWakes;
        foreach (var m in burst)
        {
            Assert.Equal(SendResult.Sent, participants["IM1"].SendDeferred(Encoding.ASCII.GetBytes(m.MsgType), Encoding.ASCII.GetBytes(m.Body)));
        }

        participants.FlushAll(); // one socket write per 64 KiB: the service reads them in a few reads
        Wait.Until(() => server.Counters.InputsMatched >= Messages, () => $"{Messages} inputs matched (got {server.Counters.InputsMatched})");
        long wakes = server.MatcherWakes - wakesBefore;
        Assert.Equal(Messages, server.Counters.InputsMatched);
        Assert.Equal(0, server.Counters.InputsRefused);
        // Before: one wake per input (400). A read takes up to 16 KiB of the socket's bytes (about 50 of these messages).
        Assert.True(wakes > 0 && wakes <= Messages / 4, $"{wakes} wakes of the matcher thread for {Messages} inputs");
    }

    private MatchingServer Start()
    {
        Directory.CreateDirectory(_work);
        string config = Path.Combine(_work, "service.cfg");
        File.WriteAllText(config, Verifier.ServiceSettings(TradeGenerator.Participants, "MATCH", 10_000));
        var server = MatchingServer.Start(new ServiceOptions
        {
            SettingsPath = config,
            StaticDataPath = DocumentedExamplesTests.GeneratedStaticData,
            Port = Participants.FreePort(),
            DataDirectory = Path.Combine(_work, "data"),
            BusinessDate = 20261123,
            WarmUp = false,
            LogPath = Path.Combine(_work, "engine.log"),
        });
        server.EnterContinuous();
        return server;
    }
}
