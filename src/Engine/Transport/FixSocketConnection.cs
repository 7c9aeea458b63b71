using System.Net.Sockets;
using RapidFix.Engine.Codec;
using RapidFix.Engine.Diagnostics;
using RapidFix.Engine.Sessions;
using RapidFix.Engine.Transport.Tls;
using RapidFix.Pools.Diagnostics;

namespace RapidFix.Engine.Transport;

/// <summary>How a connection buffers what it receives (setting SocketTransport). Both read on a dedicated thread.</summary>
public enum SocketTransport : byte
{
    /// <summary>A System.IO.Pipelines pipe over a per-connection slab pool (<see cref="PipeConnection"/>).</summary>
    Pipelines,

    /// <summary>One flat pinned receive buffer, compacted after each read (<see cref="FixConnection"/>).</summary>
    DedicatedThread,
}

/// <summary>
/// One TCP connection served by a dedicated thread: it waits for bytes, frames and parses messages and hands them to
/// the session, runs the session's timer, and drains the outbound buffer when the socket pushes back. The two kinds
/// differ only in how received bytes are buffered (<see cref="Receive"/>); receiving and sending allocate nothing.
/// </summary>
/// <remarks>
/// Sends are made from the sender's thread straight to the (non-blocking) socket; only what the kernel does not
/// take at once is copied to a bounded outbound buffer that this thread drains. A counterparty so slow that the
/// buffer fills is logged and disconnected: memory never grows.
/// An acceptor's connection is bound to its session by the first message, which must be a Logon for a known
/// session that is not already connected. Until then it holds only what a Logon needs (a small receive buffer, a
/// small parsed view, no outbound buffer): the full-size buffers are allocated when the Logon binds it, so a crowd
/// of connections that never log on costs little. Every close of a connection that was never bound is logged with
/// the peer's address and the reason.
/// A close asked for while bytes wait in the outbound buffer (a Logout, typically) waits up to
/// <see cref="CloseDrainTimeout"/> for them to leave; the buffer keeps <see cref="FinalMessageReserve"/> bytes
/// free for a last Logout when a slow counterparty has filled the rest.
/// </remarks>
public abstract class FixSocketConnection : ISessionTransport, ITlsConnection
{
    private const int TimerIntervalMicros = 50_000;

    /// <summary>
    /// Outbound bytes kept, beyond the configured buffer, for a last Logout: a send that does not fit the buffer
    /// fails (the counterparty is too slow), and the session's Logout that follows may use them.
    /// </summary>
    public const int FinalMessageReserve = 2048;

    /// <summary>Receive buffer of an acceptor connection until its Logon binds it (bytes): a Logon must fit.</summary>
    public const int DefaultLogonBufferBytes = 8192;

    /// <summary>How long a close waits for the outbound buffer (its Logout included) to drain.</summary>
    public static readonly TimeSpan CloseDrainTimeout = TimeSpan.FromSeconds(2);

    private readonly Socket _socket;
    private readonly FixFramer _framer;
    private readonly EngineLog _log;
    private readonly object _sendLock = new();
    private readonly ManualResetEventSlim _ended = new(false);
    private Thread? _thread;
    private long _coalescingWaits;
    private long _reads;
    private bool _readFilled; // the last socket read filled the space it was given: the socket may hold more

    // 0 until started, 1 once started (on its own thread or handed to an acceptor's pooled thread), 2 when ended.
    private volatile int _runState;
    private long _threadAllocatedBase;
    private readonly TimeSpan _logonTimeout;
    private readonly int _maxMessageSize;
    private readonly int _outboundBufferBytes;
    private readonly SessionReceiver _receiver;
    private byte[] _pending = [];
    private ConnectionBuffers? _buffers; // the session's, lent to this connection from its binding to its end
    private byte[]? _logonBuffer;
    private int _logonFilled;
    private Action<FixSocketConnection>? _leftPending;
    private int _pendingReported;
    private EngineThreadStats? _recorder;
    private int _pendingLength;
    private bool _loggedOn;

    // Set when a send did not fit: only a Logout may still be queued (into the reserve).
    private bool _outboundFull;
    private bool _finalLogoutQueued;

    // A close that waits for the outbound buffer to drain (under _sendLock).
    private volatile bool _closing;
    private DisconnectReason _closingReason;
    private long _closeDeadline;
    private long _threadAllocatedBytes;
    private long _readTimestamp;
    private volatile bool _closed;
    private DisconnectReason _reason;
    private TlsChannel? _tls;
    private bool _sendingCiphertext;

