using System.Diagnostics;
using HdrHistogram;

namespace RapidFix.TradeDriver.Measure;

/// <summary>
/// The measuring process's clock-driven side: every <see cref="RunOptions.SampleSeconds"/> it samples the driver's,
/// sink's and service's counters into a pre-sized array (operational analysis); every
/// <see cref="RunOptions.IntervalSeconds"/> it takes the interval histograms (latency over time), appends them to the
/// <c>.hlog</c> and prints the progress line. Once started it allocates nothing, for a run of any length: the
/// arrays are sized at construction, the <c>.hlog</c> lines are encoded into a buffer allocated once
/// (<see cref="HlogEncoder"/>) and the progress line into another (<see cref="LineBuffer"/>).
/// </summary>
internal sealed class Sampler
{
    private readonly RunOptions _o;
    private readonly OpenLoopSchedule _schedule;
    private readonly OpenLoopDriver _driver;
    private readonly TradeSink _sink;
    private readonly ServiceStatsReader? _stats;
    private readonly LatencyRecorder _latency;
    private readonly TextWriter _output;
    private readonly QueueSample[] _samples;
    private readonly IntervalPoint[] _intervals;
    private readonly HistogramBase _ack = LatencyRecorder.New();
    private readonly HistogramBase _send = LatencyRecorder.New();
    private readonly HistogramBase _cls = LatencyRecorder.New();
    private readonly LineBuffer _progress = new(256);
    private readonly HlogEncoder _encoder;
    private long _allocatedFrom = -1;
    private long _allocated = -1;
    private int _sampleCount;
    private int _intervalCount;
    private volatile bool _stop;

    public Sampler(RunOptions o, OpenLoopSchedule schedule, OpenLoopDriver driver, TradeSink sink, ServiceStatsReader? stats, LatencyRecorder latency,
        TextWriter output)
    {
        _o = o;
        _schedule = schedule;
        _driver = driver;
        _sink = sink;
        _stats = stats;
        _latency = latency;
        _output = output;
        double seconds = (schedule.End - schedule.Start) / (double)schedule.Frequency + o.DrainSeconds + 10;
        _samples = new QueueSample[(int)Math.Min(50_000_000, (seconds / o.SampleSeconds) + 16)];
        _intervals = new IntervalPoint[(int)Math.Min(10_000_000, (seconds / o.IntervalSeconds) + 16)];
        _encoder = new HlogEncoder(_ack);
    }

    /// <summary>
    /// Bytes this thread allocated from its first interval after the warm-up to its stop (after <see cref="Stop"/>;
    /// -1 when it never got there).
    /// </summary>
    public long AllocatedAfterWarmUp => Interlocked.Read(ref _allocated);

    /// <summary>The samples taken (a copy, after <see cref="Stop"/>).</summary>
    public QueueSample[] Samples => _samples.AsSpan(0, _sampleCount).ToArray();

    /// <summary>The intervals (a copy, after <see cref="Stop"/>).</summary>
    public IReadOnlyList<IntervalPoint> Intervals => _intervals.AsSpan(0, _intervalCount).ToArray();

    public void Stop() => _stop = true;

