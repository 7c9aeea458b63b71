namespace RapidFix.Engine.Sessions;

public sealed partial class FixSession
{
    // The full-size buffers of the session's connections (Transport.ConnectionBuffers): made once, at startup,
    // and lent to each connection the session binds, so a logon in the continuous phase allocates nothing of their size.
    private Transport.ConnectionBuffers? _connectionBuffers;

    /// <summary>The buffers the session's connections use in turn (null until reserved).</summary>
    internal Transport.ConnectionBuffers? ConnectionBuffers => Volatile.Read(ref _connectionBuffers);

    /// <summary>
    /// Puts <paramref name="made"/> in place of <paramref name="expected"/>; the set in place afterwards (another
    /// thread's, if it installed one first).
    /// </summary>
    internal Transport.ConnectionBuffers ExchangeConnectionBuffers(Transport.ConnectionBuffers? expected, Transport.ConnectionBuffers made) =>
        Interlocked.CompareExchange(ref _connectionBuffers, made, expected) is var previous && ReferenceEquals(previous, expected) ? made : previous!;
}
