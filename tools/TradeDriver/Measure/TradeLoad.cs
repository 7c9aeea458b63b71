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
/// the sink reads it back from the slot the answer's ID names. A ring of rows, one per trade number modulo
/// <see cref="Window"/> (a power of two), each row tagged with the trade that owns it: memory is fixed by the rate
/// (<see cref="WindowFor"/>: the trades of <see cref="LatenessSeconds"/>), not by the run's length. An answer that
/// comes back after its row was taken by a later trade is <see cref="Overwritten"/>: counted, never timed against
/// another trade's send. No clock games (one process, one clock) and no allocation.
/// </summary>
internal sealed class IntendedTimes
{
    /// <summary>Slots per trade: NOE, ALC1, ALC2, NPR1, NPR2, SET1, SET2 (and one spare).</summary>
    public const int SlotsPerTrade = 8;

    /// <summary>How late an answer may come (seconds of trades at the run's rate) and still be timed: the soak's drain.</summary>
    public const double LatenessSeconds = 120;

    /// <summary>What <see cref="Get"/> returns for an answer whose row a later trade took (too late to time).</summary>
    public const long Overwritten = -1;

    private const int MinWindow = 1024;

    private readonly long[] _ticks;
    private readonly long[] _owner;
    private readonly int _mask;

    /// <param name="window">Trades held at once: rounded up to a power of two (at least 1,024).</param>
    public IntendedTimes(long window)
    {
        Window = RoundUp(window);
        _mask = Window - 1;
        _ticks = new long[(long)Window * SlotsPerTrade];
        _owner = new long[Window];
    }

    /// <summary>The trades the ring holds at once.</summary>
    public int Window { get; }

    /// <summary>Which trades have cleared, for the stream's check of recycled matching keys (the sink marks them).</summary>
    public ClearedTrades Cleared { get; } = new();

    /// <summary>The window for a run at <paramref name="messagesPerSecond"/>: the trades of <see cref="LatenessSeconds"/>, whatever the run's length.</summary>
    public static long WindowFor(double messagesPerSecond) => (long)Math.Ceiling(messagesPerSecond / TradeStream.PerTrade * LatenessSeconds);

    /// <summary>Bytes a ring of <paramref name="window"/> trades holds (with the <see cref="Cleared"/> bitmap).</summary>
    public static long BytesFor(long window) => (long)RoundUp(window) * ((SlotsPerTrade * sizeof(long)) + sizeof(long)) + ClearedTrades.Bytes;

    /// <summary>Bytes this ring holds.</summary>
    public long Bytes => ((long)_ticks.Length * sizeof(long)) + ((long)_owner.Length * sizeof(long)) + ClearedTrades.Bytes;

    /// <summary>
    /// The driver, as it sends message <paramref name="kind"/> of <paramref name="trade"/>: records its intended time
    /// (0: the send was refused). The first message of a trade takes the row from whatever trade held it.
    /// </summary>
    public void Set(long trade, int kind, long tick)
    {
        int row = (int)(trade & _mask);
        int at = row * SlotsPerTrade;
        if (Volatile.Read(ref _owner[row]) != trade)
        {
            // Owner first, then the times: a reader that sees a new time sees the new owner too.
            Volatile.Write(ref _owner[row], trade);
            for (int k = 0; k < SlotsPerTrade; k++)
            {
                Volatile.Write(ref _ticks[at + k], 0);
            }
        }

        Volatile.Write(ref _ticks[at + kind], tick);
    }

    /// <summary>The intended time of a trade's message; 0 when nothing was sent for it, <see cref="Overwritten"/> when its row went to a later trade.</summary>
    public long Get(long trade, int kind)
    {
        if (trade <= 0 || (uint)kind >= SlotsPerTrade)
        {
            return 0;
        }

        int row = (int)(trade & _mask);
        long owner = Volatile.Read(ref _owner[row]);
        if (owner != trade)
        {
            return owner > trade ? Overwritten : 0;
        }

        long tick = Volatile.Read(ref _ticks[(row * SlotsPerTrade) + kind]);
        return Volatile.Read(ref _owner[row]) == trade ? tick : Overwritten;
    }

