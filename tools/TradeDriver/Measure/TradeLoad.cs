using System.Diagnostics;
using RapidFix.Engine.Codec;
using RapidFix.Engine.Fields;
using RapidFix.Engine.Sessions;
using RapidFix.MatchingService;

namespace RapidFix.TradeDriver.Measure;

/// <summary>
/// Where each trade message's intended send time is kept until its answer comes back. The matching service answers
/// with the input's own ID (TradeReportID, AllocID, ConfirmID: "T&lt;trade&gt;-NOE", "-ALC1"...), not with arbitrary
/// fields, so the intended time rides on that ID: the driver writes it into the slot the ID names when it sends, and
/// the sink reads it back from the slot the answer's ID names. A pre-sized array: no clock games (one process, one
/// clock) and no allocation.
/// </summary>
internal sealed class IntendedTimes
{
    /// <summary>Slots per trade: NOE, ALC1, ALC2, NPR1, NPR2, SET1, SET2 (and one spare).</summary>
    public const int SlotsPerTrade = 8;

    private readonly long[] _ticks;

    public IntendedTimes(int trades) => _ticks = new long[(trades + 1) * SlotsPerTrade];

    /// <summary>The trades the table holds (numbers 1..Trades).</summary>
    public int Trades => (_ticks.Length / SlotsPerTrade) - 1;

    public void Set(int slot, long tick) => Volatile.Write(ref _ticks[slot], tick);

    /// <summary>The intended time of a slot; 0 when nothing was sent for it.</summary>
    public long Get(int slot) => (uint)slot < (uint)_ticks.Length ? Volatile.Read(ref _ticks[slot]) : 0;

    /// <summary>The latest intended time among a trade's messages (the one that can complete its match); 0 when none.</summary>
    public long LatestOfTrade(int trade)
    {
        if (trade <= 0 || trade > Trades)
        {
            return 0;
        }

        long latest = 0;
        for (int k = 0; k < SlotsPerTrade; k++)
        {
            latest = Math.Max(latest, Volatile.Read(ref _ticks[(trade * SlotsPerTrade) + k]));
        }

        return latest;
    }

    /// <summary>
    /// The slot an ID names: "T&lt;n&gt;-NOE" is trade n's slot 0, "-ALC1"/"-ALC2" 1 and 2, "-NPR1"/"-NPR2" 3 and 4,
    /// "-SET1"/"-SET2" 5 and 6; -1 for anything else (an amendment's ID, a foreign one).
    /// </summary>
    public static int SlotOf(ReadOnlySpan<byte> id, out int trade)
    {
        trade = 0;
        if (id.Length < 6 || id[0] != (byte)'T')
        {
            return -1;
        }

        int i = 1;
        long n = 0;
        while (i < id.Length && id[i] >= (byte)'0' && id[i] <= (byte)'9' && n < int.MaxValue)
        {
            n = (n * 10) + (id[i] - '0');
            i++;
        }

        if (i == 1 || n > int.MaxValue || i >= id.Length || id[i] != (byte)'-')
        {
            return -1;
        }

        trade = (int)n;
        var kind = id[(i + 1)..];
        int k = kind.SequenceEqual("NOE"u8) ? 0
            : kind.Length == 4 && (kind[3] == (byte)'1' || kind[3] == (byte)'2')
                ? kind[..3].SequenceEqual("ALC"u8) ? 1 : kind[..3].SequenceEqual("NPR"u8) ? 3 : kind[..3].SequenceEqual("SET"u8) ? 5 : -1
                : -1;
        if (k < 0)
        {
            return -1;
        }

        if (k > 0)
        {
            k += kind[3] - '1';
        }

        return (int)((n * SlotsPerTrade) + k);
    }
}

/// <summary>One message of the driver's set, ready to send: its session, type, body and intended-time slot.</summary>
internal readonly record struct PreparedMessage(int Session, byte[] MsgType, byte[] Body, int Slot);

/// <summary>
/// The open-loop driver: sends the prepared set on the schedule, each message at (or as soon as possible after)
/// its intended time, never waiting for answers. A refused send (the session's back-pressure) is counted and the
/// message dropped: the schedule goes on. <see cref="SendDue"/> is the hot path and allocates nothing.
/// </summary>
internal sealed class OpenLoopDriver
{
    private readonly PreparedMessage[] _messages;
    private readonly FixSession[] _sessions;
    private readonly OpenLoopSchedule _schedule;
    private readonly IntendedTimes _intended;
    private readonly LatencyRecorder _latency;
    private long _next;
    private long _refused;
    private long _sentByPhaseSteady;