    // Set while SendTls encrypts a message it admitted to the outbound buffer (under the send lock).
    private bool _tlsAdmitted;
    private long _lastTimer;
    private long _logonDeadline;

    /// <param name="socket">A connected socket; the connection owns it from now on.</param>
    /// <param name="session">The session (initiator), or null for an acceptor connection routed by its Logon.</param>
    /// <param name="router">Finds the session of an acceptor connection's Logon (null: no such session).</param>
    /// <param name="maxMessageSize">Largest message read.</param>
    /// <param name="outboundBufferBytes">Bytes that may wait for a slow counterparty.</param>
    /// <param name="log">Where connection events are logged.</param>
    /// <param name="logonTimeout">
    /// How long an acceptor connection may stay without a routed Logon (nothing sent, half a message, a slow trickle)
    /// before it is dropped; ignored for an initiator, whose session times its own Logon. Default 10 s.
    /// </param>
    /// <param name="logonBufferBytes">
    /// Receive buffer of an acceptor connection until its Logon binds it (a longer Logon closes it as too large);
    /// 0 for <see cref="DefaultLogonBufferBytes"/>.
    /// </param>
    private protected FixSocketConnection(Socket socket, FixSession? session, Func<FixMessage, FixSession?>? router, int maxMessageSize, int outboundBufferBytes, EngineLog? log, TimeSpan? logonTimeout,
        int logonBufferBytes = 0)
    {
        ArgumentNullException.ThrowIfNull(socket);
        _socket = socket;
        // Read once here: Socket.RemoteEndPoint builds a new object on each call.
        try
        {
            RemoteEndPoint = socket.RemoteEndPoint;
        }
        catch (SocketException)
        {
            RemoteEndPoint = null;
        }
        catch (ObjectDisposedException)
        {
            RemoteEndPoint = null;
        }

        _log = log ?? EngineLog.Null;
        _maxMessageSize = maxMessageSize;
        _outboundBufferBytes = outboundBufferBytes;
        _framer = new FixFramer(maxMessageSize);
        _logonTimeout = logonTimeout ?? TimeSpan.FromSeconds(10);
        if (_logonTimeout <= TimeSpan.Zero)
        {
            throw new ArgumentOutOfRangeException(nameof(logonTimeout), logonTimeout, "The logon timeout must be positive.");
        }

        // What may wait unframed before the connection gives up on it: a whole message plus a read's worth.
        ReceiveLimit = ConnectionBuffers.ReceiveLimitFor(maxMessageSize);

        // Parsing, the dictionary and the routing of a first Logon are the session layer's: this class only frames.
        int logonLimit = Math.Min(logonBufferBytes > 0 ? logonBufferBytes : DefaultLogonBufferBytes, ReceiveLimit);
        _receiver = new SessionReceiver(session, router, maxMessageSize, logonLimit, _log, viewFromTransport: true);
        if (session is null)
        {
            // Before its Logon an acceptor connection only needs to read and route a Logon.
            _logonBuffer = new byte[Math.Min(logonBufferBytes > 0 ? logonBufferBytes : DefaultLogonBufferBytes, ReceiveLimit)];
        }

        socket.Blocking = false;
        socket.NoDelay = true;
    }

    /// <summary>
    /// Creates a connection of the kind <paramref name="transport"/> names; with <paramref name="tls"/>, one that
    /// speaks TLS (the handshake runs first, on the connection's thread). <paramref name="host"/> is the host an
    /// initiator connected to: the name the server's certificate must carry unless SSLServerName says otherwise.
    /// </summary>
    public static FixSocketConnection Create(SocketTransport transport, Socket socket, FixSession? session, Func<FixMessage, FixSession?>? router,
        int maxMessageSize, int outboundBufferBytes, EngineLog? log = null, TimeSpan? logonTimeout = null, int logonBufferBytes = 0, TlsOptions? tls = null, string? host = null)
    {
        FixSocketConnection connection = transport == SocketTransport.Pipelines
            ? new PipeConnection(socket, session, router, maxMessageSize, outboundBufferBytes, log, logonTimeout, logonBufferBytes)
            : new FixConnection(socket, session, router, maxMessageSize, outboundBufferBytes, log, logonTimeout, logonBufferBytes);
        if (tls is not null)
        {
            connection._tls = new TlsChannel(socket, connection, tls, server: router is not null, host);
            if (session is not null)
            {
                connection._tls.Bind(maxMessageSize);
            }
        }

        return connection;
    }

    /// <summary>True when the connection speaks TLS.</summary>
    public bool IsTls => _tls is not null;

