using BenchmarkDotNet.Attributes;
using HdrHistogram;
using RapidFix.TradeDriver.Measure;

namespace RapidFix.Benchmarks.Measurement;

/// <summary>
/// The trade driver's <c>.hlog</c> line, per interval histogram (the sampler writes three an interval): its own
/// encoder (<see cref="HlogEncoder"/>: the V2 encoding read through the histogram's counts, deflated by the system's
/// zlib or by the fixed-Huffman fallback, base64 into a buffer allocated once) against HdrHistogram.NET's log writer
/// (what the driver used before: a counts array, a deflate stream, a base64 string and a UTF-16 line each time).
/// Histograms: a 1-s interval at 1,000 messages/s (5,000 latencies over two and a half decades) and a 10-s interval
/// at 2,000/s (20,000 over six decades).
/// </summary>
[MemoryDiagnoser]
public class HlogBenchmarks
{
    private readonly MemoryStream _library = new();
    private HistogramBase _histogram = null!;
    private HlogEncoder _encoder = null!;
    private HistogramLogWriter _writer = null!;

    [Params(5_000, 20_000)]
    public int Latencies { get; set; }

    [Params(true, false)]
    public bool SystemZlib { get; set; }

    [GlobalSetup]
    public void Setup()
    {
        var h = LatencyRecorder.New();
        var random = new Random(Latencies);
        double decades = Latencies <= 5_000 ? 2.5 : 6;
        for (int i = 0; i < Latencies; i++)
        {
            h.RecordValue((long)(20_000 * Math.Pow(10, random.NextDouble() * decades)));
        }

        h.Tag = "ack";
        _histogram = h;
        _encoder = new HlogEncoder(h, SystemZlib);
        _writer = new HistogramLogWriter(_library);
        _writer.Write(DateTime.UtcNow);
    }

    [Benchmark(Baseline = true)]
    public int HdrHistogramLogWriter()
    {
        _library.SetLength(0);
        _writer.Append(_histogram);
        return (int)_library.Length;
    }

    [Benchmark]
    public int DriverEncoder() => _encoder.Line(_histogram, "ack"u8, 1_795_770_000_000, 1_795_770_001_000).Length;
}
