using System.Globalization;
using System.Runtime.InteropServices;

namespace RapidFix.Benchmarks.Matching;

/// <summary>
/// <see cref="MatchingBenchmarks"/>' stream in a plain loop, timed by the thread's CPU time
/// (<c>CLOCK_THREAD_CPUTIME_ID</c>), so time spent descheduled on a loaded machine is not counted: the setup, then
/// <c>rounds</c> rounds alternating <see cref="MatchingBenchmarks.MatchMessage"/> and
/// <see cref="MatchingBenchmarks.MatchMessageBatch"/> (7,168 messages each), and the median ns per message of each.
/// <c>--match-loop RESIDENT ROUNDS [nohuge] [tight] [cleared=N] [cycled] [hotinputs] [index=N]</c> (nohuge: the tables on ordinary pages, <see cref="RapidFix.Matching.LargeTables"/>; tight: the benchmark's tight sizes instead of the service's, <see cref="MatcherSizing"/>; cleared=N: tight, N cleared trades kept; cycled: the IDs repeat each pass, <see cref="MatchingBenchmarks.CycledIds"/>; index=N: the ID and trade-key indices sized for N entries a row, <see cref="RapidFix.Matching.HashIndex.EntriesPerRow"/>). With MATCH_LOOP_PROBES=1 it also prints how far the ID and trade-key index entries lie from where their probe starts. Not a BenchmarkDotNet run (that is <see cref="MatchingBenchmarks"/>).
/// </summary>
internal static class MatchLoop
{
    private const int MessagesPerRound = 7 * 1024;

