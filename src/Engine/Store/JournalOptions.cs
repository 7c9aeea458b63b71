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

    /// <summary>
    /// Journal bytes one generation may hold, records included (StoreMaxBytes up to 2 GiB; see
    /// <see cref="MaxGenerationBytes"/> for more). A bound on the file, not on memory: past it a write is refused
    /// with JournalFull.
    /// </summary>
    public int MaxBytes { get; init; } = 256 << 20;

    /// <summary>
    /// Journal bytes one generation may hold when more than <see cref="MaxBytes"/> can say (StoreMaxBytes, which may
    /// exceed 2 GiB for the journal store); 0 (the default): <see cref="MaxBytes"/>.
    /// </summary>
    public long MaxGenerationBytes { get; init; }

    /// <summary>
    /// Bytes of the in-memory write window (StoreWindowBytes, default 16 MiB): the journal's last bytes, which serve
    /// resends from memory; older messages are read from the file. Allocated pinned at open (committed then with
    /// <see cref="CommitMemory"/>); at most the generation's bound is used. Records not yet durable can never take more than this.
    /// </summary>
    public int WindowBytes { get; init; } = DefaultWindowBytes;

    /// <summary>The default <see cref="WindowBytes"/>: 16 MiB.</summary>
    public const int DefaultWindowBytes = 16 << 20;

    /// <summary>The largest message the store must take (MaxMessageSize): the read buffer made at open holds at least one.</summary>
    public int MaxMessageBytes { get; init; } = 64 << 10;

    /// <summary>
    /// Touch every page of the window, the index and the read buffer when the store is opened (StoreCommitMemory), so
    /// resident memory is reached at startup; without it pages are committed as they are first written, and resident
    /// memory grows to the window (the journal's file grows; the window does not) and stays there.
    /// </summary>
    public bool CommitMemory { get; init; }

    /// <summary>The generation's bound in bytes: <see cref="MaxGenerationBytes"/> when set, else <see cref="MaxBytes"/>.</summary>
    internal long GenerationBytes => MaxGenerationBytes > 0 ? MaxGenerationBytes : MaxBytes;

    /// <summary>
    /// The sequence record of each received message (NextTargetMsgSeqNum) starts no flush of its own
    /// (StoreDeferTargetSeqNum): it reaches the disk with the next flush a sent message asks for, or within 100 ms
    /// when none comes. A crash can then lose up to that much of the received sequence: the counterparty is asked to
    /// resend those messages (PossDupFlag=Y). For an application that journals what it receives itself and ignores
    /// what it already holds (the matching service): the store's flusher then runs once per batch of sent messages
    /// instead of continuously while messages arrive. Off by default.
    /// </summary>
    public bool DeferTargetSeqNum { get; init; }

    /// <summary>
    /// Bytes of the journal file's end left in the operating system's page cache (StorePageCacheBytes; Linux): after
    /// each fsync the older written pages are dropped (<c>posix_fadvise</c> DONTNEED), since the store reads its file
    /// only at recovery and for resends older than its window. The cache the journal takes then stays bounded and
    /// its pages are reused, where each new page of a growing file is otherwise a fresh page of memory (on a virtual
    /// machine whose host reclaims free guest memory, a host fault each: docs/store.md, Page cache). 0: no limit (the
    /// OS decides). Not applied under OsOnly (its pages are not known to be clean).
    /// </summary>
    public long PageCacheLimitBytes { get; init; } = DefaultPageCacheLimitBytes;

    /// <summary>The default <see cref="PageCacheLimitBytes"/>: 256 MiB.</summary>
    public const long DefaultPageCacheLimitBytes = 256L << 20;
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
