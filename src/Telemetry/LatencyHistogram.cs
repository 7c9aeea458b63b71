using System.Numerics;
using System.Runtime.CompilerServices;

namespace RapidFix.Pools.Diagnostics;

/// <summary>
/// A pre-allocated histogram of durations in nanoseconds with log-linear buckets: values below 256 ns each have
/// their own bucket; above, every power of two is split into 128 equal buckets, so any recorded value is known to
/// within 1/128 (0.8 %). Values up to <see cref="HighestTrackableValue"/> (about 18 minutes) are tracked; larger
/// ones count in the last bucket. Recording is a few instructions and never allocates.
/// </summary>
/// <remarks>
/// One thread records; other threads may read the counts at any time (each count is one aligned 64-bit word, so a
/// reader sees a recent value, never a torn one). Readers that need an interval take differences of two readings
/// (<see cref="CopyDifference"/>), so the writer never has to reset anything.
/// </remarks>
public sealed class LatencyHistogram
{
    /// <summary>Sub-buckets per power of two, as a power of two (128).</summary>
    public const int SubBucketBits = 7;

    /// <summary>Largest value tracked exactly: 2^40 ns.</summary>
    public const long HighestTrackableValue = (1L << 40) - 1;

    private const int SubBucketHalf = 1 << SubBucketBits;       // 128
    private const int LinearLimit = SubBucketHalf * 2;           // 256: one bucket per nanosecond below this

    /// <summary>Number of buckets: 256 linear ones, then 128 per power of two up to 2^40.</summary>
    public static readonly int BucketCount = IndexOf(HighestTrackableValue) + 1;

    private readonly long[] _counts = new long[BucketCount];
    private long _totalCount;
    private long _sum;
    private long _max;

    /// <summary>Values recorded.</summary>
    public long TotalCount => Volatile.Read(ref _totalCount);

    /// <summary>Sum of the recorded values, in nanoseconds (exact).</summary>
    public long Sum => Volatile.Read(ref _sum);

    /// <summary>Largest value recorded (exact), 0 when empty.</summary>
    public long Max => Volatile.Read(ref _max);

    /// <summary>The count of one bucket.</summary>
    public long CountAt(int index) => Volatile.Read(ref _counts[index]);

    /// <summary>Records one duration. Negative values count as 0.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void Record(long nanoseconds)
    {
        if (nanoseconds < 0)
        {
            nanoseconds = 0;
        }

        _counts[IndexOf(nanoseconds)]++;
        _totalCount++;
        _sum += nanoseconds;
        if (nanoseconds > _max)
        {
            _max = nanoseconds;
        }
    }

    /// <summary>Records <paramref name="count"/> values that fall in bucket <paramref name="index"/> (decoding, merging).</summary>
    public void AddToBucket(int index, long count)
    {
        if ((uint)index >= (uint)_counts.Length)
        {
            throw new ArgumentOutOfRangeException(nameof(index), index, "not a bucket of this histogram");
        }

        _counts[index] += count;
        _totalCount += count;
        _sum += count * Midpoint(index);
        long highest = HighestEquivalentValue(index);
        if (count > 0 && highest > _max)
        {
            _max = highest;
        }
    }

    /// <summary>Adds every count of <paramref name="other"/> (exact sum and max carried over).</summary>
    public void Add(LatencyHistogram other)
    {
        ArgumentNullException.ThrowIfNull(other);
        for (int i = 0; i < _counts.Length; i++)
        {
            _counts[i] += other._counts[i];
        }

        _totalCount += other._totalCount;
        _sum += other._sum;
        _max = Math.Max(_max, other._max);
    }

    /// <summary>Adds decoded bucket counts with the exact sum and maximum that travelled with them.</summary>
    internal void AddDecoded(LatencyHistogram decoded, long sum, long max)
    {
        for (int i = 0; i < _counts.Length; i++)
        {
            _counts[i] += decoded._counts[i];
        }

        _totalCount += decoded._totalCount;
        _sum += sum;
        _max = Math.Max(_max, max);
    }

    /// <summary>Clears every count.</summary>
    public void Reset()
    {
        Array.Clear(_counts);
        _totalCount = 0;
        _sum = 0;
        _max = 0;
    }

