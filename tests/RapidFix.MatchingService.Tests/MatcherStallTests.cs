using System.Text;
using RapidFix.Engine.Sessions;
using RapidFix.TradeDriver;
using RapidFix.TradeDriver.Measure;

namespace RapidFix.MatchingService.Tests;

/// <summary>
/// The matcher thread stalls (a slow disk, a descheduled process) while a participant keeps sending: the ring fills,
/// what does not fit is refused (BusinessMessageReject 4), and once the matcher goes on every input has been answered
/// exactly once, an ack or a refusal, with the session up throughout. (The matcher's own part of a recovery, that
/// the slots orphaned by refused SETs do not slow it, is in RapidFix.Matching.Tests' AwaitingChainTests and
/// docs/performance.md.)
/// </summary>
[Collection(nameof(ServiceProcesses))]
public sealed class MatcherStallTests : IDisposable
{
    private const int Messages = 20_000;
    private readonly string _work = Path.Combine(Path.GetTempPath(), "rapidfix-stall-" + Guid.NewGuid().ToString("N"));

    public void Dispose()
    {
        if (Directory.Exists(_work))
        {
            Directory.Delete(_work, recursive: true);
        }
    }

    [Fact]
    public void After_a_stall_of_the_matcher_every_input_is_answered_exactly_once_and_the_session_stays_up()
    {
        // Messages the service answers each with one ack (a SET is acked only to refuse it): every input then gets
        // exactly one answer, an ack or a refusal.
        var (messages, _) = TradeGenerator.Generate(new GeneratorOptions { Trades = Messages, Seed = 5 });
        var burst = messages.Where(m => m.Sender == "IM1" && m.MsgType != "T").Take(Messages).ToList();
        Assert.Equal(Messages, burst.Count);
        using var server = Start();
        var collector = new AnswerCollector { KeepText = true };
        using var participants = new Participants(TradeGenerator.Participants, "MATCH", "127.0.0.1", server.Port, collector);
        Assert.True(participants.WaitForLogons(TimeSpan.FromSeconds(30)), "logons");

        // The matcher stalls; the participant sends its burst, several times what the ring holds.
        server.MatcherHeld = true;
        foreach (var m in burst)
        {
            Assert.Equal(SendResult.Sent, participants["IM1"].SendDeferred(Encoding.ASCII.GetBytes(m.MsgType), Encoding.ASCII.GetBytes(m.Body)));
        }

        participants.FlushAll();
        Wait.Until(() => server.Counters.InputsRefused > 0, "the first refusals of the full ring");
        Assert.Equal(0, server.Counters.InputsMatched);

        // The matcher goes on: everything journalled is matched, the rest was refused, each answered once.
        server.MatcherHeld = false;
        Wait.Until(() => collector.Count >= Messages, () => $"{Messages} answers (got {collector.Count})");
        var after = server.Counters;
        Assert.Equal(Messages, after.InputsMatched + after.InputsRefused);
        Assert.Equal(after.InputsMatched, after.JournalledInputs);
        Thread.Sleep(200);
        Assert.Equal(Messages, collector.Count);
        var refusals = collector.Texts.Count(t => t.Contains("|35=j|", StringComparison.Ordinal) && t.Contains("|380=4|", StringComparison.Ordinal));
        Assert.Equal(after.InputsRefused, refusals);
        Assert.True(participants["IM1"].IsLoggedOn, "the participant's session ended");
    }

    [Fact]
    public void The_stats_file_shows_open_trades_and_table_full_answers()
    {
        // What a stall leaves behind is trades that never complete (a refused message never comes): they hold rows of
        // the open-trade table until they expire, and a full table answers TABLE-FULL. The stats file, read once a
        // second by tools/stall-recovery.py, shows both while the service runs.
        const int Trades = 1_024;
        var (messages, _) = TradeGenerator.Generate(new GeneratorOptions { Trades = 4 * Trades, Seed = 6 });
        var allocations = messages.Where(m => m.Sender == "IM1" && m.MsgType == "J").ToList();
        using var server = Start(o => o with { OpenTrades = Trades, InputRingBytes = 8 << 20 });
        using var participants = new Participants(TradeGenerator.Participants, "MATCH", "127.0.0.1", server.Port, new AnswerCollector());
        Assert.True(participants.WaitForLogons(TimeSpan.FromSeconds(30)), "logons");

        // The burst goes into the ring with the matcher held, so that every input is matched however the threads are
        // scheduled: a ring too small for the burst fails here, every time, not only when a loaded machine starves the
        // matcher thread (a 2-MiB ring refused some of these allocations in CI).
        server.MatcherHeld = true;
        foreach (var m in allocations)
        {
            Assert.Equal(SendResult.Sent, participants["IM1"].SendDeferred(Encoding.ASCII.GetBytes(m.MsgType), Encoding.ASCII.GetBytes(m.Body)));
        }

        participants.FlushAll();
        Wait.Until(() => server.Counters.JournalledInputs + server.Counters.InputsRefused == allocations.Count, () => $"{allocations.Count} inputs journalled or refused ({server.Counters})");
        Assert.Equal(0, server.Counters.InputsRefused);
        server.MatcherHeld = false;
        Wait.Until(() => server.Counters.InputsMatched == allocations.Count, () => $"{allocations.Count} inputs matched ({server.Counters}; open trades {server.OpenTrades}, table full {server.MatcherCounters.TableFull}, rejected {server.MatcherCounters.Rejected})");
        string path = Path.Combine(_work, "service.stats");
        using (var publisher = ServiceStatsPublisher.Start(server, path))
        {
            publisher.Publish();
        }

        using var reader = ServiceStatsReader.TryOpen(path);
        Assert.NotNull(reader);
        Assert.True(reader!.TryRead(out var stats));
        var matcher = server.MatcherCounters;
        Assert.Equal(Trades, server.OpenTrades); // the generated trades' allocations opened more trades than the table holds
        Assert.True(matcher.TableFull > 0, "some allocations found the table full");
        Assert.Equal(server.OpenTrades, stats.OpenTrades);
        Assert.Equal(matcher.TableFull, stats.TableFull);
        Assert.Equal(matcher.Rejected, stats.InputsRejected);
        Assert.Equal(matcher.Cleared, stats.TradesCleared);
        Assert.Equal(0, stats.TradesCleared);
    }

    // A service whose input ring holds a few thousand inputs and whose journal takes the whole burst.
    private MatchingServer Start(Func<ServiceOptions, ServiceOptions>? configure = null)
    {
        var server = StartupChecksTests.StartSmall(_work, Verifier.ServiceSettings(TradeGenerator.Participants, "MATCH", 2 * Messages), 20261123,
            o => (configure ?? (x => x))(o with { MaxInputs = 4 * Messages, InputRingBytes = 2 << 20 }));
        server.EnterContinuous();
        return server;
    }
}
