using System.Diagnostics.CodeAnalysis;
using System.Diagnostics.Tracing;
using System.Runtime.CompilerServices;

namespace RapidFix.Pools.Diagnostics;

/// <summary>
/// RapidFix's events, provider name "RapidFix": phase markers, session events and periodic latency and counter
/// summaries (never one event per message). Every event is written with <see cref="EventSource.WriteEventCore"/>
/// over stack data: nothing is allocated when an EventPipe or ETW session listens, and when nobody listens each
/// call returns after one enabled check. (An in-process <see cref="EventListener"/> allocates per event by design:
/// use it in tests only.)
/// </summary>
/// <remarks>
/// The public <c>[Event]</c> methods define the manifest and are convenient in tests; engine code calls the
/// <c>Write*</c> methods, which take spans and write the same payloads.
/// </remarks>
[EventSource(Name = ProviderName)]
public sealed class RapidFixEventSource : EventSource
{
    /// <summary>The provider name to enable: "RapidFix".</summary>
    public const string ProviderName = "RapidFix";

    /// <summary>Event id of <see cref="StartupBegin"/>.</summary>
    public const int StartupBeginId = 1;
    /// <summary>Event id of <see cref="StartupEnd"/>.</summary>
    public const int StartupEndId = 2;
    /// <summary>Event id of <see cref="ContinuousBegin"/>.</summary>
    public const int ContinuousBeginId = 3;
    /// <summary>Event id of <see cref="ContinuousEnd"/>.</summary>
    public const int ContinuousEndId = 4;
    /// <summary>Event id of <see cref="ContinuousReport"/>.</summary>
    public const int ContinuousReportId = 5;
    /// <summary>Event id of <see cref="ShutdownBegin"/>.</summary>
    public const int ShutdownBeginId = 6;
    /// <summary>Event id of <see cref="ShutdownEnd"/>.</summary>
    public const int ShutdownEndId = 7;
    /// <summary>Event id of <see cref="WarmUpEnd"/>.</summary>
    public const int WarmUpEndId = 8;
    /// <summary>Event id of <see cref="SessionLogon"/>.</summary>
    public const int SessionLogonId = 10;
    /// <summary>Event id of <see cref="SessionLogout"/>.</summary>
    public const int SessionLogoutId = 11;
    /// <summary>Event id of <see cref="SessionResendRequest"/>.</summary>
    public const int SessionResendRequestId = 12;
    /// <summary>Event id of <see cref="SessionReject"/>.</summary>
    public const int SessionRejectId = 13;
    /// <summary>Event id of <see cref="SessionDisconnected"/>.</summary>
    public const int SessionDisconnectedId = 14;
    /// <summary>Event id of <see cref="ConnectionRefused"/>.</summary>
    public const int ConnectionRefusedId = 15;
    /// <summary>Event id of the latency summary event.</summary>
    public const int LatencySummaryId = 20;
    /// <summary>Event id of the engine counters event.</summary>
    public const int EngineCountersId = 21;

    /// <summary>The single instance.</summary>
    public static readonly RapidFixEventSource Log = new();

    private RapidFixEventSource()
    {
    }

    /// <summary>Keyword groups, to enable only part of the events.</summary>
    public static class Keywords
    {
        /// <summary>Phase transitions and their reports.</summary>
        public const EventKeywords Phases = (EventKeywords)0x1;
        /// <summary>Session events: logons, logouts, resend requests, rejects, disconnections.</summary>
        public const EventKeywords Sessions = (EventKeywords)0x2;
        /// <summary>Latency summaries.</summary>
        public const EventKeywords Latency = (EventKeywords)0x4;
        /// <summary>Engine counters.</summary>
        public const EventKeywords Counters = (EventKeywords)0x8;
    }

    /// <summary>Direction of a session event.</summary>
    public enum Direction
    {
        /// <summary>Received from the counterparty.</summary>
        Received = 0,
        /// <summary>Sent to the counterparty.</summary>
        Sent = 1,
    }

    // ---- Phase markers ----

