using System.Text;
using RapidFix.Pools.Diagnostics;
using RapidFix.Engine.Fields;
using RapidFix.Engine.Validation;

namespace RapidFix.Engine.Diagnostics;

/// <summary>Severity of a log line.</summary>
public enum LogLevel : byte
{
    /// <summary>Detail for diagnosis: every message-level event.</summary>
    Debug,
    /// <summary>The session's life: connections, logons, logouts.</summary>
    Info,
    /// <summary>Something the counterparty or the network did wrong that the engine handled (rejects, gaps, refused connections).</summary>
    Warning,
    /// <summary>Something the engine could not handle as asked (a store write failed, a fault).</summary>
    Error,
}

/// <summary>The events the engine logs. Each has a fixed text with up to two numbers (A, B).</summary>
public enum LogEvent : ushort
{
    /// <summary>Logged as "session created".</summary>
    SessionCreated,
    /// <summary>Logged as "connected".</summary>
    Connected,
    /// <summary>Logged as "connection attempt failed: " and what the socket error means (refused, timed out, host unreachable...), or its number for one without a name (A).</summary>
    ConnectFailed,
    /// <summary>Logged as "logon received, MsgSeqNum A, HeartBtInt B".</summary>
    LogonReceived,
    /// <summary>Logged as "logon sent, MsgSeqNum A".</summary>
    LogonSent,
    /// <summary>Logged as "logon refused by the application".</summary>
    LogonRefused,
    /// <summary>Logged as "logout received, MsgSeqNum A".</summary>
    LogoutReceived,
    /// <summary>Logged as "logout sent, MsgSeqNum A".</summary>
    LogoutSent,
    /// <summary>Logged as "disconnected:".</summary>
    Disconnected,
    /// <summary>Logged as "MsgSeqNum too high, expecting A but received B".</summary>
    MsgSeqNumTooHigh,
    /// <summary>Logged as "MsgSeqNum too low, expecting A but received B".</summary>
    MsgSeqNumTooLow,
    /// <summary>Logged as "sent ResendRequest from A to B".</summary>
    ResendRequestSent,
    /// <summary>Logged as "received ResendRequest from A to B".</summary>
    ResendRequestReceived,
    /// <summary>Logged as "ResendRequest satisfied through A".</summary>
    ResendSatisfied,
    /// <summary>Logged as "SequenceReset: next expected A -&gt; B".</summary>
    SequenceResetReceived,
    /// <summary>Logged as "gap fill sent from A to B".</summary>
    GapFillSent,
    /// <summary>Logged as "Reject sent: , tag B".</summary>
    RejectSent,
    /// <summary>Logged as "BusinessMessageReject sent, reason A, RefSeqNum B".</summary>
    BusinessRejectSent,
    /// <summary>Logged as "garbled message ignored (code A)".</summary>
    GarbledMessage,
    /// <summary>Logged as "message with a bad CheckSum ignored".</summary>
    BadChecksum,
    /// <summary>Logged as "TestRequest sent".</summary>
    TestRequestSent,
    /// <summary>Logged as "timed out waiting for heartbeat".</summary>
    HeartbeatTimeout,
    /// <summary>Logged as "outbound buffer full (A bytes waiting): counterparty too slow, logging out".</summary>
    OutboundBufferFull,
    /// <summary>Logged as "too many messages ahead of a gap; MsgSeqNum A".</summary>
    InboundQueueFull,
    /// <summary>Logged as "incorrect BeginString, logging out".</summary>
    IncorrectBeginString,
    /// <summary>Logged as "CompID problem, logging out".</summary>
    CompIdProblem,
    /// <summary>Logged as "SendingTime accuracy problem, logging out".</summary>
    SendingTimeAccuracy,
    /// <summary>Logged as "logon for an unknown session refused".</summary>
    UnknownSession,
    /// <summary>Logged as "second connection for a logged-on session refused".</summary>
    AlreadyLoggedOn,
    /// <summary>Logged as "first message was not a Logon (MsgSeqNum A): disconnected".</summary>
    NotLogonFirst,
    /// <summary>Logged as "message larger than MaxMessageSize (A bytes)".</summary>
    MessageTooLarge,
    /// <summary>Logged as "message store refused a write (status A)".</summary>
    StoreWriteFailed,
    /// <summary>Logged as "sequence numbers reset".</summary>
    SessionReset,
    /// <summary>Logged as "no logon within LogonTimeout (A s): disconnecting".</summary>
    LogonTimedOut,
    /// <summary>Logged as "Logon NextExpectedMsgSeqNum(789) B is higher than our next MsgSeqNum A, logging out".</summary>
    NextExpectedMsgSeqNumTooHigh,
    /// <summary>Logged as "Logon NextExpectedMsgSeqNum(789): resending A to B".</summary>
    ResendForNextExpected,
    /// <summary>Logged as "MsgSeqNum gap A to B will be resent by the counterparty (NextExpectedMsgSeqNum in our Logon)".</summary>
    ResendExpectedFromLogon,
    /// <summary>Logged as "unexpected error in an engine thread (HRESULT A): connection closed, details on the fault line".</summary>
    EngineFault,
    /// <summary>Logged as "the counterparty announced its resend of A to B (NextExpectedMsgSeqNum) but has not begun it: sending a ResendRequest".</summary>
    PeerResendNotForthcoming,
    /// <summary>Logged as "logon refused (see the detail line)".</summary>
    LogonRejected,
    /// <summary>Logged as "Logout not sent: the connection is already closed".</summary>
    LogoutNotSent,
    /// <summary>Logged as "MsgSeqNum(34) missing or not a valid sequence number: logging out".</summary>
    MsgSeqNumInvalid,
    /// <summary>Logged as "asking again for A to B, dropped while the queue ahead of the gap was full".</summary>
    ResendForDropped,
    /// <summary>Logged as "received message breaks a limit (parse error A, limit B): rejected".</summary>
    MessageLimitExceeded,

