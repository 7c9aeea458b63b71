using RapidFix.Tests.Shared;

namespace RapidFix.Matching.Tests;

/// <summary>Withdrawn IDs after their trade has gone, the ISIN on acks, expiry counted on the settlement calendar.</summary>
public sealed class WithdrawnIdsAndExpiryTests
{
    private static string CancelNoe(Dictionary<string, string> trade) =>
        Demo.Frame(Demo.With(trade["NOE"], "571=NOE-1001C", "487=1").Replace("|487=1|", "|487=1|572=NOE-1001|", StringComparison.Ordinal).TrimEnd('|').Split('|'));

    private static string CancelSetA(Dictionary<string, string> trade) =>
        Demo.Frame(Demo.With(trade["SET-A"], "777=SET-4001C", "162=SI-4001C", "163=C").Replace("|163=C|", "|163=C|214=SI-4001|", StringComparison.Ordinal).TrimEnd('|').Split('|'));

    [Fact]
    public void A_cancelled_ID_stays_taken_after_the_cancel_emptied_its_trade()
    {
        var trade = Trades.Documented();
        var matcher = Demo.NewMatcher();
        var sink = new RecordingSink();
        Trades.Send(matcher, trade["NOE"], ref sink);
        Trades.Send(matcher, CancelNoe(trade), ref sink);
        Assert.Equal(AckStatus.Accepted, sink.LastAck.Status);
        Assert.Equal(0, matcher.OpenTrades);

        // The cancelled NOE sent again (no PossDup): the same answer as while its trade was open, a duplicate that
        // changes nothing; before, the emptied trade took its history along and the ID opened a new trade.
        Trades.Send(matcher, trade["NOE"], ref sink);
        Assert.Equal(AckStatus.Duplicate, sink.LastAck.Status);
        Assert.Equal(0, matcher.OpenTrades);

        // The ID with another transaction type is a reuse; a reference to it finds nothing live.
        Trades.Send(matcher, Demo.With(CancelNoe(trade), "571=NOE-1001"), ref sink);
        Assert.Equal(ExceptionReason.IdReused, sink.LastAck.Reason);
        string replace = Demo.Frame(Demo.With(trade["NOE"], "571=NOE-1001R", "487=2").Replace("|487=2|", "|487=2|572=NOE-1001|", StringComparison.Ordinal).TrimEnd('|').Split('|'));
        Trades.Send(matcher, replace, ref sink);
        Assert.Equal(ExceptionReason.UnknownReference, sink.LastAck.Reason);
        Trades.Send(matcher, CancelNoe(trade), ref sink);
        Assert.Equal(AckStatus.Duplicate, sink.LastAck.Status);
        Assert.Equal(0, matcher.OpenTrades);

        // A new ID for the same content is a new NOE.
        Trades.Send(matcher, Demo.With(trade["NOE"], "571=NOE-1002"), ref sink);
        Assert.Equal(AckStatus.Accepted, sink.LastAck.Status);
        Assert.Equal(1, matcher.OpenTrades);
    }

    [Fact]
    public void A_cancelled_waiting_SET_is_not_taken_again_as_new()
    {
        var trade = Trades.Documented();
        var matcher = Demo.NewMatcher();
        var sink = new RecordingSink();
        Trades.Send(matcher, trade["SET-A"], ref sink); // waits: no trade has ACC-A yet
        Trades.Send(matcher, CancelSetA(trade), ref sink);
        Assert.Equal(AckStatus.Accepted, sink.LastAck.Status);
        Trades.Send(matcher, trade["SET-A"], ref sink);
        Assert.Equal(AckStatus.Duplicate, sink.LastAck.Status);

        // ACC-A has no SET, so the other six messages do not clear (they did when the resend was taken as new).
        foreach (var name in new[] { "NOE", "ALC-A", "ALC-B", "NPR-A", "NPR-B", "SET-B" })
        {
            Trades.Send(matcher, trade[name], ref sink);
            Assert.Equal(AckStatus.Accepted, sink.LastAck.Status);
        }

        Assert.Empty(sink.Cleared);
        Trades.Send(matcher, Demo.With(trade["SET-A"], "777=SET-4001N", "162=SI-4001N"), ref sink);
        Assert.Single(sink.Cleared);
    }

