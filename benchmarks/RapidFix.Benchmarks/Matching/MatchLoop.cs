using System.Globalization;
using System.Runtime.InteropServices;
using RapidFix.Matching;

namespace RapidFix.Benchmarks.Matching;

/// <summary>
/// <see cref="MatchingBenchmarks"/>' stream in a plain loop, timed by the thread's CPU time
/// (<c>CLOCK_THREAD_CPUTIME_ID</c>), so time spent descheduled on a loaded machine is not counted: the setup, then
/// <c>rounds</c> rounds alternating <see cref="MatchingBenchmarks.MatchMessage"/> and
/// <see cref="MatchingBenchmarks.MatchMessageBatch"/> (7,168 messages each), and the median ns per message of each.
/// <c>--match-loop RESIDENT ROUNDS [options] [vs options]</c>, options <see cref="Config.Parse"/>. With MATCH_LOOP_PROBES=1 it also prints how far the ID and trade-key index entries lie from where their probe starts. Not a BenchmarkDotNet run (that is <see cref="MatchingBenchmarks"/>).
/// </summary>
/// <remarks>
/// <see cref="Compare"/> (<c>vs</c>) builds two matchers in one process and alternates their rounds: on a host whose
/// speed changes from process to process (the figures of one configuration in separate runs have spread by 30-60 %)
/// the difference of neighbouring rounds is steadier than the difference of two runs.
/// </remarks>
internal static class MatchLoop
{
    private const int MessagesPerRound = 7 * 1024;

    private static readonly int DefaultEntriesPerRow = Matcher.IdIndexEntriesPerRow;

    /// <summary>One configuration of the loop's matcher and stream.</summary>
    internal sealed record Config(bool HugePages, bool HotInputs, int? ClearedTrades, int EntriesPerRow, MatcherSizing Sizing, bool CycledIds, int ResidentIds)
    {
        /// <summary>
        /// nohuge: the tables on 4 KB pages (<see cref="LargeTables"/>); hotinputs: each input prefetched 8 ahead in the
        /// one-by-one loop; tight: the benchmark's tight sizes instead of the service's (<see cref="MatcherSizing"/>);
        /// cleared=N: tight, N cleared trades kept; cycled: the IDs repeat each pass
        /// (<see cref="MatchingBenchmarks.CycledIds"/>); index=N: the ID index sized for N entries a row, at least 2
        /// (<see cref="Matcher.IdIndexEntriesPerRow"/>; the trade-key index keeps its size); ids=N: each resident trade
        /// holds N IDs (<see cref="MatchingBenchmarks.ResidentIds"/>).
        /// </summary>
        public static Config Parse(string[] options)
        {
            int? cleared = null;
            int index = 0;
            int ids = 1;
            foreach (var o in options)
            {
                if (o.StartsWith("cleared=", StringComparison.Ordinal))
                {
                    cleared = int.Parse(o["cleared=".Length..], CultureInfo.InvariantCulture);
                }
                else if (o.StartsWith("index=", StringComparison.Ordinal))
                {
                    index = int.Parse(o["index=".Length..], CultureInfo.InvariantCulture);
                }
                else if (o.StartsWith("ids=", StringComparison.Ordinal))
                {
                    ids = int.Parse(o["ids=".Length..], CultureInfo.InvariantCulture);
                }
                else if (o is not ("nohuge" or "hotinputs" or "tight" or "cycled"))
                {
                    throw new ArgumentException($"--match-loop: unknown option '{o}' (nohuge, hotinputs, tight, cleared=N, cycled, index=N, ids=N, vs)");
                }
            }

            return new Config(!options.Contains("nohuge"), options.Contains("hotinputs"), cleared, index,
                options.Contains("tight") ? MatcherSizing.Tight : MatcherSizing.ServiceDefaults, options.Contains("cycled"), ids);
        }

