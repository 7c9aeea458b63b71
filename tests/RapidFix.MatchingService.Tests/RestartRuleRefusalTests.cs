using System.Text;
using RapidFix.Engine.Sessions;
using RapidFix.TradeDriver;

namespace RapidFix.MatchingService.Tests;

/// <summary>
/// The restart rule counts the matcher's answers already in each participant's outbound store. The session's own
/// BusinessMessageRejects are stored there too (wrong partition 6 with --partitions/--own, unsupported message type
/// 3, back-pressure 4): they are not the matcher's answers and must not be counted, or a restart would skip as many
/// of the matcher's answers (never sent) as the participant had refusals. Nor are the refused messages inputs the
/// journal lost: the restart must not ask the participant to send them again (they were answered; asked for again,
/// each got a second refusal, the failure this test found). After a restart the replay suppresses exactly the
/// answers sent before, sends none, and a reconnecting participant gets nothing twice.
/// </summary>
[Collection(nameof(ServiceProcesses))]
public sealed class RestartRuleRefusalTests : IDisposable
{
    private readonly string _work = Path.Combine(Path.GetTempPath(), "rapidfix-restart-refusals-" + Guid.NewGuid().ToString("N"));

    public void Dispose()
    {
        if (Directory.Exists(_work))
        {
            Directory.Delete(_work, recursive: true);
        }
    }

    [Fact]
    public void Stored_partition_and_type_refusals_are_neither_counted_as_answers_nor_asked_for_again_after_a_restart()
    {
        var (messages, _) = TradeGenerator.Generate(new GeneratorOptions { Trades = 40, Seed = 5 });
        var set = Verifier.Encode(messages);
        long matcherAnswers;
        long refusedForPartition;
        using (var server = Start())
        {
            var collector = new AnswerCollector { KeepText = true };
            using (var participants = new Participants(TradeGenerator.Participants, "MATCH", "127.0.0.1", server.Port, collector, Path.Combine(_work, "driver")))
            {
                Assert.True(participants.WaitForLogons(TimeSpan.FromSeconds(30)), "logons");
                long ackable = 0;
                foreach (var (sender, type, body) in set)
                {
                    Assert.Equal(SendResult.Sent, participants[sender].SendDeferred(type, body));
                    ackable += type.Length == 1 && type[0] == (byte)'T' ? 0 : 1;
                }

                // A NewOrderSingle is not a message of the matching service: BusinessMessageReject 3.
                Assert.Equal(SendResult.Sent, participants["IM1"].SendDeferred("D"u8,
                    "11=X1\u000121=1\u000155=MSFT\u000154=1\u000160=20261123-10:00:00\u000138=100\u000140=1\u0001"u8));
                ackable++;
                participants.FlushAll();
                Wait.Until(() => collector.Acks >= ackable, () => $"{ackable} acks (got {collector.Acks})");
                // The CLS follow their trades' last acks in the same batch; wait until the answers stop.
                long last = -1;
                Wait.Until(() => { long now = server.Counters.AnswersSent; bool quiet = now == last; last = now; Thread.Sleep(300); return quiet; }, "answers to stop");
                var texts = collector.Texts.ToList();
                Assert.Contains(texts, t => t.Contains("|35=j|", StringComparison.Ordinal) && t.Contains("|380=6|", StringComparison.Ordinal));
                Assert.Contains(texts, t => t.Contains("|35=j|", StringComparison.Ordinal) && t.Contains("|380=3|", StringComparison.Ordinal));
                Assert.Contains(texts, t => t.Contains("|35=AK|", StringComparison.Ordinal)); // trades of the owned partition cleared
                participants.Sessions.ToList().ForEach(s => s.Logout());
                Wait.Until(() => participants.Sessions.All(s => !s.IsLoggedOn), "logouts");
            }

            matcherAnswers = server.Counters.AnswersSent;
            refusedForPartition = server.RefusedForPartition;
        }

        Assert.True(refusedForPartition > 0, "some trades belong to the other partition");
        Assert.True(matcherAnswers > 0);

        using var restarted = Start();
        Assert.Equal(matcherAnswers, restarted.Replay.AnswersSuppressed);
        Assert.Equal(0, restarted.Replay.AnswersToSend);

        // The participants come back (their stores remember the sequence numbers): nothing is sent to them again.
        var again = new AnswerCollector { KeepText = true };
        using var back = new Participants(TradeGenerator.Participants, "MATCH", "127.0.0.1", restarted.Port, again, Path.Combine(_work, "driver"));
        Assert.True(back.WaitForLogons(TimeSpan.FromSeconds(30)), "logons after the restart");
        Thread.Sleep(1000);
        Assert.True(again.Count == 0, string.Join("\n", again.Texts));
        Assert.Equal(0, restarted.Counters.AnswersSent);
    }

    // Two partitions, this instance owning the first: messages of the second are refused with BusinessMessageReject 6.
    private MatchingServer Start()
    {
        Directory.CreateDirectory(_work);
        string config = Path.Combine(_work, "service.cfg");
        File.WriteAllText(config, Verifier.ServiceSettings(TradeGenerator.Participants, "MATCH", 1000));
        var server = MatchingServer.Start(new ServiceOptions
        {
            SettingsPath = config,
            StaticDataPath = DocumentedExamplesTests.GeneratedStaticData,
            Port = Participants.FreePort(),
            DataDirectory = Path.Combine(_work, "data"),
            BusinessDate = 20261123,
            WarmUp = false,
            LogPath = Path.Combine(_work, "engine.log"),
            Partitions = 2,
            OwnedPartitions = [0],
        });
        server.EnterContinuous();
        return server;
    }
}
