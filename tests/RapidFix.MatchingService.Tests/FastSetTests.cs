using System.Text;
using RapidFix.Engine.Codec;
using RapidFix.Engine.Dictionary;
using RapidFix.Matching;
using RapidFix.Tests.Shared;
using RapidFix.TradeDriver;

namespace RapidFix.MatchingService.Tests;

/// <summary>
/// generate --fast: the FAST-encoded form of a generated set (every kind of trade, bad ones included) matches to the
/// same outcomes as its FIX form, message for message: the same acks (status, reason, criterion), the same CLS, the
/// same exceptions with the same text.
/// </summary>
public sealed class FastSetTests : IDisposable
{
    private readonly string _dir = Path.Combine(Path.GetTempPath(), "rapidfix-fastset-" + Guid.NewGuid().ToString("N"));

    public void Dispose()
    {
        if (Directory.Exists(_dir))
        {
            Directory.Delete(_dir, recursive: true);
        }
    }

    [Fact]
    public void A_FAST_encoded_generated_set_matches_to_the_same_outcomes_as_the_FIX_one()
    {
        var (trades, written) = TradeGenerator.Write(_dir, GeneratorOptions.DefaultMix(400, 11) with { Bad = 0.2 }, fast: true);
        Assert.Equal(400, trades);

        var reference = MatchingCore.LoadStaticData(DocumentedExamplesTests.GeneratedStaticData);
        var dictionary = StandardDictionaries.Load("FIX44");
        var fixMatcher = new Matcher(reference, new MatcherOptions { BusinessDate = 20261123 });
        var fastMatcher = new Matcher(reference, new MatcherOptions { BusinessDate = 20261123 });
        var fixSink = new LoggingSink();
        var fastSink = new LoggingSink();
        var view = new FixMessage();

        var (messages, _) = TradeGenerator.Read(_dir);
        int i = 0;
        foreach (var (sender, fast) in FastTradeFile.Read(_dir))
        {
            var m = messages[i++];
            Assert.Equal(m.Sender, sender);
            byte[] bytes = TradeMessages.Complete(m, "MATCH", 2);
            Assert.Equal(FixParseError.None, view.Parse(bytes, 0, bytes.Length, dictionary));
            fixMatcher.Process(view, Encoding.ASCII.GetBytes(m.Sender), ref fixSink);
            fastMatcher.Process(fast.View, Encoding.ASCII.GetBytes(sender), ref fastSink);
            Assert.Equal(fixSink.Log.Count, fastSink.Log.Count);
            Assert.Equal(fixSink.Log[^1], fastSink.Log[^1]);
        }

        Assert.Equal(written, i);
        Assert.Equal(fixSink.Log, fastSink.Log);
        // The set is a real mix: trades cleared, messages refused with reasons.
        Assert.True(fastSink.Cleared > 250, $"{fastSink.Cleared} trades cleared");
        Assert.True(fastSink.Rejected > 20, $"{fastSink.Rejected} messages refused");
    }

    /// <summary>Every outcome as one line of text.</summary>
    private struct LoggingSink : IMatchSink
    {
        private readonly byte[] _text = new byte[ExceptionText.MaxLength];

        public LoggingSink()
        {
        }

        public List<string> Log { get; } = [];

        public int Cleared { get; private set; }

        public int Rejected { get; private set; }

        public void OnAck(in MatchAck ack)
        {
            Rejected += ack.Status == AckStatus.Rejected ? 1 : 0;
            Log.Add($"ack {ack.Kind} {ack.Trans} {Encoding.ASCII.GetString(ack.MessageId.Span)} {ack.Status} {ack.Reason} {ack.Criterion} {ack.Tag}");
        }

        public void OnCleared(in ClearedTrade trade)
        {
            Cleared++;
            Log.Add($"cls {trade.TradeNumber} {Encoding.ASCII.GetString(trade.Isin)} {trade.AccountCount}");
        }

        public void OnException(in MatchException exception)
        {
            int n = ExceptionText.Write(in exception, _text);
            Log.Add($"exception {exception.Reason} {Encoding.ASCII.GetString(_text, 0, n)}");
        }
    }
}
