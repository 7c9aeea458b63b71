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

    /// <summary>Stops routing Logons to <paramref name="session"/>; false when the port did not serve it.</summary>
    internal bool RemoveSession(FixSession session) => _router.Remove(session);
}