    /// <summary>A connection that never logged on was closed (A: the <see cref="Sessions.DisconnectReason"/>).</summary>
    ClosedBeforeLogon,

    /// <summary>A connection that had logged on ended (A: the <see cref="Sessions.DisconnectReason"/>).</summary>
    ConnectionClosed,

    /// <summary>An accepted connection was refused at once: too many awaiting their Logon on the port (A: waiting, B: the limit).</summary>
    TooManyPendingConnections,

    /// <summary>An accepted connection was refused at once: too many awaiting their Logon from its address (A: waiting, B: the limit).</summary>
    TooManyPendingFromAddress,

    /// <summary>A close found bytes still unsent after waiting for them (A: bytes, B: 1 when a Logout was among them).</summary>
    UnsentAtClose,

    /// <summary>A TLS handshake failed and the peer was refused (detail: the reason).</summary>
    TlsHandshakeFailed,

    /// <summary>TLS refused a record and the connection was closed (detail: the reason).</summary>
    TlsError,

    /// <summary>A Logon was refused and the connection closed without a Logout (detail: the reason; note: why no Logout).</summary>
    LogonRejectedNoLogout,

    /// <summary>Logged as "A more BusinessMessageRejects sent for the same read, the last for RefSeqNum B" (the read's first has its own line).</summary>
    BusinessRejectsSentInRead,
}

/// <summary>
/// An allocation-free log: callers enqueue fixed-size entries (event, session, two numbers) into a pre-sized ring;
/// a background thread turns them into text and writes bytes to a stream. A full ring drops the entry and counts
/// it: logging never blocks the engine nor grows memory.
/// </summary>
public sealed class EngineLog : IDisposable
{
    private readonly Entry[] _ring;
    private readonly object _gate = new();
    private readonly Stream? _output;
    private readonly byte[] _line = new byte[2048];
    private readonly char[] _address = new char[64];
    private readonly Thread? _writer;
    private byte[][] _sessionNames = [];
    private string[] _sessionNameStrings = [];
    private SessionMessageLog?[] _eventLogs = []; // by session index: the sessions whose events also go to their FileLogPath event file
    private long _head;
    private long _tail;
    private long _dropped;
    private volatile bool _stopping;

