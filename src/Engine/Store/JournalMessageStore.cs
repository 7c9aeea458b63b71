using System.Diagnostics;

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
public sealed class JournalMessageStore : IMessageStore
{
    private static readonly TimeSpan ParkTimeout = TimeSpan.FromMilliseconds(100);

    private readonly MessageLog _log;
    private readonly FlushPolicy _policy;
    private readonly int _maxBatch;
    private readonly long _maxDelayStopwatchTicks;
    private readonly FileStream _file;
    private readonly Microsoft.Win32.SafeHandles.SafeFileHandle _handle;
    private readonly object _flushGate = new();    // held while writing to the file; Reset re-bases the image under it
    private readonly object _durableGate = new();  // durability waiters sleep on it
    private readonly ManualResetEventSlim _work = new(false);
    private readonly Thread? _flusher;

    private long _written;           // WrittenPosition as published to the flusher
    private long _writtenRecords;    // records published, for batch sizing
    private long _flushedPosition;   // file offset the next flush starts at (flusher, or writer under EveryMessage)
    private long _durable;
    private int _flusherParked;
    private int _durableWaiters;
    private volatile bool _stopping;
    private volatile Exception? _fault;
    private bool _disposed;

    // Writer-thread counters.
    private long _appends;
    private long _appendedBytes;
    private long _sequenceUpdates;
    private long _indexFull;
    private long _journalFull;
    private long _invalid;
    private long _faulted;

    // Flushing counters (written under _flushGate).
    private long _flushes;
    private long _fsyncs;
    private long _flushedBytes;
    private long _largestBatch;
    private long _flusherAllocated;

