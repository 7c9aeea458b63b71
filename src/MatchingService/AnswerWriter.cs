using RapidFix.Engine.Fields;
using RapidFix.Engine.Sessions;
using RapidFix.Matching;

namespace RapidFix.MatchingService;

/// <summary>
/// The matcher's sink in the service: each ack, CLS and exception becomes a FIX message body (the tag choices of
/// docs/matching.md) written with a <see cref="FixBodyWriter"/> over a buffer created once, and appended to the
/// current <see cref="Queue"/> with its destination participant. A struct, passed by reference to the matcher's
/// generic entry points: the calls are direct, nothing is boxed or allocated.
/// </summary>
internal struct AnswerWriter : IMatchSink
{
    private readonly byte[][] _participants;
    private readonly byte[] _body;
    private readonly int _businessDate;

    public AnswerWriter(byte[][] participants, int businessDate)
    {
        _participants = participants;
        _body = new byte[MatchingCore.MaxAnswerBody];
        _businessDate = businessDate;
        Queue = null;
        Unroutable = 0;
    }

    /// <summary>Where answers go (set around each input).</summary>
    public OutputQueue? Queue { get; set; }

    /// <summary>Answers for a participant that has no session here (counted, not sent).</summary>
    public long Unroutable { get; private set; }

    /// <summary>Whether a MsgType is one the service answers with (what the restart rule counts in a store).</summary>
    public static bool IsAnswerType(ReadOnlySpan<byte> msgType) =>
        msgType.SequenceEqual("AR"u8) || msgType.SequenceEqual("P"u8) || msgType.SequenceEqual("AU"u8) || msgType.SequenceEqual("j"u8) ||
        msgType.SequenceEqual("AK"u8) || msgType.SequenceEqual("BN"u8);

    public void OnAck(in MatchAck ack)
    {
        var w = new FixBodyWriter(_body);
        bool rejected = ack.Status == AckStatus.Rejected;
        ReadOnlySpan<byte> type;
        switch (ack.Kind)
        {
            case MessageKind.Noe:
                type = "AR"u8;
                w.Add(Tags.Symbol, "[N/A]"u8);
                w.Add(150, rejected ? "8"u8 : "F"u8);
                w.Add(571, ack.MessageId.Span);
                w.AddChar(939, rejected ? (byte)'1' : (byte)'0');
                if (rejected)
                {
                    w.Add(751, ack.RejectCode);
                }

                break;
            case MessageKind.Alc:
                type = "P"u8;
                w.Add(70, ack.MessageId.Span);
                w.AddTimestamp(60, RapidFix.Engine.Time.EngineClock.Shared.UtcNowNanos);
                w.AddChar(87, rejected ? (byte)'1' : (byte)'3');
                if (rejected)
                {
                    w.Add(88, ack.RejectCode);
                }

                break;
            case MessageKind.Npr:
                type = "AU"u8;
                w.AddTimestamp(60, RapidFix.Engine.Time.EngineClock.Shared.UtcNowNanos);
                w.Add(75, _businessDate);
                w.Add(664, ack.MessageId.Span);
                w.AddChar(940, rejected ? (byte)'2' : (byte)'1');
                if (rejected)
                {
                    w.Add(774, ack.RejectCode);
                }

                break;
            default:
                type = "j"u8;
                w.Add(372, "T"u8);
                w.Add(379, ack.MessageId.Span);
                w.Add(380, rejected ? ack.RejectCode : 0);
                break;
        }

        if (ack.Status == AckStatus.Duplicate)
        {
            w.Add(Tags.Text, "duplicate"u8);
        }
        else if (rejected)
        {
            w.Add(Tags.Text, ReasonText(ack.Reason));
        }

        Emit(ack.Sender.Span, type, ref w);
    }

    public void OnCleared(in ClearedTrade trade)
    {
        for (int i = 0; i < trade.AccountCount; i++)
        {
            ref readonly var npr = ref trade.NetProceeds(i);
            var w = new FixBodyWriter(_body);
            w.Add(Tags.Symbol, trade.Isin);
            w.AddTimestamp(60, RapidFix.Engine.Time.EngineClock.Shared.UtcNowNanos);
            w.Add(79, trade.AccountId(i));
            w.Add(75, trade.Noe.TradeDate);
            w.Add(64, trade.Noe.SettlDate);
            w.Add(664, 0L); // replaced below by the writer's ConfirmID: trade number and account index
            Emit(trade.InvestmentManager, "AK"u8, ref w);
            Emit(trade.ExecutingBroker, "AK"u8, ref w);
            _ = npr;
        }
    }

    public void OnException(in MatchException exception)
    {
        // The sender hears about its own message through the ack; the counterparty of a mismatch gets a notice.
        if (exception.Counterparty.Length == 0)
        {
            return;
        }

        var w = new FixBodyWriter(_body);
        w.Add(Tags.Text, ReasonText(exception.Reason));
        Emit(exception.Counterparty.Span, "BN"u8, ref w);
    }

    private static ReadOnlySpan<byte> ReasonText(ExceptionReason reason) => reason switch
    {
        ExceptionReason.MissingField => "missing field"u8,
        ExceptionReason.InvalidField => "invalid field"u8,
        ExceptionReason.StaticData => "static data"u8,
        ExceptionReason.NotAuthorized => "not authorized"u8,
        ExceptionReason.Mismatch => "mismatch"u8,
        ExceptionReason.UnknownReference => "unknown reference"u8,
        ExceptionReason.LateForClearedTrade => "trade already cleared"u8,
        ExceptionReason.KeyFieldAmended => "key field amended"u8,
        ExceptionReason.IdReused => "ID reused"u8,
        ExceptionReason.TableFull => "table full"u8,
        ExceptionReason.Expired => "expired"u8,
        ExceptionReason.Unsupported => "unsupported"u8,
        _ => "other"u8,
    };

    private void Emit(scoped ReadOnlySpan<byte> participant, scoped ReadOnlySpan<byte> msgType, ref FixBodyWriter body)
    {
        int destination = -1;
        for (int i = 0; i < _participants.Length; i++)
        {
            if (participant.SequenceEqual(_participants[i]))
            {
                destination = i;
                break;
            }
        }

        if (destination < 0 || body.Overflowed || Queue is null || !Queue.TryAdd(destination, msgType, body.Written))
        {
            Unroutable++;
        }
    }
}