    /// <summary>The latest intended time among a trade's messages (the one that can complete its match); 0 when none, <see cref="Overwritten"/> when too late.</summary>
    public long LatestOfTrade(long trade)
    {
        if (trade <= 0)
        {
            return 0;
        }

        int row = (int)(trade & _mask);
        long owner = Volatile.Read(ref _owner[row]);
        if (owner != trade)
        {
            return owner > trade ? Overwritten : 0;
        }

        long latest = 0;
        for (int k = 0; k < SlotsPerTrade; k++)
        {
            latest = Math.Max(latest, Volatile.Read(ref _ticks[(row * SlotsPerTrade) + k]));
        }

        return Volatile.Read(ref _owner[row]) == trade ? latest : Overwritten;
    }

    private static int RoundUp(long window)
    {
        long w = Math.Max(MinWindow, window);
        if (w > 1 << 30)
        {
            throw new ArgumentOutOfRangeException(nameof(window), "more than 2^30 trades in flight");
        }

        return (int)System.Numerics.BitOperations.RoundUpToPowerOf2((uint)w);
    }

    /// <summary>
    /// The trade and message kind an ID names: "T&lt;n&gt;-NOE" is trade n's kind 0, "-ALC1"/"-ALC2" 1 and 2,
    /// "-NPR1"/"-NPR2" 3 and 4, "-SET1"/"-SET2" 5 and 6; -1 for anything else (an amendment's ID, a foreign one).
    /// </summary>
    public static int KindOf(ReadOnlySpan<byte> id, out long trade)
    {
        trade = 0;
        if (id.Length < 6 || id[0] != (byte)'T')
        {
            return -1;
        }

        int i = 1;
        long n = 0;
        while (i < id.Length && id[i] >= (byte)'0' && id[i] <= (byte)'9' && n < long.MaxValue / 10)
        {
            n = (n * 10) + (id[i] - '0');
            i++;
        }

        if (i == 1 || i >= id.Length || id[i] != (byte)'-')
        {
            return -1;
        }

        trade = n;
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

        return k;
    }
}

/// <summary>
/// The open-loop driver: sends the streamed set (<see cref="TradeStream"/>) on the schedule, each message at (or as
/// soon as possible after) its intended time, never waiting for answers. A refused send (the session's back-pressure)
/// is counted and the message dropped: the schedule goes on. Between sends it formats the next messages into the
/// stream's ring, until the next one is due; a message due before it was formatted is formatted inline (counted,
/// <see cref="TradeStream.FormattedInline"/>) and still timed from its own intended time. <see cref="SendDue"/> and
/// <see cref="Run"/> allocate nothing.
/// <para>One socket write per session per turn (issue 10: the driver's CPU a message): the messages of a turn are
/// queued on their sessions (<see cref="FixSession.SendDeferred(ReadOnlySpan{byte}, ReadOnlySpan{byte})"/>) and each session's are written together at the
/// turn's end (<see cref="FixSession.FlushDeferred"/>), or after <see cref="BatchMessages"/> of them. A message counts
/// as sent, and its send latency (from its intended time) is taken, when its batch is written; a batch that could
/// not be written (the session lost its connection) counts every message of it as refused.</para>
/// </summary>
internal sealed class OpenLoopDriver
{
    private readonly TradeStream _set;
    private readonly FixSession[] _sessions;
    private readonly OpenLoopSchedule _schedule;
    private readonly IntendedTimes _intended;
    private readonly LatencyRecorder _latency;
    private long _next;
    private long _refused;
    private long _sentByPhaseSteady;
    private long _sentAckable;
    private long _allocated = -1;
    private bool _marked;
    private readonly long _tick;

    // The messages each session has queued in this turn and not yet written: BatchMessages slots a session.
    private readonly Queued[] _queued;
    private readonly int[] _queuedCount;

    /// <summary>
    /// Messages a session queues before its batch is written mid-turn: 32 of at most 1,024 bytes of body (a stream
    /// slot) and the header fill half the session's 64 KiB batch buffer, so the engine never writes part of a batch on
    /// its own and a batch is written, or refused, whole.
    /// </summary>
    internal const int BatchMessages = 32;

