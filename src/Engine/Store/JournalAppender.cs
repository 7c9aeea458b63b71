namespace RapidFix.Engine.Store;

/// <summary>How a <see cref="JournalAppender"/> is opened.</summary>
public sealed record JournalAppenderOptions
{
    /// <summary>The journal file.</summary>
    public required string FilePath { get; init; }

    /// <summary>When appended records are made durable (GroupCommit by default).</summary>
    public FlushPolicy FlushPolicy { get; init; } = FlushPolicy.GroupCommit;

    /// <summary>Group commit: flush as soon as this many records are pending.</summary>
    public int MaxBatch { get; init; } = 64;

    /// <summary>Group commit: the longest a pending record waits for its batch to fill (0 = flush at once).</summary>
    public TimeSpan MaxDelay { get; init; } = TimeSpan.Zero;

    /// <summary>
    /// Bytes of the in-memory write window: records appended and not yet durable. Allocated pinned and committed
    /// (every page touched) at open; reused once the flusher has made its bytes durable.
    /// </summary>
    public int WindowBytes { get; init; } = 64 << 20;

    /// <summary>The largest message one record carries (the encode buffer is sized for it at open).</summary>
    public int MaxMessageBytes { get; init; } = 64 << 10;

    /// <summary>
    /// An append starts no flush of its own: records are flushed when someone waits for them
    /// (<see cref="JournalAppender.WaitForDurable"/>, <see cref="JournalAppender.Flush"/>), asks for it
    /// (<see cref="JournalAppender.RequestFlush"/>), or after the flusher's park timeout (100 ms) when nobody does.
    /// For a writer whose reader waits for batches (the matching service's matcher thread: one fsync a batch instead
    /// of one after another while inputs arrive). Off by default.
    /// </summary>
    public bool FlushOnDemand { get; init; }

    /// <summary>Messages the current generation may hold, recovered ones included (a count, not memory: IndexFull past it).</summary>
    public long MaxMessages { get; init; } = int.MaxValue;

    /// <summary>
    /// Bytes of the file's end left in the operating system's page cache (Linux): after each fsync the older written
    /// pages are dropped, so a reader tailing the journal (the persister) within this distance still reads from
    /// memory, and the cache the journal takes stays bounded instead of growing with the file. 0: no limit (the OS
    /// decides). Default <see cref="JournalOptions.DefaultPageCacheLimitBytes"/>; not applied under OsOnly.
    /// </summary>
    public long PageCacheLimitBytes { get; init; } = JournalOptions.DefaultPageCacheLimitBytes;
}

/// <summary>
/// An append-only journal of messages, in the engine's journal format (<see cref="JournalReader"/> reads it), that
/// keeps only a fixed write window in memory: records are encoded into the window, a flusher thread writes them to
/// the file at file offset = position (group commit), and window space is reused once what it held is durable. Its
/// memory does not grow with the journal: the window is allocated pinned and its pages touched at open, so resident
/// memory is reached before the continuous phase; the file grows, bounded by the disk (and the caller's count).
/// </summary>
/// <remarks>
/// <para>For a writer that never reads back what it wrote while running (the matching service's input journal: the
/// matcher takes its inputs from a ring, recovery reads the file at startup, the persister reads the file). A store
/// that serves resends by sequence number is <see cref="JournalMessageStore"/>.</para>
/// <para>Opening recovers: a torn tail (a record incomplete or failing its CRC, as <see cref="JournalReader"/>
/// judges it) is cut off; the file is not compacted, and <see cref="OpenRecoveryReader"/> reads the current
/// generation from the file. Positions are 64-bit file offsets. An append that does not fit in the window's free
/// part (the disk is behind by a window) is refused with <see cref="StoreWriteStatus.JournalFull"/>, counted:
/// back-pressure, nothing overwritten. A failed disk write stops the journal as it does the store.</para>
/// </remarks>
public sealed class JournalAppender : IDisposable, IJournalFlushSource
{
    private const int PageBytes = 4096;
    private readonly byte[] _window;
    private readonly byte[] _encode;
    private readonly long _maxMessages;
    private readonly long _generationOffset;
    private readonly Microsoft.Win32.SafeHandles.SafeFileHandle _handle;
    private readonly GroupCommitFlusher _flusher;
    private readonly bool _lazy;

    private long _position;          // writer: just past the last record
    private long _messages;          // writer: messages in the current generation
    private int _nextSeqNum;         // writer
    private bool _disposed;

    private long _appends;
    private long _appendedBytes;
    private long _indexFull;
    private long _windowFull;
    private long _invalid;
    private long _faulted;

