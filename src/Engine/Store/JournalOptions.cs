namespace RapidFix.Engine.Store;

/// <summary>When journal writes reach the disk.</summary>
public enum FlushPolicy
{
    /// <summary>Each write is written and fsynced by the calling thread before the call returns.</summary>
    EveryMessage,

    /// <summary>
    /// A dedicated flusher thread writes everything pending in one write and one fsync (group commit), then makes it
    /// durable. It waits for a batch to fill for at most <see cref="JournalOptions.MaxDelay"/>.
    /// </summary>
    GroupCommit,

    /// <summary>
    /// The flusher thread hands batches to the OS without fsync: "durable" then means it survives a crash of the
    /// process, not of the machine.
    /// </summary>
    OsOnly,
}

/// <summary>How a journal store is opened.</summary>
public sealed record JournalOptions
{
    /// <summary>The journal file.</summary>
    public required string FilePath { get; init; }

    /// <summary>When appended records are made durable: GroupCommit (the default) batches the syncs of concurrent writers.</summary>
    public FlushPolicy FlushPolicy { get; init; } = FlushPolicy.GroupCommit;

    /// <summary>Group commit: flush as soon as this many records are pending (StoreFlushMaxBatch).</summary>
    public int MaxBatch { get; init; } = 64;

    /// <summary>Group commit: the longest a pending record waits for its batch to fill (StoreFlushMaxDelayMicroseconds; 0 = flush at once).</summary>
    public TimeSpan MaxDelay { get; init; } = TimeSpan.Zero;

    /// <summary>Sent messages held per generation (StoreMaxMessages).</summary>
    public int MaxMessages { get; init; } = 1_000_000;

    /// <summary>Journal bytes held per generation, records included (StoreMaxBytes).</summary>
    public int MaxBytes { get; init; } = 256 << 20;

    /// <summary>
    /// Touch every page of the buffer and the index when the store is opened (StoreCommitMemory), so resident memory
    /// is reached at startup instead of growing as the store fills.
    /// </summary>
    public bool CommitMemory { get; init; }

    /// <summary>
    /// The sequence record of each received message (NextTargetMsgSeqNum) starts no flush of its own
    /// (StoreDeferTargetSeqNum): it reaches the disk with the next flush a sent message asks for, or within 100 ms
    /// when none comes. A crash can then lose up to that much of the received sequence: the counterparty is asked to
    /// resend those messages (PossDupFlag=Y). For an application that journals what it receives itself and ignores
    /// what it already holds (the matching service): the store's flusher then runs once per batch of sent messages
    /// instead of continuously while messages arrive. Off by default.
    /// </summary>
    public bool DeferTargetSeqNum { get; init; }
}

/// <summary>What opening a journal found and did.</summary>
/// <param name="FilePath">The journal file.</param>
/// <param name="Created">True when there was no journal (or only an empty or torn start) and a new one was begun.</param>
/// <param name="Generation">The generation in force.</param>
/// <param name="MessagesRecovered">Sent messages of that generation now in the store.</param>
/// <param name="RecordsRead">Valid records read (all generations).</param>
/// <param name="TruncatedBytes">Bytes cut off the end because they did not form valid records (a torn write).</param>
/// <param name="TruncationReason">Why the cut was made, or null when nothing was cut.</param>
/// <param name="CompactedBytes">Bytes of older generations dropped by rewriting the journal.</param>
public sealed record RecoveryReport(
    string FilePath,
    bool Created,
    long Generation,
    int MessagesRecovered,
    long RecordsRead,
    long TruncatedBytes,
    string? TruncationReason,
    long CompactedBytes);
