using System.Runtime.CompilerServices;
using RapidFix.Engine.Codec;
using RapidFix.Engine.Configuration;
using RapidFix.Engine.Diagnostics;
using RapidFix.Engine.Fields;
using RapidFix.Engine.Store;
using RapidFix.Engine.Time;
using RapidFix.Engine.Validation;

namespace RapidFix.Engine.Sessions;

/// <summary>Where a session is in its life.</summary>
public enum SessionStatus : byte
{
    /// <summary>No connection.</summary>
    Disconnected,

    /// <summary>Connected; no Logon exchanged yet.</summary>
    Connected,

    /// <summary>Our Logon is out; waiting for the counterparty's (initiator).</summary>
    LogonSent,

    /// <summary>Both Logons exchanged.</summary>
    LoggedOn,

    /// <summary>Our Logout is out; waiting for the counterparty's.</summary>
    LogoutSent,
}

/// <summary>
/// One FIX session: the session protocol of FIX 4.0 to 4.4 and FIXT 1.1 (Logon, Logout, Heartbeat, TestRequest,
/// ResendRequest, SequenceReset in GapFill and Reset modes, Reject and BusinessMessageReject, PossDup checks,
/// sequence-number recovery) over a pluggable transport, with QuickFIX's behaviour where the standard leaves room.
/// </summary>
/// <remarks>
/// <para>Everything the session uses in the continuous phase is created in the constructor: the encoder and its
/// output buffer, the view used to replay stored messages, the slots that hold messages received ahead of a gap.
/// Receiving, validating, answering, resending and heartbeating allocate nothing.</para>
/// <para>All state changes happen under one lock: the transport's receive thread calls <see cref="OnMessage"/> and
/// <see cref="OnTimer"/>; any thread may call <see cref="Send"/>. Application callbacks run under the lock (a
/// callback may send).</para>
/// </remarks>
public sealed partial class FixSession
{
    /// <summary>
    /// The largest sequence number accepted in any sequence field: one below int.MaxValue, so the number after it
    /// (the next expected, the next to send) still fits.
    /// </summary>
    public const int MaxSeqNum = int.MaxValue - 1;

    private readonly object _sync = new();
    private readonly FixSessionOptions _options;
    private readonly IFixApplication _application;
    private readonly IMessageStore _store;
    // The journal store, when that is the store: a batch's messages are appended lazily (FixSession.Batch.cs).
    private readonly JournalMessageStore? _journalStore;
    // When the message being processed was received (UTC nanoseconds): one clock read a message, taken by OnMessage,
    // for the schedule, the SendingTime check, the heartbeat bookkeeping and the timers (six reads before, at about 90 ns
    // each on a VM's clock).
    private long _messageNanos;
    private readonly EngineLog _log;
    private readonly EngineClock _clock;
    private readonly MessageValidator? _validator;
    private readonly MessageValidator? _adminValidator;
    private readonly FixEncoder _encoder = new();
    private readonly byte[] _output;
    private readonly byte[] _text = new byte[256];
    private readonly FixMessage _replay;
    private readonly InboundQueue _queue;
    private readonly int _logIndex;

    private ISessionTransport? _transport;
    private SessionStatus _status;
    private bool _receivedLogon;
    private bool _sentLogon;
    private int _logonSeqNumSent; // MsgSeqNum of our Logon: the end of what NextExpectedMsgSeqNum can ask back
    private bool _sentLogout;
    private bool _sentReset;
    private bool _receivedReset;
    private bool _lastProcessedWasQueued;
    private bool _enabled = true;
    private int _heartBtInt;
    private int _testRequestCounter;
    private long _lastSentNanos;
    private long _lastReceivedNanos;
    private long _logoutSentNanos;
    private ResendRange _resend;
    private int _droppedThrough; // highest MsgSeqNum dropped from a full queue that no ResendRequest out covers
    private SessionCounters _counters;

    /// <summary>A session with its options, store and application; the engine creates them (<see cref="Hosting.FixEngine"/>), tests and custom hosts may too.</summary>
    public FixSession(FixSessionOptions options, IMessageStore store, IFixApplication application, EngineLog? log = null, EngineClock? clock = null)
    {
        ArgumentNullException.ThrowIfNull(options);
        ArgumentNullException.ThrowIfNull(store);
        ArgumentNullException.ThrowIfNull(application);
        if (options.Dictionary is null)
        {
            throw new ArgumentException("The session options have no dictionary.", nameof(options));
        }

        _options = options;
        _store = store;
        _journalStore = store as JournalMessageStore;
        _application = application;
        _log = log ?? EngineLog.Null;
        _clock = clock ?? EngineClock.Shared;
        _validator = options.UseDataDictionary ? new MessageValidator(options.Dictionary, options.Validation) : null;
        _adminValidator = !options.UseDataDictionary ? null
            : ReferenceEquals(options.AdminDictionary, options.Dictionary) ? _validator
            : new MessageValidator(options.AdminDictionary, options.Validation);
        _output = new byte[options.MaxMessageSize + 1024];
        _headerBlocks = new HeaderBlocks(options);
        _deferredWire = new byte[DeferredWriteBytes]; // the batched send's (FixSession.Batch.cs), with or without PersistMessages
        var viewOptions = options.MessageOptions with { MaxMessageSize = options.MaxMessageSize + 1024 };
        _replay = new FixMessage(viewOptions);
        _queue = new InboundQueue(options.InboundQueueCapacity, viewOptions);
        _heartBtInt = options.HeartBtInt;
        _logIndex = _log.RegisterSession(options.Id.ToString());
        _log.Write(LogLevel.Info, LogEvent.SessionCreated, _logIndex);
        application.OnCreate(this);
    }

