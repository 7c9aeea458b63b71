namespace RapidFix.Gateway;

/// <summary>One matching service behind the gateway: where it listens and the partitions it owns.</summary>
/// <param name="Host">The service's acceptor host.</param>
/// <param name="Port">The service's acceptor port.</param>
/// <param name="Partitions">The partitions it owns (each partition has exactly one owner).</param>
public sealed record ServiceEndpoint(string Host, int Port, IReadOnlyList<int> Partitions);

/// <summary>How the gateway runs (docs/scale-out.md). Everything here is sized at startup.</summary>
public sealed record GatewayOptions
{
    /// <summary>The participants' CompIDs: one acceptor session each, and one initiator session per service each.</summary>
    public required IReadOnlyList<string> Participants { get; init; }

    /// <summary>The matching services, in any order; together they must own every partition exactly once.</summary>
    public required IReadOnlyList<ServiceEndpoint> Services { get; init; }

    /// <summary>Partitions the trades are split into (as the services' --partitions).</summary>
    public int Partitions { get; init; } = 1;

    /// <summary>The CompID the participants see (and the services' CompID): the utility's.</summary>
    public string CompId { get; init; } = "MATCH";

    /// <summary>The participants' acceptor: host (null: every address) and port.</summary>
    public string? AcceptHost { get; init; }

    /// <summary>The participants' acceptor port.</summary>
    public int AcceptPort { get; init; } = 5010;

    /// <summary>Session stores of both sides (each service's sessions in a folder of their own).</summary>
    public required string DataDirectory { get; init; }

    /// <summary>StoreFlushPolicy of every session (GroupCommit: fsync; OsOnly: survives a crash of the process, not of the machine).</summary>
    public string StoreFlushPolicy { get; init; } = "GroupCommit";

    /// <summary>Messages each session store holds (a day's messages of one participant, or of one participant to one service).</summary>
    public int StoreMaxMessages { get; init; } = 1_000_000;

    /// <summary>Bytes each session store holds.</summary>
    public int StoreMaxBytes { get; init; } = 600_000_000;

    /// <summary>
    /// Messages of one participant held for one service while that service is down (stored in the gateway's session
    /// to it, resent when it logs on again); more are refused with BusinessMessageReject 4, counted.
    /// </summary>
    public int HoldPerParticipant { get; init; } = 100_000;

    /// <summary>Bytes of the ring between the participants' connection threads and the forwarder thread.</summary>
    public int ForwardRingBytes { get; init; } = 16 << 20;

    /// <summary>
    /// Forwarded messages per (participant, service) whose MsgSeqNum the gateway remembers, to turn a service's
    /// RefSeqNum back into the participant's. An answer older than that keeps the service's number (counted).
    /// </summary>
    public int RefSeqNumWindow { get; init; } = 1 << 16;

    /// <summary>
    /// Answers from a service are stored on the participant's session without waiting for the disk and flushed once at
    /// the end of each read of the service's connection (one store wait per burst, docs/scale-out.md); false: each
    /// answer is sent with its own store wait (as before; kept for side-by-side measurements).
    /// </summary>
    public bool BatchAnswers { get; init; } = true;

    /// <summary>Seconds between an initiator's reconnection attempts to a service that is down.</summary>
    public int ReconnectSeconds { get; init; } = 1;

    /// <summary>HeartBtInt of the sessions to the services.</summary>
    public int HeartBtInt { get; init; } = 10;

    /// <summary>Where the engine's log goes (null: standard output).</summary>
    public string? LogPath { get; init; }

    /// <summary>The engine host's name in the trace's phase markers (the warm-up's scratch gateway has its own).</summary>
    internal string HostName { get; init; } = "gateway";
}
