using RapidFix.TradeDriver.Measure;

namespace RapidFix.MatchingService.Tests.Measurement;

/// <summary>The MST search on a simulated system of known capacity, and operational analysis on synthetic samples.</summary>
public sealed class MethodTests
{
    private const long Frequency = 1_000_000;

    // A system that completes at most `capacity` messages a second: beyond it, achieved stops at the capacity and the
    // backlog grows by the difference; its p99 rises as it nears the capacity.
    private static Func<double, StepResult> Simulated(double capacity, List<double> asked) => rate =>
    {
        asked.Add(rate);
        double achieved = Math.Min(rate, capacity);
        double growth = rate - achieved;
        double p99 = 50 + (1000 * rate / capacity);
        return new StepResult(rate, achieved, growth <= 0, growth, p99 / 2, p99, p99 * 3, 0);
    };

    [Fact]
    public void The_search_finds_the_capacity_of_a_simulated_system_within_its_precision()
    {
        var asked = new List<double>();
        var result = MstSearch.Run(Simulated(23_000, asked), start: 1000, ceiling: 200_000, precision: 0.02, maxSteps: 20);
        Assert.InRange(result.Mst, 23_000 * 0.98, 23_000);
        // Doubling up to the first unsustainable rate (1k..32k), then halving the bracket.
        Assert.Equal([1000, 2000, 4000, 8000, 16000, 32000], asked.Take(6));
        Assert.Equal(asked.Count, result.Steps.Count);
        Assert.All(result.Curve.Where(s => s.Offered <= 23_000), s => Assert.True(s.Sustainable(0)));
        Assert.All(result.Curve.Where(s => s.Offered > 23_000), s => Assert.False(s.Sustainable(0)));
    }

    [Fact]
    public void A_p99_limit_lowers_the_mst_to_where_the_latency_meets_it()
    {
        // p99 = 50 + 1000 * rate / capacity: a 550 µs limit is met up to half the capacity.
        var result = MstSearch.Run(Simulated(40_000, []), start: 1000, ceiling: 200_000, precision: 0.02, maxSteps: 20, p99LimitMicros: 550);
        Assert.InRange(result.Mst, 20_000 * 0.98, 20_000);
    }

    [Fact]
    public void A_ceiling_that_is_sustainable_is_the_answer_and_a_first_step_that_is_not_gives_zero()
    {
        Assert.Equal(5000, MstSearch.Run(Simulated(1e9, []), start: 1000, ceiling: 5000).Mst);
        var none = MstSearch.Run(Simulated(100, []), start: 1000, ceiling: 5000, precision: 0.05, maxSteps: 3);
        Assert.True(none.Mst < 1000);
        Assert.Equal(3, none.Steps.Count);
    }

    [Fact]
    public void A_confirmation_over_a_longer_window_lowers_an_mst_that_short_steps_overstated()
    {
        // The soak's case (issue 13): short steps see a slow build-up as bounded up to 24,000/s; over the long window
        // a growth above 20,000/s shows. Each failed confirmation tries a tenth lower.
        var asked = new List<double>();
        var confirmed = new List<double>();
        var result = MstSearch.Run(Simulated(24_000, asked), start: 3000, ceiling: 64_000, precision: 0.05, maxSteps: 10,
            confirm: Simulated(20_000, confirmed), maxConfirmations: 3);
        Assert.Equal([24_000, 21_600, 19_440], confirmed);
        Assert.True(result.Confirmed);
        Assert.Equal(19_440, result.Mst);
        Assert.Equal(asked.Count + 3, result.Steps.Count);
        Assert.Equal(3, result.Steps.Count(s => s.Confirmation));
        Assert.Contains("confirmed over a 300-s step", RapidFix.TradeDriver.Report.MeasureReport.MstLine(result with { ConfirmSeconds = 300 }), StringComparison.Ordinal);
        Assert.Contains("21,600/s over 300 s was not", RapidFix.TradeDriver.Report.MeasureReport.MstLine(result with { ConfirmSeconds = 300 }), StringComparison.Ordinal);

        // A confirmation that holds keeps the rate; none that holds gives 0, not confirmed.
        var held = MstSearch.Run(Simulated(24_000, []), start: 3000, ceiling: 64_000, precision: 0.05, maxSteps: 10, confirm: Simulated(24_000, []));
        Assert.True(held.Confirmed);
        Assert.Equal(24_000, held.Mst);
        var none = MstSearch.Run(Simulated(24_000, []), start: 3000, ceiling: 64_000, precision: 0.05, maxSteps: 10, confirm: Simulated(1_000, []), maxConfirmations: 2);
        Assert.False(none.Confirmed);
        Assert.Equal(0, none.Mst);
        Assert.Null(MstSearch.Run(Simulated(24_000, []), start: 3000, ceiling: 64_000).Confirmed);
    }

    [Fact]
    public void A_step_is_unsustainable_when_achieved_falls_short_or_something_was_refused()
    {
        Assert.True(new StepResult(1000, 995, true, 0, 1, 2, 3, 0).Sustainable(0));
        Assert.False(new StepResult(1000, 900, true, 0, 1, 2, 3, 0).Sustainable(0));
        Assert.False(new StepResult(1000, 1000, true, 0, 1, 2, 3, 1).Sustainable(0));
        Assert.False(new StepResult(1000, 1000, false, 50, 1, 2, 3, 0).Sustainable(0));
    }

