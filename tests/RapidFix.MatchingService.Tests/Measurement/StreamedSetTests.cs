using System.Diagnostics;
using System.Text;
using RapidFix.Engine.Codec;
using RapidFix.Tests.Shared;
using RapidFix.TradeDriver;
using RapidFix.TradeDriver.Measure;
using RapidFix.TradeDriver.Report;

namespace RapidFix.MatchingService.Tests.Measurement;

/// <summary>
/// The driver's streamed set (<see cref="TradeStream"/>): byte for byte TradeGenerator's, through a ring smaller than
/// the set; its memory and the intended-time window's fixed by the rate, not the run's length; an answer too late
/// for the window counted, not mis-timed. And the MST verdict with the persister's lag as a queue.
/// </summary>
public sealed class StreamedSetTests
{
    private const long GiB = 1L << 30;

    [Theory]
    [InlineData(7)]
    [InlineData(1)]
    [InlineData(2026)]
    public void The_streamed_set_is_byte_for_byte_the_generators_through_a_ring_smaller_than_the_set(int seed)
    {
        // Whole shuffle windows: the generator interleaves a last, shorter window of its own, the stream never ends.
        const int trades = 4992;
        var participants = TradeGenerator.Participants;
        var (expected, _) = TradeGenerator.Generate(new GeneratorOptions { Trades = trades, Seed = seed });
        var stream = new TradeStream(participants, capacity: 128, seed: seed);

        for (int i = 0; i < expected.Count; i++)
        {
            // Formatting ahead in bursts, as the driver does, and releasing as it sends.
            if (i % 100 == 0)
            {
                stream.FillAhead(long.MaxValue);
            }

            Assert.True(stream.Ensure(i));
            var m = expected[i];
            Assert.True(m.Sender == participants[stream.SessionOf(i)], $"message {i}: sender {participants[stream.SessionOf(i)]}, the generator's {m.Sender}");
            Assert.Equal(m.MsgType, Encoding.ASCII.GetString(stream.MsgTypeOf(i)));
            string body = Encoding.ASCII.GetString(stream.BodyOf(i));
            if (body != m.Body)
            {
                Assert.Fail($"message {i} ({m.Id}) differs:\n  generator {m.Body.Replace('\u0001', '|')}\n  stream    {body.Replace('\u0001', '|')}");
            }

            Assert.Equal(IntendedTimes.KindOf(Encoding.ASCII.GetBytes(m.Id), out long trade), stream.KindOf(i));
            Assert.Equal(trade, stream.TradeOf(i));
            stream.Release(i + 1);
        }

        Assert.Equal(trades * 7, expected.Count);
    }

    [Fact]
    public void A_full_ring_formats_nothing_more_until_the_sender_releases()
    {
        var stream = new TradeStream(TradeGenerator.Participants, capacity: 128);

        Assert.Equal(128, stream.FillAhead(long.MaxValue));
        Assert.False(stream.TryFormatNext());
        Assert.False(stream.Ensure(128));
        stream.Release(10);
        Assert.Equal(10, stream.FillAhead(long.MaxValue));
        Assert.Equal(138, stream.Formatted);
        Assert.Throws<InvalidOperationException>(() => stream.Release(139));
    }

    [Fact]
    public void The_stream_formats_without_allocating()
    {
        var stream = new TradeStream(TradeGenerator.Participants, capacity: 1024);
        var state = (stream, next: new long[1]);
        long bytes = Allocations.Measure(state, static s =>
        {
            if (!s.stream.Ensure(s.next[0]))
            {
                throw new InvalidOperationException("the ring was full");
            }

            s.stream.Release(++s.next[0]);
        }, iterations: 50_000, warmup: 5_000);

        Assert.Equal(0, bytes);
    }

    [Fact]
    public void The_drivers_memory_is_the_same_for_a_run_of_a_million_messages_and_of_a_hundred_million()
    {
        // 80 % of a 32,000/s MST: a million messages is 40 s, a hundred million is 54 minutes.
        const double rate = 25_600;
        var million = JournalSizing.For(1_000_000, 4, requestedJournalBytes: 0, rate);
        var hundredMillion = JournalSizing.For(100_000_000, 4, requestedJournalBytes: 0, rate);

        Assert.Equal(million.DriverBytes, hundredMillion.DriverBytes);
        Assert.True(hundredMillion.DriverBytes < GiB, $"the driver needs {hundredMillion.DriverBytes >> 20} MiB");
        // The old prepared set was about a KiB a message: 95 GiB for the longer run.
        Assert.True(hundredMillion.DriverBytes * 100 < 100_000_000L * 1024);

        // The structures themselves: sized by the rate alone.
        var (set, intended) = TradeSet.Prepare(rate, TradeGenerator.Participants);
        Assert.Equal(TradeStream.DefaultCapacity, set.Capacity);
        Assert.Equal(IntendedTimes.BytesFor(IntendedTimes.WindowFor(rate)), intended.Bytes);
        Assert.Equal(JournalSizing.DriverBaseBytes + TradeStream.BytesFor(set.Capacity) + intended.Bytes, million.DriverBytes);
        Assert.True(intended.Window * 7L >= rate * IntendedTimes.LatenessSeconds, "the window holds the trades of the lateness allowed");
        Assert.True(intended.Bytes <= 128L << 20, $"the intended-time window is {intended.Bytes >> 20} MiB");
    }