    public OpenLoopDriver(PreparedMessage[] messages, FixSession[] sessions, OpenLoopSchedule schedule, IntendedTimes intended, LatencyRecorder latency)
    {
        if (messages.Length < schedule.Total)
        {
            throw new ArgumentException($"the schedule needs {schedule.Total} messages, the set has {messages.Length}", nameof(messages));
        }

        _messages = messages;
        _sessions = sessions;
        _schedule = schedule;
        _intended = intended;
        _latency = latency;
    }

    /// <summary>Messages handed to the sessions or refused so far (the next message's index).</summary>
    public long Next => Volatile.Read(ref _next);

    /// <summary>Sends the sessions refused (back-pressure).</summary>
    public long Refused => Interlocked.Read(ref _refused);

    /// <summary>Messages of the steady phase sent.</summary>
    public long SentSteady => Interlocked.Read(ref _sentByPhaseSteady);

    /// <summary>Whether the whole schedule was sent.</summary>
    public bool Done => Next >= _schedule.Total;

    /// <summary>Sends every message due at <paramref name="now"/>; returns how many it sent or refused.</summary>
    public int SendDue(long now)
    {
        long due = _schedule.DueBy(now);
        long next = _next;
        int n = 0;
        while (next < due)
        {
            ref readonly var m = ref _messages[next];
            long intended = _schedule.IntendedTime(next);
            var phase = _schedule.PhaseOf(next);
            _intended.Set(m.Slot, intended);
            if (_sessions[m.Session].Send(m.MsgType, m.Body) == SendResult.Sent)
            {
                _latency.Record(LatencyChannel.Send, phase, Stopwatch.GetTimestamp() - intended);
                if (phase == RunPhase.Steady)
                {
                    _sentByPhaseSteady++;
                }
            }
            else
            {
                _intended.Set(m.Slot, 0);
                Interlocked.Increment(ref _refused);
            }

            next++;
            n++;
        }

        Volatile.Write(ref _next, next);
        return n;
    }

    /// <summary>
    /// Runs the schedule to its end (or until <paramref name="stop"/>): sends what is due, then sleeps a millisecond
    /// or yields until the next message is due. The sleep makes bursts of about a millisecond's messages; their
    /// latencies still count from their own intended times.
    /// </summary>
    public void Run(Func<bool> stop)
    {
        while (!Done && !stop())
        {
            SendDue(Stopwatch.GetTimestamp());
            if (Done)
            {
                break;
            }

            long wait = _schedule.IntendedTime(Next) - Stopwatch.GetTimestamp();
            if (wait > _schedule.Frequency / 1000)
            {
                Thread.Sleep(1);
            }
            else if (wait > 0)
            {
                Thread.Yield();
            }
        }
    }
}

/// <summary>
/// The sink: every answer the service sends back, on the participants' session threads. Acks and CLS get their
/// latency from the intended send time of what they answer (<see cref="IntendedTimes"/>), recorded into the phase
/// of that send; exception notices and rejecting acks are counted. Allocation-free.
/// </summary>
internal sealed class TradeSink : Engine.Sessions.FixApplicationBase
{
    private readonly IntendedTimes _intended;
    private readonly LatencyRecorder _latency;
    private OpenLoopSchedule _schedule;
    private long _received;
    private long _acks;
    private long _rejected;
    private long _cls;
    private long _notices;
    private long _untraced;

    public TradeSink(IntendedTimes intended, OpenLoopSchedule schedule, LatencyRecorder latency)
    {
        _intended = intended;
        _schedule = schedule;
        _latency = latency;
    }

    /// <summary>The schedule that runs (its phases split the latencies); set before the first send.</summary>
    public OpenLoopSchedule Schedule
    {
        get => Volatile.Read(ref _schedule);
        set => Volatile.Write(ref _schedule, value);
    }

    /// <summary>Application messages received.</summary>
    public long Received => Interlocked.Read(ref _received);

    /// <summary>Acks received (rejecting ones included).</summary>
    public long Acks => Interlocked.Read(ref _acks);

    /// <summary>Acks that refused their input.</summary>
    public long Rejected => Interlocked.Read(ref _rejected);

    /// <summary>CLS received (one per trade and participant told).</summary>
    public long Cls => Interlocked.Read(ref _cls);

    /// <summary>Exception notices received.</summary>
    public long Notices => Interlocked.Read(ref _notices);

