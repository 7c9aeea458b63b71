namespace RapidFix.Matching.Tests;

/// <summary>
/// What the per-message shortcuts must not change: a message is resolved into the table row that will store it (a
/// message that is not stored gives the row back), and the matcher remembers the last trade currency it looked up
/// (a different currency is looked up again, an unknown one is never remembered as known).
/// </summary>
public sealed class RowsAndCachesTests
{
    private static string Cancel(string npr, string id, string reference) =>
        Demo.Frame(Demo.With(npr, "664=" + id, "666=2").Replace("|666=2|", "|666=2|772=" + reference + "|", StringComparison.Ordinal).TrimEnd('|').Split('|'));

    /// <summary>A matcher with seven message rows, the documented trade's NOE stored in the first.</summary>
    private static (Matcher Matcher, Dictionary<string, string> Trade) SevenRowsAfterNoe<TSink>(ref TSink sink)
        where TSink : IMatchSink
    {
        var matcher = Demo.NewMatcher(openTrades: 4, messages: 7);
        var trade = Trades.Documented();
        Trades.Send(matcher, trade["NOE"], ref sink);
        return (matcher, trade);
    }

    /// <summary>Sends the other six: they fit only if no row was lost.</summary>
    private static void SendTheRest<TSink>(Matcher matcher, Dictionary<string, string> trade, ref TSink sink)
        where TSink : IMatchSink
    {
        foreach (var name in Trades.Seven.Skip(1))
        {
            Trades.Send(matcher, trade[name], ref sink);
        }

        Assert.Equal(0, matcher.Counters.TableFull);
    }

    [Fact]
    public void Messages_that_are_not_stored_give_their_row_back()
    {
        // Seven rows for the seven messages of one trade: every duplicate, reject and refused reference in between
        // is resolved into a free row first and must hand it back, or the trade could not be stored whole.
        var sink = new RecordingSink();
        var (matcher, trade) = SevenRowsAfterNoe(ref sink);
        for (int i = 0; i < 50; i++)
        {
            Trades.Send(matcher, trade["NOE"], ref sink); // a duplicate
            Trades.Send(matcher, Demo.With(trade["ALC-A"], "70=ALC-X" + i, "15=XXX"), ref sink); // an unknown currency
            Trades.Send(matcher, Cancel(trade["NPR-A"], "NPR-C" + i, "NPR-NONE"), ref sink); // an unknown reference
        }

        SendTheRest(matcher, trade, ref sink);
        Assert.Equal(50, matcher.Counters.Duplicates);
        Assert.Equal(100, matcher.Counters.Rejected);
        Assert.Single(sink.Cleared);
    }

    private sealed class ThrowingSink : IMatchSink
    {
        public RecordingSink Inner { get; } = new();

        public int ThrowsLeft { get; set; }

        public void OnAck(in MatchAck ack)
        {
            if (ThrowsLeft > 0)
            {
                ThrowsLeft--;
                throw new InvalidOperationException("sink failure");
            }

            Inner.OnAck(in ack);
        }

        public void OnCleared(in ClearedTrade trade) => Inner.OnCleared(in trade);

        public void OnException(in MatchException exception) => Inner.OnException(in exception);
    }

    [Fact]
    public void A_sink_that_throws_loses_no_row()
    {
        // Seven rows for seven messages; the sink throws on the acks of 20 duplicates in between. The rows those
        // duplicates were resolved into come back all the same, so the trade is still stored whole.
        var sink = new ThrowingSink();
        var (matcher, trade) = SevenRowsAfterNoe(ref sink);
        sink.ThrowsLeft = 20;
        for (int i = 0; i < 20; i++)
        {
            try
            {
                Trades.Send(matcher, trade["NOE"], ref sink);
                Assert.Fail("the sink did not throw");
            }
            catch (InvalidOperationException)
            {
            }
        }

        SendTheRest(matcher, trade, ref sink);
        Assert.Single(sink.Inner.Cleared);
    }

    [Fact]
    public void A_full_message_table_refuses_until_a_row_is_freed_and_then_stores_again()
    {
        // Two rows: the NOE and ALC-A take them; ALC-B finds none (the scratch row it is resolved into is never
        // stored) and is refused, and so is its resend (not a duplicate: it was never stored).
        var matcher = Demo.NewMatcher(openTrades: 4, messages: 2, clearedTrades: 0);
        var sink = new RecordingSink();
        var trade = Trades.Documented();
        Trades.Send(matcher, trade["NOE"], ref sink);
        Trades.Send(matcher, trade["ALC-A"], ref sink);
        Assert.Equal(AckStatus.Accepted, sink.LastAck.Status);
        Trades.Send(matcher, trade["ALC-B"], ref sink);
        Assert.Equal(ExceptionReason.TableFull, sink.LastAck.Reason);
        Trades.Send(matcher, trade["ALC-B"], ref sink);
        Assert.Equal(ExceptionReason.TableFull, sink.LastAck.Reason); // not a duplicate: it was never stored
        Assert.Equal(2, matcher.Counters.TableFull);
        Assert.Equal(1, matcher.OpenTrades);
    }

    [Fact]
    public void The_remembered_trade_currency_follows_the_messages()
    {
        var matcher = Demo.NewMatcher();
        var sink = new RecordingSink();
        var trade = Trades.Documented();
        var unknown = Trades.Documented("-XXX");

        // SGD (remembered), an unknown currency twice (refused both times), EUR against the SGD trade (looked up,
        // not taken for SGD: a mismatch), then SGD again: the trade clears.
        Trades.Send(matcher, trade["NOE"], ref sink);
        Assert.Equal(AckStatus.Accepted, sink.LastAck.Status);
        for (int i = 0; i < 2; i++)
        {
            Trades.Send(matcher, Demo.With(unknown["NOE"], "571=NOE-XXX" + i, "15=XXX"), ref sink);
            Assert.Equal(ExceptionReason.StaticData, sink.LastAck.Reason);
            Assert.Equal(Criterion.TradeCurrency, sink.LastAck.Criterion);
        }

        Trades.Send(matcher, Demo.With(trade["ALC-A"], "70=ALC-EUR", "15=EUR"), ref sink);
        Assert.Equal(ExceptionReason.Mismatch, sink.LastAck.Reason);
        Assert.Equal(Criterion.TradeCurrency, sink.LastAck.Criterion);
        Assert.Equal("EUR", sink.Exceptions[^1].Value.ToString());
        Assert.Equal("SGD", sink.Exceptions[^1].Expected.ToString());
        foreach (var name in Trades.Seven.Skip(1))
        {
            Trades.Send(matcher, trade[name], ref sink);
            Assert.Equal(AckStatus.Accepted, sink.LastAck.Status);
        }

        Assert.Single(sink.Cleared);
    }
}