    [Fact]
    public void A_ten_minute_soak_at_80_percent_of_the_mst_is_no_longer_refused_for_the_drivers_memory()
    {
        // 25,600/s for 600 s plus warm-up and ramps: 15.4 M messages; the old estimate wanted ~16 GB for the driver.
        long inputs = 15_400_000;
        var sizing = JournalSizing.For(inputs, 4, requestedJournalBytes: 0, 25_600);

        Assert.True(sizing.MemoryBytes < sizing.JournalBytes + (4 * sizing.SessionStoreBytes) + GiB);
        Assert.Null(sizing.Refusal(freeDisk: 100 * GiB, availableMemory: 24 * GiB));
    }

    [Fact]
    public void An_answer_later_than_the_window_is_counted_as_too_late_not_timed_against_a_later_trade()
    {
        var intended = new IntendedTimes(1024);
        Assert.Equal(1024, intended.Window);
        intended.Set(5, 0, 100);
        intended.Set(5, 3, 300);
        Assert.Equal(100, intended.Get(5, 0));
        Assert.Equal(300, intended.LatestOfTrade(5));
        Assert.Equal(0, intended.Get(5, 1));
        Assert.Equal(0, intended.Get(6, 0));

        // Trade 5 + 1024 takes the row: trade 5's answers are too late, the new trade's own times start clean.
        intended.Set(5 + 1024, 1, 900);
        Assert.Equal(IntendedTimes.Overwritten, intended.Get(5, 0));
        Assert.Equal(IntendedTimes.Overwritten, intended.LatestOfTrade(5));
        Assert.Equal(0, intended.Get(5 + 1024, 0));
        Assert.Equal(900, intended.Get(5 + 1024, 1));
        Assert.Equal(900, intended.LatestOfTrade(5 + 1024));

        // The sink counts it, records nothing for it, and times the new trade's answer.
        var schedule = new OpenLoopSchedule(1000, 0, 0, 10, 0, Stopwatch.Frequency);
        var latency = new LatencyRecorder(Stopwatch.Frequency);
        var sink = new TradeSink(intended, schedule, latency);
        sink.Observe(Parse("8=FIX.4.4|35=AR|49=MATCH|56=EB1|34=2|52=20261123-10:00:00.000|571=T5-NOE|487=0|150=F|939=0|55=[N/A]|"), 10_000);
        Assert.Equal(1, sink.TooLate);
        Assert.Equal(0, latency.Of(LatencyChannel.Ack, RunPhase.Steady).TotalCount);
        sink.Observe(Parse("8=FIX.4.4|35=P|49=MATCH|56=IM1|34=3|52=20261123-10:00:00.000|70=T1029-ALC1|60=20261123-10:00:00.000|87=0|"), 10_000);
        Assert.Equal(1, sink.TooLate);
        Assert.Equal(1, latency.Of(LatencyChannel.Ack, RunPhase.Steady).TotalCount);
        Assert.Equal(2, sink.Acks);
        Assert.Equal(0, sink.Untraced);
    }

    [Fact]
    public void A_step_whose_persister_lag_grows_is_unsustainable_and_named()
    {
        // Steady window 5-15 s; the lag climbs 2,000 inputs a second (20,000 over the window, tolerance 1,000).
        var points = Lag(t => (long)(t * 2000));
        var verdict = PersisterVerdict.Of(points, catchUpSeconds: 4, from: 5, to: 15, tolerance: 1000);

        Assert.True(verdict.Grew);
        Assert.False(verdict.Bounded);
        Assert.InRange(verdict.GrowthPerSecond, 1999, 2001);
        var step = new StepResult(10_000, 10_000, true, 0, 50, 100, 300, 0, verdict);
        Assert.False(step.Sustainable(0));
        Assert.Contains("persister lag (journalled - persisted) grew 2,000 inputs/s", step.Why(0), StringComparison.Ordinal);

        // The search stops there, and its line names the queue.
        var mst = MstSearch.Run(rate => rate < 8000 ? new StepResult(rate, rate, true, 0, 50, 100, 300, 0, Bounded()) : step with { Offered = rate, Achieved = rate },
            start: 2000, ceiling: 64_000, precision: 0.3, maxSteps: 6);
        Assert.True(mst.Mst is >= 4000 and < 8000);
        string line = MeasureReport.MstLine(mst);
        Assert.Contains("the whole path (service and PostgreSQL persister)", line, StringComparison.Ordinal);
        Assert.Contains("8,000/s was not: persister lag (journalled - persisted) grew", line, StringComparison.Ordinal);
    }

