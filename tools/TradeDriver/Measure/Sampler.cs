using System.Diagnostics;
using HdrHistogram;

namespace RapidFix.TradeDriver.Measure;

/// <summary>
/// The measuring process's clock-driven side: every <see cref="RunOptions.SampleSeconds"/> it samples the driver's,
/// sink's and service's counters into a pre-sized array (operational analysis); every
/// <see cref="RunOptions.IntervalSeconds"/> it takes the interval histograms (latency over time), appends them to the
/// <c>.hlog</c> and prints the progress line. Sampling and the progress line allocate nothing; the <c>.hlog</c>
/// encoder allocates a little per interval (HdrHistogram's compressor), on this thread only, never per message.
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
    }

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
        using var hlog = _o.WriteHlog ? new HlogFile(Path.Combine(_o.OutputDirectory, "intervals.hlog"), DateTime.UtcNow) : null;
        while (!_stop)
        {
            long now = Stopwatch.GetTimestamp();
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
                hlog?.Append(_ack, "ack", lastIntervalTick - _schedule.Start, now - _schedule.Start, frequency);
                hlog?.Append(_send, "send", lastIntervalTick - _schedule.Start, now - _schedule.Start, frequency);
                hlog?.Append(_cls, "cls", lastIntervalTick - _schedule.Start, now - _schedule.Start, frequency);
                var point = new IntervalPoint((now - _schedule.Start) / (double)frequency, _schedule.PhaseAt(now), (last.DriverSent - lastSent) / dt,
                    (last.Matched - lastMatched) / dt, _ack.TotalCount, Percentile(_ack, 50), Percentile(_ack, 99), Percentile(_ack, 99.99),
                    _ack.TotalCount == 0 ? 0 : _ack.GetMaxValue() / 1000.0, last.Gen0Collections, last.ResidentBytes);
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
    }

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
    private void Progress(in IntervalPoint p, long now)
    {
        double total = (_schedule.End - _schedule.Start) / (double)_schedule.Frequency;
        var w = _progress.Reset();
        w.Append(p.Seconds, "F1").Append(" s of ").Append(total, "F1").Append(" s (").Append(Math.Max(0, total - p.Seconds), "F0").Append(" s left)  ")
            .Append(p.Phase switch { RunPhase.WarmUp => "warm-up", RunPhase.RampUp => "ramp-up", RunPhase.Steady => "steady", _ => "ramp-down" })
            .Append("  sent ").Append(p.SentPerSecond, "F0").Append("/s  matched ").Append(p.MatchedPerSecond, "F0").Append("/s  p99 ")
            .Append(p.AckP99, "F1").Append(" us  GC ").Append(p.Gen0Collections, "D").Append("  RSS ").Append(p.ResidentBytes / (1 << 20), "D").Append(" MB");
        _output.WriteLine(w.Buffer, 0, w.Length);
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

/// <summary>
/// An HdrHistogram interval log (<c>.hlog</c>): one tagged, compressed histogram per interval and channel, in ASCII as
/// the Java and .NET log readers expect (HdrHistogram.NET's writer emits UTF-16, so its text is re-encoded here).
/// </summary>
internal sealed class HlogFile : IDisposable
{
    private readonly FileStream _file;
    private readonly MemoryStream _buffer = new();
    private readonly HistogramLogWriter _writer;
    private readonly long _startMs;
    private long _copied;

    public HlogFile(string path, DateTime start)
    {
        _file = new FileStream(path, FileMode.Create, FileAccess.Write, FileShare.Read);
        _writer = new HistogramLogWriter(_buffer);
        _writer.Write(start); // the header: format version, start time, legend
        _startMs = new DateTimeOffset(start).ToUnixTimeMilliseconds();
        Copy();
    }

    /// <summary>Appends one interval's histogram (its start and end, in ticks from the run's start).</summary>
    public void Append(HistogramBase h, string tag, long fromTicks, long toTicks, long frequency)
    {
        h.Tag = tag;
        h.StartTimeStamp = _startMs + (fromTicks * 1000 / frequency);
        h.EndTimeStamp = _startMs + (toTicks * 1000 / frequency);
        _writer.Append(h);
        Copy();
    }

    public void Dispose()
    {
        _writer.Dispose();
        _file.Dispose();
    }

    // Moves what the writer added from the buffer to the file as ASCII (the writer flushes after each entry).
    private void Copy()
    {
        var bytes = _buffer.GetBuffer().AsSpan((int)_copied, (int)(_buffer.Length - _copied));
        _copied = _buffer.Length;
        string text = System.Text.Encoding.Unicode.GetString(bytes).TrimStart('\uFEFF');
        _file.Write(System.Text.Encoding.ASCII.GetBytes(text));
        _file.Flush();
        if (_copied > 1 << 20)
        {
            _buffer.SetLength(0);
            _copied = 0;
        }
    }
}
