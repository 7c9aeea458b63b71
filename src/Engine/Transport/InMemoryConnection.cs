using RapidFix.Engine.Codec;
using RapidFix.Engine.Diagnostics;
using RapidFix.Engine.Sessions;

namespace RapidFix.Engine.Transport;

/// <summary>
/// One end of a connection held in memory: no socket, no thread. What one end sends waits in the other end's
/// buffer until <see cref="Deliver"/> (or <see cref="Exchange"/>) frames it and hands it to the session layer, exactly
/// as a socket connection's thread does (an acceptor's end is routed by its first Logon through the same
/// <see cref="SessionReceiver"/>). With a manual <see cref="Time.EngineClock"/> given to both sessions, a test drives
/// the whole session protocol (heartbeats, TestRequests, timeouts, resends) from one thread, in microseconds.
/// </summary>
/// <remarks>
/// Sending and delivering allocate nothing; the buffers are sized when the pair is made, and a send that does not
/// fit fails as a full socket outbound buffer does (the session then disconnects). A close behaves like a socket's:
/// what was sent before it is still delivered to the other end, which then sees the counterparty close; each
/// session is told of its connection's end at its next <see cref="Deliver"/>.
/// </remarks>
public sealed class InMemoryConnection : ISessionTransport
{
    private readonly SessionReceiver _receiver;
    private readonly FixFramer _framer;
    private readonly byte[] _inbound;
    private int _inboundLength;
    private InMemoryConnection _peer = null!;
    private bool _closed;
    private bool _peerEnded;
    private bool _notified;
    private DisconnectReason _reason;
    private int _discard;

    private InMemoryConnection(FixSession? session, Func<FixMessage, FixSession?>? router, int maxMessageSize, int bufferBytes, EngineLog log)
    {
        _receiver = new SessionReceiver(session, router, maxMessageSize, maxMessageSize, log);
        _framer = new FixFramer(maxMessageSize);
        _inbound = new byte[bufferBytes];
    }

    /// <summary>
    /// Connects <paramref name="initiator"/> to an acceptor serving <paramref name="acceptorSessions"/>: the
    /// initiator's end is bound at once and its Logon is sent (as on a socket's connect); the acceptor's end is routed
    /// by that Logon when it is delivered. Connection set-up: allocates.
    /// </summary>
    /// <param name="initiator">The initiator session (not connected).</param>
    /// <param name="acceptorSessions">The sessions the acceptor's end may be routed to.</param>
    /// <param name="bufferBytes">What may wait undelivered at each end (bytes).</param>
    /// <param name="log">Where refusals (unknown session, not a Logon first...) are logged.</param>
    public static (InMemoryConnection Initiator, InMemoryConnection Acceptor) Connect(FixSession initiator, IReadOnlyList<FixSession> acceptorSessions,
        int bufferBytes = 1 << 20, EngineLog? log = null)
    {
        ArgumentNullException.ThrowIfNull(initiator);
        ArgumentNullException.ThrowIfNull(acceptorSessions);
        ArgumentOutOfRangeException.ThrowIfLessThan(bufferBytes, 1024);
        int maxMessageSize = Math.Max(initiator.Options.MaxMessageSize, acceptorSessions.Count == 0 ? 0 : acceptorSessions.Max(s => s.Options.MaxMessageSize));
        var router = new SessionRouter([.. acceptorSessions]);
        var ours = new InMemoryConnection(initiator, null, maxMessageSize, bufferBytes, log ?? EngineLog.Null);
        var theirs = new InMemoryConnection(null, router.Route, maxMessageSize, bufferBytes, log ?? EngineLog.Null);
        ours._peer = theirs;
        theirs._peer = ours;
        if (!initiator.OnConnected(ours))
        {
            throw new InvalidOperationException("The initiator session is already connected.");
        }

        return (ours, theirs);
    }

    /// <summary>The session this end delivers to (null until an acceptor's end is routed by its Logon).</summary>
    public FixSession? Session => _receiver.Session;

    /// <summary>The other end.</summary>
    public InMemoryConnection Peer => _peer;

    /// <summary>True once this end is closed (by its session, a refusal, or the other end's close).</summary>
    public bool IsClosed => _closed;

