using System.Net.Sockets;
using RapidFix.Engine.Diagnostics;
using RapidFix.Engine.Sessions;

namespace RapidFix.Engine.Transport;

/// <summary>
/// Keeps one session connected: connects to its endpoints in turn (the primary, then the failover hosts), logs on,
/// and after a disconnection waits and tries again, backing off from ReconnectInterval up to eight times it while
/// attempts keep failing. Only connects within the session's schedule and while the session is enabled.
/// </summary>
public sealed class FixInitiator : IDisposable
{
    private readonly FixSession _session;
    private readonly (string Host, int Port)[] _endpoints;
    private readonly TimeSpan _reconnectInterval;
    private readonly int _sendBufferSize;
    private readonly int _receiveBufferSize;
    private readonly EngineLog _log;
    private readonly Thread _thread;
    private readonly ManualResetEventSlim _stop = new(false);
    private FixSocketConnection? _connection;
    private volatile bool _stopping;

    /// <param name="session">The session.</param>
    /// <param name="endpoints">The primary host, then the failover hosts.</param>
    /// <param name="reconnectInterval">Base wait between connection attempts.</param>
    /// <param name="log">Where connection events are logged.</param>
    /// <param name="sendBufferSize">SO_SNDBUF (setting SocketSendBufferSize); 0 leaves the OS default.</param>
    /// <param name="receiveBufferSize">SO_RCVBUF (setting SocketReceiveBufferSize); 0 leaves the OS default.</param>
    public FixInitiator(FixSession session, IEnumerable<(string Host, int Port)> endpoints, TimeSpan reconnectInterval, EngineLog? log = null,
        int sendBufferSize = 0, int receiveBufferSize = 0)
    {
        ArgumentNullException.ThrowIfNull(session);
        _session = session;
        _endpoints = endpoints.ToArray();
        if (_endpoints.Length == 0)
        {
            throw new ArgumentException("An initiator needs at least one endpoint.", nameof(endpoints));
        }

        _reconnectInterval = reconnectInterval;
        _sendBufferSize = sendBufferSize;
        _receiveBufferSize = receiveBufferSize;
        _log = log ?? EngineLog.Null;
        _stop.Wait(0); // creates the wait handle now, not in the continuous phase
        // The session's full-size connection buffers, made now (startup) and reused by every reconnection.
        ConnectionBuffers.Reserve(session, session.Options.SocketTransport, session.Options.MaxMessageSize, session.Options.OutboundBufferBytes);
        _thread = new Thread(Run) { IsBackground = true, Name = $"rapidfix-initiator-{session.Id.TargetCompId}" };
    }

    /// <summary>The session this initiator connects.</summary>
    public FixSession Session => _session;

    /// <summary>Connection attempts made (successful or not).</summary>
    public int Attempts { get; private set; }

    /// <summary>The live connection, if any.</summary>
    public FixSocketConnection? Connection => _connection;

    /// <summary>Starts the connecting thread: connect, log on, and reconnect after ReconnectInterval when the connection drops.</summary>
    public void Start() => _thread.Start();

    [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.AggressiveOptimization)] // no on-stack replacement later
    private void Run()
    {
        int endpoint = 0;
        int failures = 0;
        while (!_stopping)
        {
            if (!_session.IsEnabled || !_session.Options.Schedule.IsInSession(DateTime.UtcNow))
            {
                _stop.Wait(TimeSpan.FromSeconds(1));
                continue;
            }

            var (host, port) = _endpoints[endpoint];
            endpoint = (endpoint + 1) % _endpoints.Length;
            Attempts++;
            Socket? socket = null;
            try
            {
                socket = new Socket(SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
                FixAcceptor.ApplyBufferSizes(socket, _sendBufferSize, _receiveBufferSize);
                socket.Connect(host, port);
            }
            catch (SocketException ex)
            {
                socket?.Dispose();
                failures++;
                _log.Write(LogLevel.Warning, LogEvent.ConnectFailed, _session.LogIndex, (long)ex.SocketErrorCode);
                var backoff = TimeSpan.FromTicks(_reconnectInterval.Ticks * Math.Min(8, 1 << Math.Min(failures - 1, 3)));
                _stop.Wait(failures < _endpoints.Length ? TimeSpan.FromMilliseconds(50) : backoff);
                continue;
            }

            failures = 0;
            var options = _session.Options;
            var connection = FixSocketConnection.Create(options.SocketTransport, socket, _session, null, options.MaxMessageSize, options.OutboundBufferBytes, _log,
                tls: options.Tls, host: host);
            _connection = connection;
            connection.Start();
            while (!connection.Join(TimeSpan.FromMilliseconds(200)) && !_stopping)
            {
            }

            _connection = null;
            if (!_stopping)
            {
                _stop.Wait(_reconnectInterval);
            }
        }
    }

    /// <summary>Logs out (waiting briefly for the answer), then stops reconnecting and closes the connection.</summary>
    public void Dispose()
    {
        _session.Logout();
        var connection = _connection;
        var deadline = DateTime.UtcNow.AddSeconds(2);
        while (connection is not null && !connection.IsClosed && DateTime.UtcNow < deadline)
        {
            Thread.Sleep(10);
        }

        _stopping = true;
        _stop.Set();
        connection?.Disconnect(DisconnectReason.Shutdown);
        connection?.Join(TimeSpan.FromSeconds(2));
        if (_thread.IsAlive)
        {
            _thread.Join(TimeSpan.FromSeconds(3));
        }
    }
}
