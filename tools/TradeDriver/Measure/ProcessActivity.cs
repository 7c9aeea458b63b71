using System.Globalization;
using System.Runtime;
using System.Text;

namespace RapidFix.TradeDriver.Measure;

/// <summary>
/// What the runtime did in the driver's process between two moments, for the verdict to say which thread allocated
/// when the process's count is not 0 and the driver's own threads are (issue 13: 12,336 bytes under load with every
/// measured thread at 0). <see cref="Take"/> reads counters that allocate nothing (the JIT's compiled methods, the
/// thread pool's completed work items and threads, lock contentions); <see cref="ThreadCensus"/> lists the
/// process's threads (allocates: taken just outside the window).
/// </summary>
internal readonly record struct RuntimeActivity(long JitMethods, long ThreadPoolWorkItems, long ThreadPoolThreads, long LockContentions)
{
    /// <summary>The counters now (allocation-free once called before: the thread pool's are set up lazily).</summary>
    public static RuntimeActivity Take() =>
        new(JitInfo.GetCompiledMethodCount(), ThreadPool.CompletedWorkItemCount, ThreadPool.ThreadCount, Monitor.LockContentionCount);

    public static RuntimeActivity operator -(RuntimeActivity a, RuntimeActivity b) =>
        new(a.JitMethods - b.JitMethods, a.ThreadPoolWorkItems - b.ThreadPoolWorkItems, a.ThreadPoolThreads - b.ThreadPoolThreads, a.LockContentions - b.LockContentions);
}

/// <summary>
/// The process's threads at one moment, from <c>/proc/self/task</c> (Linux): name (the kernel's 15 characters: the
/// runtime's are ".NET TP Worker", ".NET Timer", ".NET Tiered Com", ".NET Finalizer"...), context switches and CPU
/// ticks. Two censuses tell which threads were started in between and which ran. Allocates (take it outside a
/// measured window); empty where there is no <c>/proc</c>.
/// </summary>
internal sealed class ThreadCensus
{
    private readonly Dictionary<int, (string Name, long Switches)> _threads;

    private ThreadCensus(Dictionary<int, (string Name, long Switches)> threads) => _threads = threads;

    /// <summary>Threads seen.</summary>
    public int Count => _threads.Count;

    public static ThreadCensus Take()
    {
        var threads = new Dictionary<int, (string, long)>();
        try
        {
            foreach (string dir in Directory.GetDirectories("/proc/self/task"))
            {
                if (!int.TryParse(Path.GetFileName(dir), NumberStyles.None, CultureInfo.InvariantCulture, out int id))
                {
                    continue;
                }

                try
                {
                    string name = File.ReadAllText(Path.Combine(dir, "comm")).TrimEnd('\n');
                    long switches = 0;
                    foreach (string line in File.ReadLines(Path.Combine(dir, "status")))
                    {
                        if (line.Contains("ctxt_switches:", StringComparison.Ordinal)
                            && long.TryParse(line.AsSpan(line.IndexOf(':', StringComparison.Ordinal) + 1).Trim(), NumberStyles.None, CultureInfo.InvariantCulture, out long n))
                        {
                            switches += n;
                        }
                    }

                    threads[id] = (name, switches);
                }
                catch (IOException)
                {
                    // the thread ended while being read
                }
            }
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            // no /proc
        }

        return new ThreadCensus(threads);
    }

    /// <summary>
    /// Between <paramref name="before"/> and <paramref name="after"/>: the threads started ("started: .NET TP Worker
    /// x2"), and the runtime's own threads (".NET ..."), which the driver does not count, that ran ("ran: .NET
    /// Finalizer"); "no thread started, none of the runtime's ran" when nothing.
    /// </summary>
    public static string Between(ThreadCensus before, ThreadCensus after)
    {
        var started = new SortedDictionary<string, int>(StringComparer.Ordinal);
        var ran = new SortedDictionary<string, int>(StringComparer.Ordinal);
        foreach (var (id, (name, switches)) in after._threads)
        {
            if (!before._threads.TryGetValue(id, out var then))
            {
                started[name] = started.GetValueOrDefault(name) + 1;
            }
            else if (switches != then.Switches && name.StartsWith(".NET ", StringComparison.Ordinal))
            {
                ran[name] = ran.GetValueOrDefault(name) + 1;
            }
        }

        var ended = new SortedDictionary<string, int>(StringComparer.Ordinal);
        foreach (var (id, (name, _)) in before._threads)
        {
            if (!after._threads.ContainsKey(id))
            {
                ended[name] = ended.GetValueOrDefault(name) + 1;
            }
        }

        static string List(SortedDictionary<string, int> names) =>
            string.Join(", ", names.Select(n => n.Value == 1 ? n.Key : string.Create(CultureInfo.InvariantCulture, $"{n.Key} x{n.Value}")));
        var text = new StringBuilder();
        text.Append(started.Count == 0 ? "no thread started" : "threads started: " + List(started));
        if (ended.Count > 0)
        {
            text.Append(", ended: " + List(ended));
        }

        text.Append(ran.Count == 0 ? ", none of the runtime's ran" : "; the runtime's that ran: " + List(ran));
        return text.ToString();
    }
}