    public static int Run(int resident, int rounds, bool hugePages, TextWriter output, bool hotInputs = false, int? clearedTrades = null, int entriesPerRow = 0,
        MatcherSizing sizing = MatcherSizing.ServiceDefaults, bool cycledIds = false)
    {
        RapidFix.Matching.LargeTables.HugePages = hugePages;
        if (entriesPerRow > 0)
        {
            RapidFix.Matching.HashIndex.EntriesPerRow = entriesPerRow;
        }

        var bench = new MatchingBenchmarks { Resident = resident, HotInputs = hotInputs, ClearedTrades = clearedTrades, Sizing = sizing, CycledIds = cycledIds };
        bench.Setup();
        try
        {
            // Warm up until the runtime has stopped compiling: tiered compilation moves the hot methods from tier 0
            // through instrumented code to tier 1 in the background, which on 2 cores took 40-50 rounds at a million
            // resident (about 600 ns a message until then, 260-320 after). A fixed 20 rounds measured mostly the
            // earlier tiers. At least 20 rounds, then until nothing was compiled for 2 s (the runtime waits 100 ms
            // without new tier-0 work before it promotes, so a few short quiet rounds prove nothing); at most 2,000.
            int warmUp = 0;
            long quietSince = System.Diagnostics.Stopwatch.GetTimestamp();
            while (warmUp < 2_000 && (warmUp < 20 || System.Diagnostics.Stopwatch.GetElapsedTime(quietSince).TotalSeconds < 2))
            {
                long compiled = System.Runtime.JitInfo.GetCompiledMethodCount();
                bench.MatchMessage();
                bench.MatchMessageBatch();
                if (System.Runtime.JitInfo.GetCompiledMethodCount() != compiled)
                {
                    quietSince = System.Diagnostics.Stopwatch.GetTimestamp();
                }

                warmUp++;
            }

            var single = new double[rounds];
            var batch = new double[rounds];
            long gen0 = GC.CollectionCount(0);
            string? only = Environment.GetEnvironmentVariable("MATCH_LOOP_ONLY");
            for (int r = 0; r < rounds; r++)
            {
                long t0 = ThreadCpuNs();
                if (only != "batch")
                {
                    bench.MatchMessage();
                }

                long t1 = ThreadCpuNs();
                if (only != "single")
                {
                    bench.MatchMessageBatch();
                }

                long t2 = ThreadCpuNs();
                single[r] = (t1 - t0) / (double)MessagesPerRound;
                batch[r] = (t2 - t1) / (double)MessagesPerRound;
            }

            if (Environment.GetEnvironmentVariable("MATCH_LOOP_EACH") == "1")
            {
                output.WriteLine(string.Join(' ', single.Select(v => v.ToString("F0", CultureInfo.InvariantCulture))));
                output.WriteLine(string.Join(' ', batch.Select(v => v.ToString("F0", CultureInfo.InvariantCulture))));
            }

            Array.Sort(single);
            Array.Sort(batch);
            // A path MATCH_LOOP_ONLY left out says so instead of a near-zero time.
            string Figure(double[] sorted, string skippedWhen) => only == skippedWhen
                ? "not run (MATCH_LOOP_ONLY)"
                : string.Create(CultureInfo.InvariantCulture, $"{sorted[rounds / 2]:F1} ns (p25 {sorted[rounds / 4]:F1}, p75 {sorted[rounds * 3 / 4]:F1})");
            output.WriteLine(string.Create(CultureInfo.InvariantCulture,
                $"resident {resident}: MatchMessage {Figure(single, "batch")}, MatchMessageBatch {Figure(batch, "single")}, thread CPU time per message, {rounds} rounds after {warmUp} of warm-up, gen0 GCs {GC.CollectionCount(0) - gen0}, sizes {(clearedTrades is null ? sizing.ToString() : $"tight, cleared kept {clearedTrades}")}, IDs {(cycledIds ? "cycled" : "fresh each pass")}, index entries a row {RapidFix.Matching.HashIndex.EntriesPerRow}{(hotInputs ? ", inputs prefetched" : string.Empty)}, huge pages {(hugePages ? "advised" : "off")} ({RapidFix.Matching.LargeTables.Advised} tables, {AnonHugeKb()} kB AnonHugePages)"));
            // The stream must have cleared as in the setup's check: a duplicate or a rejection means the figure
            // measured something else (cycled IDs with more trades kept than the stream holds, say).
            var counters = bench.Matcher.Counters;
            if (counters.Duplicates != 0 || counters.Rejected != 0 || counters.TableFull != 0)
            {
                output.WriteLine($"the stream did not clear as in the setup: {counters.Duplicates} duplicates, {counters.Rejected} rejected, {counters.TableFull} refused for a full table");
                return 1;
            }

            if (Environment.GetEnvironmentVariable("MATCH_LOOP_PROBES") == "1")
            {
                var matcher = bench.Matcher;
                foreach (var name in new[] { "_idIndex", "_tradeIndex" })
                {
                    var index = (RapidFix.Matching.HashIndex)typeof(RapidFix.Matching.Matcher).GetField(name, System.Reflection.BindingFlags.NonPublic | System.Reflection.BindingFlags.Instance)!.GetValue(matcher)!;
                    output.WriteLine($"{name}: {index.Size} entries, mean displacement {index.MeanDisplacement():F2}");
                }
            }

            return 0;
        }
        finally
        {
            bench.Cleanup();
        }
    }

    private static string AnonHugeKb()
    {
        foreach (var line in File.ReadLines("/proc/self/smaps_rollup"))
        {
            if (line.StartsWith("AnonHugePages:", StringComparison.Ordinal))
            {
                return line["AnonHugePages:".Length..].Replace("kB", string.Empty, StringComparison.Ordinal).Trim();
            }
        }

        return "?";
    }

    private static long ThreadCpuNs()
    {
        clock_gettime(3 /* CLOCK_THREAD_CPUTIME_ID */, out var ts);
        return ts.Seconds * 1_000_000_000L + ts.Nanoseconds;
    }

    [StructLayout(LayoutKind.Sequential)]
    private struct Timespec
    {
        public long Seconds;
        public long Nanoseconds;
    }

    [DllImport("libc", SetLastError = false)]
    private static extern int clock_gettime(int clock, out Timespec ts);
}