    /// <param name="output">Where lines go (a file, standard output); null keeps only the counters.</param>
    /// <param name="capacity">Entries that may wait for the writer.</param>
    /// <param name="minimumLevel">Entries below this level are not recorded.</param>
    public EngineLog(Stream? output, int capacity = 8192, LogLevel minimumLevel = LogLevel.Info)
    {
        _output = output;
        MinimumLevel = minimumLevel;
        _ring = new Entry[capacity];
        if (output is not null)
        {
            _writer = new Thread(WriteLoop) { IsBackground = true, Name = "rapidfix-log" };
            _writer.Start();
        }
    }

    /// <summary>A log that records nothing.</summary>
    public static EngineLog Null { get; } = new(null, 1, LogLevel.Error);

    /// <summary>Events below this level are not written (and cost only a comparison).</summary>
    public LogLevel MinimumLevel { get; }

    /// <summary>Entries dropped because the ring was full.</summary>
    public long Dropped => Interlocked.Read(ref _dropped);

    /// <summary>Entries written since creation.</summary>
    public long Written => Interlocked.Read(ref _tail);

    /// <summary>Registers a session name (startup); the returned index identifies the session in entries.</summary>
    public int RegisterSession(string name)
    {
        lock (_gate)
        {
            var next = new byte[_sessionNames.Length + 1][];
            _sessionNames.CopyTo(next, 0);
            next[^1] = Encoding.ASCII.GetBytes(name);
            var strings = new string[_sessionNameStrings.Length + 1];
            _sessionNameStrings.CopyTo(strings, 0);
            strings[^1] = name;
            _sessionNames = next;
            _sessionNameStrings = strings;
            return next.Length - 1;
        }
    }

    /// <summary>
    /// Sends every event of <paramref name="session"/> to its message log's event file as well (QuickFIX's
    /// <c>&lt;prefix&gt;.event.current.log</c>), or stops it (null). Set-up and tear-down only.
    /// </summary>
    internal void RouteEvents(int session, SessionMessageLog? log)
    {
        if (session < 0)
        {
            return;
        }

        lock (_gate)
        {
            var logs = _eventLogs;
            if (session >= logs.Length)
            {
                if (log is null)
                {
                    return;
                }

                var grown = new SessionMessageLog?[Math.Max(session + 1, logs.Length * 2)];
                logs.CopyTo(grown, 0);
                grown[session] = log;
                Volatile.Write(ref _eventLogs, grown);
                return;
            }

            Volatile.Write(ref logs[session], log);
        }
    }

    /// <summary>
    /// Records an event. Never blocks on I/O, never allocates. Session events (logon, logout, resend, reject,
    /// disconnection) also go to the "RapidFix" event source when a trace listens, whatever the log level.
    /// </summary>
    public void Write(LogLevel level, LogEvent ev, int session, long a = 0, long b = 0) => WritePeer(level, ev, session, null, a, b);

    /// <summary>
    /// Records an event about a connection: <paramref name="peer"/> (the counterparty's address, kept by reference,
    /// formatted by the writer thread) starts the line. Never blocks on I/O, never allocates.
    /// </summary>
    public void WritePeer(LogLevel level, LogEvent ev, int session, System.Net.EndPoint? peer, long a = 0, long b = 0) =>
        Record(level, ev, session, peer, a, b, null, null);

    /// <summary>
    /// Records a refusal (a connection or a Logon refused, a TLS handshake failed): the line starts with
    /// <paramref name="peer"/>'s address and ends with <paramref name="reason"/> (and <paramref name="note"/> where
    /// the event has one), and the "RapidFix" event source's <c>ConnectionRefused</c> event carries both. The
    /// strings are kept by reference and formatted by the writer thread: never blocks on I/O, never allocates.
    /// </summary>
    public void WriteRefusal(LogLevel level, LogEvent ev, int session, System.Net.EndPoint? peer, string? reason, string? note = null) =>
        Record(level, ev, session, peer, 0, 0, reason, note);

