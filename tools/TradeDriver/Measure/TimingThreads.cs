using System.Runtime.InteropServices;

namespace RapidFix.TradeDriver.Measure;

/// <summary>
/// Keeps the driver's clock honest on a loaded machine (Linux): the threads whose timing is the measurement (the
/// sending thread, which must send on the schedule, and the sessions' receiving threads, which timestamp each answer
/// and hold the session's lock the sending thread also needs) run under the real-time policy SCHED_FIFO at its lowest
/// priority, so that no ordinary thread (the service's, PostgreSQL's, the persister's) can hold them off the CPU.
/// <para>Why: at 14,400 messages/s the driver shares two cores with about eight busy threads of other processes, and
/// one 57 ms stall of its sending thread in a 600 s soak (a receiving thread preempted while it held the session's
/// lock, or the sender's wake-up queued behind others) put 820 late sends in the top 864: the send lag's p99.99 read
/// 26.5 ms in one run and 9.8 ms in its rerun. Below the service's capacity the driver's threads use a few percent of
/// a core and sleep or block between turns; past it they take the CPU their answers cost before the service does, so
/// a service that cannot keep up collapses sooner than beside an ordinary driver, which falls behind its schedule
/// instead (docs/measurement.md, step 4). The kernel's real-time throttling (95 % of each second at most) bounds them.</para>
/// <para>Needs CAP_SYS_NICE (root, or an RLIMIT_RTPRIO above zero); where refused, the threads stay ordinary and the
/// report says so and why (<see cref="Describe"/>). <c>--driver-priority normal</c> keeps them ordinary on purpose.</para>
/// </summary>
internal static unsafe partial class TimingThreads
{
    private const int SchedFifo = 1;
    private static int _raised;
    private static int _refused;
    private static int _lastError;

    /// <summary>Whether this platform has it (Linux).</summary>
    public static bool Available { get; } = OperatingSystem.IsLinux();

    /// <summary>Threads raised so far in this process.</summary>
    public static int Raised => Volatile.Read(ref _raised);

    /// <summary>Threads whose raising the kernel refused so far.</summary>
    public static int Refused => Volatile.Read(ref _refused);

    /// <summary>
    /// Puts the calling thread under SCHED_FIFO at priority 1 (the lowest real-time priority). True when the kernel
    /// accepted; false (counted, with its errno) when it refused or the platform has no such policy. No allocation.
    /// </summary>
    public static bool RaiseCurrentThread()
    {
        if (!Available)
        {
            Interlocked.Increment(ref _refused);
            return false;
        }

        int priority = 1;
        // pid 0: the calling thread (Linux schedules threads, not processes).
        if (SchedSetScheduler(0, SchedFifo, &priority) == 0)
        {
            Interlocked.Increment(ref _raised);
            return true;
        }

        Volatile.Write(ref _lastError, Marshal.GetLastPInvokeError());
        Interlocked.Increment(ref _refused);
        return false;
    }

    /// <summary>Forgets the counts (a new run in the same process).</summary>
    public static void Reset()
    {
        Volatile.Write(ref _raised, 0);
        Volatile.Write(ref _refused, 0);
        Volatile.Write(ref _lastError, 0);
    }

    /// <summary>One phrase for the report's header and JSON: how the driver's timing threads were scheduled.</summary>
    public static string Describe(bool asked)
    {
        if (!asked)
        {
            return "ordinary threads (--driver-priority normal)";
        }

        if (!Available)
        {
            return "ordinary threads (real-time scheduling is Linux only)";
        }

        int raised = Raised, refused = Refused;
        if (refused == 0)
        {
            return raised == 0 ? "ordinary threads (none was started)" : $"{AllRaised}{raised} thread{(raised == 1 ? "" : "s")}: the sending thread and the sessions' receiving threads)";
        }

        int errno = Volatile.Read(ref _lastError);
        string why = errno == 1 ? "EPERM: needs CAP_SYS_NICE or an RLIMIT_RTPRIO above zero" : $"errno {errno}";
        return raised == 0
            ? $"ordinary threads: raising them was refused ({why})"
            : $"{SomeRaised}{raised} of {raised + refused}{RestRefused}({why})";
    }

    // The phrases' fixed parts, shared by Describe and KindOf so that the two cannot drift apart.
    private const string AllRaised = "SCHED_FIFO 1 (", SomeRaised = "SCHED_FIFO 1 for ", RestRefused = " threads, refused for the rest ";

    /// <summary>
    /// What a <see cref="Describe"/> phrase says of the scheduling without how many threads were raised (a run whose
    /// sessions reconnected raises more, each as before): every timing thread real-time, some refused and why, or
    /// ordinary and why. <c>compare</c> judges a rerun's scheduling by it.
    /// </summary>
    public static string KindOf(string described)
    {
        if (described.StartsWith(AllRaised, StringComparison.Ordinal))
        {
            return "SCHED_FIFO 1, every timing thread";
        }

        int rest = described.IndexOf(RestRefused, StringComparison.Ordinal);
        return described.StartsWith(SomeRaised, StringComparison.Ordinal) && rest > 0
            ? SomeRaised + "some" + described[rest..]
            : described;
    }

    [LibraryImport("libc", EntryPoint = "sched_setscheduler", SetLastError = true)]
    private static partial int SchedSetScheduler(int pid, int policy, int* param);
}