    /// <param name="sendTick">
    /// The least time the driver sleeps between two turns (<see cref="Run"/>), each turn sending every message due:
    /// zero (the default) for the old loop (a millisecond's sleep, or <see cref="Thread.Yield"/> within the last
    /// millisecond before the next message, which kept the thread busy on a whole core); see <see cref="RunOptions.SendTick"/>.
    /// </param>
    public OpenLoopDriver(TradeStream set, FixSession[] sessions, OpenLoopSchedule schedule, IntendedTimes intended, LatencyRecorder latency,
        TimeSpan sendTick = default)
    {
        if (set.Formatted != 0)
        {
            throw new ArgumentException("the driver starts a stream from its first message", nameof(set));
        }

        _set = set;
        _sessions = sessions;
        _schedule = schedule;
        _intended = intended;
        _latency = latency;
        _tick = PreciseSleep.Available && sendTick > TimeSpan.Zero ? Math.Max(1, (long)(sendTick.TotalSeconds * schedule.Frequency)) : 0;
        _queued = new Queued[sessions.Length * BatchMessages];
        _queuedCount = new int[sessions.Length];
    }

    /// <summary>Sleeps between turns taken (<see cref="Run"/>): turns less one, about; 0 before it ends. A turn sends every message then due.</summary>
    public long Sleeps { get; private set; }

    /// <summary>Messages handed to the sessions or refused so far (the next message's index).</summary>
    public long Next => Volatile.Read(ref _next);

    /// <summary>Sends the sessions refused (back-pressure).</summary>
    public long Refused => Interlocked.Read(ref _refused);

    /// <summary>Messages of the steady phase sent.</summary>
    public long SentSteady => Interlocked.Read(ref _sentByPhaseSteady);

    /// <summary>Messages sent that the service acks (all but SETs, which it acks only to refuse).</summary>
    public long SentAckable => Interlocked.Read(ref _sentAckable);

    /// <summary>
    /// Bytes the driver's thread allocated from <see cref="MarkAllocations"/> (the driver's measured phase starts:
    /// its warm-up's end), or else from the steady part's first send, to its last send (<see cref="Run"/>); -1 before
    /// it ends.
    /// </summary>
    public long AllocatedWhileSending => Interlocked.Read(ref _allocated);

    /// <summary>The measured phase starts now: <see cref="Run"/> counts its thread's allocations from its next turn.</summary>
    public void MarkAllocations() => Volatile.Write(ref _marked, true);

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
            if (!_set.Ensure(next))
            {
                throw new InvalidOperationException("the stream's ring is full of messages not sent");
            }

            long trade = _set.TradeOf(next);
            int kind = _set.KindOf(next);
            long intended = _schedule.IntendedTime(next);
            var phase = _schedule.PhaseOf(next);
            int session = _set.SessionOf(next);
            if (_queuedCount[session] == BatchMessages)
            {
                Write(session);
            }

            _intended.Set(trade, kind, intended);
            if (_sessions[session].SendDeferred(_set.MsgTypeOf(next), _set.BodyOf(next)) == SendResult.Sent)
            {
                _queued[(session * BatchMessages) + _queuedCount[session]++] = new Queued(trade, intended, kind, phase);
            }
            else
            {
                _intended.Set(trade, kind, 0);
                Interlocked.Increment(ref _refused);
            }