    [Fact]
    public void Withdrawn_IDs_are_remembered_for_the_expiry_business_days_then_released()
    {
        var trade = Trades.Documented();
        var matcher = Demo.NewMatcher(expiryDays: 3);
        var sink = new RecordingSink();
        Trades.Send(matcher, trade["NOE"], ref sink);
        Trades.Send(matcher, CancelNoe(trade), ref sink);
        matcher.AdvanceBusinessDate(20261124, ref sink);
        matcher.AdvanceBusinessDate(20261125, ref sink);
        Trades.Send(matcher, trade["NOE"], ref sink);
        Assert.Equal(AckStatus.Duplicate, sink.LastAck.Status);
        matcher.AdvanceBusinessDate(20261126, ref sink);
        Trades.Send(matcher, trade["NOE"], ref sink);
        Assert.Equal(AckStatus.Accepted, sink.LastAck.Status);
        Assert.Equal(1, matcher.OpenTrades);
        Assert.Empty(sink.Exceptions);
    }

    [Fact]
    public void Withdrawn_IDs_use_message_records_and_a_full_table_is_answered()
    {
        // Two message records: the NOE and its cancel stay as withdrawn IDs, so a third message finds none free.
        var trade = Trades.Documented();
        var matcher = Demo.NewMatcher(openTrades: 4, clearedTrades: 0, messages: 2);
        var sink = new RecordingSink();
        Trades.Send(matcher, trade["NOE"], ref sink);
        Trades.Send(matcher, CancelNoe(trade), ref sink);
        Trades.Send(matcher, Demo.With(trade["NOE"], "571=NOE-1002"), ref sink);
        Assert.Equal(ExceptionReason.TableFull, sink.LastAck.Reason);
        Assert.Equal(1, matcher.Counters.TableFull);
        Assert.Equal(0, matcher.OpenTrades);
    }

    private sealed class CancelFlow
    {
        public required Matcher Matcher;
        public required MatchInput[][] Trades;
        public required MatchInput[][] Cancels;
        public CountingSink Sink;
        public int Next;
        public DateOnly Date = new(2026, 11, 23);
    }

    [Fact]
    public void Cancelling_trades_away_and_releasing_their_withdrawn_IDs_allocates_nothing()
    {
        // NOE and ALC-A, both cancelled (the trade empties, four withdrawn IDs), a resend of the cancelled NOE
        // (a duplicate), and business days that release the withdrawn IDs.
        var template = Trades.Documented();
        var cancelNoe = Trades.Read(CancelNoe(template));
        var cancelAlc = Trades.Read(Demo.Frame(Demo.With(template["ALC-A"], "70=ALC-2001C", "71=2").Replace("|71=2|", "|71=2|72=ALC-2001|", StringComparison.Ordinal).TrimEnd('|').Split('|')));
        var trades = AllocationAndBoundaryTests.TradeInputs(512);
        var cancels = new MatchInput[trades.Length][];
        for (int t = 0; t < trades.Length; t++)
        {
            cancels[t] = [cancelNoe, cancelAlc];
            for (int k = 0; k < 2; k++)
            {
                var target = trades[t][k];
                cancels[t][k].RefId = target.Id;
                cancels[t][k].Id.TrySet(System.Text.Encoding.ASCII.GetBytes(target.Id + "C"));
                cancels[t][k].MessageId = cancels[t][k].Id;
            }
        }

        var flow = new CancelFlow { Matcher = Demo.NewMatcher(openTrades: 1024, exceptions: 64), Trades = trades, Cancels = cancels };
        long bytes = Allocations.Measure(flow, static f =>
        {
            int n = f.Next++ % f.Trades.Length;
            if (n == 0)
            {
                // A business day per pass over the trades: IDs withdrawn three passes ago are released, so the
                // same IDs come back as new messages.
                f.Date = f.Date.AddDays(1);
                f.Matcher.AdvanceBusinessDate(f.Date.Year * 10000 + f.Date.Month * 100 + f.Date.Day, ref f.Sink);
            }

            var trade = f.Trades[n];
            f.Matcher.Process(in trade[0], ref f.Sink);
            f.Matcher.Process(in trade[1], ref f.Sink);
            f.Matcher.Process(in f.Cancels[n][0], ref f.Sink);
            f.Matcher.Process(in f.Cancels[n][1], ref f.Sink);
            f.Matcher.Process(in trade[0], ref f.Sink);
        }, iterations: 20_000);

        Assert.Equal(0, bytes);
        Assert.Equal(0, flow.Matcher.OpenTrades);
        Assert.True(flow.Matcher.Counters.Duplicates > 5_000);
        Assert.True(flow.Matcher.Counters.Accepted > 20_000);
        Assert.Equal(0, flow.Matcher.Counters.TableFull);
    }