    /// <summary>A TLS connection whose handshake has waited for the peer's bytes at least once (tests of floods measure then).</summary>
    internal bool TlsHandshakeWaitedForPeer => _tls?.HandshakeWaitedForPeer ?? false;

    /// <summary>The TLS protocol negotiated (None for plaintext, or before the handshake).</summary>
    public System.Security.Authentication.SslProtocols TlsProtocol => _tls?.Protocol ?? System.Security.Authentication.SslProtocols.None;

    /// <summary>Which kind of connection this is.</summary>
    public abstract SocketTransport Transport { get; }

    /// <inheritdoc/>
    public System.Net.EndPoint? RemoteEndPoint { get; }

    /// <summary>The session bound to this connection (null until an acceptor connection's Logon is routed).</summary>
    public FixSession? Session => _receiver.Session;

    /// <summary>True once the connection has its session (from the start for an initiator, at its Logon for an acceptor's).</summary>
    public bool IsBound => _logonBuffer is null;

    /// <summary>
    /// The latency and allocation recorder of the connection's thread while it runs (null before and after): the
    /// thread hands it back when it ends, for the next connection to use.
    /// </summary>
    public EngineThreadStats? Recorder => Volatile.Read(ref _recorder);

    /// <summary>Socket reads made (receive calls, TLS excepted).</summary>
    internal long Reads => Volatile.Read(ref _reads);

    /// <summary>Waits the connection made to coalesce reads (<see cref="FixSessionOptions.SocketReceiveCoalesceMilliseconds"/>).</summary>
    internal long CoalescingWaits => Volatile.Read(ref _coalescingWaits);

    /// <summary>True once the connection is closed.</summary>
    public bool IsClosed => _closed;

    /// <summary>Why the connection closed.</summary>
    public DisconnectReason CloseReason => _reason;

    /// <summary>Bytes waiting in the outbound buffer.</summary>
    public int PendingBytes => Volatile.Read(ref _pendingLength);

    /// <summary>
    /// Bytes the connection's thread has allocated since the connection started (sampled once per loop): flat in the continuous
    /// phase. Connection set-up allocates; receiving, processing and sending must not.
    /// </summary>
    public long ThreadAllocatedBytes => Volatile.Read(ref _threadAllocatedBytes) - Volatile.Read(ref _threadAllocatedBase);

    /// <summary>The framer's counters (garbage skipped, garbled frames, bad checksums).</summary>
    public FixFramer Framer => _framer;

    /// <summary>Unframed bytes beyond which the connection is closed (MessageTooLarge).</summary>
    private protected int ReceiveLimit { get; }

    private protected bool Closed => _closed;

    /// <summary>Largest message read (the full-size buffers' measure).</summary>
    private protected int MaxMessageSize => _maxMessageSize;

    /// <summary>
    /// Called (once, on the connection's thread) when the connection stops waiting for its Logon: bound to its
    /// session, or closed without one. The acceptor counts connections awaiting a Logon with it.
    /// </summary>
    internal void OnLeftPending(Action<FixSocketConnection> leftPending) => _leftPending = leftPending;

    /// <summary>Starts the connection's own thread (and, for an initiator, the session's logon).</summary>
    public void Start()
    {
        BeforeRun();
        _thread = new Thread(RunOnCurrentThread) { IsBackground = true, Name = "rapidfix-connection" };
        _thread.Start();
    }

    /// <summary>
    /// Runs the connection on one of an acceptor's pooled threads (no thread is started for it). A plaintext
    /// connection whose Logon has already arrived is first served on the calling (accept) thread, up to the Logon's
    /// answer: a counterparty that logs on does not wait for a pooled thread to be scheduled on a busy machine.
    /// </summary>
    internal void Start(ConnectionThreads threads)
    {
        BeforeRun();
        if (_tls is null && _receiver.Session is null)
        {
            ReceiveOnAccept();
        }

        threads.Run(this);
    }

    /// <summary>One read of what the socket already holds (never waits), processed as the connection's thread would.</summary>
    private void ReceiveOnAccept()
    {
        try
        {
            if (_socket.Available > 0 && !ReceiveAny())
            {
                Close(_reason == DisconnectReason.None ? DisconnectReason.PeerClosed : _reason);
            }
        }
        catch (Exception ex) when (ex is SocketException or ObjectDisposedException)
        {
            Close(DisconnectReason.SocketError);
        }
        catch (Exception ex) when (ex is not OutOfMemoryException)
        {
            // An application callback that threw on the Logon: the connection's thread logs out and cleans up.
            _log.WriteFault(_receiver.Session?.LogIndex ?? -1, ex);
            Close(DisconnectReason.EngineFault);
        }
    }

