using BenchmarkDotNet.Attributes;
using RapidFix.Engine.Codec;
using RapidFix.Engine.Time;
using RapidFix.Tests.Shared;

namespace RapidFix.Benchmarks.Fix;

/// <summary>
/// Send path for one ExecutionReport (21 fields, two timestamps): RapidFix encodes into a reused buffer; QuickFIX/n
/// builds a Message, renders it with ConstructString and turns it into bytes, as its session does.
/// </summary>
public class FixEncodeBenchmarks
{
    private readonly FixEncoder _encoder = new();
    private readonly byte[] _buffer = new byte[1024];
    private readonly EngineClock _clock = new();
    private int _seq;

    [Benchmark(Baseline = true, Description = "RapidFix encode ExecutionReport")]
    public int Encode() => FixSampleEncoding.EncodeExecutionReport(_encoder, _buffer, _clock.UtcNowNanos, ++_seq).Length;

#if QUICKFIXN
    [Benchmark(Description = "QuickFIX/n encode ExecutionReport")]
    public int QuickFixEncode()
    {
        var m = new QuickFix.Message();
        var now = _clock.UtcNow;
        m.Header.SetField(new QuickFix.Fields.BeginString("FIX.4.4"));
        m.Header.SetField(new QuickFix.Fields.MsgType("8"));
        m.Header.SetField(new QuickFix.Fields.MsgSeqNum((ulong)++_seq));
        m.Header.SetField(new QuickFix.Fields.SenderCompID("BROKER01"));
        m.Header.SetField(new QuickFix.Fields.SendingTime(now, QuickFix.Fields.Converters.TimeStampPrecision.Millisecond));
        m.Header.SetField(new QuickFix.Fields.TargetCompID("CLIENT01"));
        m.SetField(new QuickFix.Fields.OrderID("BRK-998877"));
        m.SetField(new QuickFix.Fields.ClOrdID("ORD-0000012345"));
        m.SetField(new QuickFix.Fields.ExecID("EXE-5566778899"));
        m.SetField(new QuickFix.Fields.ExecType('F'));
        m.SetField(new QuickFix.Fields.OrdStatus('1'));
        m.SetField(new QuickFix.Fields.Account("ACCT-778"));
        m.SetField(new QuickFix.Fields.Symbol("MSFT"));
        m.SetField(new QuickFix.Fields.Side('1'));
        m.SetField(new QuickFix.Fields.OrderQty(1500m));
        m.SetField(new QuickFix.Fields.OrdType('2'));
        m.SetField(new QuickFix.Fields.Price(412.37m));
        m.SetField(new QuickFix.Fields.LastQty(500m));
        m.SetField(new QuickFix.Fields.LastPx(412.35m));
        m.SetField(new QuickFix.Fields.LeavesQty(1000m));
        m.SetField(new QuickFix.Fields.CumQty(500m));
        m.SetField(new QuickFix.Fields.AvgPx(412.35m));
        m.SetField(new QuickFix.Fields.TransactTime(now.AddMilliseconds(-1), QuickFix.Fields.Converters.TimeStampPrecision.Millisecond));
        return System.Text.Encoding.Latin1.GetBytes(m.ConstructString()).Length;
    }
#endif
}
