using System.CommandLine;
using System.Globalization;
using System.Reflection;
using RapidFix.Persistence;

namespace RapidFix.TradeDriver.Measure;

/// <summary>
/// The runtime's timer thread and the driver's measured phase (issue 13). A <see cref="System.Threading.Timer"/>
/// started and stopped again leaves its timer queue due to wake at the old due time: the runtime does not take a
/// wake-up back when a timer stops. Npgsql arms one per command (<c>CancellationTokenSource.CancelAfter</c> of the
/// command timeout, 300 s, set back to infinite when the command ends); run in the driver's startup (the persister's
/// database and schema), it woke the timer thread 300 s later, the thread queued its work to the thread pool, whose
/// threads had retired after 20 s idle, and the new pool threads allocated: the 2,072 bytes of the 10-minute soak,
/// with every measured thread at 0 (a trace of the driver: the timer thread's first activity in 300.0 s, then two
/// pool threads started). The set-up now runs in a child (<see cref="PersisterRun.Setup"/>). This class reads the
/// timer queues' scheduled wake-ups (runtime internals, by reflection: startup only) so that the driver can say when
/// one falls inside its measured phase.
/// </summary>
internal static class QuietTimers
{
    /// <summary>
    /// Milliseconds until the furthest wake-up the runtime's timer queues have scheduled (0: none scheduled), or null
    /// when this runtime's timer queues are not what this reads (its fields renamed). Allocates (reflection).
    /// </summary>
    public static long? FurthestWakeUpMs()
    {
        var type = typeof(Timer).Assembly.GetType("System.Threading.TimerQueue");
        var instances = type?.GetProperty("Instances", BindingFlags.Static | BindingFlags.Public | BindingFlags.NonPublic)?.GetValue(null) as Array;
        var scheduled = type?.GetField("_isScheduled", BindingFlags.Instance | BindingFlags.NonPublic);
        var due = type?.GetField("_scheduledDueTimeMs", BindingFlags.Instance | BindingFlags.NonPublic);
        if (instances is null || scheduled is null || due is null)
        {
            return null;
        }

        long now = Environment.TickCount64, furthest = 0;
        foreach (var queue in instances)
        {
            if (scheduled.GetValue(queue) is true && due.GetValue(queue) is long at)
            {
                furthest = Math.Max(furthest, Math.Max(1, at - now));
            }
        }

        return furthest;
    }

    /// <summary>
    /// <c>persister-setup-check</c> (hidden): a throwaway cluster set up as the driver does (the database and the
    /// schema, in the <c>persister-setup</c> child), then the furthest wake-up of this process's timer queues:
    /// <c>timer queues: furthest wake-up in S s (T timers running)</c>; exit 0 when it is under 60 s (none of Npgsql's
    /// 300-s command timeouts). <c>--in-process</c> sets up in this process, as the driver did before.
    /// </summary>
    public static Command Command()
    {
        var inProcess = new Option<bool>("--in-process") { Description = "set up in this process (the driver before the fix)" };
        var command = new Command("persister-setup-check", "checks that the persister's set-up leaves no wake-up of the runtime's timer thread in the driver's process") { inProcess };
        command.Hidden = true;
        command.SetAction(parse =>
        {
            using var cluster = PgCluster.Create();
            string password = Convert.ToHexString(System.Security.Cryptography.RandomNumberGenerator.GetBytes(12));
            if (parse.GetValue(inProcess))
            {
                cluster.CreateDatabase("rapidfix");
                Schema.Migrate(cluster.ConnectionString("rapidfix"), password, password);
            }
            else
            {
                PersisterRun.Setup(cluster, password);
            }

            long? furthest = FurthestWakeUpMs();
            Console.WriteLine(string.Create(CultureInfo.InvariantCulture,
                $"timer queues: furthest wake-up in {(furthest is { } f ? (f / 1000.0).ToString("F0", CultureInfo.InvariantCulture) : "?")} s ({Timer.ActiveCount} timers running)"));
            return furthest is { } ms && ms < 60_000 ? 0 : 1;
        });
        return command;
    }
}
