namespace RapidFix.Matching.Tests;

/// <summary>
/// Retention of cleared trades: a trade's message records and trade record are freed as it clears, and what a late
/// or repeated message needs (IDs, kinds, senders, transaction types, withdrawn or live, the trade's number) stays
/// in the cleared-ID ring until the trade is dropped from retention.
/// </summary>
public sealed class ClearedRetentionTests
{
    [Fact]
    public void A_cleared_trade_answers_as_before_while_its_message_rows_serve_the_next_trade()
    {
        // Seven message rows and one trade row: the second trade can only be stored if the first one's rows were
        // freed as it cleared (they were held by the retained trade before).
        var matcher = Demo.NewMatcher(openTrades: 1, clearedTrades: 1, messages: 7);
        var sink = new RecordingSink();
        var first = Trades.Documented("-1");
        foreach (var name in Trades.Seven)
        {
            Trades.Send(matcher, first[name], ref sink);
        }

        long number = Assert.Single(sink.Cleared).TradeNumber;
        Trades.Send(matcher, first["ALC-A"], ref sink);
        Assert.Equal(AckStatus.Duplicate, sink.LastAck.Status);
        Trades.Send(matcher, Resend(first["SET-B"]), ref sink);
        Assert.Equal(AckStatus.Duplicate, sink.LastAck.Status);

        // The same ID with another transaction type, and a cancel of a cleared message.
        Trades.Send(matcher, Cancel(first["ALC-A"], "ALC-2001-1", "ALC-2002-1"), ref sink);
        Assert.Equal(ExceptionReason.IdReused, sink.LastAck.Reason);
        Trades.Send(matcher, Cancel(first["NPR-A"], "NPR-3001-1C", "NPR-3001-1"), ref sink);
        Assert.Equal(ExceptionReason.LateForClearedTrade, sink.LastAck.Reason);
        Assert.Equal(number, sink.Exceptions[^1].TradeNumber);

        var second = Trades.Documented("-2");
        foreach (var name in Trades.Seven)
        {
            Trades.Send(matcher, second[name], ref sink);
            Assert.Equal(AckStatus.Accepted, sink.LastAck.Status);
        }

        Assert.Equal(2, sink.Cleared.Count);
        Assert.Equal(0, matcher.Counters.TableFull);
        Assert.Equal(1, matcher.Counters.ClearedEvicted);

        // The first trade has left retention (one retained): its NOE's ID is new again; the second's is not.
        Trades.Send(matcher, second["NPR-B"], ref sink);
        Assert.Equal(AckStatus.Duplicate, sink.LastAck.Status);
        Trades.Send(matcher, first["NOE"], ref sink);
        Assert.Equal(AckStatus.Accepted, sink.LastAck.Status);
        Assert.Equal(1, matcher.OpenTrades);
    }

    [Fact]
    public void Replaced_and_cancelled_messages_of_a_cleared_trade_keep_their_answers()
    {
        var matcher = Demo.NewMatcher();
        var sink = new RecordingSink();
        var trade = Trades.Documented();
        string replace = Replace(trade["ALC-A"], "ALC-2001R", "ALC-2001");
        string cancelSetB = Cancel(trade["SET-B"], "SI-4002C", "SI-4002", set: true);
        foreach (var text in new[] { trade["NOE"], trade["ALC-A"], replace, trade["ALC-B"], trade["NPR-A"], trade["SET-B"], cancelSetB })
        {
            Trades.Send(matcher, text, ref sink);
            Assert.Equal(AckStatus.Accepted, sink.LastAck.Status);
        }

        string setB = Demo.With(trade["SET-B"], "777=SET-4002N", "162=SI-4002N");
        foreach (var text in new[] { trade["NPR-B"], trade["SET-A"], setB })
        {
            Trades.Send(matcher, text, ref sink);
            Assert.Equal(AckStatus.Accepted, sink.LastAck.Status);
        }

        Assert.Single(sink.Cleared);
        Assert.Empty(sink.Exceptions);

        // Withdrawn IDs (the replaced ALC, the cancelled SET) are unknown references; live ones are late.
        Trades.Send(matcher, Cancel(trade["ALC-A"], "ALC-2001C", "ALC-2001"), ref sink);
        Assert.Equal(ExceptionReason.UnknownReference, sink.LastAck.Reason);
        Trades.Send(matcher, Cancel(trade["SET-B"], "SI-4002C2", "SI-4002", set: true), ref sink);
        Assert.Equal(ExceptionReason.UnknownReference, sink.LastAck.Reason);
        Trades.Send(matcher, Cancel(trade["ALC-A"], "ALC-2001RC", "ALC-2001R"), ref sink);
        Assert.Equal(ExceptionReason.LateForClearedTrade, sink.LastAck.Reason);
        Assert.Equal(sink.Cleared[0].TradeNumber, sink.Exceptions[^1].TradeNumber);

        // Resends of every kind of ID the trade kept: the original, the replacement, the cancel, the cancelled SET.
        foreach (var text in new[] { trade["ALC-A"], replace, cancelSetB, trade["SET-B"], setB })
        {
            Trades.Send(matcher, text, ref sink);
            Assert.Equal(AckStatus.Duplicate, sink.LastAck.Status);
        }

        // Another transaction type under the replacement's ID.
        Trades.Send(matcher, Cancel(trade["ALC-A"], "ALC-2001R", "ALC-2002"), ref sink);
        Assert.Equal(ExceptionReason.IdReused, sink.LastAck.Reason);
        Assert.Single(sink.Cleared);
        Assert.Equal(0, matcher.OpenTrades);
    }

