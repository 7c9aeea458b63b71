using System.Diagnostics;
using System.Runtime.CompilerServices;
using RapidFix.Pools.Diagnostics;
using RapidFix.Pools.Phases;

namespace RapidFix.Engine.Diagnostics;

/// <summary>Something whose counters the monitor reads at each interval (the engine host).</summary>
public interface IEngineCounterSource
{
    /// <summary>Fills <paramref name="counters"/>; must not allocate.</summary>
    void ReadCounters(out EngineCountersData counters);
}

/// <summary>
/// Emits the periodic summaries: once per interval, from its own thread (no timer, no thread pool), it merges what
/// every engine thread recorded since the last interval into one histogram per channel, writes a
/// <see cref="RapidFixEventSource.LatencySummary"/> per channel (percentiles and the encoded histogram) and an
/// <see cref="RapidFixEventSource.EngineCounters"/> event. It also keeps per-phase totals for an in-process report.
/// Everything it uses is created in the constructor or when it first meets a thread (startup): an interval
/// allocates nothing.
/// </summary>
public sealed class EngineMonitor : IDisposable
{
    private const int ChannelCount = 2;
    private const int PhaseCount = 3;

    // A trace event must stay under EventPipe's 64 KB limit: 24 K characters of text are 48 KB. A histogram that does
    // not fit travels without its buckets (its percentiles are still written).
    private const int MaxHistogramChars = 24 * 1024;

    private readonly object _gate = new();
    private readonly PhaseController _phases;
    private readonly IEngineCounterSource? _counters;
    private readonly TimeSpan _interval;
    private readonly Thread _thread;
    private readonly LatencyHistogram[] _intervalHistograms = new LatencyHistogram[ChannelCount];
    private readonly LatencyHistogram _scratch = new();
    private readonly LatencyHistogram[,] _totals = new LatencyHistogram[PhaseCount, ChannelCount];
    private readonly byte[] _encoded = new byte[MaxHistogramChars / 2];
    private readonly char[] _encodedText = new char[MaxHistogramChars + 1]; // + the terminating NUL
    private LatencyHistogram[][] _previous = [];  // per registered thread, per channel
    private long _lastEmitTimestamp;
    private long _intervals;
    private long _oversizedHistograms;
    private volatile bool _stopping;

    /// <param name="phases">Whose phase each summary is attributed to.</param>
    /// <param name="counters">Read for the counters event (null: no counters event).</param>
    /// <param name="interval">Time between summaries.</param>
    public EngineMonitor(PhaseController phases, IEngineCounterSource? counters, TimeSpan interval)
    {
        ArgumentNullException.ThrowIfNull(phases);
        if (interval <= TimeSpan.Zero)
        {
            throw new ArgumentOutOfRangeException(nameof(interval), interval, "the summary interval must be positive");
        }

        _phases = phases;
        _counters = counters;
        _interval = interval;
        for (int c = 0; c < ChannelCount; c++)
        {
            _intervalHistograms[c] = new LatencyHistogram();
            for (int p = 0; p < PhaseCount; p++)
            {
                _totals[p, c] = new LatencyHistogram();
            }
        }

        _lastEmitTimestamp = Stopwatch.GetTimestamp();
        _thread = new Thread(Run) { IsBackground = true, Name = "rapidfix-monitor" };
    }

    /// <summary>Intervals emitted so far.</summary>
    public long Intervals => Interlocked.Read(ref _intervals);

    /// <summary>Summaries whose histogram did not fit an event (their percentiles were still written).</summary>
    public long OversizedHistograms => Interlocked.Read(ref _oversizedHistograms);

    /// <summary>Starts the summary thread.</summary>
    public void Start() => _thread.Start();

    /// <summary>
    /// Ends the current interval now (the host calls it just before each phase change, so no interval straddles
    /// two phases). Allocation-free once every engine thread has been seen, which the first call at the end of
    /// warm-up ensures.
    /// </summary>
    public void Flush()
    {
        lock (_gate)
        {
            EmitInterval();
        }
    }

    /// <summary>
    /// What was recorded in <paramref name="phase"/> on <paramref name="channel"/> (intervals ended in that phase).
    /// Read it once the phase is over; the histogram is the monitor's own, do not change it.
    /// </summary>
    public LatencyHistogram Totals(EnginePhase phase, LatencyChannel channel) => _totals[(int)phase, (int)channel];

