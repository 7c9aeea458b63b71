using System.Diagnostics;
using Microsoft.Win32.SafeHandles;

namespace RapidFix.Engine.Store;

/// <summary>What a <see cref="GroupCommitFlusher"/> writes from: the owner's bytes at their file offsets.</summary>
internal interface IJournalFlushSource
{
    /// <summary>Writes the owner's bytes [<paramref name="from"/>, <paramref name="upTo"/>) at file offset = position.</summary>
    void WriteRange(SafeFileHandle file, long from, long upTo);
}

/// <summary>
/// The durability half of a journal, shared by <see cref="JournalMessageStore"/> and <see cref="JournalAppender"/>:
/// the writer publishes how far it has written, a dedicated flusher thread writes everything pending in one write
/// (and one fsync under group commit) and then advances <see cref="Durable"/>, waking whoever waits for it.
/// </summary>
/// <remarks>
/// <para>Under <see cref="FlushPolicy.EveryMessage"/> there is no thread: <see cref="Publish(long)"/> writes and fsyncs
/// before it returns. Under <see cref="FlushPolicy.OsOnly"/> the thread writes without fsync. With a MaxDelay the
/// thread lingers until MaxBatch records are pending or the delay has passed.</para>
/// <para>With a page-cache limit, after each fsync the whole pages more than that many bytes behind the end are
/// dropped from the operating system's page cache (<see cref="PageCache"/>), in steps of at least
/// <see cref="DropStepBytes"/>, each from a step back; never under OsOnly (its pages are not known to be clean).
/// The journal's cache then stays bounded and its pages are reused (docs/store.md, Page cache).</para>
/// <para>A failed disk write sets <see cref="Fault"/>, wakes every waiter and stops the thread: what was durable
/// stays durable, and the owner refuses further writes. Nothing here allocates after construction: the lazily built
/// wait state (the monitors' sync blocks, the event's lock) is created by the constructor.</para>
/// </remarks>
internal sealed class GroupCommitFlusher
{
    private static readonly TimeSpan ParkTimeout = TimeSpan.FromMilliseconds(100);

    private readonly IJournalFlushSource _source;
    private readonly FileStream _file;
    private readonly SafeFileHandle _handle;
    private readonly FlushPolicy _policy;
    private readonly long _pageCacheLimit;
    private readonly int _maxBatch;
    private readonly long _maxDelayStopwatchTicks;
    private readonly object _durableGate = new();  // durability waiters sleep on it
    // No spinning before the flusher parks: it parks after every batch and every append wakes it, so the event's
    // default spin (sched_yield) took about a quarter of the service's CPU at 20,000 inputs/s on two cores.
    private readonly ManualResetEventSlim _work = new(false, spinCount: 0);
    private readonly Thread? _thread;

    private long _written;           // the writer's position as published
    private long _demanded;          // the end of the last record published that asks for a flush (lazy ones do not)
    private long _writtenRecords;    // records published, for batch sizing
    private long _flushedPosition;   // file offset the next write starts at (under Gate)
    private long _durable;
    private int _parked;
    private int _durableWaiters;
    private volatile bool _stopping;
    private volatile Exception? _fault;

    // Written under Gate.
    private long _flushes;
    private long _fsyncs;
    private long _flushedBytes;
    private long _largestBatch;
    private long _allocated;
    private long _droppedUpTo;     // file offset below which the cached pages were dropped
    private long _droppedBytes;

    /// <param name="source">The owner, which writes its bytes when asked.</param>
    /// <param name="file">The journal file (disposed by <see cref="Stop"/>).</param>
    /// <param name="policy">When writes become durable.</param>
    /// <param name="maxBatch">Group commit: flush as soon as this many records are pending.</param>
    /// <param name="maxDelay">Group commit: the longest a pending record waits for its batch to fill.</param>
    /// <param name="threadName">The flusher thread's name.</param>
    /// <param name="durable">The position already on disk (the end of what recovery kept).</param>
    /// <param name="pageCacheLimit">Bytes of the file's end left in the page cache after an fsync (0: no limit, the OS decides).</param>
    public GroupCommitFlusher(IJournalFlushSource source, FileStream file, FlushPolicy policy, int maxBatch, TimeSpan maxDelay, string threadName, long durable,
        long pageCacheLimit = 0)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(pageCacheLimit);
        _pageCacheLimit = pageCacheLimit;
        _source = source;
        _file = file;
        _handle = file.SafeFileHandle;
        _policy = policy;
        _maxBatch = maxBatch;
        _maxDelayStopwatchTicks = (long)(maxDelay.TotalSeconds * Stopwatch.Frequency);
        _written = _demanded = _flushedPosition = _durable = durable;
        if (pageCacheLimit > 0)
        {
            PageCache.Bind(_handle);
        }

