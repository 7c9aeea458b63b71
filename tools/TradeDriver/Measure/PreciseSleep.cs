using System.Runtime.InteropServices;

namespace RapidFix.TradeDriver.Measure;

/// <summary>
/// Sleeps shorter than a millisecond, precisely, without allocating (Linux): <c>clock_nanosleep</c> on the
/// monotonic clock (the <see cref="System.Diagnostics.Stopwatch"/>'s), after <see cref="SetThreadTimerSlack"/> has
/// cut the calling thread's timer slack (the kernel's default lets a sleep end up to 50 µs late, to batch wake-ups).
/// The open-loop driver sleeps this way between its sends (<see cref="OpenLoopDriver"/>): <see cref="Thread.Sleep(int)"/>
/// sleeps whole milliseconds, and <see cref="Thread.Yield"/> until the next message is due kept the driver's thread
/// busy on a whole core at any rate above a thousand messages a second.
/// </summary>
internal static unsafe partial class PreciseSleep
{
    private const int ClockMonotonic = 1;
    private const int PrSetTimerSlack = 29;

    /// <summary>Whether this platform has it (Linux); elsewhere the driver keeps <see cref="Thread.Sleep(int)"/> and <see cref="Thread.Yield"/>.</summary>
    public static bool Available { get; } = OperatingSystem.IsLinux();

    /// <summary>Sets the calling thread's timer slack (nanoseconds, at least 1): how late the kernel may end its sleeps. False when refused.</summary>
    public static bool SetThreadTimerSlack(long nanoseconds) => Available && Prctl(PrSetTimerSlack, (nuint)Math.Max(1, nanoseconds), 0, 0, 0) == 0;

    /// <summary>Sleeps <paramref name="ticks"/> of a clock of <paramref name="frequency"/> ticks a second (a signal may end it early).</summary>
    public static void Sleep(long ticks, long frequency)
    {
        if (ticks <= 0)
        {
            return;
        }

        long nanoseconds = frequency == 1_000_000_000 ? ticks : (long)(ticks * (1e9 / frequency));
        var request = new TimeSpec { Seconds = nanoseconds / 1_000_000_000, Nanoseconds = nanoseconds % 1_000_000_000 };
        _ = ClockNanosleep(ClockMonotonic, 0, &request, null);
    }

    [StructLayout(LayoutKind.Sequential)]
    private struct TimeSpec
    {
        public long Seconds;
        public long Nanoseconds;
    }

    [LibraryImport("libc", EntryPoint = "clock_nanosleep")]
    private static partial int ClockNanosleep(int clock, int flags, TimeSpec* request, TimeSpec* remain);

    [LibraryImport("libc", EntryPoint = "prctl")]
    private static partial int Prctl(int option, nuint arg2, nuint arg3, nuint arg4, nuint arg5);
}
