using System.Buffers.Binary;
using System.Diagnostics;
using System.IO.Compression;
using HdrHistogram;
using RapidFix.Tests.Shared;
using RapidFix.TradeDriver.Measure;

namespace RapidFix.MatchingService.Tests.Measurement;

/// <summary>
/// The driver's own <c>.hlog</c> writer (<see cref="HlogEncoder"/>, <see cref="HlogFile"/>): what HdrHistogram's log
/// reader reads back is the histogram written, count for count, with its tag and interval; the zlib stream is valid
/// (its Adler-32 checked by zlib itself) and compresses; and appending an interval allocates nothing.
/// </summary>
public sealed class HlogTests : IDisposable
{
    private readonly string _path = Path.Combine(Path.GetTempPath(), "rapidfix-hlog-" + Guid.NewGuid().ToString("N") + ".hlog");

    public void Dispose() => File.Delete(_path);

    [Fact]
    public void HdrHistogram_reads_back_every_interval_count_for_count_with_its_tag_and_times()
    {
        var intervals = new[] { Typical(1), Typical(2), LatencyRecorder.New(), Wide(), Spread(20_000) };
        var tags = new[] { "ack", "send", "cls", "ack", "send" };
        var start = new DateTime(2026, 11, 27, 9, 0, 0, DateTimeKind.Utc);
        long frequency = Stopwatch.Frequency;
        using (var file = new HlogFile(_path, start, new HlogEncoder(LatencyRecorder.New())))
        {
            for (int i = 0; i < intervals.Length; i++)
            {
                file.Append(intervals[i], System.Text.Encoding.ASCII.GetBytes(tags[i]), i * frequency, (i + 1) * frequency, frequency);
            }
        }

        string text = File.ReadAllText(_path);
        Assert.StartsWith("#[Histogram log format version 1.3]\n#[StartTime: 1795770000.000 (seconds since epoch), 2026-11-27T09:00:00", text, StringComparison.Ordinal);
        Assert.All(text, c => Assert.True(c < 128, "ASCII only"));
        using var stream = File.OpenRead(_path);
        var read = new HistogramLogReader(stream).ReadHistograms().ToList();
        Assert.Equal(intervals.Length, read.Count);
        long startMs = new DateTimeOffset(start).ToUnixTimeMilliseconds();
        for (int i = 0; i < intervals.Length; i++)
        {
            var (written, back) = (intervals[i], read[i]);
            Assert.Equal(tags[i], back.Tag);
            Assert.Equal(startMs + (i * 1000), back.StartTimeStamp);
            Assert.Equal(startMs + ((i + 1) * 1000), back.EndTimeStamp);
            Assert.Equal(written.TotalCount, back.TotalCount);
            SameCounts(written, back);

            if (written.TotalCount > 0)
            {
                Assert.Equal(written.GetMaxValue(), back.GetMaxValue());
                Assert.Equal(written.GetValueAtPercentile(99.99), back.GetValueAtPercentile(99.99));
            }
        }

        // The max column: milliseconds, as HdrHistogram's writer puts it.
        string line = text.Split('\n')[3];
        Assert.StartsWith("Tag=ack,1795770000.000,1.000," + (intervals[0].GetMaxValue() / 1e6).ToString("F3", System.Globalization.CultureInfo.InvariantCulture) + ",", line, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(true)]
    [InlineData(false)]
    public void The_compressed_form_is_a_valid_zlib_stream_of_the_V2_encoding_with_either_deflater(bool systemZlib)
    {
        var encoder = new HlogEncoder(LatencyRecorder.New(), systemZlib);
        Assert.Equal(systemZlib ? "zlib" : "fixed-Huffman deflate", encoder.Deflater);
        foreach (var (h, most) in new[] { (Typical(4), 0.8), (Wide(), 0.2), (LatencyRecorder.New(), 2.0) })
        {
            var compressed = encoder.Compressed(h).ToArray();
            Assert.Equal(0x1c849314, BinaryPrimitives.ReadInt32BigEndian(compressed));
            Assert.Equal(compressed.Length - 8, BinaryPrimitives.ReadInt32BigEndian(compressed.AsSpan(4)));
            using var zlib = new ZLibStream(new MemoryStream(compressed, 8, compressed.Length - 8), CompressionMode.Decompress);
            var payload = new MemoryStream();
            zlib.CopyTo(payload); // zlib checks the Adler-32: a wrong checksum throws
            var v2 = payload.ToArray();
            Assert.Equal(0x1c849313, BinaryPrimitives.ReadInt32BigEndian(v2));
            Assert.Equal(v2.Length - 40, BinaryPrimitives.ReadInt32BigEndian(v2.AsSpan(4)));
            Assert.Equal(3, BinaryPrimitives.ReadInt32BigEndian(v2.AsSpan(12)));
            Assert.Equal(LatencyRecorder.HighestNanos, BinaryPrimitives.ReadInt64BigEndian(v2.AsSpan(24)));
            // The V2 encoding, decoded by HdrHistogram (uncompressed), is the histogram count for count.
            var back = HistogramEncoding.DecodeFromByteBuffer(HdrHistogram.Utilities.ByteBuffer.Allocate(v2), 0);
            Assert.Equal(h.TotalCount, back.TotalCount);
            SameCounts(h, back);

            // It compresses (HdrHistogram.NET's reader reads only what the first 8 KiB of deflated input give).
            Assert.True(compressed.Length < v2.Length * most, $"{compressed.Length} bytes compressed of {v2.Length}");
        }
    }

    [Fact]
    public void The_max_is_HdrHistogram_s_without_its_allocations()
    {
        var encoder = new HlogEncoder(LatencyRecorder.New());
        foreach (var h in new[] { Typical(5), Wide(), LatencyRecorder.New() })
        {
            Assert.Equal(h.TotalCount == 0 ? 0 : h.GetMaxValue(), encoder.MaxValue(h));
        }
    }

    [Theory]
    [InlineData(true)]
    [InlineData(false)]
    public void Appending_an_interval_allocates_nothing(bool systemZlib)
    {
        var h = Spread(20_000);
        using var file = new HlogFile(_path, DateTime.UtcNow, new HlogEncoder(h, systemZlib));
        var state = (file, h, tick: new long[1]);
        var window = Allocations.MeasureWindow(state, static s =>
        {
            s.file.Append(s.h, "ack"u8, s.tick[0], s.tick[0] + Stopwatch.Frequency, Stopwatch.Frequency);
            s.tick[0] += Stopwatch.Frequency;
        }, iterations: 200, warmup: 100);
        Assert.True(window.Bytes == 0, window.ToString());

        var encoder = new HlogEncoder(h);
        Assert.Equal(0, Allocations.Measure((encoder, h), static s => s.encoder.MaxValue(s.h), iterations: 200, warmup: 100));
    }

    // Count for count at every bucket of the range (probed by value: HdrHistogram.NET's iterator misplaces values in
    // its top buckets, where its equivalent-range arithmetic overflows an int).
    private static void SameCounts(HistogramBase expected, HistogramBase actual)
    {
        for (long v = 1; v <= LatencyRecorder.HighestNanos; v += Math.Max(1, v / 4096))
        {
            long count = expected.GetCountAtValue(v);
            if (count != actual.GetCountAtValue(v))
            {
                Assert.Fail($"count at {v}: {count} written, {actual.GetCountAtValue(v)} read back");
            }
        }
    }

    /// <summary>An interval of a run: a few thousand latencies from microseconds to a second, with a tail.</summary>
    internal static LongConcurrentHistogram Typical(int seed)
    {
        var h = LatencyRecorder.New();
        var random = new Random(seed);
        for (int i = 0; i < 5_000; i++)
        {
            h.RecordValue((long)(20_000 * Math.Exp(random.NextDouble() * 6)));
        }

        h.RecordValue(1);
        h.RecordValue(1_500_000_000);
        return h;
    }

    /// <summary>A long interval at a high rate: latencies spread log-uniformly over six decades, 1 us to 1 s.</summary>
    internal static LongConcurrentHistogram Spread(int count)
    {
        var h = LatencyRecorder.New();
        var random = new Random(count);
        for (int i = 0; i < count; i++)
        {
            h.RecordValue((long)(1000 * Math.Exp(random.NextDouble() * Math.Log(1e6))));
        }

        return h;
    }

    // Every bucket of the range holds counts: the longest encoding (more than one stored block).
    internal static LongConcurrentHistogram Wide()
    {
        var h = LatencyRecorder.New();
        for (long v = 1; v < LatencyRecorder.HighestNanos; v += Math.Max(1, v / 1000))
        {
            h.RecordValueWithCount(v, 20_000);
        }

        h.RecordValue(LatencyRecorder.HighestNanos);
        return h;
    }
}

/// <summary>The persister lag's file between the <c>persister-lag</c> child and the driver: what is written is read, without allocating.</summary>
public sealed class LagFileTests : IDisposable
{
    private readonly string _path = Path.Combine(Path.GetTempPath(), "rapidfix-lag-" + Guid.NewGuid().ToString("N") + ".bin");

    public void Dispose() => File.Delete(_path);

    [Fact]
    public void A_reading_written_by_one_mapping_is_read_by_another_and_reading_allocates_nothing()
    {
        using var reader = LagFile.Create(_path);
        Assert.True(reader.TryRead(out long count, out _, out _, out _));
        Assert.Equal(0, count);
        using var writer = LagFile.Open(_path);
        writer.Write(123, 5_000, 4_990);
        writer.Write(456, 6_000, 5_990);
        Assert.True(reader.TryRead(out count, out long timestamp, out long journalled, out long persisted));
        Assert.Equal((2L, 456L, 6_000L, 5_990L), (count, timestamp, journalled, persisted));
        Assert.Equal(0, Allocations.Measure(reader, static r => r.TryRead(out _, out _, out _, out _), iterations: 10_000));
    }
}