    public void Run()
    {
        long frequency = _schedule.Frequency;
        long sampleTicks = (long)(_o.SampleSeconds * frequency);
        long intervalTicks = (long)(_o.IntervalSeconds * frequency);
        long nextSample = Stopwatch.GetTimestamp();
        long nextInterval = _schedule.Start + intervalTicks;
        long lastIntervalTick = _schedule.Start;
        long lastSent = 0, lastMatched = 0;
        long warmedUp = _schedule.StartOf(RunPhase.RampUp);
        using var hlog = _o.WriteHlog ? new HlogFile(Path.Combine(_o.OutputDirectory, "intervals.hlog"), DateTime.UtcNow, _encoder) : null;
        WarmUp();
        while (!_stop)
        {
            long now = Stopwatch.GetTimestamp();
            if (_allocatedFrom < 0 && now >= warmedUp)
            {
                _allocatedFrom = GC.GetAllocatedBytesForCurrentThread();
            }

            if (now >= nextSample)
            {
                TakeSample(now);
                nextSample += sampleTicks;
                if (nextSample < now)
                {
                    nextSample = now + sampleTicks; // a stalled sampler does not burst to catch up
                }
            }

            if (now >= nextInterval)
            {
                double dt = (now - lastIntervalTick) / (double)frequency;
                ref readonly var last = ref _samples[Math.Max(0, _sampleCount - 1)];
                _latency.TakeInterval(LatencyChannel.Ack, _ack);
                _latency.TakeInterval(LatencyChannel.Send, _send);
                _latency.TakeInterval(LatencyChannel.Cls, _cls);
                hlog?.Append(_ack, "ack"u8, lastIntervalTick - _schedule.Start, now - _schedule.Start, frequency);
                hlog?.Append(_send, "send"u8, lastIntervalTick - _schedule.Start, now - _schedule.Start, frequency);
                hlog?.Append(_cls, "cls"u8, lastIntervalTick - _schedule.Start, now - _schedule.Start, frequency);
                var point = new IntervalPoint((now - _schedule.Start) / (double)frequency, _schedule.PhaseAt(now), (last.DriverSent - lastSent) / dt,
                    (last.Matched - lastMatched) / dt, _ack.TotalCount, Percentile(_ack, 50), Percentile(_ack, 99), Percentile(_ack, 99.99),
                    _encoder.MaxValue(_ack) / 1000.0, last.Gen0Collections, last.ResidentBytes);
                if (_intervalCount < _intervals.Length)
                {
                    _intervals[_intervalCount++] = point;
                }

                if (_o.Progress)
                {
                    Progress(point, now);
                }

                lastSent = last.DriverSent;
                lastMatched = last.Matched;
                lastIntervalTick = now;
                nextInterval += intervalTicks;
                if (nextInterval < now)
                {
                    nextInterval = now + intervalTicks;
                }
            }

            long wait = Math.Min(nextSample, nextInterval) - Stopwatch.GetTimestamp();
            if (wait > 0)
            {
                Thread.Sleep((int)Math.Max(1, wait * 1000 / frequency));
            }
        }

        TakeSample(Stopwatch.GetTimestamp());
        if (_allocatedFrom >= 0)
        {
            Interlocked.Exchange(ref _allocated, GC.GetAllocatedBytesForCurrentThread() - _allocatedFrom);
        }
    }

    // One interval's work done once before the schedule starts, written nowhere (nothing is recorded yet, so the
    // interval histograms stay empty): with intervals longer than the warm-up the first real interval falls in the
    // driver's measured phase, and a first call's lazy set-up there allocated (80 bytes in a 10-s-interval soak).
    private void WarmUp()
    {
        TakeSample(Stopwatch.GetTimestamp());
        _sampleCount = 0;
        _latency.TakeInterval(LatencyChannel.Ack, _ack);
        _latency.TakeInterval(LatencyChannel.Send, _send);
        _latency.TakeInterval(LatencyChannel.Cls, _cls);
        _ = _encoder.Line(_ack, "ack"u8, 0, 1000).Length + _encoder.MaxValue(_ack) + Percentile(_ack, 99);
        // The same on a histogram with values (the empty one skips GetValueAtPercentile and the encoder's counts).
        _ack.RecordValue(41_300);
        _ack.RecordValue(2_000_000);
        _ = _encoder.Line(_ack, "ack"u8, 0, 1000).Length + _encoder.MaxValue(_ack) + Percentile(_ack, 50) + Percentile(_ack, 99) + Percentile(_ack, 99.99);
        _ack.Reset();
        // The interval recorder's phase flip waits for a writer caught inside its critical section (the sending
        // thread or a session's thread preempted while recording: under load) with Task.Delay(0.5 ms): a path an
        // unloaded warm-up never takes, whose first call sets up the runtime's TimeProvider.System (24 bytes, on the
        // sampler's thread in the measured phase once under load). Taken once here.
        HistogramPhaserWait();
        var point = new IntervalPoint(0, _schedule.PhaseAt(_schedule.Start), 0, 0, 0, 0, 0, 0, 0, 0, 0);
        Progress(point, _schedule.Start, write: false);
        _output.Write(_progress.Buffer, 0, 0);
    }