    /// <summary>Answers whose ID named no message the driver sent (not measured).</summary>
    public long Untraced => Interlocked.Read(ref _untraced);

    public override MessageDisposition FromApp(FixSession session, FixMessage message)
    {
        Observe(message, Stopwatch.GetTimestamp());
        return MessageDisposition.Accept;
    }

    /// <summary>Classifies one answer received at <paramref name="now"/> and records its latency.</summary>
    public void Observe(FixMessage message, long now)
    {
        Interlocked.Increment(ref _received);
        var type = message.MsgType;
        int tag = type.SequenceEqual("AR"u8) ? 571 : type.SequenceEqual("P"u8) ? 70 : type.SequenceEqual("AU"u8) ? 664 : 0;
        if (tag != 0)
        {
            Interlocked.Increment(ref _acks);
            if (Rejecting(message, type))
            {
                Interlocked.Increment(ref _rejected);
            }

            RecordAck(message, tag, now);
            return;
        }

        if (type.SequenceEqual("AK"u8))
        {
            if (message.TryGetText(FieldScope.Message, 773, out var confirmType) && confirmType.SequenceEqual("1"u8)
                && message.TryGetText(FieldScope.Message, 70, out var allocId) && IntendedTimes.SlotOf(allocId, out int trade) >= 0
                && _intended.LatestOfTrade(trade) is var latest and > 0)
            {
                Interlocked.Increment(ref _cls);
                _latency.Record(LatencyChannel.Cls, Schedule.PhaseAt(latest), now - latest);
            }
            else
            {
                Interlocked.Increment(ref _untraced);
            }

            return;
        }

        if (type.SequenceEqual("j"u8))
        {
            if (message.TryGetInt(45, out _))
            {
                // A refused SET's ack: a BusinessMessageReject naming its RefSeqNum.
                Interlocked.Increment(ref _acks);
                Interlocked.Increment(ref _rejected);
                RecordAck(message, 379, now);
            }
            else
            {
                Interlocked.Increment(ref _notices);
            }
        }
    }

    private void RecordAck(FixMessage message, int tag, long now)
    {
        if (message.TryGetText(FieldScope.Message, tag, out var id) && IntendedTimes.SlotOf(id, out _) is int slot and >= 0
            && _intended.Get(slot) is var intended and > 0)
        {
            _latency.Record(LatencyChannel.Ack, Schedule.PhaseAt(intended), now - intended);
        }
        else
        {
            Interlocked.Increment(ref _untraced);
        }
    }

    private static bool Rejecting(FixMessage m, ReadOnlySpan<byte> type)
    {
        var (tag, refused) = type[0] == (byte)'A' && type[1] == (byte)'R' ? (939, (byte)'1') : type[0] == (byte)'P' ? (87, (byte)'1') : (940, (byte)'2');
        return m.TryGetText(FieldScope.Message, tag, out var v) && v.Length == 1 && v[0] == refused;
    }
}

/// <summary>Builds the driver's set: good trades only (every one should match), each message with its session and slot.</summary>
internal static class TradeSet
{
    /// <summary>Generates enough standard trades for <paramref name="messages"/> messages and prepares them.</summary>
    public static (PreparedMessage[] Messages, IntendedTimes Intended) Prepare(long messages, IReadOnlyList<string> participants, int seed = 7)
    {
        int trades = (int)Math.Min(int.MaxValue - 1, (messages / 7) + 2);
        var (list, _) = TradeGenerator.Generate(new GeneratorOptions { Trades = trades, Seed = seed });
        var prepared = new PreparedMessage[list.Count];
        for (int i = 0; i < list.Count; i++)
        {
            var m = list[i];
            int session = IndexOf(participants, m.Sender);
            int slot = IntendedTimes.SlotOf(System.Text.Encoding.ASCII.GetBytes(m.Id), out _);
            prepared[i] = new PreparedMessage(session, System.Text.Encoding.ASCII.GetBytes(m.MsgType), System.Text.Encoding.ASCII.GetBytes(m.Body),
                slot < 0 ? 0 : slot);
        }

        return (prepared, new IntendedTimes(trades));
    }

    private static int IndexOf(IReadOnlyList<string> participants, string id)
    {
        for (int i = 0; i < participants.Count; i++)
        {
            if (participants[i] == id)
            {
                return i;
            }
        }

        throw new InvalidDataException($"the set names participant {id}, who has no session");
    }
}
