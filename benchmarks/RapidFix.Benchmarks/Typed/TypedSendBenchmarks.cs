using System.Net;
using BenchmarkDotNet.Attributes;
using BenchmarkDotNet.Configs;
using RapidFix.Engine.Codec;
using RapidFix.Engine.Configuration;
using RapidFix.Engine.Fields;
using RapidFix.Engine.Sessions;
using RapidFix.Engine.Store;
using RapidFix.Engine.Time;
using RapidFix.Messages.Fix44;
using RapidFix.Tests.Shared;

namespace RapidFix.Benchmarks.Typed;

/// <summary>
/// One ExecutionReport (18 body fields) sent through a logged-on session, both ways side by side: the body written
/// with a <see cref="FixBodyWriter"/> into the caller's buffer and copied by <see cref="FixSession.Send"/> (baseline),
/// and the generated <see cref="ExecutionReportWriter"/> writing in place in the session's buffer. The transport only
/// counts; the session persists nothing (PersistMessages=N), so the figure is the encode path alone. Beside them, the
/// same report through a bare <see cref="FixEncoder"/> (what <c>FixEncodeBenchmarks</c> measures: no session, no
/// lock, the header written by hand), the floor both session paths stand on. A second pair sends the same report with
/// a repeating group of three parties (NoPartyIDs: 10 more fields), both ways: each category has its own baseline.
/// </summary>
[MemoryDiagnoser]
[GroupBenchmarksBy(BenchmarkLogicalGroupRule.ByCategory)]
[CategoriesColumn]
public class TypedSendBenchmarks
{
    private readonly byte[] _body = new byte[1024];
    private readonly FixEncoder _encoder = new();
    private readonly byte[] _buffer = new byte[1024];
    private readonly EngineClock _clock = new();
    private FixSession _session = null!;
    private int _seq;

    [GlobalSetup]
    public void Setup()
    {
        var settings = SettingsFile.Parse("""
            [DEFAULT]
            ConnectionType=acceptor
            SocketAcceptPort=0
            StartTime=00:00:00
            EndTime=00:00:00
            PersistMessages=N
            [SESSION]
            BeginString=FIX.4.4
            SenderCompID=BROKER01
            TargetCompID=CLIENT01
            """, "typed-bench.cfg");
        var options = FixSessionOptions.FromSettings(settings.Sessions[0]);
        _session = new FixSession(options, new MemoryMessageStore(1_000, 1 << 20, DateTime.UtcNow), new FixApplicationBase());
        _session.TryAttach(new CountingTransport());
        var logon = FixSamples.Wire($"8=FIX.4.4|35=A|34=1|49=CLIENT01|52={DateTime.UtcNow:yyyyMMdd-HH:mm:ss.fff}|56=BROKER01|98=0|108=30|");
        var view = new FixMessage();
        view.Parse(logon, 0, logon.Length, options.Dictionary);
        _session.OnMessage(view);
        if (!_session.IsLoggedOn)
        {
            throw new InvalidOperationException("the benchmark session did not log on");
        }
    }

    private const string Plain = "ExecutionReport";
    private const string WithGroup = "ExecutionReport + 3 parties";

    [Benchmark(Baseline = true, Description = "FixBodyWriter + Send (copy)")]
    [BenchmarkCategory(Plain)]
    public SendResult BodyWriterSend()
    {
        var body = new FixBodyWriter(_body);
        body.Add(FieldTags.OrderID, "BRK-998877"u8);
        body.Add(FieldTags.ClOrdID, "ORD-0000012345"u8);
        body.Add(FieldTags.ExecID, "EXE-5566778899"u8);
        body.AddChar(FieldTags.ExecType, Values.ExecType.Trade);
        body.AddChar(FieldTags.OrdStatus, Values.OrdStatus.PartiallyFilled);
        body.Add(FieldTags.Account, "ACCT-778"u8);
        body.Add(FieldTags.Symbol, "MSFT"u8);
        body.AddChar(FieldTags.Side, Values.Side.Buy);
        body.Add(FieldTags.OrderQty, new FixDecimal(1500, 0));
        body.AddChar(FieldTags.OrdType, Values.OrdType.Limit);
        body.Add(FieldTags.Price, new FixDecimal(41237, -2));
        body.Add(FieldTags.LastQty, new FixDecimal(500, 0));
        body.Add(FieldTags.LastPx, new FixDecimal(41235, -2));
        body.Add(FieldTags.LeavesQty, new FixDecimal(1000, 0));
        body.Add(FieldTags.CumQty, new FixDecimal(500, 0));
        body.Add(FieldTags.AvgPx, new FixDecimal(41235, -2));
        body.AddTimestamp(FieldTags.TransactTime, 1_795_000_000_000_000_000);
        return _session.Send(MsgTypes.ExecutionReportBytes, body.Written);
    }

    [Benchmark(Description = "typed writer in place")]
    [BenchmarkCategory(Plain)]
    public SendResult TypedWriterSend()
    {
        using var w = ExecutionReportWriter.Begin(_session);
        w.OrderID("BRK-998877"u8).ClOrdID("ORD-0000012345"u8).ExecID("EXE-5566778899"u8)
            .ExecType(Values.ExecType.Trade).OrdStatus(Values.OrdStatus.PartiallyFilled).Account("ACCT-778"u8).Symbol("MSFT"u8)
            .Side(Values.Side.Buy).OrderQty(new FixDecimal(1500, 0)).OrdType(Values.OrdType.Limit).Price(new FixDecimal(41237, -2))
            .LastQty(new FixDecimal(500, 0)).LastPx(new FixDecimal(41235, -2)).LeavesQty(new FixDecimal(1000, 0))
            .CumQty(new FixDecimal(500, 0)).AvgPx(new FixDecimal(41235, -2)).TransactTime(1_795_000_000_000_000_000);
        return w.Send();
    }