    private void BeforeRun()
    {
        if (Interlocked.CompareExchange(ref _runState, 1, 0) != 0)
        {
            throw new InvalidOperationException("The connection was already started.");
        }

        // An initiator's connection has its session from the start: its buffers before anything is sent.
        if (_receiver.Session is not null && !TakeBuffers())
        {
            return;
        }

        // Over TLS nothing may be sent before the handshake: the connection's thread calls OnConnected after it.
        if (_tls is null && _receiver.Session is not null && !_receiver.Session.OnConnected(this))
        {
            Close(DisconnectReason.AlreadyLoggedOn);
        }
    }

    /// <summary>The connection's whole life, on the calling thread (its own, or a pooled one that runs the next connection after).</summary>
    internal void RunOnCurrentThread()
    {
        try
        {
            Run();
        }
        finally
        {
            _runState = 2;
            _ended.Set();
        }
    }

    /// <summary>Waits for the connection's run to end.</summary>
    public bool Join(TimeSpan timeout) => _ended.Wait(timeout);

    /// <inheritdoc/>
    public bool Send(ReadOnlySpan<byte> message)
    {
        if (_tls is not null && !_sendingCiphertext)
        {
            return SendTls(message);
        }

        lock (_sendLock)
        {
            if (_closed || _closing)
            {
                return false;
            }

            if (_pendingLength == 0 && !_outboundFull)
            {
                int sent = _socket.Send(message, SocketFlags.None, out var error);
                if (error is not SocketError.Success and not SocketError.WouldBlock)
                {
                    Close(DisconnectReason.SocketError);
                    return false;
                }

                if (error == SocketError.WouldBlock)
                {
                    sent = 0;
                }

                message = message.Slice(sent);
                if (message.IsEmpty)
                {
                    return true;
                }
            }

            if (_tlsAdmitted ? message.Length > _pending.Length - _pendingLength : !FitsOutbound(message.Length, message))
            {
                // Ciphertext of an admitted message never fails here: SendTls admitted its largest size.
                return false;
            }

            message.CopyTo(_pending.AsSpan(_pendingLength));
            _pendingLength += message.Length;
            return true;
        }
    }

    /// <summary>
    /// Whether <paramref name="length"/> bytes may join the outbound buffer (under the send lock). Normal sends leave
    /// <see cref="FinalMessageReserve"/> bytes free; the first that does not fit marks the buffer full and fails (the
    /// session then logs out), after which only one Logout (<paramref name="plaintext"/> is one) may still use the
    /// reserve. Over TLS the length is the largest the message's records can take, decided before it is encrypted.
    /// </summary>
    private bool FitsOutbound(int length, ReadOnlySpan<byte> plaintext)
    {
        int free = _pending.Length - _pendingLength;
        if (!_outboundFull)
        {
            if (length <= free - FinalMessageReserve)
            {
                return true;
            }

            _outboundFull = true;
            _log.WritePeer(LogLevel.Error, LogEvent.OutboundBufferFull, _receiver.Session?.LogIndex ?? -1, RemoteEndPoint, _pendingLength);
            return false;
        }

        if (_finalLogoutQueued || length > free || !IsLogout(plaintext))
        {
            return false;
        }

        _finalLogoutQueued = true;
        return true;
    }

    /// <summary>
    /// Encrypts a message; the records come back through ITlsConnection.SendCiphertext to the plain path above. The
    /// outbound buffer's rules (the reserve for a last Logout included) are applied to the plaintext first, with the
    /// most its records can take: a record the buffer then refused would break the TLS stream for good.
    /// </summary>
    private bool SendTls(ReadOnlySpan<byte> message)
    {
        lock (_sendLock)
        {
            if (_closed || _closing)
            {
                return false;
            }

            if (!FitsOutbound(TlsChannel.CiphertextBound(message.Length), message))
            {
                return false;
            }

            _tlsAdmitted = true;
            try
            {
                _tls!.Write(message);
                return !_closed;
            }
            catch (Exception e) when (e is IOException or ObjectDisposedException)
            {
                Close(DisconnectReason.TlsError);
                return false;
            }
            finally
            {
                _tlsAdmitted = false;
            }
        }
    }

    bool ITlsConnection.SendCiphertext(ReadOnlySpan<byte> ciphertext)
    {
        // The send lock is re-entrant: held here both when a sender encrypts and when TLS answers the peer from a read.
        lock (_sendLock)
        {
            bool nested = _sendingCiphertext;
            _sendingCiphertext = true;
            try
            {
                return Send(ciphertext);
            }
            finally
            {
                _sendingCiphertext = nested;
            }
        }
    }