    [Fact]
    public void Retention_is_bounded_by_the_cleared_id_ring_and_the_drops_are_counted()
    {
        // Two trades retained: 2 × 8 + 64 = 80 IDs in the ring.
        var matcher = Demo.NewMatcher(clearedTrades: 2);
        Assert.Equal(80, Matcher.ClearedIdCapacity(2));
        var sink = new RecordingSink();
        var first = Trades.Documented("-1");
        foreach (var name in Trades.Seven)
        {
            Trades.Send(matcher, first[name], ref sink);
        }

        // 7 messages and 70 replaced allocations: 77 IDs, which with the first trade's 7 do not fit.
        var second = Trades.Documented("-2");
        string last = ClearWithReplaces(matcher, second, 70, ref sink);
        Assert.Equal(2, sink.Cleared.Count);
        Assert.Equal(1, matcher.Counters.ClearedEvicted);
        Trades.Send(matcher, Cancel(second["ALC-A"], "ALC-2001-2R1", "ALC-2001-2R2"), ref sink);
        Assert.Equal(ExceptionReason.IdReused, sink.LastAck.Reason); // a replaced replacement's ID, another type
        Trades.Send(matcher, second["ALC-A"], ref sink);
        Assert.Equal(AckStatus.Duplicate, sink.LastAck.Status);
        Trades.Send(matcher, Cancel(second["ALC-A"], "ALC-LASTC", last), ref sink);
        Assert.Equal(ExceptionReason.LateForClearedTrade, sink.LastAck.Reason);

        // A trade with more IDs (7 + 80) than the whole ring is not retained: it and the second are dropped.
        var third = Trades.Documented("-3");
        ClearWithReplaces(matcher, third, 80, ref sink);
        Assert.Equal(3, sink.Cleared.Count);
        Assert.Equal(3, matcher.Counters.ClearedEvicted);
        Trades.Send(matcher, third["SET-A"], ref sink);
        Assert.Equal(AckStatus.Accepted, sink.LastAck.Status);
        Trades.Send(matcher, first["NOE"], ref sink);
        Assert.Equal(AckStatus.Accepted, sink.LastAck.Status);
    }

    [Fact]
    public void A_sink_that_throws_on_the_CLS_leaves_the_trade_retained_and_its_rows_free()
    {
        var matcher = Demo.NewMatcher(openTrades: 1, clearedTrades: 4, messages: 7);
        var sink = new ThrowingOnClearedSink();
        var first = Trades.Documented("-1");
        foreach (var name in Trades.Seven[..^1])
        {
            Trades.Send(matcher, first[name], ref sink);
        }

        Assert.Throws<InvalidOperationException>(() => Trades.Send(matcher, first["SET-B"], ref sink));
        Assert.Equal(1, sink.Cleared);
        Assert.Equal(0, matcher.OpenTrades);
        Trades.Send(matcher, first["NPR-A"], ref sink);
        Assert.Equal(AckStatus.Duplicate, sink.Inner.LastAck.Status);
        Trades.Send(matcher, Cancel(first["NPR-A"], "NPR-3001-1C", "NPR-3001-1"), ref sink);
        Assert.Equal(ExceptionReason.LateForClearedTrade, sink.Inner.LastAck.Reason);

        sink.Throw = false;
        var second = Trades.Documented("-2");
        foreach (var name in Trades.Seven)
        {
            Trades.Send(matcher, second[name], ref sink);
            Assert.Equal(AckStatus.Accepted, sink.Inner.LastAck.Status);
        }

        Assert.Equal(2, sink.Cleared);
        Assert.Equal(0, matcher.Counters.TableFull);
    }

