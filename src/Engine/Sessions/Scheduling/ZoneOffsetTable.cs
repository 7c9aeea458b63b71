namespace RapidFix.Engine.Sessions.Scheduling;

/// <summary>
/// A time zone's UTC offsets as a table of periods, precomputed at startup so that converting between UTC and
/// local time on a hot path is a binary search over arrays: no allocation and no dependency on how
/// <see cref="TimeZoneInfo"/> evaluates its rules.
/// </summary>
/// <remarks>
/// Transitions are found by sampling the zone every 12 hours from 1970 to 2200 and bisecting to the tick where the
/// offset changes. Instants before 1970 use the 1970 offset, instants after 2200 the last one.
/// </remarks>
internal sealed class ZoneOffsetTable
{
    private static readonly long RangeStart = new DateTime(1970, 1, 1, 0, 0, 0, DateTimeKind.Utc).Ticks;
    private static readonly long RangeEnd = new DateTime(2200, 1, 1, 0, 0, 0, DateTimeKind.Utc).Ticks;
    private static readonly long Step = TimeSpan.TicksPerHour * 12;
    private static readonly Dictionary<TimeZoneInfo, ZoneOffsetTable> Cache = new(ReferenceEqualityComparer.Instance);

    // Period i starts at _utcStarts[i] (period 0 at tick 0) and has offset _offsets[i].
    private readonly long[] _utcStarts;
    private readonly long[] _offsets;

    private ZoneOffsetTable(long[] utcStarts, long[] offsets)
    {
        _utcStarts = utcStarts;
        _offsets = offsets;
    }

    /// <summary>Number of offset periods (1 for a zone that never changes).</summary>
    public int PeriodCount => _offsets.Length;

    /// <summary>The table for <paramref name="zone"/>, built once per zone instance.</summary>
    public static ZoneOffsetTable For(TimeZoneInfo zone)
    {
        lock (Cache)
        {
            if (!Cache.TryGetValue(zone, out var table))
            {
                table = Build(zone);
                Cache.Add(zone, table);
            }

            return table;
        }
    }

    private static ZoneOffsetTable Build(TimeZoneInfo zone)
    {
        var starts = new List<long> { 0 };
        long offset = OffsetAt(zone, RangeStart);
        var offsets = new List<long> { offset };
        for (long t = RangeStart; t < RangeEnd;)
        {
            long next = Math.Min(t + Step, RangeEnd);
            if (OffsetAt(zone, next) == offset)
            {
                t = next;
                continue;
            }

            // The offset changes in (t, next]: bisect to the first tick with a different offset.
            long lo = t, hi = next;
            while (hi - lo > 1)
            {
                long mid = lo + ((hi - lo) / 2);
                if (OffsetAt(zone, mid) == offset)
                {
                    lo = mid;
                }
                else
                {
                    hi = mid;
                }
            }

            offset = OffsetAt(zone, hi);
            starts.Add(hi);
            offsets.Add(offset);
            t = hi;
        }

        return new ZoneOffsetTable([.. starts], [.. offsets]);
    }

    private static long OffsetAt(TimeZoneInfo zone, long utcTicks) =>
        zone.GetUtcOffset(new DateTime(utcTicks, DateTimeKind.Utc)).Ticks;

    /// <summary>Local wall-clock ticks of a UTC instant.</summary>
    public long ToLocal(long utcTicks) => utcTicks + _offsets[PeriodOfUtc(utcTicks)];

    /// <summary>
    /// The UTC instant of a local wall-clock time. A time skipped by a forward transition maps to the instant the
    /// gap ends (the first valid local time after it); a time that occurs twice maps to its first occurrence.
    /// </summary>
    public long ToUtc(long localTicks)
    {
        var starts = _utcStarts;
        var offsets = _offsets;

        // Last period whose local start is at or before the local time (local starts ascend: periods are long).
        int lo = 0, hi = offsets.Length - 1;
        while (lo < hi)
        {
            int mid = (lo + hi + 1) >> 1;
            if (starts[mid] + offsets[mid] <= localTicks)
            {
                lo = mid;
            }
            else
            {
                hi = mid - 1;
            }
        }

        int i = lo;
        if (i > 0 && localTicks < starts[i] + offsets[i - 1])
        {
            return localTicks - offsets[i - 1]; // Repeated local time: the earlier occurrence.
        }

        if (i + 1 < offsets.Length && localTicks >= starts[i + 1] + offsets[i])
        {
            return starts[i + 1]; // Skipped local time: the instant the gap ends.
        }

        return localTicks - offsets[i];
    }

    private int PeriodOfUtc(long utcTicks)
    {
        var starts = _utcStarts;
        int lo = 0, hi = starts.Length - 1;
        while (lo < hi)
        {
            int mid = (lo + hi + 1) >> 1;
            if (starts[mid] <= utcTicks)
            {
                lo = mid;
            }
            else
            {
                hi = mid - 1;
            }
        }

        return lo;
    }
}
