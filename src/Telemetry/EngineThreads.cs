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
/// <remarks>
/// A recorder outlives its thread: when a thread that ends (a connection's) releases it with
/// <see cref="EngineThreads.Release"/>, the next thread to register takes it over and adds to the same cumulative
/// histograms and allocation count, so what the ended thread measured stays in the totals and the registry holds
/// as many recorders as there were engine threads at once, not as many as ever ran.
/// </remarks>
public sealed class EngineThreadStats
{
    private readonly LatencyHistogram _receive = new();
    private readonly LatencyHistogram _send = new();
    private long _allocatedBytes;

    // The bytes allocated by the threads this recorder served before the current one.
    private long _allocatedBefore;
    private string _name;
    private int _managedThreadId;
    private volatile bool _inUse;

    internal EngineThreadStats(string name, int managedThreadId)
    {
        _name = name;
        _managedThreadId = managedThreadId;
        _allocatedBytes = GC.GetAllocatedBytesForCurrentThread();
        _inUse = true;
    }

    /// <summary>The name of the thread that registered last with this recorder.</summary>
    public string Name => Volatile.Read(ref _name);

    /// <summary>The managed id of the thread that registered last with this recorder.</summary>
    public int ManagedThreadId => Volatile.Read(ref _managedThreadId);

    /// <summary>True while a thread owns the recorder; false once it was released and before it is taken again.</summary>
    public bool InUse => _inUse;

    /// <summary>
    /// Bytes allocated by the threads this recorder served: the whole life of those that released it, and the
    /// current one's up to its last <see cref="RefreshAllocatedBytes"/>. Never decreases.
    /// </summary>
    public long AllocatedBytes => Volatile.Read(ref _allocatedBytes);

    /// <summary>Cumulative histogram of one channel (never reset: readers take differences).</summary>
    public LatencyHistogram Histogram(LatencyChannel channel) => channel == LatencyChannel.Send ? _send : _receive;

    /// <summary>Called by the owning thread: publishes its allocated-bytes counter. A few nanoseconds, no allocation.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void RefreshAllocatedBytes() => Volatile.Write(ref _allocatedBytes, _allocatedBefore + GC.GetAllocatedBytesForCurrentThread());

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal void Record(LatencyChannel channel, long nanoseconds) => (channel == LatencyChannel.Send ? _send : _receive).Record(nanoseconds);

    /// <summary>A new thread takes over the released recorder: its count continues from the last one's.</summary>
    internal void TakeOver(string name, int managedThreadId)
    {
        _allocatedBefore = Volatile.Read(ref _allocatedBytes);
        Volatile.Write(ref _name, name);
        Volatile.Write(ref _managedThreadId, managedThreadId);
        RefreshAllocatedBytes();
        _inUse = true;
    }

    /// <summary>The owning thread is ending: its last count is published, then the recorder may be taken over.</summary>
    internal void Retire()
    {
        RefreshAllocatedBytes();
        _inUse = false;
    }
}

/// <summary>
/// The registry of engine threads. A thread joins on its first call to <see cref="Current"/> (or
/// <see cref="Register"/>), which allocates its statistics (or takes over a released recorder): every engine
/// thread must do so during startup (the warm-up does, by driving the paths that record). A thread that ends while
/// the process goes on (a connection's) calls <see cref="Release"/> so that its recorder serves the next one.
/// Reading the registry never allocates.
/// </summary>
public static class EngineThreads
{
    private static readonly object Gate = new();
    private static readonly Stack<EngineThreadStats> Released = new();
    private static EngineThreadStats[] s_all = [];

    [ThreadStatic]
    private static EngineThreadStats? t_current;

    /// <summary>The calling thread's statistics, registering it on first use.</summary>
    public static EngineThreadStats Current
    {
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        get => t_current ?? Register();
    }

    /// <summary>
    /// Every recorder, in use or released (the array is replaced when it grows, never changed in place, and a
    /// recorder keeps its position): as many as there were registered threads at once.
    /// </summary>
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
        name ??= thread.Name ?? $"thread-{thread.ManagedThreadId}";
        EngineThreadStats stats;
        lock (Gate)
        {
            if (Released.TryPop(out var reused))
            {
                stats = reused;
                stats.TakeOver(name, thread.ManagedThreadId);
            }
            else
            {
                stats = new EngineThreadStats(name, thread.ManagedThreadId);
                var next = new EngineThreadStats[s_all.Length + 1];
                s_all.CopyTo(next, 0);
                next[^1] = stats;
                Volatile.Write(ref s_all, next);
            }
        }

        t_current = stats;
        return stats;
    }

    /// <summary>
    /// The calling thread is ending: its final allocation count is published and its recorder (histograms
    /// included, so nothing it measured is lost) is handed to the next thread that registers. Does nothing for a
    /// thread that never registered. The thread must not record afterwards (it would register again).
    /// </summary>
    public static void Release()
    {
        var stats = t_current;
        if (stats is null)
        {
            return;
        }

        t_current = null;
        lock (Gate)
        {
            stats.Retire();
            Released.Push(stats);
        }
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