    /// <summary>
    /// Makes this histogram hold what <paramref name="current"/> recorded since <paramref name="previous"/> was a copy
    /// of it, then brings <paramref name="previous"/> up to date. Allocation-free; the writer of
    /// <paramref name="current"/> may keep recording meanwhile (its newest values then fall in the next interval).
    /// The maximum of the interval is the highest bucket's upper bound (exact maxima cannot be differenced).
    /// </summary>
    public void CopyDifference(LatencyHistogram current, LatencyHistogram previous)
    {
        ArgumentNullException.ThrowIfNull(current);
        ArgumentNullException.ThrowIfNull(previous);
        long total = 0;
        long highestIndex = -1;
        for (int i = 0; i < _counts.Length; i++)
        {
            long now = Volatile.Read(ref current._counts[i]);
            long delta = now - previous._counts[i];
            previous._counts[i] = now;
            _counts[i] = delta;
            if (delta != 0)
            {
                total += delta;
                highestIndex = i;
            }
        }

        long sum = Volatile.Read(ref current._sum);
        _sum = sum - previous._sum;
        previous._sum = sum;
        previous._totalCount = Volatile.Read(ref current._totalCount);
        previous._max = Volatile.Read(ref current._max);
        _totalCount = total;
        _max = highestIndex < 0 ? 0 : Math.Min(HighestEquivalentValue((int)highestIndex), previous._max);
    }

    /// <summary>The smallest value whose bucket holds at least <paramref name="percentile"/> % of the values, as that bucket's upper bound.</summary>
    public long ValueAtPercentile(double percentile)
    {
        long total = _totalCount;
        if (total == 0)
        {
            return 0;
        }

        double p = Math.Clamp(percentile, 0, 100);
        long target = Math.Max(1, (long)Math.Ceiling(p / 100.0 * total));
        long seen = 0;
        for (int i = 0; i < _counts.Length; i++)
        {
            seen += _counts[i];
            if (seen >= target)
            {
                return Math.Min(HighestEquivalentValue(i), _max == 0 ? HighestEquivalentValue(i) : _max);
            }
        }

        return _max;
    }

    /// <summary>Lower bound of the lowest non-empty bucket (0 when empty).</summary>
    public long Min
    {
        get
        {
            for (int i = 0; i < _counts.Length; i++)
            {
                if (_counts[i] != 0)
                {
                    return LowestEquivalentValue(i);
                }
            }

            return 0;
        }
    }

    /// <summary>Exact mean (from the sum), 0 when empty.</summary>
    public double Mean => _totalCount == 0 ? 0 : (double)_sum / _totalCount;

    /// <summary>Standard deviation, computed from bucket midpoints around the exact mean.</summary>
    public double StandardDeviation
    {
        get
        {
            if (_totalCount == 0)
            {
                return 0;
            }

            double mean = Mean;
            double squares = 0;
            for (int i = 0; i < _counts.Length; i++)
            {
                long c = _counts[i];
                if (c != 0)
                {
                    double d = Midpoint(i) - mean;
                    squares += d * d * c;
                }
            }

            return Math.Sqrt(squares / _totalCount);
        }
    }

    /// <summary>The bucket a value falls in.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static int IndexOf(long value)
    {
        if ((ulong)value < LinearLimit)
        {
            return (int)value;
        }

        if (value < 0)
        {
            return 0;
        }

        if (value > HighestTrackableValue)
        {
            value = HighestTrackableValue;
        }

        int shift = (63 - BitOperations.LeadingZeroCount((ulong)value)) - SubBucketBits; // ≥ 1
        return LinearLimit + ((shift - 1) << SubBucketBits) + (int)(value >> shift) - SubBucketHalf;
    }

    /// <summary>The smallest value that falls in bucket <paramref name="index"/>.</summary>
    public static long LowestEquivalentValue(int index)
    {
        if (index < LinearLimit)
        {
            return index;
        }

        int k = index - LinearLimit;
        int shift = (k >> SubBucketBits) + 1;
        long sub = (k & (SubBucketHalf - 1)) + SubBucketHalf;
        return sub << shift;
    }

    /// <summary>The largest value that falls in bucket <paramref name="index"/>.</summary>
    public static long HighestEquivalentValue(int index)
    {
        if (index < LinearLimit)
        {
            return index;
        }

        int shift = ((index - LinearLimit) >> SubBucketBits) + 1;
        return LowestEquivalentValue(index) + (1L << shift) - 1;
    }

    /// <summary>The middle of bucket <paramref name="index"/> (used for the mean of decoded histograms and the deviation).</summary>
    public static long Midpoint(int index) => (LowestEquivalentValue(index) + HighestEquivalentValue(index)) / 2;
}
