using RapidFix.Engine.Configuration;

namespace RapidFix.Engine.Transport;

/// <summary>
/// What an acceptor port allows connections that have not logged on yet (settings SocketAcceptBacklog,
/// MaxPendingLogons, MaxPendingLogonsPerAddress): each costs a thread and a Logon-sized buffer until its Logon binds
/// it, so a crowd of them, or a crowd from one address, is refused at once instead of slowing everyone down. Also
/// the socket buffer sizes of accepted connections.
/// </summary>
public sealed record FixAcceptorOptions
{
    /// <summary>Connections the kernel may hold completed but not yet accepted (the listen backlog).</summary>
    public int ListenBacklog { get; init; } = 1024;

    /// <summary>Threads accepting from the listening socket (each accept is quick; several keep pace with a flood).</summary>
    public int AcceptThreads { get; init; } = 4;

    /// <summary>Connections of the port awaiting their Logon at once; a connection beyond is closed at once.</summary>
    public int MaxPendingLogons { get; init; } = 256;

    /// <summary>Connections from one IP address awaiting their Logon at once; a connection beyond is closed at once.</summary>
    public int MaxPendingLogonsPerAddress { get; init; } = 32;

    /// <summary>
    /// Connection threads kept started and parked ahead of need, so that an accepted connection never waits for a
    /// thread to start; null for MaxPendingLogonsPerAddress plus one per session of the port.
    /// </summary>
    public int? SpareConnectionThreads { get; init; }

    /// <summary>SO_SNDBUF of accepted sockets (setting SocketSendBufferSize); 0 leaves the OS default (and its autotuning).</summary>
    public int SocketSendBufferSize { get; init; }

    /// <summary>SO_RCVBUF of accepted sockets (setting SocketReceiveBufferSize); 0 leaves the OS default.</summary>
    public int SocketReceiveBufferSize { get; init; }

    /// <summary>Receive buffer of a connection until its Logon binds it (bytes): a longer Logon is refused as too large.</summary>
    public int LogonBufferBytes { get; init; } = FixSocketConnection.DefaultLogonBufferBytes;

    /// <summary>
    /// The options of the sessions of one port: they must agree (a connection's limits apply before its Logon says
    /// which session it is for), so a port whose sessions set different values is an error at startup.
    /// </summary>
    public static FixAcceptorOptions FromSettings(IReadOnlyList<SessionSettings> sessions)
    {
        ArgumentNullException.ThrowIfNull(sessions);
        if (sessions.Count == 0)
        {
            throw new ArgumentException("An acceptor port needs at least one session.", nameof(sessions));
        }

        return new FixAcceptorOptions
        {
            ListenBacklog = Agreed(sessions, SettingKeys.SocketAcceptBacklog),
            MaxPendingLogons = Agreed(sessions, SettingKeys.MaxPendingLogons),
            MaxPendingLogonsPerAddress = Agreed(sessions, SettingKeys.MaxPendingLogonsPerAddress),
            SocketSendBufferSize = Agreed(sessions, SettingKeys.SocketSendBufferSize),
            SocketReceiveBufferSize = Agreed(sessions, SettingKeys.SocketReceiveBufferSize),
        };
    }

    private static int Agreed(IReadOnlyList<SessionSettings> sessions, string key)
    {
        int value = sessions[0].GetInt(key);
        foreach (var s in sessions)
        {
            if (s.GetInt(key) != value)
            {
                s.TryGetValue(key, out var text);
                throw s.Error(key, text, $"the sessions of one acceptor port must agree on {key} ({sessions[0].SessionId} has {value})");
            }
        }

        return value;
    }
}