    bool ITlsConnection.IsClosed => _closed;

    bool ITlsConnection.HasOutbound => Volatile.Read(ref _pendingLength) > 0;

    void ITlsConnection.FlushOutbound() => Flush();

    void ITlsConnection.OnWaiting()
    {
        if (Volatile.Read(ref _pendingLength) > 0)
        {
            Flush();
        }

        RunTimer();
    }

    private static bool IsLogout(ReadOnlySpan<byte> message) => Is(FixMessage.PeekMsgType(message), (byte)'5');

    /// <summary>
    /// Closes the connection. What waits in the outbound buffer (a Logout, typically) is given up to
    /// <see cref="CloseDrainTimeout"/> to leave first; what cannot leave by then is logged with its size.
    /// </summary>
    public void Disconnect(DisconnectReason reason)
    {
        lock (_sendLock)
        {
            if (_closed || _closing)
            {
                return;
            }

            if (_outboundFull && reason == DisconnectReason.SendFailed)
            {
                reason = DisconnectReason.OutboundBufferFull;
            }

            if (_pendingLength > 0 && _runState == 1)
            {
                // The connection's thread drains, then closes (see Run).
                _closingReason = reason;
                _closeDeadline = Time.EngineClock.Timestamp + (long)(CloseDrainTimeout.TotalSeconds * System.Diagnostics.Stopwatch.Frequency);
                _closing = true;
                return;
            }
        }

        Close(reason);
    }

    private protected void Close(DisconnectReason reason)
    {
        if (_closed)
        {
            return;
        }

        _reason = reason;
        _closed = true;
        try
        {
            _socket.Shutdown(SocketShutdown.Both);
        }
        catch (SocketException)
        {
            // Already reset by the peer: nothing to shut down.
        }
        catch (ObjectDisposedException)
        {
        }
    }

    /// <summary>Called once on the connection's thread when it ends, before the socket is disposed.</summary>
    private protected virtual void OnClosed()
    {
    }