            next++;
            n++;
            _set.Release(next);
        }

        for (int session = 0; session < _queuedCount.Length; session++)
        {
            if (_queuedCount[session] != 0)
            {
                Write(session);
            }
        }

        Volatile.Write(ref _next, next);
        return n;
    }

    /// <summary>
    /// Writes what <paramref name="session"/> queued (one socket write), then counts it: sent, with its send latency
    /// from each message's intended time to now, or refused, all of it, when the batch could not be written.
    /// </summary>
    private void Write(int session)
    {
        bool written = _sessions[session].FlushDeferred();
        long now = Stopwatch.GetTimestamp();
        int from = session * BatchMessages;
        int to = from + _queuedCount[session];
        _queuedCount[session] = 0;
        for (int i = from; i < to; i++)
        {
            var q = _queued[i];
            if (!written)
            {
                _intended.Set(q.Trade, q.Kind, 0);
                Interlocked.Increment(ref _refused);
                continue;
            }

            _latency.Record(LatencyChannel.Send, q.Phase, now - q.Intended);
            if (q.Phase == RunPhase.Steady)
            {
                _sentByPhaseSteady++;
            }

            if (!TradeStream.IsSet(q.Kind))
            {
                Interlocked.Increment(ref _sentAckable);
            }
        }
    }

    /// <summary>A message queued on its session in this turn, not written yet.</summary>
    private readonly record struct Queued(long Trade, long Intended, int Kind, RunPhase Phase);

    /// <summary>Formats ahead into the stream's ring until the next message is due (or the ring is full).</summary>
    public int FormatAhead() => Done ? 0 : _set.FillAhead(_schedule.IntendedTime(Next));

    /// <summary>
    /// Runs the schedule to its end (or until <paramref name="stop"/>): sends what is due, formats ahead, then sleeps
    /// until the next message is due, but at least the send tick (Linux, <see cref="PreciseSleep"/>): at rates above
    /// one message a tick each turn sends a tick's messages in a burst (the CPU of the driver's thread is then a
    /// wake-up a tick plus the messages' own work, not a core); below it each message is sent at its time, to a few
    /// microseconds. Every message's latency still counts from its own intended time (the send lag, a tick at most on
    /// an idle machine, is in it and in its own row). Without the tick: a millisecond's sleep, or a yield within
    /// the last millisecond before the next message (the thread stays busy).
    /// </summary>
    [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.AggressiveOptimization)] // no on-stack replacement of the loop (which allocates a little on this thread)
    public void Run(Func<bool> stop)
    {
        FormatAhead();
        SendDue(_schedule.Start - 1); // nothing is due yet: compiles the send path before the count starts
        long steady = _schedule.FirstOf(RunPhase.Steady);
        long allocated = -1;
        long sleeps = 0;
        if (_tick > 0)
        {
            PreciseSleep.SetThreadTimerSlack(1_000); // a microsecond: the kernel's default is 50
            PreciseSleep.Sleep(1, _schedule.Frequency); // compiled (and the library loaded) before the count starts
        }
        while (!Done && !stop())
        {
            if (allocated < 0 && (Volatile.Read(ref _marked) || Next >= steady))
            {
                // Counted from the end of the warm-up (a session's first send on this thread sets up its own state once).
                allocated = GC.GetAllocatedBytesForCurrentThread();
            }

            SendDue(Stopwatch.GetTimestamp());
            if (Done)
            {
                break;
            }

            FormatAhead();
            long wait = _schedule.IntendedTime(Next) - Stopwatch.GetTimestamp();
            if (_tick > 0)
            {
                // One wake-up a tick at most: what fell due meanwhile goes out together at the next turn.
                // A tenth of a second at most: a stop request is seen within it at any rate.
                PreciseSleep.Sleep(Math.Min(Math.Max(wait, _tick), _schedule.Frequency / 10), _schedule.Frequency);
                sleeps++;
            }
            else if (wait > _schedule.Frequency / 1000)
            {
                Thread.Sleep(1);
            }
            else if (wait > 0)
            {
                Thread.Yield();
            }
        }

        Sleeps = sleeps;
        Interlocked.Exchange(ref _allocated, allocated < 0 ? 0 : GC.GetAllocatedBytesForCurrentThread() - allocated);
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
    private long _tooLate;

    public TradeSink(IntendedTimes intended, OpenLoopSchedule schedule, LatencyRecorder latency)
    {
        _intended = intended;
        _schedule = schedule;
        _latency = latency;
    }

    /// <summary>
    /// Whether each session's receiving thread goes under real-time scheduling when its session logs on (on that
    /// thread: the logon's answer arrives on it): <see cref="TimingThreads"/>. Set before the sessions start.
    /// </summary>
    public bool RaiseReceivingThreads { get; init; }

    /// <inheritdoc/>
    public override void OnLogon(FixSession session)
    {
        if (RaiseReceivingThreads)
        {
            TimingThreads.RaiseCurrentThread();
        }
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

    /// <summary>Answers that came back after their trade's intended-time row went to a later trade (<see cref="IntendedTimes.LatenessSeconds"/>): counted, not timed.</summary>
    public long TooLate => Interlocked.Read(ref _tooLate);

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
                && message.TryGetText(FieldScope.Message, 70, out var allocId) && IntendedTimes.KindOf(allocId, out long trade) >= 0
                && _intended.LatestOfTrade(trade) is var latest and (> 0 or IntendedTimes.Overwritten))
            {
                Interlocked.Increment(ref _cls);
                _intended.Cleared.MarkCleared(trade);
                if (latest > 0)
                {
                    _latency.Record(LatencyChannel.Cls, Schedule.PhaseAt(latest), now - latest);
                }
                else
                {
                    Interlocked.Increment(ref _tooLate);
                }
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
        if (message.TryGetText(FieldScope.Message, tag, out var id) && IntendedTimes.KindOf(id, out long trade) is int kind and >= 0
            && _intended.Get(trade, kind) is var intended and (> 0 or IntendedTimes.Overwritten))
        {
            if (intended > 0)
            {
                _latency.Record(LatencyChannel.Ack, Schedule.PhaseAt(intended), now - intended);
            }
            else
            {
                Interlocked.Increment(ref _tooLate);
            }
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

/// <summary>The driver's set: good trades only (every one should match), streamed, and where their intended times wait.</summary>
internal static class TradeSet
{
    /// <summary>
    /// The set for a run at <paramref name="rate"/> messages/s: a <see cref="TradeStream"/> ring and an
    /// <see cref="IntendedTimes"/> window, both sized by the rate alone (a run of any length holds the same).
    /// </summary>
    public static (TradeStream Set, IntendedTimes Intended) Prepare(double rate, IReadOnlyList<string> participants, int seed = 7, int capacity = TradeStream.DefaultCapacity)
    {
        var intended = new IntendedTimes(IntendedTimes.WindowFor(rate));
        return (new TradeStream(participants, capacity, seed) { Cleared = intended.Cleared }, intended);
    }

    /// <summary>Bytes the driver's set holds for a run at <paramref name="rate"/> (ring and intended-time window), whatever its length.</summary>
    public static long BytesFor(double rate, int capacity = TradeStream.DefaultCapacity) =>
        TradeStream.BytesFor(capacity) + IntendedTimes.BytesFor(IntendedTimes.WindowFor(rate));
}

/// <summary>
/// Whether each of the last <see cref="TradeUniverse.UniqueTrades"/> trades has cleared: one bit per matching key
/// (256 KiB). The sink sets a trade's bit at its CLS; the stream, as it starts trade <c>n</c> past the first
/// <see cref="TradeUniverse.UniqueTrades"/>, takes its key back from trade <c>n - UniqueTrades</c> (which had it) and
/// learns whether that trade cleared: one that has not could be matched with the new one (a wrong CLS or an
/// exception), so it is counted and the run says so. At 100,000 messages/s the earlier trade is 147 s old then, past
/// the 120 s the driver waits for any answer. Allocation-free.
/// </summary>
internal sealed class ClearedTrades
{
    /// <summary>Bytes of the bitmap.</summary>
    public const long Bytes = TradeUniverse.UniqueTrades / 8;

    private readonly long[] _bits = new long[TradeUniverse.UniqueTrades / 64];

    /// <summary>The sink: <paramref name="trade"/> has cleared (a CLS named it).</summary>
    public void MarkCleared(long trade)
    {
        if (trade > 0)
        {
            long k = (trade - 1) % TradeUniverse.UniqueTrades;
            Interlocked.Or(ref _bits[k >> 6], 1L << (int)(k & 63));
        }
    }

    /// <summary>
    /// The stream, starting <paramref name="trade"/>: whether the trade that had its matching key before
    /// (<c>trade - UniqueTrades</c>) has cleared (true for the first <see cref="TradeUniverse.UniqueTrades"/>
    /// trades, whose keys are new); the key's bit is then the new trade's, not cleared.
    /// </summary>
    public bool TakeKey(long trade)
    {
        if (trade <= 0)
        {
            return true;
        }

        long k = (trade - 1) % TradeUniverse.UniqueTrades;
        long mask = 1L << (int)(k & 63);
        long before = Interlocked.And(ref _bits[k >> 6], ~mask);
        return trade <= TradeUniverse.UniqueTrades || (before & mask) != 0;
    }
}
