using System.Net;
using System.Net.Sockets;
using RapidFix.Engine.Codec;
using RapidFix.Engine.Diagnostics;
using RapidFix.Engine.Fields;
using RapidFix.Engine.Sessions;

namespace RapidFix.Engine.Transport;

/// <summary>
/// Listens on one endpoint for any number of sessions: each connection's Logon is routed to the session whose
/// identity it names (BeginString, CompIDs and, where the session has them, SubIDs and LocationIDs, seen from our
/// side). Unknown identities, a second connection for a connected session, and connections that do not start with
/// a Logon are dropped before any application message reaches an application.
/// </summary>
/// <remarks>
/// Accepting a connection allocates (the runtime's socket object and the connection's buffers and thread): that is
/// connection set-up, outside the message flow, and is done before the continuous phase in a measured run.
/// </remarks>
public sealed class FixAcceptor : IDisposable
{
    private readonly FixSession[] _sessions;
    private readonly Socket _listener;
    private readonly Thread _acceptThread;
    private readonly EngineLog _log;
    private readonly List<FixSocketConnection> _connections = [];
    private readonly int _maxMessageSize;
    private readonly int _outboundBufferBytes;
    private readonly TimeSpan _logonTimeout;
    private readonly SocketTransport _transport;
    private readonly Tls.TlsOptions? _tls;
    private volatile bool _stopping;

    public FixAcceptor(IEnumerable<FixSession> sessions, IPEndPoint endpoint, EngineLog? log = null, bool reuseAddress = true)
    {
        _sessions = sessions.ToArray();
        if (_sessions.Length == 0)
        {
            throw new ArgumentException("An acceptor needs at least one session.", nameof(sessions));
        }

        _log = log ?? EngineLog.Null;
        _maxMessageSize = _sessions.Max(s => s.Options.MaxMessageSize);
        _outboundBufferBytes = _sessions.Max(s => s.Options.OutboundBufferBytes);

        // Until its Logon names a session, a connection is held to the most lenient LogonTimeout of the port.
        _logonTimeout = _sessions.Max(s => s.Options.LogonTimeout);

        // A connection is created before its Logon says which session it is for: the port's sessions must agree.
        _transport = _sessions[0].Options.SocketTransport;
        if (_sessions.Any(s => s.Options.SocketTransport != _transport))
        {
            throw new ArgumentException("The sessions of one acceptor port must have the same SocketTransport.", nameof(sessions));
        }

        // TLS or not, and with which certificates, is decided before the Logon: the same for the port's sessions too.
        _tls = _sessions[0].Options.Tls;
        if (_sessions.Any(s => _tls is null ? s.Options.Tls is not null : !_tls.SameListener(s.Options.Tls)))
        {
            throw new ArgumentException("The sessions of one acceptor port must have the same SSL settings.", nameof(sessions));
        }

        _listener = new Socket(endpoint.AddressFamily, SocketType.Stream, ProtocolType.Tcp);
        if (reuseAddress)
        {
            _listener.SetSocketOption(SocketOptionLevel.Socket, SocketOptionName.ReuseAddress, true);
        }

        _listener.Bind(endpoint);
        _listener.Listen(64);
        LocalEndPoint = (IPEndPoint)_listener.LocalEndPoint!;
        _acceptThread = new Thread(AcceptLoop) { IsBackground = true, Name = $"rapidfix-acceptor-{LocalEndPoint.Port}" };
        _acceptThread.Start();
    }

    /// <summary>Where the acceptor listens (with the port the OS chose when 0 was asked).</summary>
    public IPEndPoint LocalEndPoint { get; }

    public IReadOnlyList<FixSession> Sessions => _sessions;

    /// <summary>True when the port speaks TLS.</summary>
    public bool IsTls => _tls is not null;

    /// <summary>The kind of connection the port's sessions use.</summary>
    public SocketTransport Transport => _transport;

    /// <summary>The connections accepted so far, closed ones included until the next accept (a copy; allocates).</summary>
    internal FixSocketConnection[] Connections()
    {
        lock (_connections)
        {
            return _connections.ToArray();
        }
    }

    /// <summary>Finds the session a Logon is for: its identity seen from our side.</summary>
    public FixSession? Route(FixMessage logon)
    {
        var beginString = logon.BeginString;
        var sender = logon.GetValue(Tags.TargetCompID);
        var target = logon.GetValue(Tags.SenderCompID);
        foreach (var session in _sessions)
        {
            var o = session.Options;
            if (!beginString.SequenceEqual(o.BeginStringBytes) || !sender.SequenceEqual(o.SenderCompId) || !target.SequenceEqual(o.TargetCompId))
            {
                continue;
            }

            if (Matches(o.SenderSubId, logon, Tags.TargetSubID) && Matches(o.SenderLocationId, logon, Tags.TargetLocationID) &&
                Matches(o.TargetSubId, logon, Tags.SenderSubID) && Matches(o.TargetLocationId, logon, Tags.SenderLocationID))
            {
                return session;
            }
        }

        return null;
    }

    private static bool Matches(byte[] ours, FixMessage logon, int tag) => ours.Length == 0 || logon.GetValue(tag).SequenceEqual(ours);

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
            try
            {
                connection = FixSocketConnection.Create(_transport, socket, null, Route, _maxMessageSize, _outboundBufferBytes, _log, _logonTimeout, _tls);
            }
            catch (SocketException)
            {
                // Reset by the client before it could be set up: nothing to serve.
                socket.Dispose();
                continue;
            }

            lock (_connections)
            {
                _connections.RemoveAll(c => c.IsClosed);
                _connections.Add(connection);
            }

            connection.Start();
        }
    }

    /// <summary>Stops listening, logs every session out (briefly waiting for the answers) and closes the connections.</summary>
    public void Dispose()
    {
        _stopping = true;
        _listener.Dispose();
        foreach (var session in _sessions)
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

        _acceptThread.Join(TimeSpan.FromSeconds(2));
    }
}
