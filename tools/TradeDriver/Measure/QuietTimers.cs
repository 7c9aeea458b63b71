using System.CommandLine;
using System.Diagnostics;
using System.Globalization;
using System.Runtime.CompilerServices;

namespace RapidFix.TradeDriver.Measure;

/// <summary>
/// The runtime's timer thread, made quiet before the driver's measured phase (issue 13). A
/// <see cref="System.Threading.Timer"/> started in startup and stopped again (Npgsql's command timeout: a
/// <c>CancellationTokenSource.CancelAfter</c> of 300 s per command, set back to infinite when the command ends; the
/// driver migrates the persister's schema that way) leaves the timer thread due to wake at the old due time: the
/// runtime does not put its wake-up back when a timer stops. It wakes, queues its work to the thread pool, whose
/// threads have retired after 20 s idle, and the new pool threads allocate in the driver's process: the 2,072 bytes
/// of the 10-minute soak, 300 s after startup, with every measured thread at 0 (a trace of the driver showed the
/// timer thread waking 300.0 s after Npgsql's last command and starting two pool threads). A timer due at once makes
/// the timer thread wake now and schedule its next wake-up for the timers still running: none.
/// </summary>
internal static class QuietTimers
{
    /// <summary>
    /// Fires a timer due now and waits for it: afterwards the runtime's timer thread has nothing scheduled unless a
    /// timer is still running (<see cref="Timer.ActiveCount"/>, returned: 0 expected). Startup only (allocates).
    /// </summary>
    public static long Flush()
    {
        using var fired = new ManualResetEventSlim();
        using (new Timer(static state => ((ManualResetEventSlim)state!).Set(), fired, 0, Timeout.Infinite))
        {
            fired.Wait(TimeSpan.FromSeconds(10));
        }

        // The timer's callback ran on a pool thread: let its queue settle before the caller measures.
        Thread.Sleep(50);
        return Timer.ActiveCount;
    }

    /// <summary>
    /// <c>quiet-timers-check</c> (hidden): a timer started and stopped as Npgsql's are, then a measured phase that
    /// outlasts its old due time; prints the thread pool's work items and the process's allocated bytes in it
    /// (<c>quiet-timers: W work items, B bytes allocated</c>); exit 0 when both are 0. <c>--no-flush</c> skips
    /// <see cref="Flush"/>, the driver before the fix.
    /// </summary>
    public static Command Command()
    {
        var due = new Option<int>("--due-ms") { Description = "the stopped timer's old due time", DefaultValueFactory = _ => 2000 };
        var noFlush = new Option<bool>("--no-flush") { Description = "do not flush the timer queue (the driver before the fix)" };
        var command = new Command("quiet-timers-check", "checks that a timer stopped in startup does not wake the thread pool in the measured phase") { due, noFlush };
        command.Hidden = true;
        command.SetAction(parse => Check(parse.GetValue(due), !parse.GetValue(noFlush), Console.Out));
        return command;
    }

    private static int Check(int dueMs, bool flush, TextWriter output)
    {
        // What Npgsql does for a command: a timeout armed, then disarmed when the command is done.
        using (var timeout = new CancellationTokenSource())
        {
            timeout.CancelAfter(dueMs);
            timeout.CancelAfter(Timeout.InfiniteTimeSpan);
        }

        long active = flush ? Flush() : Timer.ActiveCount;
        GC.Collect();
        GC.WaitForPendingFinalizers();
        GC.Collect();
        long workFrom = ThreadPool.CompletedWorkItemCount;
        long bytesFrom = GC.GetTotalAllocatedBytes(precise: true);
        Wait(dueMs + 1000);
        long bytes = GC.GetTotalAllocatedBytes(precise: true) - bytesFrom;
        long work = ThreadPool.CompletedWorkItemCount - workFrom;
        output.WriteLine(string.Create(CultureInfo.InvariantCulture, $"quiet-timers: {work} work items, {bytes} bytes allocated ({(flush ? "flushed" : "not flushed")}; {active} timers active)"));
        return work == 0 && bytes == 0 ? 0 : 1;
    }

    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    private static void Wait(int milliseconds)
    {
        long end = Stopwatch.GetTimestamp() + (milliseconds * Stopwatch.Frequency / 1000);
        while (Stopwatch.GetTimestamp() < end)
        {
            Thread.Sleep(10);
        }
    }
}
