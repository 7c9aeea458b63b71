using System.Net;
using System.Net.Sockets;
using RapidFix.Engine.Codec;
using RapidFix.Engine.Diagnostics;
using RapidFix.Engine.Sessions;

namespace RapidFix.Engine.Transport;

/// <summary>
/// Listens on one endpoint for any number of sessions: each connection's Logon is routed to the session whose
/// identity it names (BeginString, CompIDs and, where the session has them, SubIDs and LocationIDs, seen from our
/// side). Unknown identities, a second connection for a connected session, and connections that do not start with
/// a Logon are dropped before any application message reaches an application.
/// </summary>
/// <remarks>
/// Accepting a connection allocates (the runtime's socket object and the connection's buffers): that is
/// connection set-up, outside the message flow, and is done before the continuous phase in a measured run.
/// Connections awaiting their Logon are limited per port and per source address (<see cref="FixAcceptorOptions"/>):
/// the accept loop closes one beyond a limit at once, logs it with the address and the limit and counts it, and
/// does nothing slower than that per connection, so a flood does not delay a counterparty that logs on. An admitted
/// connection runs on a thread of the port's pool, started ahead of need (<see cref="ConnectionThreads"/>): an
/// accept thread never waits for a thread to start.
/// </remarks>
public sealed partial class FixAcceptor : IDisposable
{
    private readonly SessionRouter _router;
    private readonly Socket _listener;
    private readonly Thread[] _acceptThreads;
    private readonly ConnectionThreads _threads;
    private readonly EngineLog _log;
    private readonly List<FixSocketConnection> _connections = [];
    private readonly int _maxMessageSize;
    private readonly int _outboundBufferBytes;
    private readonly TimeSpan _logonTimeout;
    private readonly SocketTransport _transport;
    private readonly FixAcceptorOptions _options;
    private readonly Dictionary<IPAddress, int> _pendingByAddress = [];
    private int _pending;
    private long _refused;
    private readonly Tls.TlsOptions? _tls;
    private volatile bool _stopping;

    /// <param name="sessions">The sessions served on the port.</param>
    /// <param name="endpoint">Where to listen.</param>
    /// <param name="log">Where connection events are logged.</param>
    /// <param name="reuseAddress">SO_REUSEADDR on the listening socket.</param>
    /// <param name="options">Limits on connections awaiting their Logon (defaults when null).</param>
    /// <param name="templates">Options of the acceptor templates served on the port (sessions created at logon).</param>
    public FixAcceptor(IEnumerable<FixSession> sessions, IPEndPoint endpoint, EngineLog? log = null, bool reuseAddress = true, FixAcceptorOptions? options = null,
        IReadOnlyList<FixSessionOptions>? templates = null)
    {
        _router = new SessionRouter(sessions.ToArray());
        var served = _router.Sessions.Select(s => s.Options).Concat(templates ?? []).ToArray();
        if (served.Length == 0)
        {
            throw new ArgumentException("An acceptor needs at least one session or template.", nameof(sessions));
        }

        _log = log ?? EngineLog.Null;
        _options = options ?? new FixAcceptorOptions();
        ArgumentOutOfRangeException.ThrowIfLessThan(_options.ListenBacklog, 1, nameof(options));
        ArgumentOutOfRangeException.ThrowIfLessThan(_options.AcceptThreads, 1, nameof(options));
        ArgumentOutOfRangeException.ThrowIfLessThan(_options.MaxPendingLogons, 1, nameof(options));
        ArgumentOutOfRangeException.ThrowIfLessThan(_options.MaxPendingLogonsPerAddress, 1, nameof(options));
        _maxMessageSize = served.Max(o => o.MaxMessageSize);
        _outboundBufferBytes = served.Max(o => o.OutboundBufferBytes);

        // Until its Logon names a session, a connection is held to the most lenient LogonTimeout of the port.
        _logonTimeout = served.Max(o => o.LogonTimeout);

        // A connection is created before its Logon says which session it is for: the port's sessions must agree.
        _transport = served[0].SocketTransport;
        if (served.Any(o => o.SocketTransport != _transport))
        {
            throw new ArgumentException("The sessions of one acceptor port must have the same SocketTransport.", nameof(sessions));
        }

        // TLS or not, and with which certificates, is decided before the Logon: the same for the port's sessions too.
        _tls = served[0].Tls;
        if (served.Any(o => _tls is null ? o.Tls is not null : !_tls.SameListener(o.Tls)))
        {
            throw new ArgumentException("The sessions of one acceptor port must have the same SSL settings.", nameof(sessions));
        }

        // Each session's full-size connection buffers, made now (startup) and reused by every connection it binds.
        foreach (var session in _router.Sessions)
        {
            ReserveBuffers(session);
        }

        _listener = new Socket(endpoint.AddressFamily, SocketType.Stream, ProtocolType.Tcp);
        if (reuseAddress)
        {
            _listener.SetSocketOption(SocketOptionLevel.Socket, SocketOptionName.ReuseAddress, true);
        }

        // Every connection alive at once holds a thread: those awaiting their Logon (MaxPendingLogons), one per
        // session, and a few ending while others start. Parked ahead of need: enough for a flood from one address
        // to take its MaxPendingLogonsPerAddress and still leave one for each session.
        int spares = _options.SpareConnectionThreads ?? Math.Min(_options.MaxPendingLogonsPerAddress, _options.MaxPendingLogons) + _router.Sessions.Length;
        ArgumentOutOfRangeException.ThrowIfNegative(spares, nameof(options));
        _listener.Bind(endpoint);
        _listener.Listen(_options.ListenBacklog);
        LocalEndPoint = (IPEndPoint)_listener.LocalEndPoint!;
        _threads = new ConnectionThreads($"rapidfix-acceptor-{LocalEndPoint.Port}", _options.MaxPendingLogons + _router.Sessions.Length + _options.AcceptThreads, spares);
        // Several threads accept from the one listening socket, so that refusing a flood keeps pace with it and a
        // proper connection queued behind the flood's waits little.
        _acceptThreads = new Thread[_options.AcceptThreads];
        for (int i = 0; i < _acceptThreads.Length; i++)
        {
            _acceptThreads[i] = new Thread(AcceptLoop) { IsBackground = true, Name = $"rapidfix-acceptor-{LocalEndPoint.Port}-{i}" };
            _acceptThreads[i].Start();
        }
    }

