namespace RapidFix.Engine.Store;

/// <summary>
/// The recoverable store: an append-only journal on disk of which only a write window is kept in memory. Writes are
/// encoded once, into the window (a ring at offset position mod its length); the bytes written to the file are those
/// same bytes, at file offset = position. Resends are served from the window when the messages are still in it and
/// from the file (positioned reads into a buffer made at open) when they are older.
/// </summary>
/// <remarks>
/// <para>Under <see cref="FlushPolicy.GroupCommit"/> and <see cref="FlushPolicy.OsOnly"/> a dedicated flusher thread
/// writes everything pending in one write (plus one fsync under group commit) and then advances
/// <see cref="DurablePosition"/>, which frees window space; the session thread never waits for the disk unless it
/// asks to (<see cref="WaitForDurable"/>, <see cref="Flush"/>, <see cref="Reset"/>) or the disk is a whole window
/// behind (an append then waits for room, counted in <see cref="WindowWaits"/>, and is refused with
/// <see cref="StoreWriteStatus.JournalFull"/> if none comes). Under <see cref="FlushPolicy.EveryMessage"/> each write
/// is written and fsynced before the call returns.</para>
/// <para>Memory is sized at open whatever the journal's length: the window (<see cref="JournalOptions.WindowBytes"/>,
/// at most the generation's bound), an index of the most recent messages, checkpoints into the file for older ones,
/// and the read buffer; committed then with <see cref="JournalOptions.CommitMemory"/>, else as first written, so
/// resident memory grows to the window and stays there (docs/store.md).</para>
/// <para>Opening recovers: torn records at the end are cut off, older generations are compacted away, and the state
/// is rebuilt by replaying the current generation from the file (see <see cref="Recovery"/>). The file is locked so
/// that only one process uses it. A failed disk write stops the store: it keeps what was durable, refuses further
/// writes with <see cref="StoreWriteStatus.Faulted"/> and reports the error in <see cref="Fault"/>.</para>
/// </remarks>
public sealed class JournalMessageStore : IMessageStore, IJournalFlushSource
{
    /// <summary>The longest an append waits for the flusher to free window space before it is refused (JournalFull).</summary>
    internal static readonly TimeSpan WindowWaitTimeout = TimeSpan.FromSeconds(10);

    private readonly StoreWindow _log;
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
    private long _windowWaits;

    private JournalMessageStore(JournalOptions options, StoreWindow log, FileStream file, RecoveryReport report)
    {
        _log = log;
        _policy = options.FlushPolicy;
        _deferTarget = options.DeferTargetSeqNum;
        Recovery = report;
        FilePath = options.FilePath;
        _flusher = new GroupCommitFlusher(this, file, options.FlushPolicy, options.MaxBatch, options.MaxDelay, "rapidfix-journal-flusher",
            log.WrittenPosition, options.PageCacheLimitBytes);
        log.Attach(file.SafeFileHandle, _flusher);
    }

    /// <summary>Bytes of the in-memory write window (<see cref="JournalOptions.WindowBytes"/>, at most the generation's bound).</summary>
    public int WindowBytes => _log.RingBytes;

    /// <summary>Messages the in-memory index holds (the most recent ones; older ones are found through the file).</summary>
    public int IndexCapacity => _log.IndexCapacity;

    /// <summary>Appends and sequence writes that found the window full (the disk a window behind) and waited for the flusher.</summary>
    public long WindowWaits => Volatile.Read(ref _windowWaits);

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

    /// <summary>Bytes of the file whose cached pages were dropped after their fsync (<see cref="JournalOptions.PageCacheLimitBytes"/>).</summary>
    internal long PageCacheDroppedBytes => _flusher.DroppedBytes;

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
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(options.MaxMessages);
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(options.MaxMessageBytes);
        long maxBytes = options.GenerationBytes;
        ArgumentOutOfRangeException.ThrowIfLessThan(maxBytes, (long)JournalFormat.GenerationRecordSize, nameof(options.MaxBytes));
        ArgumentOutOfRangeException.ThrowIfLessThan(options.WindowBytes, JournalFormat.GenerationRecordSize);

