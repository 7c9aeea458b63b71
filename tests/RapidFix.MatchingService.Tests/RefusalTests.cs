using System.Text;
using RapidFix.Engine.Sessions;
using RapidFix.TradeDriver;

namespace RapidFix.MatchingService.Tests;

/// <summary>
/// Back-pressure refusals (BusinessMessageReject 4, application not available) go out deferred, as the matcher's
/// answers do: stored at once, written after one store flush per batch, never one flush wait per refused message
/// on the connection thread; and the restart rule does not count them as the matcher's answers.
/// </summary>
[Collection(nameof(ServiceProcesses))]
public sealed class RefusalTests : IDisposable
{
    private const int Messages = 40;
    private readonly string _work = Path.Combine(Path.GetTempPath(), "rapidfix-refusals-" + Guid.NewGuid().ToString("N"));

    public void Dispose()
    {
        if (Directory.Exists(_work))
        {
            Directory.Delete(_work, recursive: true);
        }
    }

    [Fact]
    public void Refusals_of_a_full_journal_share_store_flushes_and_are_not_counted_by_the_restart_rule()
    {
        var examples = DocumentedExamplesTests.Examples();
        var (sender, type, body) = DocumentedExamplesTests.Inbound(examples["NOE"]);
        long flushes;
        long matcherAnswers;
        using (var server = Start())
        {
            var collector = new AnswerCollector { KeepText = true };
            using var participants = new Participants(TradeGenerator.Participants, "MATCH", "127.0.0.1", server.Port, collector);
            Assert.True(participants.WaitForLogons(TimeSpan.FromSeconds(30)), "logons");
            var session = server.Host.Sessions.First(s => s.Id.TargetCompId == sender);
            long flushesBefore = session.Store.Counters.Flushes;
            for (int i = 0; i < Messages; i++)
            {
                Assert.Equal(SendResult.Sent, participants[sender].SendDeferred(Encoding.ASCII.GetBytes(type), Encoding.ASCII.GetBytes(body)));
            }

            participants.FlushAll();
            Wait.Until(() => collector.Count >= Messages, () => $"{Messages} answers (got {collector.Count})");
            flushes = session.Store.Counters.Flushes - flushesBefore;
            var refusals = collector.Texts.Where(t => t.Contains("|35=j|", StringComparison.Ordinal) && t.Contains("|380=4|", StringComparison.Ordinal)).ToList();
            // The journal is full after its first records (MaxInputs 2, the business date's included): the first NOE
            // is matched (its ack), every later one refused, and each message is answered once.
            Assert.True(refusals.Count >= Messages - 2, $"{refusals.Count} refusals");
            Assert.Equal(refusals.Count, server.Counters.BusinessRejectsForBusy);
            Assert.Equal(Messages, collector.Count);
            Assert.All(refusals, t => Assert.Contains("|372=AE|", t, StringComparison.Ordinal));
            Assert.All(refusals, t => Assert.Contains("|58=Application not available|", t, StringComparison.Ordinal));
            // Every refused message is answered once, with its own MsgSeqNum as RefSeqNum.
            Assert.Equal(refusals.Count, refusals.Select(t => t.Split('|').First(f => f.StartsWith("45=", StringComparison.Ordinal))).Distinct().Count());
            matcherAnswers = server.Counters.AnswersSent;
        }

        // A plain send waits for its own flush: one flush per refusal (each after the store's 200 ms group-commit
        // delay). Deferred, the refusals of a read share the flushes of the matcher thread's batches.
        Assert.True(flushes < Messages / 4, $"{flushes} store flushes for {Messages - 2} refusals or more");

        // The stored refusals are not the matcher's answers: the restart suppresses exactly the answers it replays.
        using var restarted = Start();
        Assert.Equal(matcherAnswers, restarted.Replay.AnswersSuppressed);
        Assert.Equal(0, restarted.Replay.AnswersToSend);
    }

    // A service whose input journal is full after one input, with session stores that make each group commit wait 200 ms.
    private MatchingServer Start()
    {
        Directory.CreateDirectory(_work);
        string config = Path.Combine(_work, "service.cfg");
        string settings = Verifier.ServiceSettings(TradeGenerator.Participants, "MATCH", 100)
            .Replace("StoreFlushPolicy=OsOnly", "StoreFlushPolicy=GroupCommit\nStoreFlushMaxBatch=100000\nStoreFlushMaxDelayMicroseconds=200000", StringComparison.Ordinal);
        File.WriteAllText(config, settings);
        var server = MatchingServer.Start(new ServiceOptions
        {
            SettingsPath = config,
            StaticDataPath = DocumentedExamplesTests.GeneratedStaticData,
            Port = Participants.FreePort(),
            DataDirectory = Path.Combine(_work, "data"),
            BusinessDate = 20261123,
            WarmUp = false,
            LogPath = Path.Combine(_work, "engine.log"),
            MaxInputs = 2,
        });
        server.EnterContinuous();
        return server;
    }
}
