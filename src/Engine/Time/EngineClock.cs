using System.Diagnostics;

namespace RapidFix.Engine.Time;

/// <summary>
/// The engine's wall clock: UTC nanoseconds since 1970 from the monotonic high-resolution counter plus an offset
/// taken from the system clock. Reading it is one Stopwatch read and a multiply: no system call for the time of
/// day, no allocation, no time-zone work (never DateTime.Now). <see cref="Recalibrate"/> realigns it with the system
/// clock; the session timer calls it periodically so drift stays far below a millisecond.
/// </summary>
/// <remarks>
/// It is also the clock a session's timers read (<see cref="Sessions.FixSession"/> takes one): a manual clock
/// (<see cref="Manual"/>) stands still until <see cref="Advance"/> moves it, so heartbeats, TestRequests, logon and
/// logout timeouts and resend grace periods can be tested in microseconds, without sleeps. One class rather than an
/// interface: the engine's reads stay a non-virtual call, and a manual clock costs them one predictable branch.
/// </remarks>
public sealed class EngineClock
{
    private static readonly long UnixEpochTicks = DateTime.UnixEpoch.Ticks;
    private static readonly double NanosPerStopwatchTick = 1_000_000_000.0 / Stopwatch.Frequency;

    private long _baseUnixNanos;
    private long _baseStopwatch;
    private readonly object _gate = new();
    private int _version; // seqlock: odd while Recalibrate is writing the pair
    private readonly bool _manual;
    private long _manualNanos;

    /// <summary>A clock of its own (tests; a host that drives the cache itself). Most code uses <see cref="Shared"/>.</summary>
    public EngineClock()
    {
        Recalibrate();
    }

    private EngineClock(long utcNanos)
    {
        _manual = true;
        _manualNanos = utcNanos;
    }

    /// <summary>
    /// A clock that reads <paramref name="utcStart"/> until <see cref="Advance"/> moves it (tests, simulations):
    /// time passes only when the caller says so. <see cref="Recalibrate"/> leaves it alone.
    /// </summary>
    public static EngineClock Manual(DateTime utcStart) =>
        new((utcStart.ToUniversalTime().Ticks - UnixEpochTicks) * 100);

    /// <summary>True for a clock made by <see cref="Manual"/>.</summary>
    public bool IsManual => _manual;

    /// <summary>Moves a manual clock forward by <paramref name="elapsed"/> (a system clock cannot be moved: an error).</summary>
    public void Advance(TimeSpan elapsed)
    {
        if (!_manual)
        {
            throw new InvalidOperationException("Only a manual clock (EngineClock.Manual) can be advanced.");
        }

        ArgumentOutOfRangeException.ThrowIfLessThan(elapsed, TimeSpan.Zero);
        Interlocked.Add(ref _manualNanos, elapsed.Ticks * 100);
    }

    /// <summary>A process-wide instance for code that has no clock of its own.</summary>
    public static EngineClock Shared { get; } = new();

    /// <summary>Current UTC time in nanoseconds since the Unix epoch.</summary>
    public long UtcNowNanos
    {
        get
        {
            if (_manual)
            {
                return Volatile.Read(ref _manualNanos);
            }

            long baseNanos, baseStopwatch;
            int version;
            do
            {
                version = Volatile.Read(ref _version);
                baseStopwatch = Volatile.Read(ref _baseStopwatch);
                baseNanos = Volatile.Read(ref _baseUnixNanos);
            }
            while ((version & 1) != 0 || version != Volatile.Read(ref _version));

            return baseNanos + (long)((Stopwatch.GetTimestamp() - baseStopwatch) * NanosPerStopwatchTick);
        }
    }

    /// <summary>Current UTC time as a <see cref="DateTime"/> (a struct: no allocation).</summary>
    public DateTime UtcNow => new(UnixEpochTicks + (UtcNowNanos / 100), DateTimeKind.Utc);

    /// <summary>Monotonic timestamp for measuring intervals (Stopwatch ticks).</summary>
    public static long Timestamp => Stopwatch.GetTimestamp();

    /// <summary>Re-reads the system clock. Allocation-free; safe to call from a timer in the continuous phase.</summary>
    public void Recalibrate()
    {
        if (_manual)
        {
            return;
        }

        long sw = Stopwatch.GetTimestamp();
        long now = (DateTime.UtcNow.Ticks - UnixEpochTicks) * 100;
        lock (_gate)
        {
            Interlocked.Increment(ref _version);
            Volatile.Write(ref _baseStopwatch, sw);
            Volatile.Write(ref _baseUnixNanos, now);
            Interlocked.Increment(ref _version);
        }
    }
}