    /// <summary>The engine's startup phase begins.</summary>
    [Event(StartupBeginId, Level = EventLevel.Informational, Keywords = Keywords.Phases, Message = "{0}: startup begins")]
    public void StartupBegin(string engine) => WritePhase(StartupBeginId, engine);

    /// <summary>The startup phase ends after <paramref name="startupNanoseconds"/>.</summary>
    [Event(StartupEndId, Level = EventLevel.Informational, Keywords = Keywords.Phases, Message = "{0}: startup ends after {1} ns")]
    public void StartupEnd(string engine, long startupNanoseconds) => WritePhase(StartupEndId, engine, startupNanoseconds);

    /// <summary>The continuous phase begins: the GC counters at that moment, and whether a no-GC region guards it.</summary>
    [Event(ContinuousBeginId, Level = EventLevel.Informational, Keywords = Keywords.Phases, Message = "{0}: continuous phase begins")]
    public unsafe void ContinuousBegin(string engine, long processAllocatedBytes, long engineThreadsAllocatedBytes, int gen0Collections, int gen1Collections, int gen2Collections, bool noGcRegion)
    {
        if (!IsEnabled(EventLevel.Informational, Keywords.Phases))
        {
            return;
        }

        int region = noGcRegion ? 1 : 0;
        fixed (char* name = engine)
        {
            EventData* d = stackalloc EventData[7];
            SetString(d, 0, name, engine);
            Set(d, 1, &processAllocatedBytes, 8);
            Set(d, 2, &engineThreadsAllocatedBytes, 8);
            Set(d, 3, &gen0Collections, 4);
            Set(d, 4, &gen1Collections, 4);
            Set(d, 5, &gen2Collections, 4);
            Set(d, 6, &region, 4);
            Write(ContinuousBeginId, 7, d);
        }
    }

    /// <summary>The continuous phase ends.</summary>
    [Event(ContinuousEndId, Level = EventLevel.Informational, Keywords = Keywords.Phases, Message = "{0}: continuous phase ends")]
    public void ContinuousEnd(string engine) => WritePhase(ContinuousEndId, engine);

    /// <summary>What the GC did in the continuous phase (collections per generation, bytes allocated) and whether it held.</summary>
    [Event(ContinuousReportId, Level = EventLevel.Informational, Keywords = Keywords.Phases,
        Message = "{0}: continuous phase lasted {1} ns; collections {2}/{3}/{4}; {5} bytes allocated by the process, {6} by engine threads")]
    public unsafe void ContinuousReport(string engine, long durationNanoseconds, int gen0Collections, int gen1Collections, int gen2Collections,
        long processAllocatedBytes, long engineThreadsAllocatedBytes, bool noGcRegionRequested, bool noGcRegionHeld)
    {
        if (!IsEnabled(EventLevel.Informational, Keywords.Phases))
        {
            return;
        }

        int requested = noGcRegionRequested ? 1 : 0;
        int held = noGcRegionHeld ? 1 : 0;
        fixed (char* name = engine)
        {
            EventData* d = stackalloc EventData[9];
            SetString(d, 0, name, engine);
            Set(d, 1, &durationNanoseconds, 8);
            Set(d, 2, &gen0Collections, 4);
            Set(d, 3, &gen1Collections, 4);
            Set(d, 4, &gen2Collections, 4);
            Set(d, 5, &processAllocatedBytes, 8);
            Set(d, 6, &engineThreadsAllocatedBytes, 8);
            Set(d, 7, &requested, 4);
            Set(d, 8, &held, 4);
            Write(ContinuousReportId, 9, d);
        }
    }

    /// <summary>The shutdown phase begins.</summary>
    [Event(ShutdownBeginId, Level = EventLevel.Informational, Keywords = Keywords.Phases, Message = "{0}: shutdown begins")]
    public void ShutdownBegin(string engine) => WritePhase(ShutdownBeginId, engine);

    /// <summary>The shutdown phase ends after <paramref name="shutdownNanoseconds"/>.</summary>
    [Event(ShutdownEndId, Level = EventLevel.Informational, Keywords = Keywords.Phases, Message = "{0}: shutdown ends after {1} ns")]
    public void ShutdownEnd(string engine, long shutdownNanoseconds) => WritePhase(ShutdownEndId, engine, shutdownNanoseconds);