        /// <summary>The benchmark set up for this configuration (the static settings it reads are set first).</summary>
        internal MatchingBenchmarks Create(int resident)
        {
            LargeTables.HugePages = HugePages;
            Matcher.IdIndexEntriesPerRow = EntriesPerRow > 0 ? EntriesPerRow : DefaultEntriesPerRow;
            var bench = new MatchingBenchmarks { Resident = resident, HotInputs = HotInputs, ClearedTrades = ClearedTrades, Sizing = Sizing, CycledIds = CycledIds, ResidentIds = ResidentIds };
            bench.Setup();
            return bench;
        }

        public override string ToString() => string.Create(CultureInfo.InvariantCulture,
            $"sizes {(ClearedTrades is null ? Sizing.ToString() : $"tight, cleared kept {ClearedTrades}")}, IDs {(CycledIds ? "cycled" : "fresh each pass")}, {ResidentIds} a resident trade, ID index entries a row {(EntriesPerRow > 0 ? EntriesPerRow : DefaultEntriesPerRow)}{(HotInputs ? ", inputs prefetched" : string.Empty)}, huge pages {(HugePages ? "advised" : "off")}");
    }

    public static int Run(int resident, int rounds, Config config, TextWriter output)
    {
        var bench = config.Create(resident);
        try
        {
            int warmUp = WarmUp(bench);
            var single = new double[rounds];
            var batch = new double[rounds];
            long gen0 = GC.CollectionCount(0);
            for (int r = 0; r < rounds; r++)
            {
                Round(bench, out single[r], out batch[r]);
            }

            if (Environment.GetEnvironmentVariable("MATCH_LOOP_EACH") == "1")
            {
                output.WriteLine(string.Join(' ', single.Select(v => v.ToString("F0", CultureInfo.InvariantCulture))));
                output.WriteLine(string.Join(' ', batch.Select(v => v.ToString("F0", CultureInfo.InvariantCulture))));
            }

            output.WriteLine(string.Create(CultureInfo.InvariantCulture,
                $"resident {resident}: MatchMessage {Figure(single, "batch")}, MatchMessageBatch {Figure(batch, "single")}, thread CPU time per message, {rounds} rounds after {warmUp} of warm-up, gen0 GCs {GC.CollectionCount(0) - gen0}, {config}, huge pages advised for {LargeTables.Advised} tables, {AnonHugeKb()} kB AnonHugePages"));
            if (!ClearedAsInSetup(bench, output))
            {
                return 1;
            }

            if (Environment.GetEnvironmentVariable("MATCH_LOOP_PROBES") == "1")
            {
                output.WriteLine($"_idIndex: {bench.Matcher.IdIndex.Size} entries, mean displacement {bench.Matcher.IdIndex.MeanDisplacement():F2}");
                output.WriteLine($"_tradeIndex: {bench.Matcher.TradeIndex.Size} entries, mean displacement {bench.Matcher.TradeIndex.MeanDisplacement():F2}");
            }

            return 0;
        }
        finally
        {
            bench.Cleanup();
        }
    }

    /// <summary>
    /// Two configurations in one process, their rounds alternated (which goes first alternates too); prints each
    /// one's medians and the median of the differences of neighbouring rounds (B - A) with their p25 and p75.
    /// </summary>
    public static int Compare(int resident, int rounds, Config a, Config b, TextWriter output)
    {
        var benchA = a.Create(resident);
        var benchB = b.Create(resident);
        try
        {
            int warmUp = WarmUp(benchA, benchB);
            double[] singleA = new double[rounds], batchA = new double[rounds], singleB = new double[rounds], batchB = new double[rounds];
            long gen0 = GC.CollectionCount(0);
            for (int r = 0; r < rounds; r++)
            {
                if ((r & 1) == 0)
                {
                    Round(benchA, out singleA[r], out batchA[r]);
                    Round(benchB, out singleB[r], out batchB[r]);
                }
                else
                {
                    Round(benchB, out singleB[r], out batchB[r]);
                    Round(benchA, out singleA[r], out batchA[r]);
                }
            }

            double[] singleDiff = singleB.Zip(singleA, (x, y) => x - y).ToArray(), batchDiff = batchB.Zip(batchA, (x, y) => x - y).ToArray();
            output.WriteLine($"A: {a}");
            output.WriteLine($"B: {b}");
            output.WriteLine(string.Create(CultureInfo.InvariantCulture,
                $"resident {resident}, {rounds} rounds of each alternated after {warmUp} of warm-up, gen0 GCs {GC.CollectionCount(0) - gen0}, thread CPU time per message:"));
            output.WriteLine($"  MatchMessage      A {Figure(singleA, "batch")}, B {Figure(singleB, "batch")}, B - A {Figure(singleDiff, "batch")}");
            output.WriteLine($"  MatchMessageBatch A {Figure(batchA, "single")}, B {Figure(batchB, "single")}, B - A {Figure(batchDiff, "single")}");
            bool cleared = ClearedAsInSetup(benchA, output);
            return ClearedAsInSetup(benchB, output) && cleared ? 0 : 1;
        }
        finally
        {
            benchA.Cleanup();
            benchB.Cleanup();
        }
    }

