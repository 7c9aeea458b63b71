using HdrHistogram;

namespace RapidFix.TradeDriver.Measure;

/// <summary>What a latency measures.</summary>
internal enum LatencyChannel : byte
{
    /// <summary>From a message's intended send time to the moment the driver handed it to its session (the driver's own lag).</summary>
    Send,

    /// <summary>From an input's intended send time to its ack arriving at the sink (end to end, one input).</summary>
    Ack,

    /// <summary>From the intended send time of a trade's last message to its CLS arriving at the sink (end to end, one trade).</summary>
    Cls,
}

/// <summary>
/// The run's latency histograms, all HdrHistogram, pre-sized at startup (1 ns to one hour, 3 significant digits):
/// per channel and phase the whole-run histogram, and per channel an interval recorder the sampler empties every
/// interval (latency over time, the soak's <c>.hlog</c>). Values are nanoseconds. <see cref="Record"/> is called by
/// the driver's thread and the sessions' threads at once; it allocates nothing.
/// </summary>
internal sealed class LatencyRecorder
{
    /// <summary>The highest latency tracked: an hour; a longer one is clamped to it (and the clamp counted).</summary>
    public const long HighestNanos = 3_600_000_000_000;

    /// <summary>Significant digits of every histogram.</summary>
    public const int Digits = 3;

    private const int Channels = 3;
    private const int Phases = 4;

    private readonly LongConcurrentHistogram[] _byPhase = new LongConcurrentHistogram[Channels * Phases];
    private readonly Recorder[] _intervals = new Recorder[Channels];
    private readonly double _nanosPerTick;
    private long _clamped;

    /// <param name="ticksPerSecond">The clock's ticks per second (latencies arrive in ticks).</param>
    public LatencyRecorder(long ticksPerSecond)
    {
        _nanosPerTick = 1e9 / ticksPerSecond;
        for (int i = 0; i < _byPhase.Length; i++)
        {
            _byPhase[i] = New();
        }

        for (int c = 0; c < Channels; c++)
        {
            _intervals[c] = new Recorder(1, HighestNanos, Digits, (id, low, high, digits) => new LongConcurrentHistogram(id, low, high, digits));
        }
    }

    /// <summary>Latencies longer than <see cref="HighestNanos"/>, recorded as that.</summary>
    public long Clamped => Interlocked.Read(ref _clamped);

    /// <summary>A histogram of the recorder's range (startup, or a recycled interval histogram).</summary>
    public static LongConcurrentHistogram New() => new(1, HighestNanos, Digits);

    /// <summary>Records a latency of <paramref name="ticks"/> clock ticks in a channel, for a phase.</summary>
    public void Record(LatencyChannel channel, RunPhase phase, long ticks)
    {
        long nanos = (long)(ticks * _nanosPerTick);
        if (nanos < 1)
        {
            nanos = 1;
        }
        else if (nanos > HighestNanos)
        {
            nanos = HighestNanos;
            Interlocked.Increment(ref _clamped);
        }

        _byPhase[((int)channel * Phases) + (int)phase].RecordValue(nanos);
        _intervals[(int)channel].RecordValue(nanos);
    }

    /// <summary>The whole-run histogram of a channel in a phase.</summary>
    public HistogramBase Of(LatencyChannel channel, RunPhase phase) => _byPhase[((int)channel * Phases) + (int)phase];

    /// <summary>Moves what a channel recorded since the last call into <paramref name="into"/> (reset first): allocation-free.</summary>
    public void TakeInterval(LatencyChannel channel, HistogramBase into) => _intervals[(int)channel].GetIntervalHistogramInto(into);
}