    // The connection's whole life is one call: compiled optimized at once, so that its loop is never moved to
    // optimized code by on-stack replacement (which allocates) in the continuous phase.
    [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.AggressiveOptimization)]
    private void Run()
    {
        _lastTimer = Time.EngineClock.Timestamp;
        Volatile.Write(ref _threadAllocatedBase, GC.GetAllocatedBytesForCurrentThread());
        Volatile.Write(ref _threadAllocatedBytes, _threadAllocatedBase);

        // An acceptor connection that has not been bound to a session by its Logon in time is dropped: a silent or
        // trickling client must not hold a socket, a thread and its buffers forever.
        _logonDeadline = _lastTimer + (long)(_logonTimeout.TotalSeconds * System.Diagnostics.Stopwatch.Frequency);
        var threadStats = EngineThreads.Register();
        Volatile.Write(ref _recorder, threadStats);
        try
        {
            if (_tls is not null && !StartTls())
            {
                return;
            }

            while (!_closed)
            {
                threadStats.RefreshAllocatedBytes();
                if (Volatile.Read(ref _pendingLength) > 0)
                {
                    Flush();
                }

                if (_closing)
                {
                    FinishClosing();
                    continue;
                }

                int wait = Volatile.Read(ref _pendingLength) > 0 ? 1_000 : TimerIntervalMicros;
                if ((_tls is not null && _tls.HasBuffered || _socket.Poll(wait, SelectMode.SelectRead)) && !_closed)
                {
                    if (!ReceiveAny())
                    {
                        break;
                    }

                    // SocketReceiveCoalesceMilliseconds: let the rest of a burst arrive, to take it in one read.
                    int coalesce = _receiver.Session?.Options.SocketReceiveCoalesceMilliseconds ?? 0;
                    if (coalesce > 0 && !_closing && !_closed)
                    {
                        Volatile.Write(ref _coalescingWaits, _coalescingWaits + 1);
                        Thread.Sleep(coalesce);
                    }
                }

                RunTimer();
                Volatile.Write(ref _threadAllocatedBytes, GC.GetAllocatedBytesForCurrentThread());
            }
        }
        catch (SocketException)
        {
            Close(DisconnectReason.SocketError);
        }
        catch (ObjectDisposedException)
        {
            Close(DisconnectReason.SocketError);
        }
        catch (Exception ex) when (ex is not OutOfMemoryException)
        {
            // An application callback that threw (or a bug) must not take the whole process down with this thread.
            _log.WriteFault(_receiver.Session?.LogIndex ?? -1, ex);
            Close(DisconnectReason.EngineFault);
        }
        finally
        {
            Close(_reason == DisconnectReason.None ? DisconnectReason.PeerClosed : _reason);
            try
            {
                // Every connection's end is logged with its address; one that never logged on was refused.
                bool loggedOn = _loggedOn || _receiver.Session is { LastConnectionWasLoggedOn: true };
                _log.WritePeer(loggedOn ? LogLevel.Info : LogLevel.Warning, loggedOn ? LogEvent.ConnectionClosed : LogEvent.ClosedBeforeLogon,
                    _receiver.Session?.LogIndex ?? -1, RemoteEndPoint, (long)_reason);
                LeavePending();
                if (_tls is not null)
                {
                    // Under the send lock: a sender must never find the stream disposed in the middle of a write.
                    lock (_sendLock)
                    {
                        _tls.Dispose();
                    }
                }

                OnClosed();
                _receiver.Session?.OnDisconnected(this, _reason);
            }
            catch (Exception ex) when (ex is not OutOfMemoryException)
            {
                _log.WriteFault(_receiver.Session?.LogIndex ?? -1, ex);
            }

            _socket.Dispose();
            ReleaseBuffers();

            // The thread's recorder (and what it measured) goes to the next connection's thread.
            Volatile.Write(ref _recorder, null);
            EngineThreads.Release();
        }
    }

    /// <summary>A close waiting for the outbound buffer: closes once it is empty, or at the deadline saying what was left.</summary>
    private void FinishClosing()
    {
        int left;
        DisconnectReason reason;
        lock (_sendLock)
        {
            left = _pendingLength;
            reason = _closingReason;
        }

        if (left > 0 && Time.EngineClock.Timestamp < _closeDeadline)
        {
            // Wait for the socket to take more (the loop's read poll would return at once on unread data).
            _socket.Poll(1_000, SelectMode.SelectWrite);
            return;
        }

        if (left > 0)
        {
            _log.WritePeer(LogLevel.Warning, LogEvent.UnsentAtClose, _receiver.Session?.LogIndex ?? -1, RemoteEndPoint, left, _finalLogoutQueued ? 1 : 0);
        }

        Close(reason);
    }

    private void LeavePending()
    {
        if (Interlocked.Exchange(ref _pendingReported, 1) == 0)
        {
            _leftPending?.Invoke(this);
        }
    }

    /// <summary>
    /// The Logon bound the connection to its session: the session's full-size buffers replace the Logon-sized ones.
    /// False when the session's previous connection did not give them back in time (the connection is closed).
    /// </summary>
    private bool Bind()
    {
        LeavePending();
        if (!TakeBuffers())
        {
            return false;
        }

        _tls?.Bind(_maxMessageSize);
        return true;
    }

    /// <summary>
    /// Borrows the session's full-size buffers (made at startup; made now only for a session nobody reserved them
    /// for), waiting for its previous connection to give them back if it is still draining its close. False, the
    /// connection closed and the refusal logged, when that did not happen within <see cref="ConnectionBuffers.TakeTimeout"/>.
    /// </summary>
    private bool TakeBuffers()
    {
        var session = _receiver.Session!;
        var buffers = ConnectionBuffers.Reserve(session, Transport, _maxMessageSize, _outboundBufferBytes);
        if (!buffers.TryTake(this, ConnectionBuffers.TakeTimeout))
        {
            _log.WritePeer(LogLevel.Warning, LogEvent.AlreadyLoggedOn, session.LogIndex, RemoteEndPoint);
            Close(DisconnectReason.AlreadyLoggedOn);
            return false;
        }

        lock (_sendLock)
        {
            _buffers = buffers;
            _pending = buffers.Outbound;
        }

        UseReceiveBuffers(buffers);
        _receiver.UseView(buffers.View);
        return true;
    }

    /// <summary>
    /// The connection's thread has ended: the buffers go back to the session for its next connection. Under the send
    /// lock with the connection closed, so no sender is still writing into them.
    /// </summary>
    private void ReleaseBuffers()
    {
        ConnectionBuffers? buffers;
        lock (_sendLock)
        {
            buffers = _buffers;
            _buffers = null;
            _pending = [];
        }

        buffers?.Release(this);
    }

    /// <summary>Takes the session's full-size receive buffers: at an initiator's start, at an acceptor connection's Logon.</summary>
    private protected abstract void UseReceiveBuffers(ConnectionBuffers buffers);

    /// <summary>
    /// Takes the bytes that followed the binding Logon in the Logon buffer, and processes every whole message among
    /// them as <see cref="Receive"/> would. False when the connection is over.
    /// </summary>
    private protected abstract bool Adopt(ReadOnlySpan<byte> bytes);

    /// <summary>Reads and processes, through the Logon buffer until the connection is bound.</summary>
    private bool ReceiveAny()
    {
        bool open;
        if (_logonBuffer is null)
        {
            open = Receive();

            // A read that filled its space (a receive block) left the rest of a burst in the socket: take it now, up
            // to MaxReadsPerWake reads, not one block per wake. One block per wake, with the coalescing wait after it,
            // held a connection to about 16 KiB a millisecond: 33,000 trade messages a second, the matching service's
            // ceiling at 112,000 inputs/s (its busiest participants send 2/7 of them each).
            for (int more = 1; more < MaxReadsPerWake && open && _readFilled && !_closed && (_tls is null || _tls.HasBuffered); more++)
            {
                open = Receive();
            }
        }
        else
        {
            open = ReceiveBeforeLogon();
        }

        _receiver.EndOfRead(); // what the session deferred during the read goes out now: one flush per read
        return open;
    }

    /// <summary>Socket reads one wake takes at most while each fills its space (then the other work of the loop runs).</summary>
    internal const int MaxReadsPerWake = 16;

    private bool ReceiveBeforeLogon()
    {
        var buffer = _logonBuffer!;
        int n = ReadSocket(buffer.AsSpan(_logonFilled));
        if (n <= 0)
        {
            return n == 0;
        }

        _logonFilled += n;
        FrameAndDeliver(buffer, ref _logonFilled);
        if (_closed)
        {
            return false;
        }

        if (_receiver.Session is not null)
        {
            // Bound: what followed the Logon moves to the session's buffers.
            _logonBuffer = null;
            return Adopt(new ReadOnlySpan<byte>(buffer, 0, _logonFilled));
        }

        if (_logonFilled == buffer.Length)
        {
            CloseTooLarge(_logonFilled);
            return false;
        }

        return true;
    }

    /// <summary>
    /// Frames and delivers every whole message in <paramref name="buffer"/>[0, <paramref name="filled"/>) and moves
    /// what is left to the front. An unbound connection stops after the message that binds it.
    /// </summary>
    private protected void FrameAndDeliver(byte[] buffer, ref int filled)
    {
        bool unbound = _receiver.Session is null;
        int offset = 0;
        while (offset < filled && !_closed)
        {
            var frame = _framer.Frame(new ReadOnlySpan<byte>(buffer, offset, filled - offset));
            if (unbound && frame.SkippedBytes > 0)
            {
                // Bytes that do not start a FIX message where a Logon must come: nothing to talk to.
                Close(DisconnectReason.GarbledBeforeLogon);
                break;
            }

            if (frame.Status == FrameStatus.NeedMoreData)
            {
                offset += frame.Consumed;
                break;
            }

            if (frame.Status == FrameStatus.Complete)
            {
                Deliver(buffer, offset + frame.Start, frame.Length);
            }
            else
            {
                Reject(frame);
            }

            offset += frame.Consumed;
            if (unbound && _receiver.Session is not null)
            {
                break;
            }
        }

        if (offset > 0)
        {
            buffer.AsSpan(offset, filled - offset).CopyTo(buffer);
            filled -= offset;
        }
    }

    /// <summary>The session's timer every 50 ms; before a Logon has bound the connection, its deadline.</summary>
    private void RunTimer()
    {
        long now = Time.EngineClock.Timestamp;
        if (now - _lastTimer < System.Diagnostics.Stopwatch.Frequency / (1_000_000 / TimerIntervalMicros))
        {
            return;
        }

        _lastTimer = now;
        if (_receiver.Session is not null)
        {
            _receiver.Session.OnTimer();
        }
        else if (now >= _logonDeadline)
        {
            _log.WritePeer(LogLevel.Warning, LogEvent.LogonTimedOut, -1, RemoteEndPoint, (long)Math.Ceiling(_logonTimeout.TotalSeconds));
            Close(DisconnectReason.LogonTimeout);
        }
    }

    /// <summary>
    /// The TLS handshake, then (initiator) the session's connection: false when the peer was refused, which is
    /// logged with its address and the reason (connection set-up: allocates).
    /// </summary>
    private bool StartTls()
    {
        string? refusal = _tls!.Handshake();
        if (refusal is not null)
        {
            _log.WriteRefusal(LogLevel.Warning, LogEvent.TlsHandshakeFailed, _receiver.Session?.LogIndex ?? -1, RemoteEndPoint, refusal);
            Close(DisconnectReason.TlsHandshakeFailed);
            return false;
        }

        if (_receiver.Session is not null && !_receiver.Session.OnConnected(this))
        {
            Close(DisconnectReason.AlreadyLoggedOn);
            return false;
        }

        return !_closed;
    }

    private void Flush()
    {
        lock (_sendLock)
        {
            if (_pendingLength == 0 || _closed)
            {
                return;
            }

            int sent = _socket.Send(_pending.AsSpan(0, _pendingLength), SocketFlags.None, out var error);
            if (error == SocketError.WouldBlock)
            {
                return;
            }

            if (error != SocketError.Success)
            {
                Close(DisconnectReason.SocketError);
                return;
            }

            _pending.AsSpan(sent, _pendingLength - sent).CopyTo(_pending);
            _pendingLength -= sent;
        }
    }

    /// <summary>Reads what the socket has and processes every whole message. False when the connection is over.</summary>
    private protected abstract bool Receive();

    /// <summary>
    /// One non-blocking read into <paramref name="into"/>: the byte count, 0 when the socket had nothing after all,
    /// or -1 when the connection is over (peer closed or socket error; the connection is closed).
    /// </summary>
    private protected int ReadSocket(Span<byte> into)
    {
        if (_tls is not null)
        {
            return ReadTls(into);
        }

        int n = _socket.Receive(into, SocketFlags.None, out var error);
        Volatile.Write(ref _reads, _reads + 1);
        _readFilled = n == into.Length && n > 0;
        if (error == SocketError.WouldBlock)
        {
            return 0;
        }

        if (error != SocketError.Success || n == 0)
        {
            Close(error == SocketError.Success ? DisconnectReason.PeerClosed : DisconnectReason.SocketError);
            return -1;
        }

        _readTimestamp = EngineLatency.Start();
        return n;
    }

    /// <summary>One read of decrypted bytes (waiting, with the timer running, for the rest of a record that has begun).</summary>
    private int ReadTls(Span<byte> into)
    {
        int n;
        try
        {
            n = _tls!.Read(into);
        }
        catch (IOException e)
        {
            // A record TLS refuses (corrupt, forged, truncated): the connection cannot be trusted any further.
            _log.WriteRefusal(LogLevel.Error, LogEvent.TlsError, _receiver.Session?.LogIndex ?? -1, RemoteEndPoint, e.Message);
            Close(DisconnectReason.TlsError);
            return -1;
        }

        if (n < 0)
        {
            Close(DisconnectReason.PeerClosed);
            return -1;
        }

        _readFilled = n == into.Length && n > 0;
        _readTimestamp = EngineLatency.Start();
        return n;
    }

    /// <summary>A frame that is not a complete message: garbage before a logon closes, after it the session decides.</summary>
    private protected void Reject(in FrameResult frame)
    {
        if (!_receiver.OnBadFrame(frame))
        {
            // Garbage before a logon: nothing to talk to.
            Close(DisconnectReason.GarbledBeforeLogon);
        }
    }

    /// <summary>Closes a connection whose unframed bytes reached <see cref="ReceiveLimit"/>.</summary>
    private protected void CloseTooLarge(long buffered)
    {
        _log.WritePeer(LogLevel.Error, LogEvent.MessageTooLarge, _receiver.Session?.LogIndex ?? -1, RemoteEndPoint, buffered);
        Close(DisconnectReason.MessageTooLarge);
    }

    /// <summary>
    /// Hands a framed message held in <paramref name="buffer"/> to the session layer: an unbound connection's first
    /// one is routed there first (refused: the connection closes with the reason; routed: the full-size buffers are
    /// made before the Logon is processed, so its answer goes out through them).
    /// </summary>
    private protected void Deliver(byte[] buffer, int start, int length)
    {
        if (_receiver.Session is null)
        {
            var refusal = _receiver.Route(this, buffer, start, length);
            if (refusal != DisconnectReason.None)
            {
                Close(refusal);
                return;
            }

            if (!Bind())
            {
                return;
            }
        }

        if (!_receiver.Deliver(buffer, start, length))
        {
            return;
        }

        if (!_loggedOn)
        {
            _loggedOn = _receiver.Session!.IsLoggedOn;
        }
        EngineLatency.Stop(LatencyChannel.Receive, _readTimestamp);
    }

    private static bool Is(ReadOnlySpan<byte> msgType, byte type) => msgType.Length == 1 && msgType[0] == type;
}
