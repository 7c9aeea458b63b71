using System.Text;
using RapidFix.Engine.Sessions;
using RapidFix.Tests.Shared;
using RapidFix.TradeDriver;

namespace RapidFix.MatchingService.Tests;

/// <summary>
/// The open-trade table is sized by the service's option (<c>--open-trades</c>): a set whose incomplete trades stay
/// open until they expire needs more than the default 65,536 (the 1,000,000-trade degradation run had every trade
/// after the 886,625th answered TABLE-FULL), and a full table answers the sender and counts, never grows.
/// </summary>
[Collection(nameof(ServiceProcesses))]
public sealed class OpenTradesOptionTests : IDisposable
{
    private readonly string _work = Path.Combine(Path.GetTempPath(), "rapidfix-open-trades-" + Guid.NewGuid().ToString("N"));

    public void Dispose()
    {
        if (Directory.Exists(_work))
        {
            Directory.Delete(_work, recursive: true);
        }
    }

    [Fact]
    public void The_matcher_holds_as_many_open_trades_as_the_option_says_and_refuses_the_next_with_table_full()
    {
        var examples = DocumentedExamplesTests.Examples();
        var (sender, type, body) = DocumentedExamplesTests.Inbound(examples["NOE"]);
        const string soh = "\u0001";
        Assert.Contains(soh + "54=1" + soh, soh + body, StringComparison.Ordinal);
        Assert.Contains("571=NOE-1001", body, StringComparison.Ordinal);
        // The documented NOE, and the same block sold instead of bought under another ID: two trades (the side is in the key).
        string other = (soh + body).Replace(soh + "54=1" + soh, soh + "54=2" + soh, StringComparison.Ordinal)[1..]
            .Replace("571=NOE-1001", "571=NOE-1002", StringComparison.Ordinal);

        var server = StartupChecksTests.StartSmall(_work, Verifier.ServiceSettings(TradeGenerator.Participants, "MATCH", 1000), 20261123,
            o => o with { OpenTrades = 1 });
        var collector = new AnswerCollector { KeepText = true };
        using (var participants = new Participants(TradeGenerator.Participants, "MATCH", "127.0.0.1", server.Port, collector))
        {
            Assert.True(participants.WaitForLogons(TimeSpan.FromSeconds(30)), "logons");
            Assert.Equal(SendResult.Sent, participants[sender].Send(Encoding.ASCII.GetBytes(type), Encoding.ASCII.GetBytes(body)));
            Wait.Until(() => collector.Acks == 1, "the first NOE's ack");
            Assert.Equal(0, server.TableFull);

            Assert.Equal(SendResult.Sent, participants[sender].Send(Encoding.ASCII.GetBytes(type), Encoding.ASCII.GetBytes(other)));
            Wait.Until(() => server.TableFull == 1, () => $"the second trade refused TABLE-FULL (refused {server.TableFull})");
            Wait.Until(() => collector.Texts.Any(t => t.Contains("TABLE-FULL", StringComparison.Ordinal)), "the sender told TABLE-FULL");
        }

        server.Dispose();
    }
}
