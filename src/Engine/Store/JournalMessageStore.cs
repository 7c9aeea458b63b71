namespace RapidFix.Engine.Store;

/// <summary>
/// The recoverable store: an append-only journal on disk mirrored by an in-memory image of the current generation
/// (which serves range reads). Writes are encoded once, into the image; the bytes written to the file are those
/// same bytes, at file offset = position.
/// </summary>
/// <remarks>
/// <para>Under <see cref="FlushPolicy.GroupCommit"/> and <see cref="FlushPolicy.OsOnly"/> a dedicated flusher thread
/// writes everything pending in one write (plus one fsync under group commit) and then advances
/// <see cref="DurablePosition"/>; the session thread never waits for the disk unless it asks to
/// (<see cref="WaitForDurable"/>, <see cref="Flush"/>, <see cref="Reset"/>). Under <see cref="FlushPolicy.EveryMessage"/>
/// each write is written and fsynced before the call returns.</para>
/// <para>Opening recovers: torn records at the end are cut off, older generations are compacted away, and the state
/// is rebuilt by replaying the current generation (see <see cref="Recovery"/>). The file is locked so that only one
/// process uses it. A failed disk write stops the store: it keeps what was durable, refuses further writes with
/// <see cref="StoreWriteStatus.Faulted"/> and reports the error in <see cref="Fault"/>.</para>
/// </remarks>
public sealed class JournalMessageStore : IMessageStore, IJournalFlushSource
{
    private readonly MessageLog _log;
    private readonly FlushPolicy _policy;
    private readonly bool _deferTarget;
    private readonly GroupCommitFlusher _flusher;
    private bool _disposed;

    // Writer-thread counters.
    private long _appends;
    private long _appendedBytes;
    private long _sequenceUpdates;
    private long _indexFull;
    private long _journalFull;
    private long _invalid;
    private long _faulted;

    private JournalMessageStore(JournalOptions options, MessageLog log, FileStream file, RecoveryReport report)
    {
        _log = log;
        _policy = options.FlushPolicy;
        _deferTarget = options.DeferTargetSeqNum;
        Recovery = report;
        FilePath = options.FilePath;
        _flusher = new GroupCommitFlusher(this, file, options.FlushPolicy, options.MaxBatch, options.MaxDelay, "rapidfix-journal-flusher",
            log.WrittenPosition);
    }

    /// <summary>The journal file.</summary>
    public string FilePath { get; }

    /// <summary>What opening the journal found and repaired.</summary>
    public RecoveryReport Recovery { get; }

    /// <summary>When appended records are made durable (per message, group commit, or left to the OS).</summary>
    public FlushPolicy FlushPolicy => _policy;

    /// <inheritdoc/>
    public int NextSenderMsgSeqNum => _log.NextSender;

    /// <inheritdoc/>
    public int NextTargetMsgSeqNum => _log.NextTarget;

    /// <inheritdoc/>
    public DateTime CreationTimeUtc => new(_log.CreationTicks, DateTimeKind.Utc);

    /// <inheritdoc/>
    public long Generation => _log.Generation;

    /// <inheritdoc/>
    public int MessageCount => _log.Count;

    /// <inheritdoc/>
    public long WrittenPosition => _log.WrittenPosition;

    /// <inheritdoc/>
    public long DurablePosition => _flusher.Durable;

    /// <inheritdoc/>
    public Exception? Fault => _flusher.Fault;

    /// <inheritdoc/>
    public StoreCounters Counters =>
        new(_appends, _appendedBytes, _sequenceUpdates, _indexFull, _journalFull, _invalid, _faulted,
            _flusher.Flushes, _flusher.Fsyncs, _flusher.FlushedBytes, _flusher.LargestBatchBytes, _flusher.AllocatedBytes);

    /// <summary>
    /// Opens (or creates) the journal and recovers its current generation. Startup work: it allocates the store's
    /// buffers at their full size and may rewrite the file.
    /// </summary>
    /// <param name="options">File, flush policy and capacities.</param>
    /// <param name="creationTimeUtc">Creation time recorded if a new journal is begun.</param>
    public static JournalMessageStore Open(JournalOptions options, DateTime creationTimeUtc)
    {
        ArgumentNullException.ThrowIfNull(options);
        ArgumentException.ThrowIfNullOrEmpty(options.FilePath);
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(options.MaxBatch);
        ArgumentOutOfRangeException.ThrowIfNegative(options.MaxDelay.Ticks);

        string path = Path.GetFullPath(options.FilePath);
        Directory.CreateDirectory(Path.GetDirectoryName(path)!);
        var log = new MessageLog(options.MaxMessages, options.MaxBytes, computeCrc: true, commitMemory: options.CommitMemory);
        var file = JournalFile.OpenExclusive(path);
        try
        {
            var scan = JournalFile.Scan(file, path);
            long original = file.Length;
            if (scan.LastGenerationOffset < 0)
            {
                // Nothing usable (new file, or a crash before the first generation was complete): begin one.
                log.Clear(JournalFormat.FileHeaderSize);
                log.AppendGeneration(1, creationTimeUtc.Ticks);
                file.SetLength(0);
                RandomAccess.Write(file.SafeFileHandle, JournalFormat.FileMagic, 0);
                RandomAccess.Write(file.SafeFileHandle, log.Slice(log.BasePosition, log.WrittenPosition), log.BasePosition);
                file.Flush(flushToDisk: true);
                JournalFile.SyncDirectory(Path.GetDirectoryName(path)!);
                var created = new RecoveryReport(path, true, 1, 0, 0, original, original > 0 ? scan.StopReason ?? "no complete generation record" : null, 0);
                return new JournalMessageStore(options, log, file, created);
            }

            if (scan.ValidEnd < original)
            {
                file.SetLength(scan.ValidEnd);
                file.Flush(flushToDisk: true);
            }

            byte[] generation = JournalFile.ReadRange(file, scan.LastGenerationOffset, scan.ValidEnd);
            long compacted = scan.LastGenerationOffset - JournalFormat.FileHeaderSize;

            // Replay first: a generation too large for the configured capacity fails here, before the file is touched.
            log.Load(generation, JournalFormat.FileHeaderSize);
            if (compacted > 0)
            {
                // Older generations are dead weight: rewrite the file as header + current generation.
                JournalFile.Rewrite(path, generation);
                var reopened = JournalFile.OpenExclusive(path);
                file.Dispose();
                file = reopened;
            }

            var report = new RecoveryReport(path, false, log.Generation, log.Count, scan.Records,
                original - scan.ValidEnd, scan.ValidEnd < original ? scan.StopReason : null, compacted);
            return new JournalMessageStore(options, log, file, report);
        }
        catch
        {
            file.Dispose();
            throw;
        }
    }