        string path = Path.GetFullPath(options.FilePath);
        Directory.CreateDirectory(Path.GetDirectoryName(path)!);
        // Memory, all fixed here: the window (no larger than a generation can be), a read buffer for what the window
        // no longer holds (room for the largest message, 1 MiB at least, so file scans read many records at a time),
        // and an index of the most recent messages (one entry per 64 bytes of window, at least 1,024).
        int ring = (int)Math.Min(options.WindowBytes, maxBytes);
        int read = (int)Math.Min(ring, Math.Max(1L << 20, JournalFormat.MessageRecordSize(options.MaxMessageBytes)));
        int index = (int)Math.Min(options.MaxMessages, Math.Max(1024, ring / 64));
        var log = new StoreWindow(ring, read, index, options.MaxMessages, maxBytes, options.CommitMemory);
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
                log.WriteTo(file.SafeFileHandle, JournalFormat.FileHeaderSize, log.WrittenPosition);
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

            // Replay first, from the file: a generation too large for the configured capacity fails here, before the
            // file is rewritten.
            log.BeginRecovery(file.SafeFileHandle, scan.ValidEnd);
            using (var reader = JournalReader.Over(path, file.SafeFileHandle, scan.LastGenerationOffset))
            {
                while (reader.Offset < scan.ValidEnd)
                {
                    long position = reader.Offset;
                    if (reader.TryRead(out var record) != JournalReadStatus.Record)
                    {
                        throw new StoreException($"the journal {path} changed while it was being opened (offset {position})");
                    }

                    log.Replay(position, record.Body);
                }
            }

            long compacted = scan.LastGenerationOffset - JournalFormat.FileHeaderSize;
            if (compacted > 0)
            {
                // Older generations are dead weight: rewrite the file as header + current generation.
                JournalFile.RewriteTail(path, file.SafeFileHandle, scan.LastGenerationOffset, scan.ValidEnd);
                var reopened = JournalFile.OpenExclusive(path);
                file.Dispose();
                file = reopened;
                log.Rebase(-compacted);
            }

            log.LoadRing(file.SafeFileHandle);
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
    public StoreWriteStatus Append(int seqNum, ReadOnlySpan<byte> message) => AppendRecord(seqNum, message, lazy: false);

    private StoreWriteStatus AppendRecord(int seqNum, ReadOnlySpan<byte> message, bool lazy)
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

        if (!MakeRoom(JournalFormat.MessageRecordSize(message.Length), out status))
        {
            return CountRejection(status);
        }

        _log.AppendMessage(seqNum, message);
        _appends++;
        _appendedBytes += message.Length;
        return lazy
            ? _flusher.Publish(_log.WrittenPosition, lazy: true) ? StoreWriteStatus.Ok : CountRejection(StoreWriteStatus.Faulted)
            : Publish();
    }

    /// <summary>
    /// As <see cref="Append(int, ReadOnlySpan{byte})"/>, but the record starts no flush of its own (a batched send's: the session asks for one
    /// flush of the whole batch when it waits for it, <see cref="Sessions.FixSession.FlushDeferred"/>). Until someone
    /// waits for it, asks for a flush (<see cref="RequestFlush"/>) or writes a record that is not lazy, it reaches the
    /// disk only after the flusher's park timeout.
    /// </summary>
    internal StoreWriteStatus AppendDeferred(int seqNum, ReadOnlySpan<byte> message) => AppendRecord(seqNum, message, lazy: true);

    /// <summary>Asks for a flush of everything written so far without waiting for it (the flush runs meanwhile).</summary>
    internal void RequestFlush() => _flusher.RequestFlush();

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

        // Everything is durable now, so the whole window is free for the new generation's record.
        long generation = _log.Generation + 1;
        _log.Clear(_log.WrittenPosition);
        _log.AppendGeneration(generation, creationTimeUtc.Ticks);

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

        if (!MakeRoom(JournalFormat.SequenceRecordSize, out status))
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
        _log.WriteTo(file, from, upTo);

    /// <summary>
    /// Makes sure a record of <paramref name="size"/> bytes fits the window's free part: the bytes it would overwrite
    /// must be durable. When they are not (the disk is a window behind), waits for the flusher, counted; false, with
    /// JournalFull (or Faulted), when no room came. Nothing not yet durable is ever overwritten.
    /// </summary>
    private bool MakeRoom(int size, out StoreWriteStatus status)
    {
        status = StoreWriteStatus.Ok;
        long needed = _log.DurableNeededFor(size);
        if (needed <= _flusher.Durable)
        {
            return true;
        }

        _windowWaits++;
        if (_flusher.WaitForDurable(needed, WindowWaitTimeout))
        {
            return true;
        }

        status = _flusher.Fault is null ? StoreWriteStatus.JournalFull : StoreWriteStatus.Faulted;
        return false;
    }

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
