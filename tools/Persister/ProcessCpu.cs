using System.Globalization;

namespace RapidFix.Persister;

/// <summary>
/// CPU seconds from /proc (user + system, in USER_HZ ticks, 100 a second on Linux): a process's own, the reaped
/// children's of this process, a thread's. What the figures divide by a row, a record or a message: CPU time, which
/// the machine's load changes far less than elapsed time. Null where /proc is not there or the process is gone.
/// </summary>
internal static class ProcessCpu
{
    /// <summary>A running process's own CPU (utime + stime).</summary>
    public static double? Of(int pid) => Fields($"/proc/{pid}/stat") is { } f ? Ticks(f, 11) + Ticks(f, 12) : null;

    /// <summary>The CPU of this process's children that have exited and been waited for (cutime + cstime).</summary>
    public static double? ReapedChildren() => Fields("/proc/self/stat") is { } f ? Ticks(f, 13) + Ticks(f, 14) : null;

    /// <summary>The calling thread's own CPU.</summary>
    public static double? ThisThread() => Fields("/proc/thread-self/stat") is { } f ? Ticks(f, 11) + Ticks(f, 12) : null;

    /// <summary>CPU seconds of this process's background JIT thread (".NET Tiered Com..."): a cost of a process's first seconds, not of a row.</summary>
    public static double JitSeconds()
    {
        double seconds = 0;
        try
        {
            foreach (var task in Directory.GetDirectories("/proc/self/task"))
            {
                if (File.ReadAllText(Path.Combine(task, "comm")).StartsWith(".NET Tiered", StringComparison.Ordinal) &&
                    Fields(Path.Combine(task, "stat")) is { } f)
                {
                    seconds += Ticks(f, 11) + Ticks(f, 12);
                }
            }
        }
        catch (IOException)
        {
        }
        catch (UnauthorizedAccessException)
        {
        }

        return seconds;
    }

    /// <summary>The fields after the command name in parentheses (which may hold spaces): state, ppid, ... utime (11), stime, cutime, cstime.</summary>
    private static string[]? Fields(string path)
    {
        try
        {
            string stat = File.ReadAllText(path);
            return stat[(stat.LastIndexOf(')') + 2)..].Split(' ');
        }
        catch (IOException)
        {
            return null;
        }
        catch (UnauthorizedAccessException)
        {
            return null;
        }
    }

    private static double Ticks(string[] fields, int i) => long.Parse(fields[i], CultureInfo.InvariantCulture) / 100.0;
}