    /// <summary>The warm-up ended: how long, how many rounds, the methods compiled in the last one, and whether compilation settled.</summary>
    [Event(WarmUpEndId, Level = EventLevel.Informational, Keywords = Keywords.Phases,
        Message = "{0}: warm-up took {1} ns, {2} rounds, {3} methods compiled, settled {4}")]
    public unsafe void WarmUpEnd(string engine, long warmUpNanoseconds, int rounds, int methodsCompiled, bool settled)
    {
        if (!IsEnabled(EventLevel.Informational, Keywords.Phases))
        {
            return;
        }

        int settledValue = settled ? 1 : 0;
        fixed (char* name = engine)
        {
            EventData* d = stackalloc EventData[5];
            SetString(d, 0, name, engine);
            Set(d, 1, &warmUpNanoseconds, 8);
            Set(d, 2, &rounds, 4);
            Set(d, 3, &methodsCompiled, 4);
            Set(d, 4, &settledValue, 4);
            Write(WarmUpEndId, 5, d);
        }
    }

    // ---- Session events ----

    /// <summary>A Logon was received or sent.</summary>
    [Event(SessionLogonId, Level = EventLevel.Informational, Keywords = Keywords.Sessions, Message = "{0}: Logon {1}, MsgSeqNum {2}")]
    public void SessionLogon(string session, Direction direction, long msgSeqNum) => WriteSession(SessionLogonId, session, (int)direction, msgSeqNum);

    /// <summary>A Logout was received or sent.</summary>
    [Event(SessionLogoutId, Level = EventLevel.Informational, Keywords = Keywords.Sessions, Message = "{0}: Logout {1}, MsgSeqNum {2}")]
    public void SessionLogout(string session, Direction direction, long msgSeqNum) => WriteSession(SessionLogoutId, session, (int)direction, msgSeqNum);

    /// <summary>A ResendRequest was received or sent.</summary>
    [Event(SessionResendRequestId, Level = EventLevel.Informational, Keywords = Keywords.Sessions, Message = "{0}: ResendRequest {1}, {2} to {3}")]
    public void SessionResendRequest(string session, Direction direction, long beginSeqNo, long endSeqNo) =>
        WriteSession(SessionResendRequestId, session, (int)direction, beginSeqNo, endSeqNo);

    /// <param name="session">The session's identity.</param>
    /// <param name="business">0 for a session-level Reject, 1 for a BusinessMessageReject.</param>
    /// <param name="reason">SessionRejectReason or BusinessRejectReason.</param>
    /// <param name="reference">RefTagID of a Reject, RefSeqNum of a BusinessMessageReject.</param>
    [Event(SessionRejectId, Level = EventLevel.Warning, Keywords = Keywords.Sessions, Message = "{0}: Reject sent (business {1}), reason {2}, reference {3}")]
    public void SessionReject(string session, int business, long reason, long reference) => WriteSession(SessionRejectId, session, business, reason, reference);

    /// <summary>A session's connection ended; <paramref name="reason"/> is the DisconnectReason's number.</summary>
    [Event(SessionDisconnectedId, Level = EventLevel.Informational, Keywords = Keywords.Sessions, Message = "{0}: disconnected, reason {1}")]
    public void SessionDisconnected(string session, int reason) => WriteSession(SessionDisconnectedId, session, reason);

    /// <summary>Writes one of the session events by id (the payload is the session name, an int and up to two longs as declared).</summary>
    [NonEvent]
    public unsafe void WriteSession(int eventId, string session, int value, long a = 0, long b = 0)
    {
        if (!IsEnabled(eventId == SessionRejectId ? EventLevel.Warning : EventLevel.Informational, Keywords.Sessions))
        {
            return;
        }

        int count = eventId switch
        {
            SessionDisconnectedId => 2,
            SessionLogonId or SessionLogoutId => 3,
            _ => 4,
        };
        fixed (char* name = session)
        {
            EventData* d = stackalloc EventData[4];
            SetString(d, 0, name, session);
            Set(d, 1, &value, 4);
            Set(d, 2, &a, 8);
            Set(d, 3, &b, 8);
            Write(eventId, count, d);
        }
    }