    private void Record(LogLevel level, LogEvent ev, int session, System.Net.EndPoint? peer, long a, long b, string? detail, string? note)
    {
        if (RapidFixEventSource.Log.IsEnabled())
        {
            string? name = session < 0 ? null : SessionName(session);
            SessionEventTrace.Write(level, ev, name, a, b);
            if (peer is not null && SessionEventTrace.IsRefusal(ev))
            {
                SessionEventTrace.WriteRefusal(ev, name, peer, detail, a, b);
            }
        }

        long now = Time.EngineClock.Shared.UtcNowNanos;
        var eventLogs = Volatile.Read(ref _eventLogs);
        if ((uint)session < (uint)eventLogs.Length && Volatile.Read(ref eventLogs[session]) is { } eventLog)
        {
            // The session's own event file (FileLogPath) has every event of the session, whatever this log's level.
            eventLog.EngineEvent(new Entry(now, level, ev, session, a, b, peer, detail, note));
        }

        if (level < MinimumLevel || _output is null)
        {
            return;
        }

        lock (_gate)
        {
            if (_head - _tail >= _ring.Length)
            {
                _dropped++;
                return;
            }

            _ring[_head % _ring.Length] = new Entry(now, level, ev, session, a, b, peer, detail, note);
            _head++;
        }
    }

    /// <summary>
    /// Records an exception that escaped an engine thread's work (an application callback that threw, a bug): an
    /// <see cref="LogEvent.EngineFault"/> entry, and at once a line with the exception's type, message and stack.
    /// Allocates: this is the fault path, after which the connection is closed.
    /// </summary>
    public void WriteFault(int session, Exception exception)
    {
        ArgumentNullException.ThrowIfNull(exception);
        Write(LogLevel.Error, LogEvent.EngineFault, session, exception.HResult);
        if (_output is null)
        {
            return;
        }

        var text = Encoding.UTF8.GetBytes($"{DateTime.UtcNow:yyyyMMdd-HH:mm:ss.ffffff} ERROR {SessionName(session) ?? "-"} fault: {exception}\n");
        lock (_output)
        {
            _output.Write(text, 0, text.Length);
            _output.Flush();
        }
    }

    /// <summary>
    /// Records an event with a line of text (kept by reference, formatted by the writer thread like any entry).
    /// For a refusal, <see cref="WriteRefusal"/> also names the peer.
    /// </summary>
    public void WriteDetail(LogLevel level, LogEvent ev, int session, string detail)
    {
        ArgumentNullException.ThrowIfNull(detail);
        Record(level, ev, session, null, 0, 0, detail, null);
    }

    /// <summary>The name a session registered with, or null for an unknown index.</summary>
    public string? SessionName(int session)
    {
        var names = Volatile.Read(ref _sessionNameStrings);
        return (uint)session < (uint)names.Length ? names[session] : null;
    }

    /// <summary>Writes what is queued and waits for the writer (shutdown, tests).</summary>
    public void Flush()
    {
        if (_output is null)
        {
            return;
        }

        var deadline = DateTime.UtcNow.AddSeconds(5);
        while (Interlocked.Read(ref _tail) < Volatile.Read(ref _head) && DateTime.UtcNow < deadline)
        {
            Thread.Sleep(1);
        }

        lock (_output)
        {
            _output.Flush();
        }
    }

    /// <summary>Writes what is queued and stops the writer thread.</summary>
    public void Dispose()
    {
        Flush();
        _stopping = true;
        _writer?.Join(TimeSpan.FromSeconds(2));
    }

