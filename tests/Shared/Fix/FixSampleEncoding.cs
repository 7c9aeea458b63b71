using RapidFix.Engine.Codec;
using RapidFix.Engine.Fields;

namespace RapidFix.Tests.Shared;

/// <summary>How RapidFix encodes the sample messages (shared by the encoder tests and the benchmarks).</summary>
internal static class FixSampleEncoding
{
    /// <summary>The body of a NewOrderSingle: buy 100 MSFT at market, sent now, with ClOrdID <paramref name="clOrdId"/>.</summary>
    public static void WriteMarketOrder(ref Engine.Sessions.FixBodyWriter body, ReadOnlySpan<byte> clOrdId)
    {
        body.Add(Tags.ClOrdID, clOrdId);
        body.AddChar(21, (byte)'1');
        body.Add(Tags.Symbol, "MSFT"u8);
        body.AddChar(Tags.Side, (byte)'1');
        body.AddTimestamp(Tags.TransactTime, Engine.Time.EngineClock.Shared.UtcNowNanos);
        body.Add(Tags.OrderQty, 100L);
        body.AddChar(Tags.OrdType, (byte)'1');
    }

    /// <summary>The body of an ExecutionReport filling <paramref name="order"/> (a NewOrderSingle) completely at 100.25.</summary>
    public static void WriteFill(ref Engine.Sessions.FixBodyWriter body, FixMessage order)
    {
        body.Add(Tags.OrderID, order.GetValue(Tags.ClOrdID));
        body.Add(Tags.ClOrdID, order.GetValue(Tags.ClOrdID));
        body.Add(Tags.ExecID, order.GetValue(Tags.ClOrdID));
        body.AddChar(150, (byte)'F');
        body.AddChar(Tags.OrdStatus, (byte)'2');
        body.Add(Tags.Symbol, order.GetValue(Tags.Symbol));
        body.Add(Tags.Side, order.GetValue(Tags.Side));
        order.TryGetLong(Tags.OrderQty, out long qty);
        body.Add(Tags.OrderQty, qty);
        body.Add(32, qty);
        body.Add(31, new FixDecimal(10025, -2));
        body.Add(151, 0L);
        body.Add(14, qty);
        body.Add(6, new FixDecimal(10025, -2));
    }

    /// <summary>Encodes the sample ExecutionReport field by field.</summary>
    public static EncodedMessage EncodeExecutionReport(FixEncoder encoder, byte[] buffer, long sendingTime, int seqNum)
    {
        encoder.Begin(buffer, 0, buffer.Length, "FIX.4.4"u8, "8"u8);
        encoder.Add(Tags.MsgSeqNum, seqNum);
        encoder.Add(Tags.SenderCompID, "BROKER01"u8);
        encoder.AddTimestamp(Tags.SendingTime, sendingTime);
        encoder.Add(Tags.TargetCompID, "CLIENT01"u8);
        encoder.Add(Tags.OrderID, "BRK-998877"u8);
        encoder.Add(Tags.ClOrdID, "ORD-0000012345"u8);
        encoder.Add(Tags.ExecID, "EXE-5566778899"u8);
        encoder.AddChar(150, (byte)'F');
        encoder.AddChar(Tags.OrdStatus, (byte)'1');
        encoder.Add(Tags.Account, "ACCT-778"u8);
        encoder.Add(Tags.Symbol, "MSFT"u8);
        encoder.AddChar(Tags.Side, (byte)'1');
        encoder.Add(Tags.OrderQty, 1500);
        encoder.AddChar(Tags.OrdType, (byte)'2');
        encoder.Add(Tags.Price, new FixDecimal(41237, -2));
        encoder.Add(32, 500);
        encoder.Add(31, new FixDecimal(41235, -2));
        encoder.Add(151, 1000);
        encoder.Add(14, 500);
        encoder.Add(6, new FixDecimal(41235, -2));
        encoder.AddTimestamp(Tags.TransactTime, sendingTime - 1_000_000);
        if (!encoder.Finish(out var message))
        {
            throw new InvalidOperationException("buffer too small for the sample ExecutionReport");
        }

        return message;
    }

    /// <summary>
    /// A session message from the counterparty CLIENT to EXEC (FIX.4.4) with MsgSeqNum <paramref name="seq"/>,
    /// marked PossDupFlag=Y with an OrigSendingTime a second earlier when <paramref name="possDup"/>; a Logon
    /// ("A") gets EncryptMethod 0 and HeartBtInt 30. Written into <paramref name="buffer"/>, allocation-free.
    /// </summary>
    public static EncodedMessage WriteCounterpartyAdmin(FixEncoder encoder, byte[] buffer, ReadOnlySpan<byte> msgType, int seq, bool possDup, long nowNanos)
    {
        encoder.Begin(buffer, 0, buffer.Length, "FIX.4.4"u8, msgType);
        encoder.Add(Tags.MsgSeqNum, (long)seq);
        if (possDup)
        {
            encoder.AddChar(Tags.PossDupFlag, (byte)'Y');
        }

        encoder.Add(Tags.SenderCompID, "CLIENT"u8);
        encoder.AddTimestamp(Tags.SendingTime, nowNanos);
        encoder.Add(Tags.TargetCompID, "EXEC"u8);
        if (possDup)
        {
            encoder.AddTimestamp(Tags.OrigSendingTime, nowNanos - 1_000_000_000);
        }

        if (msgType.Length == 1 && msgType[0] == (byte)'A')
        {
            encoder.AddChar(Tags.EncryptMethod, (byte)'0');
            encoder.Add(Tags.HeartBtInt, 30L);
        }

        encoder.Finish(out var message);
        return message;
    }
}