    /// <param name="session">The session's identity ("" before a Logon named one).</param>
    /// <param name="peer">The counterparty's address and port.</param>
    /// <param name="logEvent">What refused it: the engine's log event number.</param>
    /// <param name="reason">Why, in words ("" when the event and its numbers say it).</param>
    /// <param name="a">The log event's first number (a limit's count, a disconnect reason).</param>
    /// <param name="b">The log event's second number (the limit).</param>
    [Event(ConnectionRefusedId, Level = EventLevel.Warning, Keywords = Keywords.Sessions,
        Message = "{0}: connection from {1} refused (event {2}): {3}")]
    public void ConnectionRefused(string session, string peer, int logEvent, string reason, long a, long b) =>
        WriteConnectionRefused(session, peer, logEvent, reason, a, b);

    /// <summary>Writes <see cref="ConnectionRefused"/> from spans (each copied with its terminator on the stack). Allocation-free.</summary>
    [NonEvent]
    public unsafe void WriteConnectionRefused(ReadOnlySpan<char> session, ReadOnlySpan<char> peer, int logEvent, ReadOnlySpan<char> reason, long a, long b)
    {
        if (!IsEnabled(EventLevel.Warning, Keywords.Sessions))
        {
            return;
        }

        // Bounded: a refusal's reason is a sentence, not a document.
        session = session.Slice(0, Math.Min(session.Length, 256));
        peer = peer.Slice(0, Math.Min(peer.Length, 128));
        reason = reason.Slice(0, Math.Min(reason.Length, 1024));
        Span<char> text = stackalloc char[session.Length + peer.Length + reason.Length + 3];
        session.CopyTo(text);
        text[session.Length] = '\0';
        peer.CopyTo(text.Slice(session.Length + 1));
        text[session.Length + 1 + peer.Length] = '\0';
        reason.CopyTo(text.Slice(session.Length + peer.Length + 2));
        text[^1] = '\0';
        fixed (char* chars = text)
        {
            EventData* d = stackalloc EventData[6];
            Set(d, 0, chars, (session.Length + 1) * sizeof(char));
            Set(d, 1, chars + session.Length + 1, (peer.Length + 1) * sizeof(char));
            Set(d, 2, &logEvent, 4);
            Set(d, 3, chars + session.Length + peer.Length + 2, (reason.Length + 1) * sizeof(char));
            Set(d, 4, &a, 8);
            Set(d, 5, &b, 8);
            Write(ConnectionRefusedId, 6, d);
        }
    }

    // ---- Summaries ----

    /// <summary>
    /// Latency of one channel over one interval. <paramref name="histogram"/> is the interval's histogram in
    /// <see cref="LatencyHistogramCodec"/>'s text form, so a reader can merge intervals into exact distributions.
    /// </summary>
    [Event(LatencySummaryId, Level = EventLevel.Informational, Keywords = Keywords.Latency,
        Message = "{0} latency over {2} ns: {3} values, p50 {5} ns, p99 {7} ns, p99.99 {9} ns, max {11} ns")]
    public void LatencySummary(int channel, int phase, long intervalNanoseconds, long count, long minNanoseconds, long p50Nanoseconds,
        long p90Nanoseconds, long p99Nanoseconds, long p999Nanoseconds, long p9999Nanoseconds, long p99999Nanoseconds,
        long maxNanoseconds, long meanNanoseconds, string histogram)
    {
        ArgumentNullException.ThrowIfNull(histogram);
        var summary = new LatencySummaryData
        {
            Channel = channel, Phase = phase, IntervalNanoseconds = intervalNanoseconds, Count = count, Min = minNanoseconds,
            P50 = p50Nanoseconds, P90 = p90Nanoseconds, P99 = p99Nanoseconds, P999 = p999Nanoseconds, P9999 = p9999Nanoseconds,
            P99999 = p99999Nanoseconds, Max = maxNanoseconds, Mean = meanNanoseconds,
        };
        WriteLatencySummary(in summary, (histogram + "\0").AsSpan());
    }

