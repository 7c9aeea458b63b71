using RapidFix.Engine.Codec;
using RapidFix.Engine.Fields;
using RapidFix.Engine.Sessions;
using RapidFix.Engine.Time;
using RapidFix.Matching;
using RapidFix.Matching.StaticData;

namespace RapidFix.MatchingService;

/// <summary>
/// The matcher's sink in the service: each ack, CLS and exception notice becomes a FIX message body with the tag
/// choices of docs/matching.md ("Acks", "CLS", "Exceptions"), written with a <see cref="FixBodyWriter"/> over buffers
/// created once, and appended with its destination participant to the current <see cref="Queue"/>. A struct, passed by
/// reference to the matcher's generic entry points: the calls are direct, nothing is boxed or allocated.
/// </summary>
internal struct AnswerWriter : IMatchSink
{
    private static ReadOnlySpan<byte> NotApplicable => "[N/A]"u8;

    private readonly byte[][] _participants;
    private readonly Matcher _matcher;
    private readonly ReferenceData _reference;
    private readonly byte[] _body;
    private readonly byte[] _text;
    private readonly byte[] _scratch;
    private readonly EngineClock _clock;

    public AnswerWriter(byte[][] participants, Matcher matcher, EngineClock clock)
    {
        _participants = participants;
        _matcher = matcher;
        _reference = matcher.Reference;
        _body = new byte[MatchingCore.MaxAnswerBody];
        _text = new byte[ExceptionText.MaxLength];
        _scratch = new byte[64];
        _clock = clock;
        Queue = null;
        Dispatcher = null;
        _input = null;
        _inputOffset = 0;
        _echo = default;
        Unroutable = 0;
    }

    /// <summary>
    /// The time the answers of the current batch carry (TransactTime, the CLS's times; UTC nanoseconds), read once a
    /// batch by the matcher thread; 0 outside a batch: the clock is read for each answer then.
    /// </summary>
    public long BatchNanos { get; set; }

    private readonly long Now => BatchNanos != 0 ? BatchNanos : _clock.UtcNowNanos;

    /// <summary>Where answers go (set around each input).</summary>
    public OutputQueue? Queue { get; set; }

    /// <summary>
    /// Where answers go when there is no <see cref="Queue"/>: straight to the participants (a business-date roll, whose
    /// expiries are not bounded by a batch; its record is durable before it is processed).
    /// </summary>
    public OutputDispatcher? Dispatcher { get; set; }

    private byte[]? _input;
    private int _inputOffset;
    private EchoFields _echo;

    /// <summary>
    /// The message being processed, whose fields <paramref name="echo"/> locates: its bytes start at
    /// <paramref name="offset"/> in <paramref name="buffer"/> (its MsgSeqNum, MsgType, ISIN and TradeDate are echoed).
    /// </summary>
    public void SetInput(byte[] buffer, int offset, in EchoFields echo)
    {
        _input = buffer;
        _inputOffset = offset;
        _echo = echo;
    }

    /// <summary>No message is being processed (a roll's expiries).</summary>
    public void ClearInput() => _input = null;

    /// <summary>Answers for a participant that has no session here, or that did not fit (counted, not sent).</summary>
    public long Unroutable { get; private set; }

    /// <summary>Whether a MsgType is one the service answers with (what the restart rule counts in a store).</summary>
    public static bool IsAnswerType(ReadOnlySpan<byte> msgType) =>
        msgType.SequenceEqual("AR"u8) || msgType.SequenceEqual("P"u8) || msgType.SequenceEqual("AU"u8) || msgType.SequenceEqual("j"u8) ||
        msgType.SequenceEqual("AK"u8);

