using RapidFix.Engine.Codec;
using RapidFix.Engine.Fields;
using RapidFix.Messages.Fix44;
using RapidFix.Tests.Shared;

namespace RapidFix.Messages.Tests;

/// <summary>The generated FIX 4.4 accessors read the sample messages as the engine's own getters do.</summary>
public class AccessorTests
{
    /// <summary>Where the allocation test puts what it read, so nothing is optimised away (GC.KeepAlive would box).</summary>
    private static long Sink;

    [Fact]
    public void NewOrderSingle_fields_read_in_place()
    {
        var message = Fix44Views.Parse(FixSamples.NewOrderSingle);
        var order = new NewOrderSingle(message);

        Assert.Equal("ORD-0000012345"u8.ToArray(), order.ClOrdID.ToArray());
        Assert.Equal("ACCT-778"u8.ToArray(), order.Account.ToArray());
        Assert.Equal("MSFT"u8.ToArray(), order.Symbol.ToArray());
        Assert.Equal(Values.Side.Buy, order.Side);
        Assert.Equal(Values.OrdType.Limit, order.OrdType);
        Assert.Equal(Values.HandlInst.AutomatedExecutionOrderPrivate, order.HandlInst);
        Assert.Equal(new FixDecimal(1500, 0), order.OrderQty);
        Assert.Equal(new FixDecimal(41237, -2), order.Price);
        Assert.True(message.TryGetTimestamp(FieldTags.TransactTime, out var transact));
        Assert.Equal(transact, order.TransactTime);
        Assert.True(order.TryGetPrice(out var price) && price == new FixDecimal(41237, -2));
        Assert.False(order.TryGetStopPx(out _));
        Assert.Equal(default, order.StopPx);
        Assert.Equal(0, order.NoPartyIDs.Count);
    }

    [Fact]
    public void The_header_reads_through_the_same_view()
    {
        var order = new NewOrderSingle(Fix44Views.Parse(FixSamples.NewOrderSingle));

        Assert.Equal("CLIENT01"u8.ToArray(), order.Header.SenderCompID.ToArray());
        Assert.Equal("BROKER01"u8.ToArray(), order.Header.TargetCompID.ToArray());
        Assert.Equal(1234, order.Header.MsgSeqNum);
        Assert.False(order.Header.TryGetPossDupFlag(out _));
    }

    [Fact]
    public void ExecutionReport_fields_read_in_place()
    {
        var report = new ExecutionReport(Fix44Views.Parse(FixSamples.ExecutionReport));

        Assert.Equal("BRK-998877"u8.ToArray(), report.OrderID.ToArray());
        Assert.Equal(Values.ExecType.Trade, report.ExecType);
        Assert.Equal(Values.OrdStatus.PartiallyFilled, report.OrdStatus);
        Assert.Equal(new FixDecimal(1000, 0), report.LeavesQty);
        Assert.Equal(new FixDecimal(500, 0), report.CumQty);
        Assert.Equal(new FixDecimal(41235, -2), report.LastPx);
    }

    [Fact]
    public void Group_entries_read_by_index_as_the_untyped_group_does()
    {
        var message = Fix44Views.Parse(FixSamples.BuildSnapshot(10));
        var snapshot = new MarketDataSnapshotFullRefresh(message);
        var untyped = message.GetGroup(FieldTags.NoMDEntries);

        Assert.Equal("MDREQ-1"u8.ToArray(), snapshot.MDReqID.ToArray());
        Assert.Equal(10, snapshot.NoMDEntries.Count);
        for (int i = 0; i < 10; i++)
        {
            var entry = snapshot.NoMDEntries[i];
            Assert.Equal(i % 2 == 0 ? Values.MDEntryType.Bid : Values.MDEntryType.Offer, entry.MDEntryType);
            Assert.True(untyped[i].TryGetDecimal(FieldTags.MDEntryPx, out var px));
            Assert.Equal(px, entry.MDEntryPx);
            Assert.Equal(new FixDecimal(100 * (i + 1), 0), entry.MDEntrySize);
            Assert.Equal("USD"u8.ToArray(), entry.Currency.ToArray());
            Assert.Equal((i / 2) + 1, entry.MDEntryPositionNo);
            Assert.Equal(untyped[i].Scope, entry.Scope);
        }

        Assert.Throws<ArgumentOutOfRangeException>(() => new MarketDataSnapshotFullRefresh(message).NoMDEntries[10].MDEntryType);
    }

    [Fact]
    public void Nested_groups_read_by_index()
    {
        // A NewOrderSingle with two parties, the second with two sub-IDs (Parties → NoPartyIDs → NoPartySubIDs).
        var message = Fix44Views.Parse("8=FIX.4.4|35=D|34=2|49=CLIENT01|52=20261121-21:30:15.123|56=BROKER01|11=A1|453=2|448=DESK1|447=D|452=1|" +
            "448=TRADER9|447=D|452=11|802=2|523=ROOM-4|803=10|523=+44 20 7946 0000|803=7|21=1|55=MSFT|54=2|60=20261121-21:30:15.120|38=10|40=1|");
        var order = new NewOrderSingle(message);

        Assert.Equal(2, order.NoPartyIDs.Count);
        var trader = order.NoPartyIDs[1];
        Assert.Equal("TRADER9"u8.ToArray(), trader.PartyID.ToArray());
        Assert.Equal(Values.PartyRole.OrderOriginationTrader, trader.PartyRole);
        Assert.Equal(0, order.NoPartyIDs[0].NoPartySubIDs.Count);
        Assert.Equal(2, trader.NoPartySubIDs.Count);
        Assert.Equal("+44 20 7946 0000"u8.ToArray(), trader.NoPartySubIDs[1].PartySubID.ToArray());
        Assert.Equal(7, trader.NoPartySubIDs[1].PartySubIDType);
    }

    [Fact]
    public void Generated_constants_match_the_engine()
    {
        Assert.Equal(RapidFix.Engine.Fields.Tags.ClOrdID, FieldTags.ClOrdID);
        Assert.Equal(MsgTypes.NewOrderSingle, MsgTypeKey.Pack("D"u8));
        Assert.Equal(MsgTypes.TradeCaptureReport, MsgTypeKey.Pack("AE"u8));
        Assert.Equal("AE", MsgTypes.TradeCaptureReportText);
        Assert.True(MsgTypes.TradeCaptureReportBytes.SequenceEqual("AE"u8));
    }

    [Fact]
    public void Reading_through_accessors_allocates_nothing()
    {
        var state = (Order: Fix44Views.Parse(FixSamples.NewOrderSingle), Snapshot: Fix44Views.Parse(FixSamples.BuildSnapshot(10)));
        long bytes = Allocations.Measure(state, static s =>
        {
            var order = new NewOrderSingle(s.Order);
            long sum = order.ClOrdID.Length + order.Side + order.OrderQty.Mantissa + order.TransactTime.UnixNanoseconds + order.Header.MsgSeqNum;
            var entries = new MarketDataSnapshotFullRefresh(s.Snapshot).NoMDEntries;
            for (int i = 0; i < entries.Count; i++)
            {
                sum += entries[i].MDEntryPx.Mantissa + entries[i].MDEntryType;
            }

            Sink += sum;
        }, iterations: 10_000);

        Assert.Equal(0, bytes);
    }

}
