using RapidFix.Engine.Codec;
using RapidFix.Engine.Sessions;

namespace RapidFix.Engine.Transport;

/// <summary>Sessions added to and removed from a listening port at run time (acceptor templates, the engine's API).</summary>
public sealed partial class FixAcceptor
{
    /// <summary>
    /// Asked for a Logon no session of the port matches (the engine's acceptor templates): a session to bind, or
    /// null to refuse the connection as unknown. Runs on the connection's thread, at connection set-up.
    /// </summary>
    internal Func<FixMessage, FixSession?>? DynamicRoute
    {
        get => _router.Dynamic;
        set => _router.Dynamic = value;
    }

    /// <summary>
    /// Serves <paramref name="session"/> on the port from now on (set-up: copies the table; the session's connection
    /// buffers are made here unless it already has some that fit).
    /// </summary>
    internal void AddSession(FixSession session)
    {
        ReserveBuffers(session);
        _router.Add(session);
    }

    /// <summary>
    /// A set of connection buffers for a session of <paramref name="options"/> served on this port, sized as
    /// <see cref="ReserveBuffers"/> sizes them: an acceptor template's run-time session slots, made at startup.
    /// </summary>
    internal ConnectionBuffers NewConnectionBuffers(FixSessionOptions options) =>
        new(_transport, _maxMessageSize, _outboundBufferBytes, options.MessageOptions);

    /// <summary>
    /// The small set of a session made only to refuse its Logon (its template has no slot free): enough for the
    /// Logon and the Logout that answers it, not the port's full outbound buffer.
    /// </summary>
    internal ConnectionBuffers NewRefusalBuffers(FixSessionOptions options) =>
        new(_transport, _maxMessageSize, ConnectionBuffers.RefusalOutboundBytes, options.MessageOptions, refusalOnly: true);

    /// <summary>Stops routing Logons to <paramref name="session"/>; false when the port did not serve it.</summary>
    internal bool RemoveSession(FixSession session) => _router.Remove(session);
}