    public void OnAck(in MatchAck ack)
    {
        bool rejected = ack.Status == AckStatus.Rejected;
        if (ack.Kind == MessageKind.Set && !rejected)
        {
            return; // T has no ack: only a rejection is answered
        }

        var w = new FixBodyWriter(_body);
        var id = ack.MessageId.Length > 0 ? ack.MessageId.Span : NotApplicable;
        long now = Now;
        ReadOnlySpan<byte> type;
        switch (ack.Kind)
        {
            case MessageKind.Noe:
                type = "AR"u8;
                w.Add(571, id);
                w.AddChar(487, TransTypeOf(ack.Trans));
                w.AddChar(150, (byte)'F');
                w.AddChar(939, rejected ? (byte)'1' : (byte)'0');
                w.Add(Tags.Symbol, NotApplicable);
                if (_input is { } noe && _echo.IsinOffset >= 0)
                {
                    w.Add(48, noe.AsSpan(_inputOffset + _echo.IsinOffset, _echo.IsinLength));
                    w.AddChar(22, (byte)'4');
                }

                if (rejected)
                {
                    w.Add(751, ack.RejectCode);
                }

                break;
            case MessageKind.Alc:
                type = "P"u8;
                w.Add(70, id);
                w.AddTimestamp(60, now);
                w.AddChar(87, rejected ? (byte)'1' : (byte)'0');
                if (rejected)
                {
                    w.Add(88, ack.RejectCode);
                }

                break;
            case MessageKind.Npr:
                type = "AU"u8;
                w.Add(664, id);
                if (_input is not null && _echo.HasTradeDate)
                {
                    w.Add(75, _echo.TradeDate);
                }
                else
                {
                    w.Add(75, _matcher.BusinessDate);
                }

                w.AddTimestamp(60, now);
                w.AddChar(940, rejected ? (byte)'2' : (byte)'1');
                if (rejected)
                {
                    w.Add(774, ack.RejectCode);
                }

                break;
            default:
                // SET (and a message the reader could not classify): BusinessMessageReject.
                type = "j"u8;
                if (_input is not null && _echo.HasMsgSeqNum)
                {
                    w.Add(45, _echo.MsgSeqNum);
                }

                w.Add(372, _input is { } m && _echo.TypeLength > 0 ? m.AsSpan(_inputOffset + _echo.TypeOffset, _echo.TypeLength) : "T"u8);
                w.Add(379, id);
                w.Add(380, ack.RejectCode);
                break;
        }

        if (rejected && _matcher.Exceptions.TryGet(ack.ExceptionId, out var record))
        {
            int n = ExceptionText.Write(in record, _text);
            if (n > 0)
            {
                w.Add(Tags.Text, _text.AsSpan(0, n));
            }
        }

        Emit(ack.Sender.Span, type, ref w);
    }

    public void OnCleared(in ClearedTrade trade)
    {
        ref readonly var noe = ref trade.Noe;
        long now = Now;
        for (int i = 0; i < trade.AccountCount; i++)
        {
            ref readonly var alc = ref trade.Allocation(i);
            ref readonly var npr = ref trade.NetProceeds(i);
            ref readonly var set = ref trade.Settlement(i);
            int minor = npr.Currency >= 0 ? _reference.MinorUnits(npr.Currency) : 2;
            var w = new FixBodyWriter(_body);
            int n = ConfirmId(trade.TradeNumber, i + 1);
            w.Add(664, _scratch.AsSpan(0, n));
            w.AddChar(666, (byte)'0');
            w.AddChar(773, (byte)'1');
            w.AddChar(665, (byte)'4');
            w.AddTimestamp(60, now);
            w.Add(75, noe.TradeDate);
            w.Add(64, npr.SettlDate != 0 ? npr.SettlDate : noe.SettlDate);
            int place = set.Place >= 0 ? set.Place : npr.Place;
            w.Add(453, place >= 0 ? 3 : 2);
            AddParty(ref w, trade.ExecutingBroker, 1);
            AddParty(ref w, trade.InvestmentManager, 13);
            if (place >= 0)
            {
                AddParty(ref w, _reference.PlaceId(place), 10);
            }

            w.Add(Tags.Symbol, NotApplicable);
            w.Add(48, trade.Isin);
            w.AddChar(22, (byte)'4');
            w.AddChar(711, (byte)'0');
            w.AddChar(555, (byte)'0');
            w.AddChar(768, (byte)'1');
            w.AddTimestamp(769, now);
            w.AddChar(770, (byte)'1');
            AddScaled(ref w, 80, npr.Quantity, 0);
            w.AddChar(54, npr.Side);
            AddCurrency(ref w, 15, npr.Currency);
            w.AddChar(862, (byte)'1');
            w.AddChar(528, (byte)'A');
            AddScaled(ref w, 863, npr.Quantity, 0);
            w.Add(79, trade.AccountId(i));
            AddScaled(ref w, 6, npr.Price, 0);
            AddScaled(ref w, 381, npr.Gross, minor);
            if ((npr.Present & InputFields.Accrued) != 0)
            {
                AddScaled(ref w, 159, npr.Accrued, minor);
            }

            AddScaled(ref w, 118, npr.Net, minor);
            if ((npr.Present & InputFields.SettlAmount) != 0)
            {
                AddScaled(ref w, 119, npr.SettlAmount, minor);
            }

            if ((npr.Present & InputFields.SettlCurrency) != 0 && npr.SettlCurrency >= 0)
            {
                AddCurrency(ref w, 120, npr.SettlCurrency);
            }

            if ((npr.Present & InputFields.FxRate) != 0)
            {
                AddScaled(ref w, 155, npr.FxRate, 0);
            }

            if ((npr.Present & InputFields.Commission) != 0)
            {
                AddScaled(ref w, 12, npr.Commission, minor);
                w.AddChar(13, (byte)'3'); // the record holds it absolute
            }

            bool fees = (npr.Present & InputFields.Fees) != 0, tax = (npr.Present & InputFields.Tax) != 0;
            if (fees || tax)
            {
                w.Add(136, (fees ? 1 : 0) + (tax ? 1 : 0));
                if (fees)
                {
                    AddScaled(ref w, 137, npr.Fees, minor);
                    w.AddChar(139, (byte)'4');
                }

                if (tax)
                {
                    AddScaled(ref w, 137, npr.Tax, minor);
                    w.AddChar(139, (byte)'2');
                }
            }

            w.Add(70, alc.Id.Span);
            Emit(trade.InvestmentManager, "AK"u8, ref w);
            Emit(trade.ExecutingBroker, "AK"u8, ref w);
        }
    }

