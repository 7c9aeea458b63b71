using RapidFix.Engine.Codec;
using RapidFix.Engine.Diagnostics;
using RapidFix.Engine.Fields;

namespace RapidFix.Engine.Sessions;

/// <summary>
/// The session layer's end of one connection. The transport only frames: it hands each framed message here, where
/// it is parsed with the dictionary its MsgType calls for and given to the session. An acceptor's connection has no
/// session until its first message, which must be a Logon for a known session that is not already connected:
/// <see cref="Route"/> parses it on its own, finds the session (<see cref="SessionRouter"/>) and attaches it, or says
/// why the connection is refused (logged here with the peer's address).
/// </summary>
/// <remarks>
/// Until the Logon routes it, the connection holds only a Logon-sized view; the full view, sized to the routed
/// session's limits, is made at routing (connection set-up). Delivering allocates nothing.
/// </remarks>
internal sealed class SessionReceiver
{
    private readonly Func<FixMessage, FixSession?>? _router;
    private readonly EngineLog _log;
    private readonly int _maxMessageSize;
    private readonly bool _viewFromTransport;
    private FixMessage _view;
    private FixSession? _session;

    /// <param name="session">The session (initiator), or null for an acceptor's connection routed by its Logon.</param>
    /// <param name="router">Finds the session of an acceptor connection's Logon (null: no such session).</param>
    /// <param name="maxMessageSize">Largest message delivered once routed.</param>
    /// <param name="logonBytes">Largest Logon read before routing.</param>
    /// <param name="log">Where refusals are logged.</param>
    /// <param name="viewFromTransport">
    /// True when the transport hands the full-size view over (<see cref="UseView"/>, the session's connection buffers,
    /// made at startup) before the first message is delivered: none is made here.
    /// </param>
    public SessionReceiver(FixSession? session, Func<FixMessage, FixSession?>? router, int maxMessageSize, int logonBytes, EngineLog log,
        bool viewFromTransport = false)
    {
        if (session is null && router is null)
        {
            throw new ArgumentException("Either a session or a router is needed.");
        }

        _session = session;
        _router = router;
        _log = log;
        _maxMessageSize = maxMessageSize;
        _viewFromTransport = viewFromTransport;
        _view = session is null
            ? new FixMessage(new FixMessageOptions { MaxMessageSize = logonBytes })
            : viewFromTransport ? null! // UseView comes before any message
            : new FixMessage(session.Options.MessageOptions with { MaxMessageSize = maxMessageSize });
    }

    /// <summary>The full-size view to parse the session's messages in from now on (see the constructor).</summary>
    public void UseView(FixMessage view) => _view = view;

    /// <summary>The session messages go to (null until an acceptor connection's Logon is routed).</summary>
    public FixSession? Session => _session;

    /// <summary>True when a counterparty's garbage is the session's to judge: a session bound before any Logon (an initiator's) or logged on.</summary>
    private bool SessionJudgesGarbage => _session is not null && (_session.IsLoggedOn || _router is null);

    /// <summary>
    /// An acceptor connection's first message, framed in <paramref name="buffer"/>: routes it and attaches its session
    /// to <paramref name="transport"/>. <see cref="DisconnectReason.None"/> when routed (the caller then sizes its
    /// buffers and calls <see cref="Deliver"/> with the same message); otherwise why the connection must close.
    /// </summary>
    public DisconnectReason Route(ISessionTransport transport, byte[] buffer, int start, int length)
    {
        if (_view.Parse(buffer, start, length) != FixParseError.None || !Is(_view.MsgType, (byte)'A'))
        {
            _log.WritePeer(LogLevel.Warning, LogEvent.NotLogonFirst, -1, transport.RemoteEndPoint, _view.TryGetInt(Tags.MsgSeqNum, out int s) ? s : 0);
            return DisconnectReason.NotLogonFirst;
        }

        var session = _router!(_view);
        if (session is null)
        {
            _log.WritePeer(LogLevel.Warning, LogEvent.UnknownSession, -1, transport.RemoteEndPoint);
            return DisconnectReason.UnknownSession;
        }

        if (!session.TryAttach(transport))
        {
            _log.WritePeer(LogLevel.Warning, LogEvent.AlreadyLoggedOn, session.LogIndex, transport.RemoteEndPoint);
            return DisconnectReason.AlreadyLoggedOn;
        }

        _session = session;

        // Sized to the routed session's limits (MaxFieldsPerMessage, MaxGroupEntries): connection set-up, unless the
        // transport hands the session's own view over before delivering the Logon.
        if (!_viewFromTransport)
        {
            _view = new FixMessage(session.Options.MessageOptions with { MaxMessageSize = _maxMessageSize });
        }
        return DisconnectReason.None;
    }

    /// <summary>
    /// Parses a framed message with the dictionary its MsgType calls for and hands it to the session; false when it
    /// did not parse (the session was told: <see cref="FixSession.OnParseError"/>).
    /// </summary>
    public bool Deliver(byte[] buffer, int start, int length)
    {
        var session = _session!;
        var dictionary = session.Options.DictionaryFor(FixMessage.PeekMsgType(new ReadOnlySpan<byte>(buffer, start, length)));
        var error = _view.Parse(buffer, start, length, dictionary);
        if (error != FixParseError.None)
        {
            session.OnParseError(_view); // garbled: ignored; a broken limit: rejected (FixSession.ParseErrors)
            return false;
        }

        session.OnMessage(_view, readBatch: true);
        return true;
    }

    /// <summary>
    /// After the last message of one read: the session writes what it deferred during the read (its business
    /// rejects, one store flush for all of them). Every connection that delivers here calls it.
    /// </summary>
    public void EndOfRead() => _session?.OnReadEnd();

    /// <summary>
    /// A frame that is not a complete message. False when the connection must close: garbage where a Logon must
    /// come leaves nothing to talk to. Otherwise the session decides (a message too large logs out, the rest is
    /// ignored and counted, as FIX says).
    /// </summary>
    public bool OnBadFrame(in FrameResult frame)
    {
        if (!SessionJudgesGarbage)
        {
            return false;
        }

        if (frame.Error == FrameError.MessageTooLarge)
        {
            _session!.OnMessageTooLarge();
        }
        else
        {
            _session!.OnGarbled(frame.Status, (int)frame.Error);
        }

        return true;
    }

    private static bool Is(ReadOnlySpan<byte> msgType, byte type) => msgType.Length == 1 && msgType[0] == type;
}