    /// <summary>Where the acceptor listens (with the port the OS chose when 0 was asked).</summary>
    public IPEndPoint LocalEndPoint { get; }

    /// <summary>The sessions this acceptor routes Logons to.</summary>
    public IReadOnlyList<FixSession> Sessions => _router.Sessions;

    /// <summary>True when the port speaks TLS.</summary>
    public bool IsTls => _tls is not null;

    /// <summary>The kind of connection the port's sessions use.</summary>
    public SocketTransport Transport => _transport;

    /// <summary>The port's limits on connections awaiting their Logon.</summary>
    public FixAcceptorOptions Options => _options;

    /// <summary>Connections accepted and not yet bound by a Logon nor closed.</summary>
    public int PendingLogons => Volatile.Read(ref _pending);

    /// <summary>Connections closed at once because a limit on connections awaiting their Logon was reached.</summary>
    public long RefusedConnections => Interlocked.Read(ref _refused);

    /// <summary>Connection threads started so far (they are reused: at most the pool's capacity).</summary>
    public int ConnectionThreadsStarted => _threads.Started;

    /// <summary>Admitted connections that found no connection thread parked and waited for one (0 unless the spares ran out).</summary>
    public long ConnectionsWaitedForThread => _threads.WaitedForThread;

    /// <summary>
    /// True when the port's connection threads are settled: every one started has come to run, none is being started
    /// and none is needed (the spares are topped up after each connection is handed to one, and starting a thread
    /// allocates). <see cref="Hosting.EngineHost.WaitForLogons"/> waits for it.
    /// </summary>
    public bool ConnectionThreadsSettled => _threads.Settled;

    /// <summary>The connections accepted so far, closed ones included until the next accept (a copy; allocates).</summary>
    internal FixSocketConnection[] Connections()
    {
        lock (_connections)
        {
            return _connections.ToArray();
        }
    }

    /// <summary>Finds the session a Logon is for: its identity seen from our side (<see cref="SessionRouter"/>).</summary>
    public FixSession? Route(FixMessage logon) => _router.Route(logon);

