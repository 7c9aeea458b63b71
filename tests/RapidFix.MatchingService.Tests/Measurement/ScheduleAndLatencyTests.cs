using HdrHistogram;
using RapidFix.TradeDriver.Measure;

namespace RapidFix.MatchingService.Tests.Measurement;

/// <summary>The open-loop schedule, the latency recorder and the 4-day table's arithmetic, on known inputs.</summary>
public sealed class ScheduleAndLatencyTests
{
    private const long Frequency = 1_000_000; // ticks of a microsecond: easy arithmetic

    [Fact]
    public void The_schedule_fixes_every_intended_time_in_advance_with_the_phases_counts()
    {
        var s = new OpenLoopSchedule(rate: 1000, warmUp: 1, ramp: 1, steady: 2, start: 5_000_000, Frequency);
        // Warm-up 1000, each ramp the mean of 100 and 1000 per second for a second, steady 2000.
        Assert.Equal(1000, s.CountOf(RunPhase.WarmUp));
        Assert.Equal(550, s.CountOf(RunPhase.RampUp));
        Assert.Equal(2000, s.CountOf(RunPhase.Steady));
        Assert.Equal(550, s.CountOf(RunPhase.RampDown));
        Assert.Equal(4100, s.Total);
        Assert.Equal(5_000_000 + 5_000_000, s.End);

        // Steady: exactly one message a millisecond from the phase's start.
        long first = s.FirstOf(RunPhase.Steady);
        Assert.Equal(s.StartOf(RunPhase.Steady), s.IntendedTime(first));
        Assert.Equal(s.StartOf(RunPhase.Steady) + 1000, s.IntendedTime(first + 1));
        Assert.Equal(s.StartOf(RunPhase.Steady) + 1_999_000, s.IntendedTime(first + 1999));

        // The ramp-up starts at a tenth of the rate (10 ms apart) and ends near the full rate (about 1 ms apart).
        long r = s.FirstOf(RunPhase.RampUp);
        Assert.InRange(s.IntendedTime(r + 1) - s.IntendedTime(r), 9_000, 10_000);
        Assert.InRange(s.IntendedTime(r + 549) - s.IntendedTime(r + 548), 900, 1_100);

        long previous = 0;
        for (long i = 0; i < s.Total; i++)
        {
            long t = s.IntendedTime(i);
            Assert.True(t >= previous, $"message {i} is due before message {i - 1}");
            previous = t;
            // Due exactly from its intended time on, not a tick earlier.
            Assert.True(s.DueBy(t) > i, $"message {i} is not due at its own time");
            Assert.True(s.DueBy(t - 1) <= i, $"message {i} is due before its time");
        }

        Assert.Equal(0, s.DueBy(4_999_999));
        Assert.Equal(s.Total, s.DueBy(s.End + 1));
    }

    [Fact]
    public void A_stalled_engine_delays_every_message_due_during_the_stall_not_only_the_first()
    {
        // A fake engine serving 100 µs per message, offered 1000 per second open loop, stalls 500 ms in the steady
        // part. Every message keeps its intended time, so every one due during the stall waits for the stall's end:
        // the recorded latencies grow with the stall; a closed-loop driver (waiting for each answer) would have sent
        // nothing during the stall and recorded one long latency.
        var s = new OpenLoopSchedule(rate: 1000, warmUp: 0, ramp: 0, steady: 3, start: 0, Frequency);
        var latency = new LatencyRecorder(Frequency);
        long stallFrom = 1_000_000, stallTo = 1_500_000;
        long free = 0;
        for (long i = 0; i < s.Total; i++)
        {
            long intended = s.IntendedTime(i);
            long begin = Math.Max(intended, free);
            if (begin >= stallFrom && begin < stallTo)
            {
                begin = stallTo;
            }

            free = begin + 100;
            latency.Record(LatencyChannel.Ack, s.PhaseAt(intended), free - intended);
        }

        var h = latency.Of(LatencyChannel.Ack, RunPhase.Steady);
        Assert.Equal(3000, h.TotalCount);
        // 500 messages were due during the stall. The j-th of them is served at 1.5 s + j * 100 µs, so its latency is
        // 500 ms - j * 900 µs: the first 445 wait 100 ms or more.
        long delayed = 0;
        foreach (var v in h.RecordedValues())
        {
            if (h.LowestEquivalentValue(v.ValueIteratedTo) >= 100_000_000)
            {
                delayed += v.CountAtValueIteratedTo;
            }
        }

        Assert.InRange(delayed, 440, 450);
        Assert.InRange(h.GetMaxValue(), 499_000_000, 501_000_000);
        Assert.InRange(h.GetValueAtPercentile(90), 195_000_000, 305_000_000);
        Assert.InRange(h.GetValueAtPercentile(50), 99_000, 101_000); // the unstalled majority: the 100 µs service time
    }