    private JournalAppender(JournalAppenderOptions options, FileStream file, long end, long generationOffset, int lastSeqNum, long messages,
        RecoveryReport report)
    {
        _maxMessages = options.MaxMessages;
        _lazy = options.FlushOnDemand;
        _handle = file.SafeFileHandle;
        _generationOffset = generationOffset;
        _position = end;
        _nextSeqNum = lastSeqNum + 1;
        _messages = messages;
        Recovery = report;
        FilePath = report.FilePath;

        _window = GC.AllocateUninitializedArray<byte>(options.WindowBytes, pinned: true);
        Commit(_window);
        _encode = GC.AllocateUninitializedArray<byte>(JournalFormat.MessageRecordSize(options.MaxMessageBytes), pinned: true);
        Commit(_encode);

        // Last: the flusher's thread reads the window.
        _flusher = new GroupCommitFlusher(this, file, options.FlushPolicy, options.MaxBatch, options.MaxDelay, "rapidfix-journal-flusher", end,
            options.PageCacheLimitBytes);
    }

    /// <summary>The journal file.</summary>
    public string FilePath { get; }

    /// <summary>What opening the journal found and repaired (<see cref="RecoveryReport.CompactedBytes"/> is always 0).</summary>
    public RecoveryReport Recovery { get; }

    /// <summary>Bytes of the in-memory write window.</summary>
    public int WindowBytes => _window.Length;

    /// <summary>The MsgSeqNum after the last message of the current generation (1 for an empty one).</summary>
    public int NextSeqNum => _nextSeqNum;

    /// <summary>Messages in the current generation, recovered ones included.</summary>
    public long MessageCount => _messages;

    /// <summary>Position (file offset) just past the last append.</summary>
    public long WrittenPosition => _position;

    /// <summary>Everything below this position is on disk (as the flush policy defines it).</summary>
    public long DurablePosition => _flusher.Durable;

    /// <summary>Bytes of the file whose cached pages were dropped after their fsync (<see cref="JournalAppenderOptions.PageCacheLimitBytes"/>).</summary>
    internal long PageCacheDroppedBytes => _flusher.DroppedBytes;

    /// <summary>The disk error that stopped the journal, or null.</summary>
    public Exception? Fault => _flusher.Fault;

    /// <summary>Counters (<see cref="StoreCounters.JournalFullRejections"/>: appends refused for want of window space).</summary>
    public StoreCounters Counters =>
        new(_appends, _appendedBytes, 0, _indexFull, _windowFull, _invalid, _faulted,
            _flusher.Flushes, _flusher.Fsyncs, _flusher.FlushedBytes, _flusher.LargestBatchBytes, _flusher.AllocatedBytes);

    /// <summary>Opens (or creates) the journal and cuts a torn tail (startup: allocates and commits the window).</summary>
    public static JournalAppender Open(JournalAppenderOptions options, DateTime creationTimeUtc)
    {
        ArgumentNullException.ThrowIfNull(options);
        ArgumentException.ThrowIfNullOrEmpty(options.FilePath);
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(options.MaxBatch);
        ArgumentOutOfRangeException.ThrowIfNegative(options.MaxDelay.Ticks);
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(options.MaxMessageBytes);
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(options.MaxMessages);
        ArgumentOutOfRangeException.ThrowIfLessThan(options.WindowBytes, JournalFormat.MessageRecordSize(options.MaxMessageBytes));

        string path = Path.GetFullPath(options.FilePath);
        Directory.CreateDirectory(Path.GetDirectoryName(path)!);
        var file = JournalFile.OpenExclusive(path);
        try
        {
            var scan = JournalFile.Scan(file, path);
            long original = file.Length;
            if (scan.LastGenerationOffset < 0)
            {
                Span<byte> generation = stackalloc byte[JournalFormat.GenerationRecordSize];
                JournalFormat.WriteGeneration(generation, 1, creationTimeUtc.Ticks);
                file.SetLength(0);
                RandomAccess.Write(file.SafeFileHandle, JournalFormat.FileMagic, 0);
                RandomAccess.Write(file.SafeFileHandle, generation, JournalFormat.FileHeaderSize);
                file.Flush(flushToDisk: true);
                JournalFile.SyncDirectory(Path.GetDirectoryName(path)!);
                var created = new RecoveryReport(path, true, 1, 0, 0, original,
                    original > 0 ? scan.StopReason ?? "no complete generation record" : null, 0);
                return new JournalAppender(options, file, JournalFormat.FileHeaderSize + JournalFormat.GenerationRecordSize,
                    JournalFormat.FileHeaderSize, 0, 0, created);
            }

            if (scan.MessagesInLastGeneration > options.MaxMessages)
            {
                throw new StoreException($"the journal {path} holds {scan.MessagesInLastGeneration} messages, more than the {options.MaxMessages} it is opened for");
            }

            if (scan.ValidEnd < original)
            {
                file.SetLength(scan.ValidEnd);
                file.Flush(flushToDisk: true);
            }

            var report = new RecoveryReport(path, false, scan.LastGeneration, (int)Math.Min(int.MaxValue, scan.MessagesInLastGeneration), scan.Records,
                original - scan.ValidEnd, scan.ValidEnd < original ? scan.StopReason : null, 0);
            return new JournalAppender(options, file, scan.ValidEnd, scan.LastGenerationOffset, scan.LastSeqNum, scan.MessagesInLastGeneration, report);
        }
        catch
        {
            file.Dispose();
            throw;
        }
    }