    [Benchmark(Description = "FixEncoder alone (no session)")]
    [BenchmarkCategory(Plain)]
    public int EncoderAlone() => FixSampleEncoding.EncodeExecutionReport(_encoder, _buffer, _clock.UtcNowNanos, ++_seq).Length;

    [Benchmark(Baseline = true, Description = "FixBodyWriter + Send (copy), 3 parties")]
    [BenchmarkCategory(WithGroup)]
    public SendResult BodyWriterSendGroup()
    {
        var body = new FixBodyWriter(_body);
        body.Add(FieldTags.OrderID, "BRK-998877"u8);
        body.Add(FieldTags.ClOrdID, "ORD-0000012345"u8);
        body.Add(FieldTags.ExecID, "EXE-5566778899"u8);
        body.AddChar(FieldTags.ExecType, Values.ExecType.Trade);
        body.AddChar(FieldTags.OrdStatus, Values.OrdStatus.PartiallyFilled);
        body.Add(FieldTags.NoPartyIDs, 3L);
        body.Add(FieldTags.PartyID, "DESK1"u8);
        body.AddChar(FieldTags.PartyIDSource, Values.PartyIDSource.ProprietaryCustomCode);
        body.Add(FieldTags.PartyRole, Values.PartyRole.ExecutingFirm);
        body.Add(FieldTags.PartyID, "TRADER9"u8);
        body.AddChar(FieldTags.PartyIDSource, Values.PartyIDSource.ProprietaryCustomCode);
        body.Add(FieldTags.PartyRole, Values.PartyRole.OrderOriginationTrader);
        body.Add(FieldTags.PartyID, "CLEARER2"u8);
        body.AddChar(FieldTags.PartyIDSource, Values.PartyIDSource.ProprietaryCustomCode);
        body.Add(FieldTags.PartyRole, Values.PartyRole.ClearingFirm);
        body.Add(FieldTags.Account, "ACCT-778"u8);
        body.Add(FieldTags.Symbol, "MSFT"u8);
        body.AddChar(FieldTags.Side, Values.Side.Buy);
        body.Add(FieldTags.OrderQty, new FixDecimal(1500, 0));
        body.AddChar(FieldTags.OrdType, Values.OrdType.Limit);
        body.Add(FieldTags.Price, new FixDecimal(41237, -2));
        body.Add(FieldTags.LastQty, new FixDecimal(500, 0));
        body.Add(FieldTags.LastPx, new FixDecimal(41235, -2));
        body.Add(FieldTags.LeavesQty, new FixDecimal(1000, 0));
        body.Add(FieldTags.CumQty, new FixDecimal(500, 0));
        body.Add(FieldTags.AvgPx, new FixDecimal(41235, -2));
        body.AddTimestamp(FieldTags.TransactTime, 1_795_000_000_000_000_000);
        return _session.Send(MsgTypes.ExecutionReportBytes, body.Written);
    }

    [Benchmark(Description = "typed writer in place, 3 parties")]
    [BenchmarkCategory(WithGroup)]
    public SendResult TypedWriterSendGroup()
    {
        using var w = ExecutionReportWriter.Begin(_session);
        w.OrderID("BRK-998877"u8).ClOrdID("ORD-0000012345"u8).ExecID("EXE-5566778899"u8)
            .ExecType(Values.ExecType.Trade).OrdStatus(Values.OrdStatus.PartiallyFilled);
        w.NoPartyIDs(3)
            .PartyID("DESK1"u8).PartyIDSource(Values.PartyIDSource.ProprietaryCustomCode).PartyRole(Values.PartyRole.ExecutingFirm)
            .PartyID("TRADER9"u8).PartyIDSource(Values.PartyIDSource.ProprietaryCustomCode).PartyRole(Values.PartyRole.OrderOriginationTrader)
            .PartyID("CLEARER2"u8).PartyIDSource(Values.PartyIDSource.ProprietaryCustomCode).PartyRole(Values.PartyRole.ClearingFirm);
        w.Account("ACCT-778"u8).Symbol("MSFT"u8)
            .Side(Values.Side.Buy).OrderQty(new FixDecimal(1500, 0)).OrdType(Values.OrdType.Limit).Price(new FixDecimal(41237, -2))
            .LastQty(new FixDecimal(500, 0)).LastPx(new FixDecimal(41235, -2)).LeavesQty(new FixDecimal(1000, 0))
            .CumQty(new FixDecimal(500, 0)).AvgPx(new FixDecimal(41235, -2)).TransactTime(1_795_000_000_000_000_000);
        return w.Send();
    }

    private sealed class CountingTransport : ISessionTransport
    {
        public long Bytes { get; private set; }

        public EndPoint? RemoteEndPoint { get; } = new IPEndPoint(IPAddress.Loopback, 40_000);

        public bool Send(ReadOnlySpan<byte> message)
        {
            Bytes += message.Length;
            return true;
        }

        public void Disconnect(DisconnectReason reason)
        {
        }
    }
}