    /// <summary>
    /// Writes <see cref="LatencySummary"/> from a struct and the histogram text, which must end with a NUL character
    /// (the engine keeps it in a pre-allocated buffer; a string field travels with its terminator). Allocation-free.
    /// </summary>
    [NonEvent]
    public unsafe void WriteLatencySummary(in LatencySummaryData s, ReadOnlySpan<char> histogramWithTerminator)
    {
        if (!IsEnabled(EventLevel.Informational, Keywords.Latency))
        {
            return;
        }

        if (histogramWithTerminator.IsEmpty || histogramWithTerminator[^1] != '\0')
        {
            ThrowNotTerminated();
        }

        var copy = s;
        fixed (char* text = histogramWithTerminator)
        {
            EventData* d = stackalloc EventData[14];
            Set(d, 0, &copy.Channel, 4);
            Set(d, 1, &copy.Phase, 4);
            Set(d, 2, &copy.IntervalNanoseconds, 8);
            Set(d, 3, &copy.Count, 8);
            Set(d, 4, &copy.Min, 8);
            Set(d, 5, &copy.P50, 8);
            Set(d, 6, &copy.P90, 8);
            Set(d, 7, &copy.P99, 8);
            Set(d, 8, &copy.P999, 8);
            Set(d, 9, &copy.P9999, 8);
            Set(d, 10, &copy.P99999, 8);
            Set(d, 11, &copy.Max, 8);
            Set(d, 12, &copy.Mean, 8);
            Set(d, 13, text, histogramWithTerminator.Length * sizeof(char));
            Write(LatencySummaryId, 14, d);
        }
    }

    private static void ThrowNotTerminated() =>
        throw new ArgumentException("The histogram text must end with a NUL character.", "histogramWithTerminator");

    /// <summary>Engine counters at the end of an interval.</summary>
    [Event(EngineCountersId, Level = EventLevel.Informational, Keywords = Keywords.Counters)]
    public void EngineCounters(long messagesIn, long messagesOut, int poolsInUse, int poolsCapacity, long poolRentFailures,
        int inboundQueueDepth, long outboundPendingBytes, long engineThreadsAllocatedBytes, long processAllocatedBytes,
        int gen0Collections, int gen1Collections, int gen2Collections)
    {
        var c = new EngineCountersData
        {
            MessagesIn = messagesIn, MessagesOut = messagesOut, PoolsInUse = poolsInUse, PoolsCapacity = poolsCapacity,
            PoolRentFailures = poolRentFailures, InboundQueueDepth = inboundQueueDepth, OutboundPendingBytes = outboundPendingBytes,
            EngineThreadsAllocatedBytes = engineThreadsAllocatedBytes, ProcessAllocatedBytes = processAllocatedBytes,
            Gen0Collections = gen0Collections, Gen1Collections = gen1Collections, Gen2Collections = gen2Collections,
        };
        WriteEngineCounters(in c);
    }

    /// <summary>Writes <see cref="EngineCounters"/> from a struct (allocation-free).</summary>
    [NonEvent]
    public unsafe void WriteEngineCounters(in EngineCountersData c)
    {
        if (!IsEnabled(EventLevel.Informational, Keywords.Counters))
        {
            return;
        }

        var copy = c;
        EventData* d = stackalloc EventData[12];
        Set(d, 0, &copy.MessagesIn, 8);
        Set(d, 1, &copy.MessagesOut, 8);
        Set(d, 2, &copy.PoolsInUse, 4);
        Set(d, 3, &copy.PoolsCapacity, 4);
        Set(d, 4, &copy.PoolRentFailures, 8);
        Set(d, 5, &copy.InboundQueueDepth, 4);
        Set(d, 6, &copy.OutboundPendingBytes, 8);
        Set(d, 7, &copy.EngineThreadsAllocatedBytes, 8);
        Set(d, 8, &copy.ProcessAllocatedBytes, 8);
        Set(d, 9, &copy.Gen0Collections, 4);
        Set(d, 10, &copy.Gen1Collections, 4);
        Set(d, 11, &copy.Gen2Collections, 4);
        Write(EngineCountersId, 12, d);
    }