    /// <summary>
    /// Warms up until the runtime has stopped compiling: tiered compilation moves the hot methods from tier 0 through
    /// instrumented code to tier 1 in the background, which on 2 cores took 40-50 rounds at a million resident (about
    /// 600 ns a message until then, 260-320 after). A fixed 20 rounds measured mostly the earlier tiers. At least 20
    /// rounds, then until nothing was compiled for 2 s (the runtime waits 100 ms without new tier-0 work before it
    /// promotes, so a few short quiet rounds prove nothing); at most 2,000.
    /// </summary>
    private static int WarmUp(params MatchingBenchmarks[] benches)
    {
        int warmUp = 0;
        long quietSince = System.Diagnostics.Stopwatch.GetTimestamp();
        while (warmUp < 2_000 && (warmUp < 20 || System.Diagnostics.Stopwatch.GetElapsedTime(quietSince).TotalSeconds < 2))
        {
            long compiled = System.Runtime.JitInfo.GetCompiledMethodCount();
            foreach (var bench in benches)
            {
                bench.MatchMessage();
                bench.MatchMessageBatch();
            }

            if (System.Runtime.JitInfo.GetCompiledMethodCount() != compiled)
            {
                quietSince = System.Diagnostics.Stopwatch.GetTimestamp();
            }

            warmUp++;
        }

        return warmUp;
    }

    /// <summary>One round: <see cref="MessagesPerRound"/> messages one by one, then as many batched (MATCH_LOOP_ONLY=batch or single: one of them).</summary>
    private static void Round(MatchingBenchmarks bench, out double single, out double batch)
    {
        string? only = Environment.GetEnvironmentVariable("MATCH_LOOP_ONLY");
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
        single = (t1 - t0) / (double)MessagesPerRound;
        batch = (t2 - t1) / (double)MessagesPerRound;
    }

    /// <summary>Median with p25 and p75 of <paramref name="values"/>; a path MATCH_LOOP_ONLY left out says so instead of a near-zero time.</summary>
    private static string Figure(double[] values, string skippedWhen)
    {
        if (Environment.GetEnvironmentVariable("MATCH_LOOP_ONLY") == skippedWhen)
        {
            return "not run (MATCH_LOOP_ONLY)";
        }

        var sorted = (double[])values.Clone();
        Array.Sort(sorted);
        int n = sorted.Length;
        return string.Create(CultureInfo.InvariantCulture, $"{sorted[n / 2]:F1} ns (p25 {sorted[n / 4]:F1}, p75 {sorted[n * 3 / 4]:F1})");
    }

    /// <summary>
    /// The stream must have cleared as in the setup's check: a duplicate or a rejection means the figure measured
    /// something else (cycled IDs with more trades kept than the stream holds, say).
    /// </summary>
    private static bool ClearedAsInSetup(MatchingBenchmarks bench, TextWriter output)
    {
        var counters = bench.Matcher.Counters;
        if (counters.Duplicates != 0 || counters.Rejected != 0 || counters.TableFull != 0)
        {
            output.WriteLine($"the stream did not clear as in the setup: {counters.Duplicates} duplicates, {counters.Rejected} rejected, {counters.TableFull} refused for a full table");
            return false;
        }

        return true;
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