    /// <summary>Why this end closed.</summary>
    public DisconnectReason CloseReason => _reason;

    /// <summary>Bytes sent to this end and not yet delivered.</summary>
    public int PendingBytes => _inboundLength;

    /// <summary>Messages this end has delivered to its session.</summary>
    public long MessagesDelivered { get; private set; }

    /// <inheritdoc/>
    public System.Net.EndPoint? RemoteEndPoint => null;

    /// <summary>Loses the next <paramref name="count"/> whole messages sent to this end (a test of gap recovery).</summary>
    public void DiscardNext(int count = 1)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(count);
        _discard += count;
    }

    /// <inheritdoc/>
    public bool Send(ReadOnlySpan<byte> message)
    {
        var peer = _peer;
        if (_closed || peer._closed || peer._peerEnded || message.Length > peer._inbound.Length - peer._inboundLength)
        {
            return false;
        }

        message.CopyTo(peer._inbound.AsSpan(peer._inboundLength));
        peer._inboundLength += message.Length;
        return true;
    }

    /// <inheritdoc/>
    public void Disconnect(DisconnectReason reason) => Close(reason);

    /// <summary>
    /// Frames every whole message sent to this end and hands each to the session layer (routing a first Logon);
    /// then, if the connection has ended, tells the session. Returns the messages delivered.
    /// </summary>
    public int Deliver()
    {
        int delivered = 0;
        int offset = 0;
        while (!_closed && offset < _inboundLength)
        {
            var frame = _framer.Frame(new ReadOnlySpan<byte>(_inbound, offset, _inboundLength - offset));
            if (_receiver.Session is null && frame.SkippedBytes > 0)
            {
                Close(DisconnectReason.GarbledBeforeLogon);
                break;
            }

            if (frame.Status == FrameStatus.NeedMoreData)
            {
                offset += frame.Consumed;
                break;
            }

            if (frame.Status != FrameStatus.Complete)
            {
                if (!_receiver.OnBadFrame(frame))
                {
                    Close(DisconnectReason.GarbledBeforeLogon);
                }
            }
            else if (_discard > 0)
            {
                _discard--;
            }
            else if (DeliverFrame(offset + frame.Start, frame.Length))
            {
                delivered++;
            }

            offset += frame.Consumed;
        }

        if (offset > 0)
        {
            _inbound.AsSpan(offset, _inboundLength - offset).CopyTo(_inbound);
            _inboundLength -= offset;
        }

        _receiver.EndOfRead(); // as a socket connection after each read: what the session deferred goes out

        if (!_closed && _peerEnded)
        {
            // The other end closed: what it sent before is delivered above, then the counterparty is gone.
            Close(DisconnectReason.PeerClosed);
        }

        if (_closed && !_notified)
        {
            _notified = true;
            _receiver.Session?.OnDisconnected(this, _reason);
        }

        MessagesDelivered += delivered;
        return delivered;
    }

    /// <summary>Delivers at both ends until neither has anything left (answers to answers included). Returns the messages delivered.</summary>
    public int Exchange()
    {
        int total = 0;
        int round;
        do
        {
            round = Deliver() + _peer.Deliver();
            total += round;
        }
        while (round > 0 || EndPending || _peer.EndPending);

        return total;
    }

    /// <summary>The connection has ended and the session has not been told yet (the next <see cref="Deliver"/> tells it).</summary>
    private bool EndPending => !_notified && (_closed || _peerEnded);

    /// <summary>Runs the session's timer, as a socket connection's thread does every 50 ms.</summary>
    public void RunTimer()
    {
        if (!_closed)
        {
            _receiver.Session?.OnTimer();
        }
    }

    private bool DeliverFrame(int start, int length)
    {
        if (_receiver.Session is null)
        {
            var refusal = _receiver.Route(this, _inbound, start, length);
            if (refusal != DisconnectReason.None)
            {
                Close(refusal);
                return false;
            }
        }

        return _receiver.Deliver(_inbound, start, length);
    }

    private void Close(DisconnectReason reason)
    {
        if (_closed)
        {
            return;
        }

        _closed = true;
        _reason = reason;
        _peer._peerEnded = true;
    }
}
