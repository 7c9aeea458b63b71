using System.Diagnostics;
using System.Runtime.CompilerServices;

namespace RapidFix.Pools.Diagnostics;

/// <summary>The engine's own processing times that are recorded into histograms.</summary>
public enum LatencyChannel
{
    /// <summary>From the bytes of a message being read off the socket to the application callback returning.</summary>
    Receive = 0,

    /// <summary>An application send: header, encode, store, socket send.</summary>
    Send = 1,
}

/// <summary>
/// What one engine thread measures about itself: the bytes it has allocated (refreshed by the thread at each turn
/// of its loop) and its receive and send processing times. Only the owning thread writes; anyone may read.
/// </summary>
public sealed class EngineThreadStats
{
    private readonly LatencyHistogram _receive = new();
    private readonly LatencyHistogram _send = new();
    private long _allocatedBytes;

    internal EngineThreadStats(string name, int managedThreadId)
    {
        Name = name;
        ManagedThreadId = managedThreadId;
        _allocatedBytes = GC.GetAllocatedBytesForCurrentThread();
    }

    /// <summary>The thread's name when it registered.</summary>
    public string Name { get; }

    public int ManagedThreadId { get; }

    /// <summary>Bytes the thread had allocated in its whole life at its last <see cref="RefreshAllocatedBytes"/>.</summary>
    public long AllocatedBytes => Volatile.Read(ref _allocatedBytes);

    /// <summary>Cumulative histogram of one channel (never reset: readers take differences).</summary>
    public LatencyHistogram Histogram(LatencyChannel channel) => channel == LatencyChannel.Send ? _send : _receive;

    /// <summary>Called by the owning thread: publishes its allocated-bytes counter. A few nanoseconds, no allocation.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void RefreshAllocatedBytes() => Volatile.Write(ref _allocatedBytes, GC.GetAllocatedBytesForCurrentThread());

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal void Record(LatencyChannel channel, long nanoseconds) => (channel == LatencyChannel.Send ? _send : _receive).Record(nanoseconds);
}

/// <summary>
/// The registry of engine threads. A thread joins on its first call to <see cref="Current"/> (or
/// <see cref="Register"/>), which allocates its statistics: every engine thread must do so during startup (the
/// warm-up does, by driving the paths that record). Reading the registry never allocates.
/// </summary>
public static class EngineThreads
{
    private static readonly object Gate = new();
    private static EngineThreadStats[] s_all = [];

    [ThreadStatic]
    private static EngineThreadStats? t_current;

    /// <summary>The calling thread's statistics, registering it on first use.</summary>
    public static EngineThreadStats Current
    {
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        get => t_current ?? Register();
    }

    /// <summary>Every thread that registered (the array is replaced, never changed in place).</summary>
    public static ReadOnlySpan<EngineThreadStats> All => Volatile.Read(ref s_all);

    /// <summary>Registers the calling thread (once); its name comes from <see cref="Thread.Name"/> or <paramref name="name"/>.</summary>
    public static EngineThreadStats Register(string? name = null)
    {
        var existing = t_current;
        if (existing is not null)
        {
            return existing;
        }

        var thread = Thread.CurrentThread;
        var stats = new EngineThreadStats(name ?? thread.Name ?? $"thread-{thread.ManagedThreadId}", thread.ManagedThreadId);
        lock (Gate)
        {
            var next = new EngineThreadStats[s_all.Length + 1];
            s_all.CopyTo(next, 0);
            next[^1] = stats;
            Volatile.Write(ref s_all, next);
        }

        t_current = stats;
        return stats;
    }

    /// <summary>Refreshes the calling thread's counter if it is registered (phase changes call it: their thread may have just allocated).</summary>
    public static void RefreshCurrentThread() => t_current?.RefreshAllocatedBytes();

    /// <summary>Sum of the registered threads' allocated bytes at their last refresh.</summary>
    public static long TotalAllocatedBytes
    {
        get
        {
            long total = 0;
            foreach (var stats in Volatile.Read(ref s_all))
            {
                total += stats.AllocatedBytes;
            }

            return total;
        }
    }
}

/// <summary>
/// The hooks the engine's hot paths call to time themselves. When nobody listens to the latency events (and
/// <see cref="AlwaysRecord"/> is off) <see cref="Start"/> returns 0 and <see cref="Stop"/> returns at once: the
/// cost is one check of the event source's enabled state.
/// </summary>
public static class EngineLatency
{
    private static readonly long TicksPerSecond = Stopwatch.Frequency;
    private static volatile bool s_alwaysRecord;

    /// <summary>Record even when no trace listens (an engine that reports its own percentiles).</summary>
    public static bool AlwaysRecord
    {
        get => s_alwaysRecord;
        set => s_alwaysRecord = value;
    }

    /// <summary>True when the hooks record.</summary>
    public static bool IsRecording
    {
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        get => s_alwaysRecord || RapidFixEventSource.Log.IsEnabled(System.Diagnostics.Tracing.EventLevel.Informational, RapidFixEventSource.Keywords.Latency);
    }

    /// <summary>A start timestamp, or 0 when not recording.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static long Start() => IsRecording ? Stopwatch.GetTimestamp() : 0;

    /// <summary>Records the time since <paramref name="startTimestamp"/> (from <see cref="Start"/>) on the calling thread's histogram.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static void Stop(LatencyChannel channel, long startTimestamp)
    {
        if (startTimestamp != 0)
        {
            EngineThreads.Current.Record(channel, ToNanoseconds(Stopwatch.GetTimestamp() - startTimestamp));
        }
    }

    /// <summary>Converts a <see cref="Stopwatch"/> tick count to nanoseconds.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static long ToNanoseconds(long ticks) =>
        TicksPerSecond == 1_000_000_000 ? ticks : (long)(ticks * (1_000_000_000.0 / TicksPerSecond));
}