    public void OnException(in MatchException exception)
    {
        // The sender hears of its own message through the rejecting ack; the participant whose stored message
        // disagreed gets a notice, and on expiry each message's sender does.
        scoped ReadOnlySpan<byte> to, id;
        MessageKind kind;
        if (exception.Reason == ExceptionReason.Expired)
        {
            to = exception.Sender.Span;
            kind = exception.Kind;
            id = exception.MessageId.Span;
        }
        else if (exception.Counterparty.Length > 0)
        {
            to = exception.Counterparty.Span;
            kind = exception.CounterpartyKind;
            id = exception.CounterpartyMessageId.Span;
        }
        else
        {
            return;
        }

        var w = new FixBodyWriter(_body);
        w.Add(372, MsgTypeOf(kind));
        w.Add(379, id.Length > 0 ? id : NotApplicable);
        w.AddChar(380, (byte)'0');
        int n = ExceptionText.Write(in exception, _text);
        if (n > 0)
        {
            w.Add(Tags.Text, _text.AsSpan(0, n));
        }

        Emit(to, "j"u8, ref w);
    }

    private static byte TransTypeOf(TransType trans) => trans switch
    {
        TransType.Cancel => (byte)'1',
        TransType.Replace => (byte)'2',
        _ => (byte)'0',
    };

    private static ReadOnlySpan<byte> MsgTypeOf(MessageKind kind) => kind switch
    {
        MessageKind.Noe => "AE"u8,
        MessageKind.Alc => "J"u8,
        MessageKind.Npr => "AK"u8,
        _ => "T"u8,
    };

    private readonly int ConfirmId(long tradeNumber, int account)
    {
        var s = _scratch.AsSpan();
        "CLS-"u8.CopyTo(s);
        int n = 4 + FixValue.FormatLong(tradeNumber, s.Slice(4));
        s[n++] = (byte)'-';
        return n + FixValue.FormatLong(account, s.Slice(n));
    }

    private static void AddParty(ref FixBodyWriter w, ReadOnlySpan<byte> id, int role)
    {
        w.Add(448, id);
        w.AddChar(447, (byte)'D');
        w.Add(452, role);
    }

    private readonly void AddScaled(ref FixBodyWriter w, int tag, long value, int minDecimals)
    {
        int n = Scaled.Format(value, _scratch, minDecimals);
        w.Add(tag, _scratch.AsSpan(0, n));
    }

    private readonly void AddCurrency(ref FixBodyWriter w, int tag, int currency)
    {
        int n = currency >= 0 ? Codes.WriteCurrency(_reference.CurrencyCode(currency), _scratch) : 0;
        if (n > 0)
        {
            w.Add(tag, _scratch.AsSpan(0, n));
        }
    }

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

        if (destination >= 0 && !body.Overflowed && Queue is null && Dispatcher is not null)
        {
            Dispatcher.Dispatch(destination, msgType, body.Written); // a roll's expiries: no batch bound
        }
        else if (destination < 0 || body.Overflowed || Queue is null || !Queue.TryAdd(destination, msgType, body.Written))
        {
            Unroutable++;
        }
    }
}