    // Samples every 10 ms for a second: the driver sends 1000/s; everything passes the first components at once;
    // the matcher holds five inputs at every sample and completes 1000/s; the sink gets an answer per input.
    private static QueueSample[] Synthetic(int matcherQueue, double growthPerSecond = 0)
    {
        var samples = new QueueSample[101];
        for (int k = 0; k <= 100; k++)
        {
            long sent = k * 10;
            long extra = (long)(growthPerSecond * k / 100);
            samples[k] = new QueueSample
            {
                Tick = k * 10_000,
                DriverSent = sent + matcherQueue + extra,
                ServiceReceived = sent + matcherQueue + extra,
                Journalled = sent + matcherQueue + extra,
                Matched = sent,
                AnswersSent = sent,
                SinkReceived = sent,
            };
        }

        return samples;
    }

    [Fact]
    public void Operational_analysis_derives_throughput_utilisation_and_littles_law_and_names_the_bottleneck()
    {
        var oa = OperationalAnalysis.Analyze(Synthetic(5), Frequency);
        var matcher = oa.Components.Single(c => c.Component == Component.Matcher);
        Assert.Equal(1.0, matcher.Seconds, 9);
        Assert.Equal(1000, matcher.Completions);
        Assert.Equal(1000, matcher.Throughput, 6);      // X = C / T
        Assert.Equal(1.0, matcher.Utilisation, 6);      // never empty at a sample
        Assert.Equal(0.001, matcher.ServiceTime, 9);    // S = B / C = U / X
        Assert.Equal(5, matcher.MeanQueue, 6);          // N
        Assert.Equal(0.005, matcher.ResponseTime, 9);   // R = N / X: Little's law
        Assert.Equal(matcher.MeanQueue, matcher.Throughput * matcher.ResponseTime, 6);
        Assert.Equal(5, matcher.MaxQueue);
        var socket = oa.Components.Single(c => c.Component == Component.SocketInbound);
        Assert.Equal(0, socket.Utilisation);
        Assert.Equal(0, socket.MeanQueue);
        Assert.Equal(Component.Matcher, oa.Bottleneck);
        Assert.Equal(4, oa.Components.Count);
        Assert.Equal(0.01, oa.IntervalSeconds, 9);
    }

    [Fact]
    public void A_growing_backlog_is_unbounded_and_a_flat_one_bounded()
    {
        Assert.True(OperationalAnalysis.Bounded(Synthetic(5), Frequency, 100, out double flat, out double flatRise));
        Assert.Equal(0, flat, 6);
        Assert.Equal(0, flatRise, 6);
        Assert.False(OperationalAnalysis.Bounded(Synthetic(5, growthPerSecond: 500), Frequency, 100, out double growing, out double rise));
        Assert.InRange(growing, 490, 510);
        Assert.InRange(rise, 490, 510); // a steady build-up raises the typical level by what the slope says
    }

    [Fact]
    public void A_queue_that_drains_between_late_bursts_is_bounded_though_its_slope_is_positive()
    {
        // 600 s sampled every second: 150 messages inside, with bursts of 20,000 every 10 s in the last third only
        // (what a soak's queue looked like when the disk stalled the journal late in the run). The least-squares
        // slope alone calls it growing (its growth over the window is far above the tolerance); the queue's typical
        // level did not move.
        var samples = Queue(601, s => s > 400 && s % 10 == 0 ? 20_000 : 150);
        bool bounded = OperationalAnalysis.Bounded(samples, Frequency, 1440, out double growth, out double rise);

        Assert.True(growth * 600 > 1440, $"the slope alone would call it growing: {growth * 600:F0} over the window");
        Assert.Equal(0, rise, 6);
        Assert.True(bounded);
    }

    [Fact]
    public void A_slow_build_up_under_bursts_is_unbounded()
    {
        // The same bursts everywhere, over a queue that climbs 5 messages a second (3,000 over the window, tolerance 1,440).
        var samples = Queue(601, s => (s % 30 == 0 ? 20_000 : 150) + (5 * s));
        bool bounded = OperationalAnalysis.Bounded(samples, Frequency, 1440, out double growth, out double rise);

        Assert.InRange(growth, 4, 6);
        Assert.InRange(rise, 2900, 3100);
        Assert.False(bounded);
    }

    // One sample a second; queue(s) messages sent and not yet matched at second s.
    private static QueueSample[] Queue(int seconds, Func<int, long> queue)
    {
        var samples = new QueueSample[seconds];
        for (int k = 0; k < seconds; k++)
        {
            long matched = k * 14_400L;
            samples[k] = new QueueSample { Tick = k * Frequency, DriverSent = matched + queue(k), Matched = matched };
        }

        return samples;
    }

    [Fact]
    public void Rates_on_the_command_line_are_positive_numbers()
    {
        Assert.Equal([1000.0, 2500.0], MeasureCommands.ParseRates("1000, 2500")!);
        Assert.Null(MeasureCommands.ParseRates("1000,abc"));
        Assert.Null(MeasureCommands.ParseRates("3"));
        Assert.Null(MeasureCommands.ParseRates(""));
    }
}