    /// <summary>
    /// What HdrHistogram's <c>WriterReaderPhaser.FlipPhase</c> calls while a writer is inside its critical section
    /// (<see cref="Recorder"/>'s interval sample: <c>Task.Delay(TimeSpan.FromMilliseconds(0.5)).GetAwaiter().GetResult()</c>,
    /// a completed task: under a millisecond): called in startup so that its first call, which allocates, is not in
    /// the measured phase.
    /// </summary>
    internal static void HistogramPhaserWait() => Task.Delay(TimeSpan.FromMilliseconds(0.5)).GetAwaiter().GetResult();

    private static double Percentile(HistogramBase h, double p) => h.TotalCount == 0 ? 0 : h.GetValueAtPercentile(p) / 1000.0;

    private void TakeSample(long now)
    {
        if (_sampleCount >= _samples.Length)
        {
            return;
        }

        ref var s = ref _samples[_sampleCount];
        s.Tick = now;
        s.DriverSent = _driver.Next - _driver.Refused;
        s.SinkReceived = _sink.Received;
        if (_stats is not null && _stats.TryRead(out var st))
        {
            s.ServiceReceived = st.ApplicationReceived;
            s.Journalled = st.Journalled;
            s.Refused = st.Refused;
            s.Matched = st.Matched;
            s.AnswersSent = st.AnswersSent;
            s.Gen0Collections = st.Gen0Collections;
            s.AllocatedBytes = st.AllocatedBytes;
            s.ResidentBytes = _sampleCount % 20 == 0 || _sampleCount == 0 ? _stats.ResidentBytes() : _samples[_sampleCount - 1].ResidentBytes;
        }

        _sampleCount++;
    }

    // "12.0 s of 67.0 s (55 s left)  steady  sent 10000/s  matched 9998/s  p99 41.3 us  GC 0  RSS 812 MB": built in a
    // char buffer with TryFormat, written in one call.
    private void Progress(in IntervalPoint p, long now, bool write = true)
    {
        double total = (_schedule.End - _schedule.Start) / (double)_schedule.Frequency;
        var w = _progress.Reset();
        w.Append(p.Seconds, "F1").Append(" s of ").Append(total, "F1").Append(" s (").Append(Math.Max(0, total - p.Seconds), "F0").Append(" s left)  ")
            .Append(p.Phase switch { RunPhase.WarmUp => "warm-up", RunPhase.RampUp => "ramp-up", RunPhase.Steady => "steady", _ => "ramp-down" })
            .Append("  sent ").Append(p.SentPerSecond, "F0").Append("/s  matched ").Append(p.MatchedPerSecond, "F0").Append("/s  p99 ")
            .Append(p.AckP99, "F1").Append(" us  GC ").Append(p.Gen0Collections, "D").Append("  RSS ").Append(p.ResidentBytes / (1 << 20), "D").Append(" MB");
        if (write)
        {
            _output.WriteLine(w.Buffer, 0, w.Length);
        }

        _ = now;
    }
}

/// <summary>A line of text built in a buffer allocated once (TryFormat: no strings).</summary>
internal sealed class LineBuffer(int capacity)
{
    public char[] Buffer { get; } = new char[capacity];

    public int Length { get; private set; }

    public LineBuffer Reset()
    {
        Length = 0;
        return this;
    }

    public LineBuffer Append(ReadOnlySpan<char> text)
    {
        int n = Math.Min(text.Length, Buffer.Length - Length);
        text[..n].CopyTo(Buffer.AsSpan(Length));
        Length += n;
        return this;
    }

    public LineBuffer Append(double value, ReadOnlySpan<char> format)
    {
        if (value.TryFormat(Buffer.AsSpan(Length), out int n, format, System.Globalization.CultureInfo.InvariantCulture))
        {
            Length += n;
        }

        return this;
    }

    public LineBuffer Append(long value, ReadOnlySpan<char> format)
    {
        if (value.TryFormat(Buffer.AsSpan(Length), out int n, format, System.Globalization.CultureInfo.InvariantCulture))
        {
            Length += n;
        }

        return this;
    }
}