    /// <inheritdoc/>
    public StoreWriteStatus Append(int seqNum, ReadOnlySpan<byte> message)
    {
        ThrowIfDisposed();
        if (_flusher.Fault is not null)
        {
            return CountRejection(StoreWriteStatus.Faulted);
        }

        var status = _log.CanAppend(seqNum, message.Length);
        if (status != StoreWriteStatus.Ok)
        {
            return CountRejection(status);
        }

        _log.AppendMessage(seqNum, message);
        _appends++;
        _appendedBytes += message.Length;
        return Publish();
    }

    /// <inheritdoc/>
    public StoreWriteStatus SetNextSenderMsgSeqNum(int value) => WriteSequence(RecordType.NextSender, value);

    /// <inheritdoc/>
    public StoreWriteStatus SetNextTargetMsgSeqNum(int value) => WriteSequence(RecordType.NextTarget, value);

    /// <summary>
    /// Starts a new generation. Waits until everything written so far is durable (one flush), so the old
    /// generation is complete on disk before the new one begins after it.
    /// </summary>
    public StoreWriteStatus Reset(DateTime creationTimeUtc)
    {
        ThrowIfDisposed();
        if (!Flush())
        {
            return CountRejection(StoreWriteStatus.Faulted);
        }

        lock (_flusher.Gate)
        {
            long generation = _log.Generation + 1;
            _log.Clear(_log.WrittenPosition);
            _log.AppendGeneration(generation, creationTimeUtc.Ticks);
        }

        return Publish();
    }

    /// <inheritdoc/>
    public StoredMessageRange GetRange(int beginSeqNum, int endSeqNum)
    {
        ThrowIfDisposed();
        return new StoredMessageRange(_log, beginSeqNum, endSeqNum);
    }

    /// <summary>Hands the stored messages of a range to a struct handler (see <see cref="IMessageStore.GetRange"/>).</summary>
    public int ReadRange<THandler>(int beginSeqNum, int endSeqNum, ref THandler handler)
        where THandler : struct, IStoredMessageHandler =>
        GetRange(beginSeqNum, endSeqNum).Read(ref handler);

    /// <inheritdoc/>
    public bool WaitForDurable(long position, TimeSpan timeout) => _flusher.WaitForDurable(position, timeout);

    /// <inheritdoc/>
    public bool Flush() => _flusher.Flush(_log.WrittenPosition);

    /// <summary>Makes what was written durable, stops the flusher thread and closes the journal (its lock on the file goes with it).</summary>
    public void Dispose()
    {
        if (_disposed)
        {
            return;
        }

        _disposed = true;
        _flusher.Stop(_log.WrittenPosition);
    }

    private StoreWriteStatus WriteSequence(RecordType type, int value)
    {
        ThrowIfDisposed();
        if (_flusher.Fault is not null)
        {
            return CountRejection(StoreWriteStatus.Faulted);
        }

        var status = _log.CanWriteSequence(value);
        if (status != StoreWriteStatus.Ok)
        {
            return CountRejection(status);
        }

        _log.AppendSequence(type, value);
        _sequenceUpdates++;
        // Under DeferTargetSeqNum a received message's record rides with the next flush (JournalOptions).
        return _flusher.Publish(_log.WrittenPosition, lazy: _deferTarget && type == RecordType.NextTarget)
            ? StoreWriteStatus.Ok
            : CountRejection(StoreWriteStatus.Faulted);
    }

    /// <summary>Makes the record just written visible to the flusher, or writes it through under EveryMessage.</summary>
    private StoreWriteStatus Publish() =>
        _flusher.Publish(_log.WrittenPosition) ? StoreWriteStatus.Ok : CountRejection(StoreWriteStatus.Faulted);

    void IJournalFlushSource.WriteRange(Microsoft.Win32.SafeHandles.SafeFileHandle file, long from, long upTo) =>
        RandomAccess.Write(file, _log.Slice(from, upTo), from);

    private StoreWriteStatus CountRejection(StoreWriteStatus status)
    {
        switch (status)
        {
            case StoreWriteStatus.IndexFull: _indexFull++; break;
            case StoreWriteStatus.JournalFull: _journalFull++; break;
            case StoreWriteStatus.Faulted: _faulted++; break;
            default: _invalid++; break;
        }

        return status;
    }

    private void ThrowIfDisposed()
    {
        if (_disposed)
        {
            ThrowDisposed();
        }
    }

    private static void ThrowDisposed() => throw new ObjectDisposedException(nameof(JournalMessageStore));
}