    private JournalMessageStore(JournalOptions options, MessageLog log, FileStream file, RecoveryReport report)
    {
        _log = log;
        _policy = options.FlushPolicy;
        _maxBatch = options.MaxBatch;
        _maxDelayStopwatchTicks = (long)(options.MaxDelay.TotalSeconds * Stopwatch.Frequency);
        _file = file;
        _handle = file.SafeFileHandle;
        Recovery = report;
        FilePath = options.FilePath;
        _written = _flushedPosition = _durable = log.WrittenPosition;

        // Create lazily built wait state now, not on the first wait in the continuous phase: the monitors' sync
        // blocks, and the event's internal lock object (allocated on its first blocking wait).
        _work.Wait(1);
        lock (_flushGate)
        {
            lock (_durableGate)
            {
                Monitor.PulseAll(_durableGate);
            }
        }

        if (_policy != FlushPolicy.EveryMessage)
        {
            _flusher = new Thread(FlusherLoop)
            {
                IsBackground = true,
                Name = "rapidfix-journal-flusher",
                Priority = ThreadPriority.AboveNormal,
            };
            _flusher.Start();
        }
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
    public long DurablePosition => Volatile.Read(ref _durable);

    /// <inheritdoc/>
    public Exception? Fault => _fault;

    /// <inheritdoc/>
    public StoreCounters Counters =>
        new(_appends, _appendedBytes, _sequenceUpdates, _indexFull, _journalFull, _invalid, _faulted,
            Volatile.Read(ref _flushes), Volatile.Read(ref _fsyncs), Volatile.Read(ref _flushedBytes),
            Volatile.Read(ref _largestBatch), Volatile.Read(ref _flusherAllocated));

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
        if (_fault is not null)
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

        lock (_flushGate)
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
    public bool WaitForDurable(long position, TimeSpan timeout)
    {
        if (Volatile.Read(ref _durable) >= position)
        {
            return true;
        }

        var spinner = default(SpinWait);
        while (!spinner.NextSpinWillYield)
        {
            spinner.SpinOnce();
            if (Volatile.Read(ref _durable) >= position)
            {
                return true;
            }
        }

        bool infinite = timeout == Timeout.InfiniteTimeSpan;
        long deadline = infinite ? long.MaxValue : Stopwatch.GetTimestamp() + (long)(timeout.TotalSeconds * Stopwatch.Frequency);
        Interlocked.Increment(ref _durableWaiters);
        try
        {
            lock (_durableGate)
            {
                while (Volatile.Read(ref _durable) < position)
                {
                    if (_fault is not null)
                    {
                        return false;
                    }

                    long remaining = infinite ? ParkTimeout.Ticks : Math.Min(ParkTimeout.Ticks, (deadline - Stopwatch.GetTimestamp()) * TimeSpan.TicksPerSecond / Stopwatch.Frequency);
                    if (remaining <= 0)
                    {
                        return false;
                    }

                    Monitor.Wait(_durableGate, TimeSpan.FromTicks(Math.Max(remaining, TimeSpan.TicksPerMillisecond)));
                }

                return true;
            }
        }
        finally
        {
            Interlocked.Decrement(ref _durableWaiters);
        }
    }

    /// <inheritdoc/>
    public bool Flush()
    {
        if (_fault is not null)
        {
            return false;
        }

        if (_policy == FlushPolicy.EveryMessage)
        {
            return true;
        }

        _work.Set();
        return WaitForDurable(_log.WrittenPosition, Timeout.InfiniteTimeSpan);
    }

    /// <summary>Makes what was written durable, stops the flusher thread and closes the journal (its lock on the file goes with it).</summary>
    public void Dispose()
    {
        if (_disposed)
        {
            return;
        }

        _disposed = true;
        _stopping = true;
        _work.Set();
        _flusher?.Join();
        lock (_flushGate)
        {
            if (_fault is null && _flushedPosition < _log.WrittenPosition)
            {
                TryWriteBatch(_log.WrittenPosition, fsync: _policy != FlushPolicy.OsOnly);
            }

            _file.Dispose();
        }

        _work.Dispose();
    }

    private StoreWriteStatus WriteSequence(RecordType type, int value)
    {
        ThrowIfDisposed();
        if (_fault is not null)
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
        return Publish();
    }

    /// <summary>Makes the record just written visible to the flusher, or writes it through under EveryMessage.</summary>
    private StoreWriteStatus Publish()
    {
        long written = _log.WrittenPosition;
        if (_policy == FlushPolicy.EveryMessage)
        {
            lock (_flushGate)
            {
                return TryWriteBatch(written, fsync: true) ? StoreWriteStatus.Ok : CountRejection(StoreWriteStatus.Faulted);
            }
        }

        Volatile.Write(ref _writtenRecords, _writtenRecords + 1);
        Interlocked.Exchange(ref _written, written); // full fence: pairs with the flusher's park check
        if (Volatile.Read(ref _flusherParked) != 0)
        {
            _work.Set();
        }

        return StoreWriteStatus.Ok;
    }

    private void FlusherLoop()
    {
        bool measuring = false;
        long allocationBaseline = 0;
        long flushedRecords = 0;
        while (true)
        {
            if (Volatile.Read(ref _written) == _flushedPosition)
            {
                if (_stopping || _fault is not null)
                {
                    return;
                }

                Park(ParkTimeout);
                continue;
            }

            if (_policy == FlushPolicy.GroupCommit && _maxDelayStopwatchTicks > 0)
            {
                LingerForBatch(flushedRecords);
            }

            long records = Volatile.Read(ref _writtenRecords);
            bool ok;
            lock (_flushGate)
            {
                ok = TryWriteBatch(Volatile.Read(ref _written), fsync: _policy == FlushPolicy.GroupCommit);
            }

            if (!ok)
            {
                return;
            }

            flushedRecords = records;

            // The flusher must not allocate in the continuous phase either; count what it does after its first batch.
            if (measuring)
            {
                Volatile.Write(ref _flusherAllocated, GC.GetAllocatedBytesForCurrentThread() - allocationBaseline);
            }
            else
            {
                measuring = true;
                allocationBaseline = GC.GetAllocatedBytesForCurrentThread();
            }
        }
    }

    /// <summary>Group commit with a delay: wait until MaxBatch records are pending or the oldest has waited MaxDelay.</summary>
    private void LingerForBatch(long flushedRecords)
    {
        long deadline = Stopwatch.GetTimestamp() + _maxDelayStopwatchTicks;
        while (!_stopping && Volatile.Read(ref _writtenRecords) - flushedRecords < _maxBatch)
        {
            long remaining = deadline - Stopwatch.GetTimestamp();
            if (remaining <= 0)
            {
                return;
            }

            if (remaining * 1000 > Stopwatch.Frequency)
            {
                Park(TimeSpan.FromMilliseconds(1));
            }
            else
            {
                Thread.Yield();
            }
        }
    }

    private void Park(TimeSpan timeout)
    {
        _work.Reset();
        Interlocked.Exchange(ref _flusherParked, 1); // full fence: pairs with the writer's publish
        if (!_stopping)
        {
            _work.Wait(timeout);
        }

        Volatile.Write(ref _flusherParked, 0);
    }

    /// <summary>Writes [flushed, <paramref name="upTo"/>) at its file offset, optionally fsyncs, then makes it durable. Caller holds _flushGate.</summary>
    private bool TryWriteBatch(long upTo, bool fsync)
    {
        long from = _flushedPosition;
        if (upTo <= from)
        {
            return true;
        }

        try
        {
            var bytes = _log.Slice(from, upTo);
            RandomAccess.Write(_handle, bytes, from);
            if (fsync)
            {
                _file.Flush(flushToDisk: true);
                Volatile.Write(ref _fsyncs, _fsyncs + 1);
            }
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException or ObjectDisposedException)
        {
            _fault = e;
            WakeDurabilityWaiters();
            return false;
        }

        long size = upTo - from;
        _flushedPosition = upTo;
        Volatile.Write(ref _flushes, _flushes + 1);
        Volatile.Write(ref _flushedBytes, _flushedBytes + size);
        if (size > _largestBatch)
        {
            Volatile.Write(ref _largestBatch, size);
        }

        Interlocked.Exchange(ref _durable, upTo); // full fence: pairs with the waiters' registration
        if (Volatile.Read(ref _durableWaiters) > 0)
        {
            WakeDurabilityWaiters();
        }

        return true;
    }

    private void WakeDurabilityWaiters()
    {
        lock (_durableGate)
        {
            Monitor.PulseAll(_durableGate);
        }
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