    /// <summary>The session's identity (BeginString, CompIDs, qualifier).</summary>
    public SessionId Id => _options.Id;

    /// <summary>The options the session was created with.</summary>
    public FixSessionOptions Options => _options;

    /// <summary>The session's message store (sequence numbers and sent messages).</summary>
    public IMessageStore Store => _store;

    /// <summary>The session's index in its log (identifies it in log lines and traces).</summary>
    public int LogIndex => _logIndex;

    /// <summary>Where the session is in its life (see <see cref="SessionStatus"/>).</summary>
    public SessionStatus Status => _status;

    /// <summary>Both Logons exchanged.</summary>
    public bool IsLoggedOn => _receivedLogon && _sentLogon;

    /// <summary>
    /// The counterparty's address while a connection is bound (null otherwise, or for a transport without one):
    /// what <see cref="IFixApplication.OnLogonRequest"/> can check, and what refusals are logged with.
    /// </summary>
    public System.Net.EndPoint? RemoteEndPoint => _transport?.RemoteEndPoint;

    /// <summary>True while a transport is bound to the session.</summary>
    public bool IsConnected => _transport is not null;

    /// <summary>The bound transport, for the engine's counters (queue depths).</summary>
    internal ISessionTransport? Transport => _transport;

    /// <summary>Messages held ahead of a sequence gap (read without the lock: a recent value).</summary>
    internal int InboundQueueDepth => _queue.Count;

    /// <summary>The heartbeat interval in force (the counterparty's for an acceptor).</summary>
    public int HeartBtInt => _heartBtInt;

    /// <summary>The MsgSeqNum the next message we send will carry.</summary>
    public int NextSenderMsgSeqNum => _store.NextSenderMsgSeqNum;

    /// <summary>The MsgSeqNum we expect on the next message received.</summary>
    public int NextTargetMsgSeqNum => _store.NextTargetMsgSeqNum;

    /// <summary>A snapshot of the session's counters (allocation-free).</summary>
    public SessionCounters Counters
    {
        get
        {
            lock (_sync)
            {
                return _counters;
            }
        }
    }

    /// <summary>
    /// Binds an accepted connection (acceptor). Refused when another connection is bound: the caller then closes
    /// the new one (the counterparty is already logged on).
    /// </summary>
    internal bool TryAttach(ISessionTransport transport)
    {
        ArgumentNullException.ThrowIfNull(transport);
        lock (_sync)
        {
            if (_transport is not null)
            {
                return false;
            }

            _transport = transport;
            _status = SessionStatus.Connected;
            long now = _clock.UtcNowNanos;
            _lastReceivedNanos = now;
            _lastSentNanos = now;
            _log.Write(LogLevel.Info, LogEvent.Connected, _logIndex);
            return true;
        }
    }

    /// <summary>An initiator's connection is up: bind it and send our Logon.</summary>
    internal bool OnConnected(ISessionTransport transport)
    {
        lock (_sync)
        {
            if (!TryAttach(transport))
            {
                return false;
            }

            if (_options.IsInitiator && _enabled)
            {
                GenerateLogon();
            }

            return true;
        }
    }

    /// <summary>The transport reports that its connection is closed (by us or by the counterparty).</summary>
    internal void OnDisconnected(ISessionTransport transport, DisconnectReason reason)
    {
        lock (_sync)
        {
            if (!ReferenceEquals(transport, _transport))
            {
                return;
            }

            DetachAndReset(reason);
        }
    }

    /// <summary>Asks the counterparty to log out (our Logout, then wait for theirs); stops reconnection for an initiator.</summary>
    public void Logout(string? reason = null)
    {
        lock (_sync)
        {
            _enabled = false;
            if (IsLoggedOn && !_sentLogout)
            {
                GenerateLogout(reason);
            }
        }
    }

    /// <summary>Allows an initiator to log on again after <see cref="Logout"/>.</summary>
    public void Enable()
    {
        lock (_sync)
        {
            _enabled = true;
        }
    }

    /// <summary>True unless <see cref="Logout"/> disabled the session.</summary>
    public bool IsEnabled => _enabled;

    /// <summary>Closes the connection at once, without a Logout.</summary>
    public void Disconnect(DisconnectReason reason = DisconnectReason.Application)
    {
        lock (_sync)
        {
            DisconnectCore(reason);
        }
    }