    [Fact]
    public void A_step_whose_persister_lag_is_bounded_is_sustainable()
    {
        // A lag that swings between 0 and 3,000 inputs (batches) without a trend, and drained after the step.
        var verdict = Bounded();

        Assert.False(verdict.Grew);
        Assert.True(verdict.CaughtUp);
        Assert.True(verdict.Bounded);
        Assert.True(new StepResult(10_000, 10_000, true, 0, 50, 100, 300, 0, verdict).Sustainable(0));
        Assert.Equal("", new StepResult(10_000, 10_000, true, 0, 50, 100, 300, 0, verdict).Why(0));
    }

    [Fact]
    public void A_persister_lag_with_late_bursts_over_a_steady_level_is_bounded_and_a_rising_level_is_not()
    {
        // The lag sits at 300 inputs with bursts of 30,000 late in the window: the slope is positive (growth over
        // the window above the tolerance) but the typical level stays, so it did not grow.
        var bursts = PersisterVerdict.Of(Lag(t => t > 12 && (long)(t * 2) % 3 == 0 ? 30_000 : 300), catchUpSeconds: 0.5, from: 5, to: 15, tolerance: 1000);
        Assert.True(bursts.GrowthPerSecond * 10 > 1000);
        Assert.Equal(0, bursts.LevelRise, 6);
        Assert.False(bursts.Grew);
        Assert.True(bursts.Bounded);

        // The same bursts over a level climbing 300 inputs a second (3,000 over the window): it grew.
        var rising = PersisterVerdict.Of(Lag(t => (t > 12 && (long)(t * 2) % 3 == 0 ? 30_000 : 300) + (long)(t * 300)), catchUpSeconds: 0.5, from: 5, to: 15, tolerance: 1000);
        Assert.InRange(rising.LevelRise, 2000, 4000);
        Assert.True(rising.Grew);
        Assert.False(rising.Bounded);
    }

    [Fact]
    public void A_persister_that_does_not_drain_after_the_step_makes_it_unsustainable()
    {
        var verdict = PersisterVerdict.Of(Lag(t => 500), catchUpSeconds: null, from: 5, to: 15, tolerance: 1000);

        Assert.False(verdict.Grew);
        Assert.False(verdict.Bounded);
        var step = new StepResult(10_000, 10_000, true, 0, 50, 100, 300, 0, verdict);
        Assert.False(step.Sustainable(0));
        Assert.Equal("persister lag (journalled - persisted) did not drain after the step", step.Why(0));
    }

    [Fact]
    public void Without_a_persister_the_step_is_of_the_service_alone()
    {
        var step = new StepResult(10_000, 10_000, true, 0, 50, 100, 300, 0);

        Assert.True(step.Sustainable(0));
        Assert.Equal("the service alone (no persister)", step.Path);
        Assert.Contains("messages inside the service (sent - matched) grew", (step with { Bounded = false, GrowthPerSecond = 500 }).Why(0), StringComparison.Ordinal);
    }

    private static PersisterVerdict Bounded() =>
        PersisterVerdict.Of(Lag(t => (long)(t * 10) % 2 == 0 ? 3000 : 0), catchUpSeconds: 0.5, from: 5, to: 15, tolerance: 1000);

    // A lag sample every half second for 20 s (warm-up and ramps around the steady 5-15 s).
    private static List<LagPoint> Lag(Func<double, long> lag)
    {
        var points = new List<LagPoint>();
        for (int i = 0; i <= 40; i++)
        {
            double t = i * 0.5;
            long journalled = 10_000 * i;
            points.Add(new LagPoint(t, journalled, journalled - lag(t)));
        }

        return points;
    }

    private static FixMessage Parse(string text)
    {
        var m = new FixMessage();
        Assert.Equal(FixParseError.None, m.ParseCopy(FixSamples.Wire(text)));
        return m;
    }
}