        // Create lazily built wait state now, not on the first wait in the continuous phase.
        _work.Wait(1);
        lock (Gate)
        {
            lock (_durableGate)
            {
                Monitor.PulseAll(_durableGate);
            }
        }

        if (policy != FlushPolicy.EveryMessage)
        {
            _thread = new Thread(Loop) { IsBackground = true, Name = threadName, Priority = ThreadPriority.AboveNormal };
            _thread.Start();
        }
    }

    /// <summary>Held while bytes go to the file; an owner that re-bases its image (a store's Reset) takes it too.</summary>
    public object Gate { get; } = new();

    /// <summary>Everything below this position is on disk (as the flush policy defines it).</summary>
    public long Durable => Volatile.Read(ref _durable);

    /// <summary>The disk error that stopped the journal, or null.</summary>
    public Exception? Fault => _fault;

    public long Flushes => Volatile.Read(ref _flushes);

    public long Fsyncs => Volatile.Read(ref _fsyncs);

    public long FlushedBytes => Volatile.Read(ref _flushedBytes);

    public long LargestBatchBytes => Volatile.Read(ref _largestBatch);

    /// <summary>Bytes of the file whose cached pages were dropped after their fsync (the page-cache limit).</summary>
    public long DroppedBytes => Volatile.Read(ref _droppedBytes);

    /// <summary>The least a page drop covers (one <c>posix_fadvise</c> a MiB of journal at most).</summary>
    internal const long DropStepBytes = 1 << 20;

    /// <summary>Bytes the flusher thread allocated after its first batch (the continuous phase's proof).</summary>
    public long AllocatedBytes => Volatile.Read(ref _allocated);

    /// <summary>
    /// The writer has written up to <paramref name="written"/> (one more record): hand it to the thread, or under
    /// EveryMessage write and fsync it now. False only when that write failed.
    /// </summary>
    public bool Publish(long written) => Publish(written, lazy: false);

    /// <summary>
    /// As <see cref="Publish(long)"/>; a <paramref name="lazy"/> record (a received message's sequence record under
    /// <see cref="JournalOptions.DeferTargetSeqNum"/>, a batched send's message until the batch is flushed) starts no flush of its own and wakes nobody: it goes to the
    /// disk with the next flush a record that is not lazy asks for (everything written is flushed then), or after the
    /// flusher's park timeout (<see cref="LazyFlushAfter"/>) when none comes. Nothing waits for such a record.
    /// </summary>
    public bool Publish(long written, bool lazy)
    {
        if (_policy == FlushPolicy.EveryMessage)
        {
            lock (Gate)
            {
                return TryWriteBatch(written, fsync: true);
            }
        }

        Volatile.Write(ref _writtenRecords, _writtenRecords + 1);
        if (lazy)
        {
            Volatile.Write(ref _written, written);
            return true;
        }

        Volatile.Write(ref _written, written);
        Interlocked.Exchange(ref _demanded, written); // full fence: pairs with the thread's park check
        if (Volatile.Read(ref _parked) != 0)
        {
            _work.Set();
        }

        return true;
    }

    /// <summary>
    /// Asks for a flush of everything published so far without waiting for it (an owner whose records are lazy: the
    /// flush then overlaps the caller's work); returns the position it asked for.
    /// </summary>
    public long RequestFlush()
    {
        long written = Volatile.Read(ref _written);
        Demand(written);
        return written;
    }

    // Asks for a flush up to position and wakes the thread if it is parked (Dekker pair with Park's second look).
    private void Demand(long position)
    {
        if (_policy == FlushPolicy.EveryMessage || Volatile.Read(ref _demanded) >= position)
        {
            return;
        }

        DemandUpTo(position);
        if (Volatile.Read(ref _parked) != 0)
        {
            _work.Set();
        }
    }

    /// <summary>The longest a lazy record (<see cref="Publish(long, bool)"/>) waits for a flush when nothing else asks for one.</summary>
    public static TimeSpan LazyFlushAfter => ParkTimeout;

    /// <summary>Blocks until <paramref name="position"/> is durable; false on timeout or a faulted journal.</summary>
    public bool WaitForDurable(long position, TimeSpan timeout)
    {
        if (Volatile.Read(ref _durable) >= position)
        {
            return true;
        }

        // A lazy record (or an owner that flushes on demand) is flushed once someone waits for it.
        Demand(position);

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

    /// <summary>Makes everything up to <paramref name="written"/> durable now (blocks); false on a faulted journal.</summary>
    public bool Flush(long written)
    {
        if (_fault is not null)
        {
            return false;
        }

        if (_policy == FlushPolicy.EveryMessage)
        {
            return true;
        }

        DemandUpTo(written);
        _work.Set();
        return WaitForDurable(written, Timeout.InfiniteTimeSpan);
    }

    // A flush of everything up to written is asked for (Flush: a caller waits for it, lazy records included).
    private void DemandUpTo(long written)
    {
        long demanded = Volatile.Read(ref _demanded);
        while (demanded < written)
        {
            long seen = Interlocked.CompareExchange(ref _demanded, written, demanded);
            if (seen == demanded)
            {
                return;
            }

            demanded = seen;
        }
    }

    /// <summary>Stops the thread, writes what is left up to <paramref name="written"/> (fsynced unless OsOnly) and closes the file.</summary>
    public void Stop(long written)
    {
        _stopping = true;
        _work.Set();
        _thread?.Join();
        lock (Gate)
        {
            if (_fault is null && _flushedPosition < written)
            {
                TryWriteBatch(written, fsync: _policy != FlushPolicy.OsOnly);
            }

            _file.Dispose();
        }

        _work.Dispose();
    }

    // Compiled optimized at its first call: the loop runs for the life of the thread, and one left in tier 0 would be
    // moved to optimized code by on-stack replacement once the stores get busy, in the continuous phase (a scratch
    // service's warm-up compiles the same loop on threads of its own, which a live flusher's frame does not share).
    [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.AggressiveOptimization)]
    private void Loop()
    {
        bool measuring = false;
        long allocationBaseline = 0;
        long flushedRecords = 0;
        bool lazyDue = false; // the last park timed out: lazy records written since go to the disk now
        while (true)
        {
            if (Volatile.Read(ref _written) == _flushedPosition || (!lazyDue && !FlushAskedFor()))
            {
                if (_stopping || _fault is not null)
                {
                    return;
                }

                lazyDue = !Park(ParkTimeout);
                continue;
            }

            lazyDue = false;

            if (_policy == FlushPolicy.GroupCommit && _maxDelayStopwatchTicks > 0)
            {
                LingerForBatch(flushedRecords);
            }

            long records = Volatile.Read(ref _writtenRecords);
            bool ok;
            lock (Gate)
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
                Volatile.Write(ref _allocated, GC.GetAllocatedBytesForCurrentThread() - allocationBaseline);
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
                Park(TimeSpan.FromMilliseconds(1), lingering: true);
            }
            else
            {
                Thread.Yield();
            }
        }
    }

    // True when woken (or nothing to wait for), false when the timeout passed. After announcing the park it looks at
    // the demand again: a writer that published before it saw _parked set would otherwise not wake it, and its record
    // would wait the whole timeout (the Dekker pair: the writer's exchange of _demanded, then its read of _parked).
    // Lingering (a batch is pending, the thread waits for it to fill): it waits the timeout regardless.
    private bool Park(TimeSpan timeout, bool lingering = false)
    {
        _work.Reset();
        Interlocked.Exchange(ref _parked, 1); // full fence: pairs with the writer's publish
        bool woken = true;
        if (!_stopping && (lingering || !FlushAskedFor()))
        {
            woken = _work.Wait(timeout);
        }

        Volatile.Write(ref _parked, 0);
        return woken;
    }

    // Something is written and not flushed, and a record that is not lazy (or a waiter) asks for its flush.
    private bool FlushAskedFor() => Volatile.Read(ref _written) != _flushedPosition && Volatile.Read(ref _demanded) > _flushedPosition;

    /// <summary>Writes [flushed, <paramref name="upTo"/>), optionally fsyncs, then makes it durable. Caller holds Gate.</summary>
    private bool TryWriteBatch(long upTo, bool fsync)
    {
        long from = _flushedPosition;
        if (upTo <= from)
        {
            return true;
        }

        try
        {
            _source.WriteRange(_handle, from, upTo);
            if (fsync)
            {
                _file.Flush(flushToDisk: true);
                Volatile.Write(ref _fsyncs, _fsyncs + 1);
                if (_pageCacheLimit > 0)
                {
                    DropCachedPages(upTo);
                }
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

    // Everything below upTo is on disk and clean: drop the cached pages more than the limit behind it (whole pages).
    private void DropCachedPages(long upTo)
    {
        long end = (upTo - _pageCacheLimit) & ~(long)(Environment.SystemPageSize - 1);
        if (end - _droppedUpTo < DropStepBytes)
        {
            return;
        }

        // From a step back: the kernel keeps a page the file system still holds (its journal may not have released
        // the last writes yet), and asking again once it is older drops most of those.
        long from = Math.Max(0, _droppedUpTo - DropStepBytes);
        if (PageCache.Drop(_handle, from, end - from))
        {
            Volatile.Write(ref _droppedBytes, _droppedBytes + (end - _droppedUpTo));
        }

        _droppedUpTo = end;
    }

    private void WakeDurabilityWaiters()
    {
        lock (_durableGate)
        {
            Monitor.PulseAll(_durableGate);
        }
    }
}