    /// <summary>Resets both sequence numbers to 1 and clears the store (out of session, ResetSeqNumFlag...).</summary>
    public void ResetSequenceNumbers()
    {
        lock (_sync)
        {
            ResetState();
        }
    }

    private void DisconnectCore(DisconnectReason reason)
    {
        var transport = _transport;
        if (transport is null)
        {
            return;
        }

        DetachAndReset(reason);
        transport.Disconnect(reason);
    }

    // Whether the connection just detached had logged on: the transport's closing log line reads it, because a
    // sender on another thread can end the connection (outbound buffer full) before the connection's own thread has
    // seen the Logon complete.
    private volatile bool _lastConnectionWasLoggedOn;

    /// <summary>Whether the session was logged on when its last connection was detached.</summary>
    internal bool LastConnectionWasLoggedOn => _lastConnectionWasLoggedOn;

    private void DetachAndReset(DisconnectReason reason)
    {
        bool wasLoggedOn = IsLoggedOn;
        _lastConnectionWasLoggedOn = wasLoggedOn;
        _transport = null;
        _status = SessionStatus.Disconnected;
        _receivedLogon = false;
        _sentLogon = false;
        _sentLogout = false;
        _sentReset = false;
        _receivedReset = false;
        _testRequestCounter = 0;
        _heartBtInt = _options.HeartBtInt;
        _queue.Clear();
        _resend = default;
        _droppedThrough = 0;
        _log.Write(LogLevel.Info, LogEvent.Disconnected, _logIndex, (long)reason);
        if (_options.ResetOnDisconnect)
        {
            ResetState();
        }

        if (wasLoggedOn)
        {
            _application.OnLogout(this);
        }
    }

    private void ResetState()
    {
        var status = _store.Reset(_clock.UtcNow);
        if (status != StoreWriteStatus.Ok)
        {
            _log.Write(LogLevel.Error, LogEvent.StoreWriteFailed, _logIndex, (long)status);
        }

        _queue.Clear();
        _resend = default;
        _droppedThrough = 0;
        _log.Write(LogLevel.Info, LogEvent.SessionReset, _logIndex);
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static bool Is(ReadOnlySpan<byte> msgType, byte type) => msgType.Length == 1 && msgType[0] == type;

    /// <summary>Admin message types of FIX: 0 1 2 3 4 5 A, plus n (XMLnonFIX) as QuickFIX counts it.</summary>
    private static bool IsAdminType(ReadOnlySpan<byte> msgType) =>
        msgType.Length == 1 && msgType[0] is (byte)'0' or (byte)'1' or (byte)'2' or (byte)'3' or (byte)'4' or (byte)'5' or (byte)'A' or (byte)'n';

    /// <summary>The outstanding ResendRequest, if any.</summary>
    private struct ResendRange
    {
        public int Begin;

        /// <summary>The end of the gap that caused the request (also when it asked "through infinity").</summary>
        public int End;
        public int ChunkEnd;
        public bool Active;
        public bool Started;

        /// <summary>Asked with EndSeqNo 0 (999999 before FIX 4.2): the counterparty resends all it has sent.</summary>
        public bool ThroughInfinity;

        /// <summary>When the counterparty's own resend (NextExpectedMsgSeqNum) began to be awaited; 0 once asked for.</summary>
        public long AwaitingPeerSince;
    }
}

/// <summary>Counters of one session, readable at any time without allocation.</summary>
public struct SessionCounters
{
    /// <summary>Messages received on the session.</summary>
    public long MessagesReceived;
    /// <summary>Messages sent on the session.</summary>
    public long MessagesSent;
    /// <summary>Application messages delivered to the application.</summary>
    public long ApplicationMessagesReceived;
    /// <summary>Application messages sent.</summary>
    public long ApplicationMessagesSent;
    /// <summary>Session Rejects and BusinessMessageRejects sent.</summary>
    public long RejectsSent;
    /// <summary>ResendRequests sent.</summary>
    public long ResendRequestsSent;
    /// <summary>ResendRequests received.</summary>
    public long ResendRequestsReceived;
    /// <summary>Stored messages resent (PossDupFlag=Y).</summary>
    public long MessagesResent;
    /// <summary>SequenceReset-GapFills sent.</summary>
    public long GapFillsSent;
    /// <summary>Messages received ahead of a gap and queued until it is filled.</summary>
    public long QueuedAheadOfGap;
    /// <summary>Messages ahead of a gap dropped because the queue was full (asked for again later).</summary>
    public long InboundQueueOverflows;
    /// <summary>Sends the connection refused.</summary>
    public long SendFailures;
    /// <summary>Store writes that failed.</summary>
    public long StoreFailures;
    /// <summary>Logons completed.</summary>
    public long Logons;
    /// <summary>Logons refused (by the application or the session's checks).</summary>
    public long LogonsRefused;
    /// <summary>Disconnections.</summary>
    public long Disconnects;
}