    [Fact]
    public void A_cleared_trade_leaves_retention_after_the_expiry_business_days_uncounted()
    {
        var matcher = Demo.NewMatcher(expiryDays: 3);
        var sink = new RecordingSink();
        var first = Trades.Documented("-1");
        foreach (var name in Trades.Seven)
        {
            Trades.Send(matcher, first[name], ref sink);
        }

        matcher.AdvanceBusinessDate(20261124, ref sink);
        var second = Trades.Documented("-2");
        foreach (var name in Trades.Seven)
        {
            Trades.Send(matcher, second[name], ref sink);
        }

        matcher.AdvanceBusinessDate(20261125, ref sink);
        Trades.Send(matcher, first["NPR-A"], ref sink);
        Assert.Equal(AckStatus.Duplicate, sink.LastAck.Status);

        // Three business days after it cleared the first trade is dropped; the second (a day younger) is kept.
        matcher.AdvanceBusinessDate(20261126, ref sink);
        Trades.Send(matcher, second["NPR-A"], ref sink);
        Assert.Equal(AckStatus.Duplicate, sink.LastAck.Status);
        Trades.Send(matcher, Cancel(second["NPR-A"], "NPR-3001-2C", "NPR-3001-2"), ref sink);
        Assert.Equal(ExceptionReason.LateForClearedTrade, sink.LastAck.Reason);
        Trades.Send(matcher, Cancel(first["NPR-A"], "NPR-3001-1C", "NPR-3001-1"), ref sink);
        Assert.Equal(ExceptionReason.UnknownReference, sink.LastAck.Reason);
        Trades.Send(matcher, first["NPR-A"], ref sink);
        Assert.Equal(AckStatus.Accepted, sink.LastAck.Status);
        Assert.Equal(0, matcher.Counters.ClearedEvicted);
        Assert.Equal(2, sink.Cleared.Count);
    }

    /// <summary>Sends <paramref name="trade"/> with its ALC-A replaced <paramref name="replaces"/> times before the rest; the last replacement's ID.</summary>
    private static string ClearWithReplaces(Matcher matcher, Dictionary<string, string> trade, int replaces, ref RecordingSink sink)
    {
        Trades.Send(matcher, trade["NOE"], ref sink);
        Trades.Send(matcher, trade["ALC-A"], ref sink);
        string previous = IdOf(trade["ALC-A"], "70");
        for (int i = 1; i <= replaces; i++)
        {
            string id = previous.Split('R')[0] + "R" + i;
            Trades.Send(matcher, Replace(trade["ALC-A"], id, previous), ref sink);
            Assert.Equal(AckStatus.Accepted, sink.LastAck.Status);
            previous = id;
        }

        foreach (var name in new[] { "ALC-B", "NPR-A", "NPR-B", "SET-A", "SET-B" })
        {
            Trades.Send(matcher, trade[name], ref sink);
            Assert.Equal(AckStatus.Accepted, sink.LastAck.Status);
        }

        return previous;
    }

    private static string IdOf(string text, string tag)
    {
        int at = text.IndexOf("|" + tag + "=", StringComparison.Ordinal) + tag.Length + 2;
        return text[at..text.IndexOf('|', at)];
    }

    private static string Resend(string text) => Demo.With(text.Replace("|52=", "|43=Y|52=", StringComparison.Ordinal), "34=99");

    /// <summary>An ALC replace: new ID, AllocTransType 1, RefAllocID.</summary>
    private static string Replace(string alc, string id, string refId) =>
        Demo.Frame(Demo.With(alc, "70=" + id, "71=1").Replace("|71=1|", "|71=1|72=" + refId + "|", StringComparison.Ordinal).TrimEnd('|').Split('|'));

    /// <summary>A cancel of an ALC (71=2, 72), an NPR (666=2, 772) or a SET (163=C, 214).</summary>
    private static string Cancel(string text, string id, string refId, bool set = false)
    {
        if (set)
        {
            return Demo.Frame(Demo.With(text, "777=" + id, "162=" + id, "163=C").Replace("|163=C|", "|163=C|214=" + refId + "|", StringComparison.Ordinal).TrimEnd('|').Split('|'));
        }

        return text.Contains("|35=AK|", StringComparison.Ordinal)
            ? Demo.Frame(Demo.With(text, "664=" + id, "666=2").Replace("|666=2|", "|666=2|772=" + refId + "|", StringComparison.Ordinal).TrimEnd('|').Split('|'))
            : Demo.Frame(Demo.With(text, "70=" + id, "71=2").Replace("|71=2|", "|71=2|72=" + refId + "|", StringComparison.Ordinal).TrimEnd('|').Split('|'));
    }

    private sealed class ThrowingOnClearedSink : IMatchSink
    {
        public RecordingSink Inner { get; } = new();

        public bool Throw { get; set; } = true;

        public int Cleared { get; private set; }

        public void OnAck(in MatchAck ack) => Inner.OnAck(in ack);

        public void OnCleared(in ClearedTrade trade)
        {
            Cleared++;
            Inner.OnCleared(in trade);
            if (Throw)
            {
                throw new InvalidOperationException("sink failed");
            }
        }

        public void OnException(in MatchException exception) => Inner.OnException(in exception);
    }
}