    [Fact]
    public void The_table_row_of_known_values()
    {
        var h = LatencyRecorder.New();
        for (long us = 1; us <= 10_000; us++)
        {
            h.RecordValue(us * 1000);
        }

        var row = LatencyRow.From("known", h, 12.5);
        Assert.Equal(10_000, row.Count);
        Assert.Equal(12.5, row.RunSeconds);
        // HdrHistogram's 3 significant digits: every figure within 0.1 % (plus a bucket) of the exact one.
        Assert.InRange(row.Min, 0.999, 1.001);
        Assert.InRange(row.Max, 9_990, 10_010);
        Assert.InRange(row.Mean, 4_995, 5_006);
        Assert.InRange(row.Std, 2_880, 2_893); // sqrt((n^2 - 1) / 12) = 2886.75
        Assert.InRange(row.Median, 4_995, 5_005);
        Assert.InRange(row.P90, 8_990, 9_010);
        Assert.InRange(row.P99, 9_890, 9_910);
        Assert.InRange(row.P999, 9_980, 10_010);
        Assert.InRange(row.P99999, 9_990, 10_010);
        string text = LatencyRow.Format([row]);
        Assert.Contains("known", text, StringComparison.Ordinal);
        Assert.Contains("p99.999", text, StringComparison.Ordinal);
    }

    [Fact]
    public void An_empty_channel_gives_a_row_of_zeros_and_a_latency_beyond_an_hour_is_clamped_and_counted()
    {
        var latency = new LatencyRecorder(Frequency);
        Assert.Equal(0, LatencyRow.From("none", latency.Of(LatencyChannel.Cls, RunPhase.Steady), 1).Count);
        latency.Record(LatencyChannel.Cls, RunPhase.Steady, 2L * 3600 * Frequency);
        Assert.Equal(1, latency.Clamped);
        Assert.Equal(1, latency.Of(LatencyChannel.Cls, RunPhase.Steady).TotalCount);
        Assert.Equal(0, latency.Of(LatencyChannel.Cls, RunPhase.WarmUp).TotalCount);
    }

    [Fact]
    public void Interval_histograms_hold_what_was_recorded_since_the_last_interval()
    {
        var latency = new LatencyRecorder(Frequency);
        HistogramBase interval = LatencyRecorder.New();
        latency.Record(LatencyChannel.Ack, RunPhase.Steady, 10);
        latency.Record(LatencyChannel.Ack, RunPhase.Steady, 20);
        latency.TakeInterval(LatencyChannel.Ack, interval);
        Assert.Equal(2, interval.TotalCount);
        latency.Record(LatencyChannel.Ack, RunPhase.Steady, 30);
        latency.TakeInterval(LatencyChannel.Ack, interval);
        Assert.Equal(1, interval.TotalCount);
        Assert.Equal(3, latency.Of(LatencyChannel.Ack, RunPhase.Steady).TotalCount);
    }

    [Theory]
    [InlineData("T42-NOE", 42L, 0)]
    [InlineData("T42-ALC1", 42L, 1)]
    [InlineData("T42-ALC2", 42L, 2)]
    [InlineData("T7-NPR1", 7L, 3)]
    [InlineData("T7-NPR2", 7L, 4)]
    [InlineData("T1-SET1", 1L, 5)]
    [InlineData("T1-SET2", 1L, 6)]
    [InlineData("T2147483647-SET2", (long)int.MaxValue, 6)]
    [InlineData("T1-ALC1R", 1L, -1)]
    [InlineData("T1-ALC3", 1L, -1)]
    [InlineData("X1-NOE", 0L, -1)]
    [InlineData("T-NOE", 0L, -1)]
    [InlineData("T99999999999-NOE", 99_999_999_999L, 0)] // trade numbers are 64-bit: a stream of days at 100,000 messages/s passes 2^31
    [InlineData("T99999999999999999999-NOE", 0L, -1)]
    public void An_answer_ID_names_its_trade_and_message_kind(string id, long trade, int kind)
    {
        Assert.Equal(kind, IntendedTimes.KindOf(System.Text.Encoding.ASCII.GetBytes(id), out long named));
        if (kind >= 0)
        {
            Assert.Equal(trade, named);
        }
    }
}
