using RapidFix.TradeDriver.Measure;

namespace RapidFix.MatchingService.Tests.Measurement;

/// <summary>
/// The driver's timing threads under real-time scheduling (<see cref="TimingThreads"/>): the kernel's own record of
/// the thread (<c>/proc/thread-self/stat</c>, its policy field) says SCHED_FIFO where the process may raise it, and
/// the report's phrase says why not where it may not. In the service-process collection: the counts are the process's.
/// </summary>
[Collection(nameof(ServiceProcesses))]
public sealed class TimingThreadsTests
{
    [Fact]
    public void A_raised_thread_runs_SCHED_FIFO_and_the_report_counts_it_or_says_why_it_could_not()
    {
        TimingThreads.Reset();
        bool raised = false;
        int policy = -1;
        var thread = new Thread(() =>
        {
            raised = TimingThreads.RaiseCurrentThread();
            policy = OperatingSystem.IsLinux() ? Policy(File.ReadAllText("/proc/thread-self/stat")) : -1;
        });
        thread.Start();
        thread.Join();

        if (!OperatingSystem.IsLinux())
        {
            Assert.False(raised);
            Assert.Equal("ordinary threads (real-time scheduling is Linux only)", TimingThreads.Describe(asked: true));
            return;
        }

        if (Environment.IsPrivilegedProcess)
        {
            Assert.True(raised);
        }

        Assert.Equal(raised ? 1 : 0, policy); // SCHED_FIFO is 1, SCHED_OTHER 0
        Assert.Equal(raised ? 1 : 0, TimingThreads.Raised);
        Assert.Equal(raised ? 0 : 1, TimingThreads.Refused);
        Assert.Equal(raised ? "SCHED_FIFO 1 (1 thread: the sending thread and the sessions' receiving threads)" : "ordinary threads: raising them was refused (EPERM: needs CAP_SYS_NICE or an RLIMIT_RTPRIO above zero)",
            TimingThreads.Describe(asked: true));
        Assert.Equal("ordinary threads (--driver-priority normal)", TimingThreads.Describe(asked: false));
        TimingThreads.Reset();
        Assert.Equal("ordinary threads (none was started)", TimingThreads.Describe(asked: true));
    }

    // Field 41 of /proc/<pid>/task/<tid>/stat (man 5 proc): the scheduling policy. The fields after the command's
    // closing parenthesis start at field 3.
    private static int Policy(string stat) => int.Parse(stat[(stat.LastIndexOf(')') + 2)..].Split(' ')[41 - 3], System.Globalization.CultureInfo.InvariantCulture);
}
