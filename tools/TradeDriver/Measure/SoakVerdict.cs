using System.Globalization;

namespace RapidFix.TradeDriver.Measure;

/// <summary>
/// The soak bar (issue 13): over the steady part, is p99.99 flat, is the service's resident memory flat, and did its
/// continuous phase collect nothing. Flat means the last third of the intervals is not worse than the first third by
/// more than the tolerance: the median of each third's p99.99 (one slow interval is noise, a third of them is a
/// trend), and the largest resident memory of each third against the first's. Memory that rises with the inputs
/// taken is not flat, whatever holds it: a journal whose pages the kernel commits as it first writes them is the
/// growth a multi-day soak cannot afford, which the input journal's write window (docs/store.md "The input journal's
/// write window": committed at startup and reused once durable) removes. There is no allowance for it.
/// </summary>
internal sealed record SoakVerdict(bool LatencyFlat, double FirstP9999, double LastP9999, bool MemoryFlat, long FirstResident, long LastResident,
    long Collections, int Intervals)
{
    /// <summary>How much worse the last third's median p99.99 may be than the first's (and at least 100 µs).</summary>
    public const double LatencyTolerance = 1.5;

    /// <summary>How much more memory the last third may hold than the first (and at least 16 MiB).</summary>
    public const double MemoryTolerance = 1.10;

    /// <summary>At least this many steady intervals, so each third has two.</summary>
    public const int MinIntervals = 6;

    /// <summary>The bar met: flat latency, flat memory, no GC.</summary>
    public bool Met => LatencyFlat && MemoryFlat && Collections == 0;

    /// <summary>The verdict over the steady intervals of a run, or null when it has too few to judge.</summary>
    public static SoakVerdict? Of(IReadOnlyList<IntervalPoint> intervals, long collections)
    {
        var steady = intervals.Where(i => i.Phase == RunPhase.Steady && i.AckCount > 0).ToList();
        if (steady.Count < MinIntervals)
        {
            return null;
        }

        int third = steady.Count / 3;
        var first = steady.Take(third).ToList();
        var last = steady.Skip(steady.Count - third).ToList();
        double firstP = OperationalAnalysis.Median(first.Select(i => i.AckP9999).ToArray());
        double lastP = OperationalAnalysis.Median(last.Select(i => i.AckP9999).ToArray());
        long firstRss = first.Max(i => i.ResidentBytes);
        long lastRss = last.Max(i => i.ResidentBytes);
        bool latencyFlat = lastP <= Math.Max(firstP * LatencyTolerance, firstP + 100);
        bool memoryFlat = lastRss <= Math.Max((long)(firstRss * MemoryTolerance), firstRss + (16L << 20));
        return new SoakVerdict(latencyFlat, firstP, lastP, memoryFlat, firstRss, lastRss, collections, steady.Count);
    }

    /// <summary>The report's line.</summary>
    public string Line => string.Create(CultureInfo.InvariantCulture,
        $"soak bar {(Met ? "MET" : "NOT MET")}: p99.99 {(LatencyFlat ? "flat" : "NOT flat")} (median of the first third of {Intervals} intervals {FirstP9999:F0} us, last third {LastP9999:F0} us); " +
        $"memory {(MemoryFlat ? "flat" : "NOT flat")} (service RSS {FirstResident / (1 << 20):N0} MiB first third, {LastResident / (1 << 20):N0} MiB last); GC {Collections}");
}
