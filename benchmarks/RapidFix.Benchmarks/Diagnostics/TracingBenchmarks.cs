using BenchmarkDotNet.Attributes;
using RapidFix.Engine.Diagnostics;
using RapidFix.Pools.Diagnostics;
using RapidFix.Pools.Phases;

namespace RapidFix.Benchmarks.Diagnostics;

/// <summary>
/// What tracing costs the hot paths: the latency hooks with recording off (no listener) and on, a histogram record,
/// the allocated-bytes refresh of an engine thread, an event write when nobody listens, and the monitor's
/// once-per-interval work (merge, percentiles, encoding) and a read of the engine's counters.
/// </summary>
[MemoryDiagnoser]
public class TracingBenchmarks
{
    private readonly LatencyHistogram _histogram = new();
    private readonly LatencyHistogram _previous = new();
    private readonly LatencyHistogram _interval = new();
    private readonly byte[] _bytes = new byte[LatencyHistogramCodec.MaxEncodedLength];
    private readonly char[] _text = new char[LatencyHistogramCodec.MaxEncodedLength * 2];
    private EngineThreadStats _thread = null!;
    private EngineMonitor _monitor = null!;
    private Engine.Hosting.EngineHost _host = null!;
    private long _value;

    [GlobalSetup]
    public void Setup()
    {
        _thread = EngineThreads.Current;
        var random = new Random(1);
        for (int i = 0; i < 100_000; i++)
        {
            _histogram.Record(1_000 + random.Next(50_000));
        }

        _monitor = new EngineMonitor(new PhaseController("benchmark"), null, TimeSpan.FromHours(1));
        // An engine with one listening session: enough to read every counter (sessions, pools, queues, threads, GC).
        var settings = Engine.Configuration.SettingsFile.Parse("""
            [DEFAULT]
            ConnectionType=acceptor
            SocketAcceptHost=127.0.0.1
            SocketAcceptPort=0
            StartTime=00:00:00
            EndTime=00:00:00
            StoreType=express
            [SESSION]
            BeginString=FIX.4.4
            SenderCompID=BENCH
            TargetCompID=PEER
            """);
        _host = Engine.Hosting.EngineHost.Start(settings, _ => new Engine.Sessions.FixApplicationBase());
    }

    [GlobalCleanup]
    public void Cleanup()
    {
        _monitor.Dispose();
        _host.Dispose();
    }

    [Benchmark(Description = "engine counters read")]
    public long ReadCounters()
    {
        _host.ReadCounters(out var counters);
        return counters.MessagesIn + counters.PoolsCapacity;
    }

    [Benchmark(Baseline = true, Description = "latency hooks, no listener")]
    public void HooksWithoutListener()
    {
        EngineLatency.AlwaysRecord = false;
        long start = EngineLatency.Start();
        EngineLatency.Stop(LatencyChannel.Receive, start);
    }

    [Benchmark(Description = "latency hooks, recording")]
    public void HooksRecording()
    {
        EngineLatency.AlwaysRecord = true;
        long start = EngineLatency.Start();
        EngineLatency.Stop(LatencyChannel.Receive, start);
        EngineLatency.AlwaysRecord = false;
    }

    [Benchmark(Description = "histogram record")]
    public void Record() => _histogram.Record((_value++ & 0xFFFF) + 500);

    [Benchmark(Description = "engine thread allocated-bytes refresh")]
    public void RefreshAllocatedBytes() => _thread.RefreshAllocatedBytes();

    [Benchmark(Description = "session event, no listener")]
    public void SessionEventWithoutListener() => RapidFixEventSource.Log.WriteSession(RapidFixEventSource.SessionRejectId, "FIX.4.4:A->B", 0, 5, 35);

    [Benchmark(Description = "interval: difference, percentiles, text encoding")]
    public int IntervalSummary()
    {
        _previous.Reset();
        _interval.CopyDifference(_histogram, _previous);
        long p = _interval.ValueAtPercentile(50) + _interval.ValueAtPercentile(99.99) + _interval.Min;
        return LatencyHistogramCodec.EncodeText(_interval, _bytes, _text) + (int)(p & 1);
    }

    [Benchmark(Description = "monitor flush, no listener")]
    public void MonitorFlush() => _monitor.Flush();
}