    // ---- Helpers ----

    // Phase events are a handful of calls a run, spread over startup and shutdown, so the tiered JIT could reach this
    // method's tier-up count at any moment, the continuous phase included (a CI run on net8.0 saw it compiled there):
    // compiled once, fully optimized, at its first call in startup, and never again.
    [NonEvent]
    [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.AggressiveOptimization)]
    private unsafe void WritePhase(int eventId, string engine, long value = 0)
    {
        if (!IsEnabled(EventLevel.Informational, Keywords.Phases))
        {
            return;
        }

        fixed (char* name = engine)
        {
            EventData* d = stackalloc EventData[2];
            SetString(d, 0, name, engine);
            Set(d, 1, &value, 8);
            Write(eventId, eventId is StartupEndId or ShutdownEndId ? 2 : 1, d);
        }
    }

    // Every payload is primitives, strings and byte spans: nothing for the trimmer to lose.
    [UnconditionalSuppressMessage("Trimming", "IL2026", Justification = "Payloads are primitive values written from stack memory.")]
    [NonEvent]
    private unsafe void Write(int eventId, int count, EventData* data) => WriteEventCore(eventId, count, data);

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static unsafe void Set(EventData* data, int index, void* pointer, int size)
    {
        data[index].DataPointer = (IntPtr)pointer;
        data[index].Size = size;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static unsafe void SetString(EventData* data, int index, char* chars, string value) =>
        Set(data, index, chars, (value.Length + 1) * sizeof(char)); // with the terminating NUL
}

/// <summary>The payload of <see cref="RapidFixEventSource.LatencySummary"/>, all durations in nanoseconds.</summary>
public struct LatencySummaryData
{
    /// <summary>The latency measured (<see cref="LatencyChannel"/>: receive or send processing).</summary>
    public int Channel;
    /// <summary>The engine phase the interval belongs to (RapidFix.Pools.Phases.EnginePhase, as a number).</summary>
    public int Phase;
    /// <summary>The length of the interval summarised.</summary>
    public long IntervalNanoseconds;
    /// <summary>Measurements in the interval.</summary>
    public long Count;
    /// <summary>The smallest.</summary>
    public long Min;
    /// <summary>The median.</summary>
    public long P50;
    /// <summary>The 90th percentile.</summary>
    public long P90;
    /// <summary>The 99th percentile.</summary>
    public long P99;
    /// <summary>The 99.9th percentile.</summary>
    public long P999;
    /// <summary>The 99.99th percentile.</summary>
    public long P9999;
    /// <summary>The 99.999th percentile.</summary>
    public long P99999;
    /// <summary>The largest.</summary>
    public long Max;
    /// <summary>The mean.</summary>
    public long Mean;
}

/// <summary>The payload of <see cref="RapidFixEventSource.EngineCounters"/>.</summary>
public struct EngineCountersData
{
    /// <summary>Messages received by every session.</summary>
    public long MessagesIn;
    /// <summary>Messages sent by every session.</summary>
    public long MessagesOut;
    /// <summary>Pooled items in use, all pools together.</summary>
    public int PoolsInUse;
    /// <summary>Pooled items, all pools together.</summary>
    public int PoolsCapacity;
    /// <summary>Rents refused because a pool was empty (the back-pressure signal).</summary>
    public long PoolRentFailures;
    /// <summary>Messages queued ahead of gaps, all sessions together.</summary>
    public int InboundQueueDepth;
    /// <summary>Bytes waiting in the connections' outbound buffers.</summary>
    public long OutboundPendingBytes;
    /// <summary>Bytes the engine's threads allocated (0 in a clean continuous phase).</summary>
    public long EngineThreadsAllocatedBytes;
    /// <summary>Bytes the whole process allocated.</summary>
    public long ProcessAllocatedBytes;
    /// <summary>Generation 0 collections so far.</summary>
    public int Gen0Collections;
    /// <summary>Generation 1 collections so far.</summary>
    public int Gen1Collections;
    /// <summary>Generation 2 collections so far.</summary>
    public int Gen2Collections;
}