    /// <summary>
    /// A reader of the current generation from the file, from its generation record on (startup: recovery reads
    /// here what the window no longer holds). Reads through this journal's own handle; dispose it before the journal.
    /// </summary>
    public JournalReader OpenRecoveryReader()
    {
        ThrowIfDisposed();
        return JournalReader.Over(FilePath, _handle, _generationOffset);
    }

    /// <summary>
    /// Appends a message record with MsgSeqNum <paramref name="seqNum"/> (one writer at a time). Anything but Ok
    /// stored nothing: JournalFull when the window has no room for it (the disk is a window behind) or it is larger
    /// than <see cref="JournalAppenderOptions.MaxMessageBytes"/>, IndexFull past MaxMessages, Faulted after a disk error.
    /// </summary>
    public StoreWriteStatus Append(int seqNum, ReadOnlySpan<byte> message)
    {
        ThrowIfDisposed();
        if (_flusher.Fault is not null)
        {
            _faulted++;
            return StoreWriteStatus.Faulted;
        }

        if (seqNum < 1)
        {
            _invalid++;
            return StoreWriteStatus.InvalidSequenceNumber;
        }

        if (message.IsEmpty)
        {
            _invalid++;
            return StoreWriteStatus.EmptyMessage;
        }

        if (_messages >= _maxMessages)
        {
            _indexFull++;
            return StoreWriteStatus.IndexFull;
        }

        int size = JournalFormat.MessageRecordSize(message.Length);
        if (size > _encode.Length || _position + size - _flusher.Durable > _window.Length)
        {
            _windowFull++;
            return StoreWriteStatus.JournalFull;
        }

        var record = _encode.AsSpan(0, size);
        JournalFormat.WriteMessage(record, seqNum, message);
        CopyIntoWindow(record, _position);
        _position += size;
        _messages++;
        _nextSeqNum = seqNum + 1;
        _appends++;
        _appendedBytes += message.Length;
        return Publish();
    }

    /// <summary>Blocks until <paramref name="position"/> is durable; false on timeout or a faulted journal.</summary>
    public bool WaitForDurable(long position, TimeSpan timeout) => _flusher.WaitForDurable(position, timeout);

    /// <summary>Makes everything appended so far durable (blocks); false on a faulted journal.</summary>
    public bool Flush() => _flusher.Flush(_position);

    /// <summary>
    /// Any thread: asks for a flush of everything appended so far without waiting for it (under
    /// <see cref="JournalAppenderOptions.FlushOnDemand"/>); returns the position it covers.
    /// </summary>
    public long RequestFlush() => _flusher.RequestFlush();

    /// <summary>Makes what was appended durable, stops the flusher and closes the file (and its lock).</summary>
    public void Dispose()
    {
        if (_disposed)
        {
            return;
        }

        _disposed = true;
        _flusher.Stop(_position);
    }

    /// <summary>Touches every page of a new array so the kernel commits it now (startup), not on its first write.</summary>
    internal static void Commit(byte[] array)
    {
        // A long index: an int stepping by a page past the end of an array near Array.MaxLength wraps negative.
        for (long i = 0; i < array.Length; i += PageBytes)
        {
            array[i] = 0;
        }

        if (array.Length > 0)
        {
            array[^1] = 0;
        }
    }

    private void CopyIntoWindow(ReadOnlySpan<byte> record, long position)
    {
        int at = (int)(position % _window.Length);
        int first = Math.Min(record.Length, _window.Length - at);
        record[..first].CopyTo(_window.AsSpan(at));
        if (first < record.Length)
        {
            record[first..].CopyTo(_window);
        }
    }

    private StoreWriteStatus Publish()
    {
        if (_flusher.Publish(_position, _lazy))
        {
            return StoreWriteStatus.Ok;
        }

        _faulted++;
        return StoreWriteStatus.Faulted;
    }

    /// <summary>Writes [from, upTo) from the window at its file offset: two writes when it wraps the window's end.</summary>
    void IJournalFlushSource.WriteRange(Microsoft.Win32.SafeHandles.SafeFileHandle file, long from, long upTo)
    {
        int at = (int)(from % _window.Length);
        int size = (int)(upTo - from);
        int first = Math.Min(size, _window.Length - at);
        RandomAccess.Write(file, new ReadOnlySpan<byte>(_window, at, first), from);
        if (first < size)
        {
            RandomAccess.Write(file, new ReadOnlySpan<byte>(_window, 0, size - first), from + first);
        }
    }

    private void ThrowIfDisposed()
    {
        if (_disposed)
        {
            throw new ObjectDisposedException(nameof(JournalAppender));
        }
    }
}