    /// <summary>Stops the summary thread.</summary>
    public void Dispose()
    {
        _stopping = true;
        if (_thread.IsAlive)
        {
            _thread.Join(TimeSpan.FromSeconds(2));
        }
    }

    // One call for the thread's life: compiled optimized at once, never moved by on-stack replacement (which allocates).
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    private void Run()
    {
        long intervalTicks = (long)(_interval.TotalSeconds * Stopwatch.Frequency);
        long next = Stopwatch.GetTimestamp() + intervalTicks;
        while (!_stopping)
        {
            long now = Stopwatch.GetTimestamp();
            if (now >= next)
            {
                lock (_gate)
                {
                    EmitInterval();
                }

                next += intervalTicks;
                if (next < now)
                {
                    next = now + intervalTicks; // fell behind (a long pause): start a fresh schedule
                }

                continue;
            }

            // Short sleeps so that Dispose is quick; Thread.Sleep allocates nothing.
            long remainingMs = (next - now) * 1000 / Stopwatch.Frequency;
            Thread.Sleep((int)Math.Clamp(remainingMs, 1, 50));
        }
    }

    // Runs once a second: compiled optimized at its first call (startup) instead of tiering up in the continuous phase.
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    private void EmitInterval()
    {
        long now = Stopwatch.GetTimestamp();
        long intervalNs = EngineLatency.ToNanoseconds(now - _lastEmitTimestamp);
        _lastEmitTimestamp = now;
        var phase = _phases.Phase;
        var threads = EngineThreads.All;
        EnsureTracked(threads.Length);
        var log = RapidFixEventSource.Log;
        for (int c = 0; c < ChannelCount; c++)
        {
            var interval = _intervalHistograms[c];
            interval.Reset();
            for (int t = 0; t < threads.Length; t++)
            {
                _scratch.CopyDifference(threads[t].Histogram((LatencyChannel)c), _previous[t][c]);
                if (_scratch.TotalCount != 0)
                {
                    interval.Add(_scratch);
                }
            }

            _totals[(int)phase, c].Add(interval);
            if (interval.TotalCount == 0 || !log.IsEnabled())
            {
                continue;
            }

            var summary = new LatencySummaryData
            {
                Channel = c,
                Phase = (int)phase,
                IntervalNanoseconds = intervalNs,
                Count = interval.TotalCount,
                Min = interval.Min,
                P50 = interval.ValueAtPercentile(50),
                P90 = interval.ValueAtPercentile(90),
                P99 = interval.ValueAtPercentile(99),
                P999 = interval.ValueAtPercentile(99.9),
                P9999 = interval.ValueAtPercentile(99.99),
                P99999 = interval.ValueAtPercentile(99.999),
                Max = interval.Max,
                Mean = (long)interval.Mean,
            };
            int length = LatencyHistogramCodec.EncodeText(interval, _encoded, _encodedText.AsSpan(0, MaxHistogramChars));
            if (length < 0)
            {
                Interlocked.Increment(ref _oversizedHistograms);
                length = 0;
            }

            _encodedText[length] = '\0';
            log.WriteLatencySummary(in summary, new ReadOnlySpan<char>(_encodedText, 0, length + 1));
        }

        if (_counters is not null && log.IsEnabled())
        {
            _counters.ReadCounters(out var counters);
            log.WriteEngineCounters(in counters);
        }

        Interlocked.Increment(ref _intervals);
    }

    /// <summary>Creates the previous-reading copies of threads seen for the first time (startup: warm-up flushes).</summary>
    /// <remarks>
    /// Called once a second by <see cref="EmitInterval"/> but not inlined there: without this attribute it reached its
    /// tier-up count about 30 s after start, inside a continuous phase that began earlier (the gateway's warm-up found it).
    /// </remarks>
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    private void EnsureTracked(int threadCount)
    {
        if (_previous.Length >= threadCount)
        {
            return;
        }

        var next = new LatencyHistogram[threadCount][];
        _previous.CopyTo(next, 0);
        for (int t = _previous.Length; t < threadCount; t++)
        {
            next[t] = [new LatencyHistogram(), new LatencyHistogram()];
        }

        _previous = next;
    }
}
