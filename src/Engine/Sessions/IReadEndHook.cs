namespace RapidFix.Engine.Sessions;

/// <summary>
/// Implemented by an <see cref="IFixApplication"/> that wants to know where a connection's read ends: after the last
/// message of each read from the socket (a burst of messages that arrived together), the session's connection thread
/// calls <see cref="OnReadEnd"/>. Optional (the session looks for it on its application, as for
/// <see cref="IToAppHook"/>), so applications that do not need it implement nothing more.
/// </summary>
/// <remarks>
/// The use: sends made while handling a read's messages are batched (<see cref="FixSession.SendDeferred(ReadOnlySpan{byte}, ReadOnlySpan{byte})"/>, on this
/// session or on others) and flushed once here (<see cref="FixSession.FlushDeferred"/>: one store wait for the batch
/// instead of one per message). It runs on the connection's thread, outside the session's lock, after the session has
/// written what it deferred itself during the read (its business rejects); every message of the read was handed to
/// <see cref="IFixApplication.FromApp"/> or <see cref="IFixApplication.FromAdmin"/> before it. It must not allocate in
/// the continuous phase.
/// </remarks>
public interface IReadEndHook
{
    /// <summary>The read that delivered the last messages of <paramref name="session"/> has been handled.</summary>
    /// <param name="session">The session whose connection read them.</param>
    void OnReadEnd(FixSession session);
}