    // One call for the thread's life: compiled optimized at once, never moved by on-stack replacement (which allocates).
    [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.AggressiveOptimization)]
    private void WriteLoop()
    {
        while (!_stopping)
        {
            bool wrote = false;
            while (true)
            {
                Entry entry;
                lock (_gate)
                {
                    if (_tail == _head)
                    {
                        break;
                    }

                    entry = _ring[_tail % _ring.Length];
                }

                int n = Format(entry, _line);
                lock (_output!)
                {
                    _output.Write(_line, 0, n);
                }

                Interlocked.Increment(ref _tail);
                wrote = true;
            }

            if (wrote)
            {
                lock (_output!)
                {
                    _output.Flush();
                }
            }

            Thread.Sleep(1);
        }
    }

    /// <summary>Formats one entry as a line of text into <paramref name="line"/>; returns its length.</summary>
    internal int Format(in Entry e, byte[] line)
    {
        var w = new LineWriter(line);
        int len = FixTimeFormat.FormatTimestamp(e.TimeNanos, FixTimePrecision.Microseconds, line);
        w.Advance(len);
        w.Append(e.Level switch
        {
            LogLevel.Debug => " DEBUG "u8,
            LogLevel.Info => " INFO  "u8,
            LogLevel.Warning => " WARN  "u8,
            _ => " ERROR "u8,
        });
        var names = _sessionNames;
        if ((uint)e.Session < (uint)names.Length)
        {
            w.Append(names[e.Session]);
            w.Append(": "u8);
        }

        return AppendEvent(e, ref w, _address);
    }

    /// <summary>
    /// Formats what an entry says (the peer, the event's text, its detail) and a newline into <paramref name="line"/>
    /// from <paramref name="at"/>, for a log that puts its own prefix before it (a session's event file): the
    /// line's length. <paramref name="address"/> is the caller's scratch (64 characters). Allocation-free.
    /// </summary>
    internal static int FormatEvent(in Entry e, Span<byte> line, int at, char[] address)
    {
        var w = new LineWriter(line);
        w.Advance(at);
        return AppendEvent(e, ref w, address);
    }

    private static int AppendEvent(in Entry e, ref LineWriter w, char[] address)
    {
        if (e.Peer is not null)
        {
            w.Append("peer "u8);
            AppendAddress(ref w, e.Peer, address);
            w.Append(": "u8);
        }

        int textStart = w.Length;
        switch (e.Event)
        {
            case LogEvent.SessionCreated: w.Append("session created"u8); break;
            case LogEvent.Connected: w.Append("connected"u8); break;
            case LogEvent.ConnectFailed:
                w.Append("connection attempt failed: "u8);
                if (SocketErrorText.Of(e.A).IsEmpty)
                {
                    w.Append("socket error "u8);
                    w.Number(e.A);
                }
                else
                {
                    w.Append(SocketErrorText.Of(e.A));
                }

                break;
            case LogEvent.LogonReceived: w.Append("logon received, MsgSeqNum "u8); w.Number(e.A); w.Append(", HeartBtInt "u8); w.Number(e.B); break;
            case LogEvent.LogonSent: w.Append("logon sent, MsgSeqNum "u8); w.Number(e.A); break;
            case LogEvent.LogonRefused: w.Append("logon refused by the application"u8); break;
            case LogEvent.LogoutReceived: w.Append("logout received, MsgSeqNum "u8); w.Number(e.A); break;
            case LogEvent.LogoutSent: w.Append("logout sent, MsgSeqNum "u8); w.Number(e.A); break;
            case LogEvent.Disconnected: w.Append("disconnected: "u8); w.Append(DisconnectText((Sessions.DisconnectReason)e.A)); break;
            case LogEvent.MsgSeqNumTooHigh: w.Append("MsgSeqNum too high, expecting "u8); w.Number(e.A); w.Append(" but received "u8); w.Number(e.B); break;
            case LogEvent.MsgSeqNumTooLow: w.Append("MsgSeqNum too low, expecting "u8); w.Number(e.A); w.Append(" but received "u8); w.Number(e.B); break;
            case LogEvent.ResendRequestSent: w.Append("sent ResendRequest from "u8); w.Number(e.A); w.Append(" to "u8); w.Number(e.B); break;
            case LogEvent.ResendRequestReceived: w.Append("received ResendRequest from "u8); w.Number(e.A); w.Append(" to "u8); w.Number(e.B); break;
            case LogEvent.ResendSatisfied: w.Append("ResendRequest satisfied through "u8); w.Number(e.A); break;
            case LogEvent.SequenceResetReceived: w.Append("SequenceReset: next expected "u8); w.Number(e.A); w.Append(" -> "u8); w.Number(e.B); break;
            case LogEvent.GapFillSent: w.Append("gap fill sent from "u8); w.Number(e.A); w.Append(" to "u8); w.Number(e.B); break;
            case LogEvent.RejectSent: w.Append("Reject sent: "u8); w.Append(SessionRejectReasonText.Of((SessionRejectReason)e.A)); w.Append(", tag "u8); w.Number(e.B); break;
            case LogEvent.BusinessRejectSent: w.Append("BusinessMessageReject sent, reason "u8); w.Number(e.A); w.Append(", RefSeqNum "u8); w.Number(e.B); break;
            case LogEvent.BusinessRejectsSentInRead:
                w.Number(e.A); w.Append(" more BusinessMessageRejects sent for the same read, the last for RefSeqNum "u8); w.Number(e.B); break;
            case LogEvent.GarbledMessage: w.Append("garbled message ignored (code "u8); w.Number(e.A); w.Append(")"u8); break;
            case LogEvent.BadChecksum: w.Append("message with a bad CheckSum ignored"u8); break;
            case LogEvent.TestRequestSent: w.Append("TestRequest sent"u8); break;
            case LogEvent.HeartbeatTimeout: w.Append("timed out waiting for heartbeat"u8); break;
            case LogEvent.OutboundBufferFull: w.Append("outbound buffer full ("u8); w.Number(e.A); w.Append(" bytes waiting): counterparty too slow, logging out"u8); break;
            case LogEvent.InboundQueueFull:
                w.Append("too many messages ahead of a gap; MsgSeqNum "u8); w.Number(e.A);
                w.Append(e.B != 0 ? " dropped (the ResendRequest out covers it)"u8 : " dropped (to be asked for again once the gap is filled)"u8);
                break;
            case LogEvent.LogonRejected: w.Append("logon refused: "u8); w.AppendText(e.Detail); w.Append("; logging out"u8); break;
            case LogEvent.LogonRejectedNoLogout:
                w.Append("logon refused: "u8); w.AppendText(e.Detail); w.Append("; disconnecting without a Logout ("u8); w.AppendText(e.Note); w.Append(")"u8);
                break;
            case LogEvent.LogoutNotSent: w.Append("Logout not sent: the connection is already closed"u8); break;
            case LogEvent.MsgSeqNumInvalid: w.Append("MsgSeqNum(34) missing or not a valid sequence number: logging out"u8); break;
            case LogEvent.ResendForDropped: w.Append("asking again for "u8); w.Number(e.A); w.Append(" to "u8); w.Number(e.B); w.Append(", dropped while the queue ahead of the gap was full"u8); break;
            case LogEvent.IncorrectBeginString: w.Append("incorrect BeginString, logging out"u8); break;
            case LogEvent.CompIdProblem: w.Append("CompID problem, logging out"u8); break;
            case LogEvent.SendingTimeAccuracy: w.Append("SendingTime accuracy problem, logging out"u8); break;
            case LogEvent.UnknownSession: w.Append("logon for an unknown session refused"u8); break;
            case LogEvent.AlreadyLoggedOn: w.Append("second connection for a logged-on session refused"u8); break;
            case LogEvent.NotLogonFirst: w.Append("first message was not a Logon (MsgSeqNum "u8); w.Number(e.A); w.Append("): disconnected"u8); break;
            case LogEvent.MessageTooLarge: w.Append("message larger than MaxMessageSize ("u8); w.Number(e.A); w.Append(" bytes)"u8); break;
            case LogEvent.StoreWriteFailed: w.Append("message store refused a write (status "u8); w.Number(e.A); w.Append(")"u8); break;
            case LogEvent.SessionReset: w.Append("sequence numbers reset"u8); break;
            case LogEvent.PeerResendNotForthcoming: w.Append("the counterparty announced its resend of "u8); w.Number(e.A); w.Append(" to "u8); w.Number(e.B); w.Append(" (NextExpectedMsgSeqNum) but has not begun it: sending a ResendRequest"u8); break;
            case LogEvent.EngineFault: w.Append("unexpected error in an engine thread (HRESULT "u8); w.Number(e.A); w.Append("): connection closed, details on the fault line"u8); break;
            case LogEvent.LogonTimedOut: w.Append("no logon within LogonTimeout ("u8); w.Number(e.A); w.Append(" s): disconnecting"u8); break;
            case LogEvent.NextExpectedMsgSeqNumTooHigh: w.Append("Logon NextExpectedMsgSeqNum(789) "u8); w.Number(e.B); w.Append(" is higher than our next MsgSeqNum "u8); w.Number(e.A); w.Append(", logging out"u8); break;
            case LogEvent.ResendForNextExpected: w.Append("Logon NextExpectedMsgSeqNum(789): resending "u8); w.Number(e.A); w.Append(" to "u8); w.Number(e.B); break;
            case LogEvent.MessageLimitExceeded: w.Append("received message breaks a limit (parse error "u8); w.Number(e.A); w.Append(", limit "u8); w.Number(e.B); w.Append("): rejected"u8); break;
            case LogEvent.ResendExpectedFromLogon: w.Append("MsgSeqNum gap "u8); w.Number(e.A); w.Append(" to "u8); w.Number(e.B); w.Append(" will be resent by the counterparty (NextExpectedMsgSeqNum in our Logon)"u8); break;
            case LogEvent.ClosedBeforeLogon: w.Append("connection closed before logon: "u8); w.Append(DisconnectText((Sessions.DisconnectReason)e.A)); break;
            case LogEvent.ConnectionClosed: w.Append("connection closed: "u8); w.Append(DisconnectText((Sessions.DisconnectReason)e.A)); break;
            case LogEvent.TooManyPendingConnections: w.Append("connection refused: "u8); w.Number(e.A); w.Append(" connections awaiting logon on this port (limit MaxPendingLogons "u8); w.Number(e.B); w.Append(")"u8); break;
            case LogEvent.TooManyPendingFromAddress: w.Append("connection refused: "u8); w.Number(e.A); w.Append(" connections awaiting logon from this address (limit MaxPendingLogonsPerAddress "u8); w.Number(e.B); w.Append(")"u8); break;
            case LogEvent.UnsentAtClose: w.Append("closing with "u8); w.Number(e.A); w.Append(e.B != 0 ? " bytes unsent, our Logout among them: the counterparty stopped reading"u8 : " bytes unsent: the counterparty stopped reading"u8); break;
            case LogEvent.TlsHandshakeFailed: w.Append("TLS handshake failed: "u8); w.AppendText(e.Detail); break;
            case LogEvent.TlsError: w.Append("TLS error, connection closed: "u8); w.AppendText(e.Detail); break;
            default:
                if (e.Detail is null)
                {
                    w.Append("event "u8);
                    w.Number((long)e.Event);
                }

                break;
        }

        if (e.Detail is not null && e.Event is not (LogEvent.LogonRejected or LogEvent.LogonRejectedNoLogout or LogEvent.TlsHandshakeFailed or LogEvent.TlsError))
        {
            // A detail line (WriteDetail): after the event's own text, if it has one.
            if (w.Length > textStart)
            {
                w.Append(": "u8);
            }

            w.AppendText(e.Detail);
        }

        w.Append("\n"u8);
        return w.Length;
    }

    private static ReadOnlySpan<byte> DisconnectText(Sessions.DisconnectReason reason) => reason switch
    {
        Sessions.DisconnectReason.LogoutExchanged => "logout exchanged"u8,
        Sessions.DisconnectReason.LogoutTimeout => "timed out waiting for logout response"u8,
        Sessions.DisconnectReason.LogonTimeout => "timed out waiting for logon"u8,
        Sessions.DisconnectReason.HeartbeatTimeout => "timed out waiting for heartbeat"u8,
        Sessions.DisconnectReason.InvalidLogon => "logon message is not valid"u8,
        Sessions.DisconnectReason.LogonRefused => "logon refused"u8,
        Sessions.DisconnectReason.NotLogonFirst => "first message was not a logon"u8,
        Sessions.DisconnectReason.UnknownSession => "no session for the logon's CompIDs"u8,
        Sessions.DisconnectReason.AlreadyLoggedOn => "session already logged on"u8,
        Sessions.DisconnectReason.MsgSeqNumTooLow => "MsgSeqNum too low"u8,
        Sessions.DisconnectReason.OutOfSessionTime => "out of session time"u8,
        Sessions.DisconnectReason.GarbledBeforeLogon => "garbled data before logon"u8,
        Sessions.DisconnectReason.SendFailed => "send failed"u8,
        Sessions.DisconnectReason.OutboundBufferFull => "outbound buffer full"u8,
        Sessions.DisconnectReason.MessageTooLarge => "message too large"u8,
        Sessions.DisconnectReason.PeerClosed => "counterparty closed the connection"u8,
        Sessions.DisconnectReason.SocketError => "socket error"u8,
        Sessions.DisconnectReason.Shutdown => "engine shutdown"u8,
        Sessions.DisconnectReason.Application => "application request"u8,
        Sessions.DisconnectReason.EngineFault => "unexpected error in the engine thread (see the fault line)"u8,
        Sessions.DisconnectReason.InvalidMsgSeqNum => "MsgSeqNum missing or not a valid sequence number"u8,
        Sessions.DisconnectReason.TlsHandshakeFailed => "TLS handshake failed"u8,
        Sessions.DisconnectReason.TlsError => "TLS error"u8,
        _ => "unknown"u8,
    };

    /// <summary>"address:port" without allocating for IP endpoints (the writer thread's scratch); other kinds by their text.</summary>
    private static void AppendAddress(ref LineWriter w, System.Net.EndPoint peer, char[] address)
    {
        int chars = FormatPeer(peer, address);
        w.AppendAscii(chars > 0 ? address.AsSpan(0, chars) : peer.ToString().AsSpan());
    }

    /// <summary>
    /// Writes an IP endpoint as "address:port" ("[v6]:port"; an IPv4 peer of a dual-mode socket as plain IPv4) into
    /// <paramref name="into"/> (64 characters suffice) without allocating: the character count, 0 for another kind of
    /// endpoint.
    /// </summary>
    internal static int FormatPeer(System.Net.EndPoint peer, Span<char> into)
    {
        if (peer is not System.Net.IPEndPoint ip)
        {
            return 0;
        }

        int n;
        var address = ip.Address;
        if (address.IsIPv4MappedToIPv6)
        {
            Span<byte> bytes = stackalloc byte[16];
            if (!address.TryWriteBytes(bytes, out _))
            {
                return 0;
            }

            n = 0;
            for (int i = 12; i < 16; i++)
            {
                bytes[i].TryFormat(into.Slice(n), out int digits);
                n += digits;
                into[n++] = i < 15 ? '.' : ':';
            }
        }
        else
        {
            bool v6 = address.AddressFamily == System.Net.Sockets.AddressFamily.InterNetworkV6;
            int start = v6 ? 1 : 0;
            if (!address.TryFormat(into.Slice(start), out int chars))
            {
                return 0;
            }

            n = start + chars;
            if (v6)
            {
                into[0] = '[';
                into[n++] = ']';
            }

            into[n++] = ':';
        }

        ip.Port.TryFormat(into.Slice(n), out int portDigits);
        return n + portDigits;
    }

    internal readonly record struct Entry(long TimeNanos, LogLevel Level, LogEvent Event, int Session, long A, long B, System.Net.EndPoint? Peer = null,
        string? Detail = null, string? Note = null);

    private ref struct LineWriter
    {
        private readonly Span<byte> _buffer;

        public LineWriter(Span<byte> buffer)
        {
            _buffer = buffer;
            Length = 0;
        }

        public int Length { get; private set; }

        public void Advance(int n) => Length += n;

        public void Append(ReadOnlySpan<byte> text)
        {
            int n = Math.Min(text.Length, _buffer.Length - 1 - Length);
            text.Slice(0, n).CopyTo(_buffer.Slice(Length));
            Length += n;
        }

        public void AppendAscii(ReadOnlySpan<char> text)
        {
            int n = Math.Min(text.Length, _buffer.Length - 1 - Length);
            for (int i = 0; i < n; i++)
            {
                _buffer[Length + i] = (byte)text[i];
            }

            Length += n;
        }

        /// <summary>Appends text as UTF-8 (nothing for null), cut at the end of the line buffer without allocating.</summary>
        public void AppendText(string? text)
        {
            if (text is null)
            {
                return;
            }

            var room = _buffer.Slice(Length, _buffer.Length - 1 - Length);
            if (Encoding.UTF8.GetMaxByteCount(text.Length) <= room.Length)
            {
                Length += Encoding.UTF8.GetBytes(text, room);
                return;
            }

            // Too long for what is left of the line: as much as fits, a character at a time.
            Span<byte> one = stackalloc byte[4];
            foreach (var rune in text.EnumerateRunes())
            {
                int n = rune.EncodeToUtf8(one);
                if (n > _buffer.Length - 1 - Length)
                {
                    break;
                }

                one.Slice(0, n).CopyTo(_buffer.Slice(Length));
                Length += n;
            }
        }

        public void Number(long value)
        {
            if (_buffer.Length - 1 - Length >= 20)
            {
                Length += FixValue.FormatLong(value, _buffer.Slice(Length));
            }
        }
    }
}