    [Fact]
    public void Acks_carry_the_ISIN_of_the_message()
    {
        var trade = Trades.Documented();
        var matcher = Demo.NewMatcher();
        var sink = new RecordingSink();
        Trades.Send(matcher, trade["NOE"], ref sink);
        Assert.Equal("SG1T75931496", sink.LastAck.Isin.ToString());
        Trades.Send(matcher, trade["NOE"], ref sink);
        Assert.Equal(AckStatus.Duplicate, sink.LastAck.Status);
        Assert.Equal("SG1T75931496", sink.LastAck.Isin.ToString());

        // A rejected one too (the price disagrees with the NOE's).
        Trades.Send(matcher, Demo.With(trade["ALC-B"], "6=2.51"), ref sink);
        Assert.Equal(AckStatus.Rejected, sink.LastAck.Status);
        Assert.Equal("SG1T75931496", sink.LastAck.Isin.ToString());

        // A SET carries no instrument.
        Trades.Send(matcher, trade["SET-A"], ref sink);
        Assert.Equal(0, sink.LastAck.Isin.Length);
    }

    [Theory]
    [InlineData(3, 20261230)] // the seed's three: Thu 24 Dec opened; 25 Dec is an SGD holiday, then the weekend
    [InlineData(5, 20270104)] // 28, 29, 30, 31 Dec; 1 Jan is a holiday, 2-3 Jan a weekend; the 5th is Mon 4 Jan
    public void An_open_trade_expires_after_the_configured_business_days_of_the_settlement_calendar(int days, int expiresOn)
    {
        var matcher = new Matcher(Demo.Reference, new MatcherOptions { OpenTrades = 16, Exceptions = 64, ExpiryBusinessDays = days, BusinessDate = 20261224 });
        var sink = new RecordingSink();
        var trade = Trades.Documented();
        foreach (var name in new[] { "NOE", "ALC-A", "NPR-A" })
        {
            Trades.Send(matcher, Demo.With(trade[name], "75=20261224", "64=20261229"), ref sink);
            Assert.Equal(AckStatus.Accepted, sink.LastAck.Status);
        }

        // The service's business days: the trade's settlement calendar (SGD), read from the static data.
        int sgd = Demo.Reference.FindCurrency(Codes.PackCurrency("SGD"u8));
        var calls = new List<int>();
        for (int date = Demo.Reference.NextBusinessDay(sgd, 20261224); date <= expiresOn; date = Demo.Reference.NextBusinessDay(sgd, date))
        {
            Assert.Equal(1, matcher.OpenTrades);
            matcher.AdvanceBusinessDate(date, ref sink);
            calls.Add(date);
        }

        Assert.Equal(days, calls.Count);
        Assert.Equal(expiresOn, calls[^1]);
        Assert.Equal(0, matcher.OpenTrades);
        Assert.Equal(3, sink.Exceptions.Count);
        Assert.All(sink.Exceptions, e => Assert.Equal(ExceptionReason.Expired, e.Reason));
        Assert.All(sink.Exceptions, e => Assert.Equal(expiresOn, e.BusinessDate));
        Assert.Equal(1, matcher.Counters.Expired);
    }

    [Fact]
    public void The_next_business_day_skips_weekends_and_the_currencys_holidays()
    {
        int sgd = Demo.Reference.FindCurrency(Codes.PackCurrency("SGD"u8));
        int usd = Demo.Reference.FindCurrency(Codes.PackCurrency("USD"u8));
        Assert.Equal(20261228, Demo.Reference.NextBusinessDay(sgd, 20261224));
        Assert.Equal(20261127, Demo.Reference.NextBusinessDay(usd, 20261125)); // 26 Nov is a USD holiday
        Assert.Equal(20261126, Demo.Reference.NextBusinessDay(sgd, 20261125));
        Assert.Equal(-1, Demo.Reference.NextBusinessDay(sgd, 20991231));
    }
}