    private void AcceptLoop()
    {
        while (!_stopping)
        {
            Socket socket;
            try
            {
                socket = _listener.Accept();
            }
            catch (SocketException)
            {
                if (_stopping)
                {
                    return;
                }

                continue;
            }
            catch (ObjectDisposedException)
            {
                return;
            }

            FixSocketConnection connection;
            IPAddress address;
            try
            {
                // Socket.RemoteEndPoint builds a new object: connection set-up, like the socket itself.
                if (socket.RemoteEndPoint is not IPEndPoint peer || !TryAdmit(peer))
                {
                    socket.Dispose();
                    continue;
                }

                address = peer.Address;
                ApplyBufferSizes(socket, _options.SocketSendBufferSize, _options.SocketReceiveBufferSize);
                try
                {
                    connection = FixSocketConnection.Create(_transport, socket, null, _router.Route, _maxMessageSize, _outboundBufferBytes, _log, _logonTimeout,
                        _options.LogonBufferBytes, _tls);
                }
                catch
                {
                    Release(address);
                    throw;
                }
            }
            catch (SocketException)
            {
                // Reset by the client before it could be set up: nothing to serve.
                socket.Dispose();
                continue;
            }

            connection.OnLeftPending(_ => Release(address));
            lock (_connections)
            {
                _connections.RemoveAll(c => c.IsClosed);
                _connections.Add(connection);
            }

            connection.Start(_threads);
        }
    }

    /// <summary>The full-size buffers the session's connections on this port use (<see cref="ConnectionBuffers"/>).</summary>
    private void ReserveBuffers(FixSession session) => ConnectionBuffers.Reserve(session, _transport, _maxMessageSize, _outboundBufferBytes);

    /// <summary>Sets SO_SNDBUF and SO_RCVBUF where a size is given (settings SocketSendBufferSize, SocketReceiveBufferSize).</summary>
    internal static void ApplyBufferSizes(Socket socket, int sendBufferSize, int receiveBufferSize)
    {
        if (sendBufferSize > 0)
        {
            socket.SendBufferSize = sendBufferSize;
        }

        if (receiveBufferSize > 0)
        {
            socket.ReceiveBufferSize = receiveBufferSize;
        }
    }

    /// <summary>Counts a new connection as awaiting its Logon, or refuses it (logged, counted) when a limit is reached.</summary>
    private bool TryAdmit(IPEndPoint peer)
    {
        int total, fromAddress;
        lock (_pendingByAddress)
        {
            total = _pending;
            _pendingByAddress.TryGetValue(peer.Address, out fromAddress);
            if (total < _options.MaxPendingLogons && fromAddress < _options.MaxPendingLogonsPerAddress)
            {
                _pendingByAddress[peer.Address] = fromAddress + 1;
                Volatile.Write(ref _pending, total + 1);
                return true;
            }
        }

        Interlocked.Increment(ref _refused);
        if (total >= _options.MaxPendingLogons)
        {
            _log.WritePeer(LogLevel.Warning, LogEvent.TooManyPendingConnections, -1, peer, total, _options.MaxPendingLogons);
        }
        else
        {
            _log.WritePeer(LogLevel.Warning, LogEvent.TooManyPendingFromAddress, -1, peer, fromAddress, _options.MaxPendingLogonsPerAddress);
        }

        return false;
    }

    /// <summary>A connection from <paramref name="address"/> was bound by its Logon or closed without one (on its thread).</summary>
    private void Release(IPAddress address)
    {
        lock (_pendingByAddress)
        {
            if (_pendingByAddress.TryGetValue(address, out int count))
            {
                if (count <= 1)
                {
                    _pendingByAddress.Remove(address);
                }
                else
                {
                    _pendingByAddress[address] = count - 1;
                }

                Volatile.Write(ref _pending, _pending - 1);
            }
        }
    }

    /// <summary>Stops listening, logs every session out (briefly waiting for the answers) and closes the connections.</summary>
    public void Dispose()
    {
        _stopping = true;
        _listener.Dispose();
        foreach (var thread in _acceptThreads)
        {
            thread.Join(TimeSpan.FromSeconds(2));
        }

        // No accept hands it a connection any more: parked threads end; running ones end with their connection.
        _threads.Dispose();
        foreach (var session in _router.Sessions)
        {
            session.Logout();
        }

        FixSocketConnection[] connections;
        lock (_connections)
        {
            connections = _connections.ToArray();
        }

        var deadline = DateTime.UtcNow.AddSeconds(2);
        foreach (var c in connections)
        {
            while (!c.IsClosed && DateTime.UtcNow < deadline)
            {
                Thread.Sleep(10);
            }

            c.Disconnect(DisconnectReason.Shutdown);
            c.Join(TimeSpan.FromSeconds(2));
        }
    }
}
