using System.CommandLine;
using System.Diagnostics;
using System.Globalization;
using System.Runtime.CompilerServices;

namespace RapidFix.TradeDriver.Measure;

/// <summary>
/// <c>child-output-check</c> (hidden): the driver's way of reading a child's output, checked in a process of its own
/// (a test host's own threads allocate in the test's process). A child prints a line on its standard output and one
/// on its standard error every <c>--interval-ms</c>; once <c>--warm-up</c> lines have come, the whole process's
/// allocated bytes (<c>GC.GetTotalAllocatedBytes(precise: true)</c>) and collections are taken, and again after
/// <c>--lines</c> more. The line printed: <c>child-output: N lines in the phase, B bytes allocated, C collections</c>;
/// exit 0 when B and C are 0. <c>--events</c> reads the same child through <see cref="Process.OutputDataReceived"/>
/// and <see cref="Process.ErrorDataReceived"/>, the way the driver read its children before (it allocates per line).
/// </summary>
internal static class ChildOutputCheck
{
    private static long s_lines;

    public static Command Command()
    {
        var lines = new Option<int>("--lines") { Description = "lines counted in the measured phase", DefaultValueFactory = _ => 100 };
        var warmUp = new Option<int>("--warm-up") { Description = "lines before the measured phase", DefaultValueFactory = _ => 80 };
        var interval = new Option<int>("--interval-ms") { Description = "the child prints a line on each stream this often", DefaultValueFactory = _ => 20 };
        var events = new Option<bool>("--events") { Description = "read through the process's events (the old way) instead" };
        var command = new Command("child-output-check", "checks that reading a printing child's output allocates nothing in this process")
        {
            lines, warmUp, interval, events,
        };
        command.Hidden = true;
        command.SetAction(parse => Run(parse.GetValue(lines), parse.GetValue(warmUp), parse.GetValue(interval), parse.GetValue(events), Console.Out));
        return command;
    }

    public static int Run(int lines, int warmUp, int intervalMs, bool events, TextWriter output)
    {
        int total = 2 * (lines + warmUp + 50); // both streams; room to spare after the phase
        var start = new ProcessStartInfo("/bin/sh")
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        start.ArgumentList.Add("-c");
        start.ArgumentList.Add(string.Create(CultureInfo.InvariantCulture,
            $"i=0; while [ $i -lt {total / 2} ]; do echo \"child line $i on standard output\"; echo \"child line $i on standard error\" >&2; sleep {intervalMs / 1000.0:0.###}; i=$((i+1)); done"));
        using var child = new Process { StartInfo = start };
        ChildOutput? reader = null;
        child.Start();
        if (events)
        {
            child.OutputDataReceived += (_, e) => Count(e.Data);
            child.ErrorDataReceived += (_, e) => Count(e.Data);
            child.BeginOutputReadLine();
            child.BeginErrorReadLine();
        }
        else
        {
            reader = ChildOutput.Of(child, "check", static _ => Interlocked.Increment(ref s_lines));
        }

        // Warm-up: the reading threads' first calls (and the callback's tier-up) come before the phase, on both
        // streams (under load one thread can have read nothing yet when the other has read them all).
        WaitFor(warmUp, child);
        if (reader is not null)
        {
            while ((reader.LinesOf(0) < warmUp / 4 || reader.LinesOf(1) < warmUp / 4) && !child.HasExited)
            {
                Thread.Sleep(5);
            }
        }

        Thread.Sleep(300);
        // What the phase calls, called once now: a first call's lazy set-up allocates (.NET 8's precise count: 336 bytes).
        _ = GC.GetTotalAllocatedBytes(precise: true);
        _ = GC.CollectionCount(0);
        _ = child.HasExited;
        _ = RuntimeActivity.Take();
        _ = reader?.ThreadsAllocatedBytes;
        _ = GC.GetAllocatedBytesForCurrentThread();
        GC.Collect();
        GC.WaitForPendingFinalizers();
        GC.Collect();
        GC.WaitForPendingFinalizers();
        var census = ThreadCensus.Take();
        long linesFrom = Interlocked.Read(ref s_lines);
        int collectionsFrom = GC.CollectionCount(0);
        long readersFrom = reader?.ThreadsAllocatedBytes ?? 0;
        var activityFrom = RuntimeActivity.Take();
        long bytesFrom = GC.GetTotalAllocatedBytes(precise: true);
        long mainFrom = GC.GetAllocatedBytesForCurrentThread();
        WaitFor(linesFrom + lines, child);
        long mainTo = GC.GetAllocatedBytesForCurrentThread();
        long readersTo = reader?.ThreadsAllocatedBytes ?? 0;
        var activity = RuntimeActivity.Take() - activityFrom;
        long bytesTo = GC.GetTotalAllocatedBytes(precise: true);
        int collectionsTo = GC.CollectionCount(0);
        string threads = ThreadCensus.Between(census, ThreadCensus.Take());
        long seen = Interlocked.Read(ref s_lines) - linesFrom;
        try
        {
            child.Kill();
        }
        catch (InvalidOperationException)
        {
            // it had ended
        }

        child.WaitForExit();
        reader?.WaitForEnd(TimeSpan.FromSeconds(10));
        long bytes = bytesTo - bytesFrom;
        int collections = collectionsTo - collectionsFrom;
        long main = mainTo - mainFrom, readers = readersTo - readersFrom;
        output.WriteLine(string.Create(CultureInfo.InvariantCulture,
            $"child-output: {seen} lines in the phase, {bytes} bytes allocated, {collections} collections ({(events ? "the process's events" : "ChildOutput")}; {reader?.Lines.Count ?? 0} lines kept; main thread {main}, readers {readers}, other threads {bytes - main - readers}; the runtime compiled {activity.JitMethods} methods, ran {activity.ThreadPoolWorkItems} thread-pool work items, {activity.LockContentions} lock contentions ({threads}))"));
        return seen >= lines && bytes == 0 && collections == 0 ? 0 : 1;
    }

    private static void Count(string? line)
    {
        if (line is not null)
        {
            Interlocked.Increment(ref s_lines);
        }
    }

    // Waits, without allocating, until that many lines have come (or the child has ended and 2 s have passed).
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    private static void WaitFor(long count, Process child)
    {
        long deadline = long.MaxValue;
        while (Interlocked.Read(ref s_lines) < count && Stopwatch.GetTimestamp() < deadline)
        {
            if (deadline == long.MaxValue && child.HasExited)
            {
                deadline = Stopwatch.GetTimestamp() + (2 * Stopwatch.Frequency);
            }

            Thread.Sleep(5);
        }
    }
}
