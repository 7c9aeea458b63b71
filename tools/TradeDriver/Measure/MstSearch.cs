using System.Globalization;

namespace RapidFix.TradeDriver.Measure;

/// <summary>What one step at a fixed offered rate gave.</summary>
/// <param name="Offered">Messages per second offered (the schedule's rate).</param>
/// <param name="Achieved">Messages per second the service completed over the steady window.</param>
/// <param name="Bounded">Whether every queue stayed bounded over the window.</param>
/// <param name="GrowthPerSecond">The slope of the messages inside the system (messages per second).</param>
/// <param name="P50Micros">Median end-to-end latency (input to ack), µs.</param>
/// <param name="P99Micros">p99 end to end, µs.</param>
/// <param name="P9999Micros">p99.99 end to end, µs.</param>
/// <param name="Refused">Sends refused for back-pressure (the driver's sessions or the service's).</param>
/// <param name="Persister">The persister's lag as a queue of the verdict, or null when no persister ran (the service alone).</param>
/// <param name="Confirmation">A confirmation step (<see cref="MstSearch"/>): the found MST run again over a longer window.</param>
internal sealed record StepResult(double Offered, double Achieved, bool Bounded, double GrowthPerSecond, double P50Micros, double P99Micros,
    double P9999Micros, long Refused, PersisterVerdict? Persister = null, bool Confirmation = false)
{
    /// <summary>Achieved must be at least this fraction of offered for the step to be sustainable.</summary>
    public const double AchievedFraction = 0.98;

    /// <summary>
    /// Sustainable as paper 001 defines it: the service keeps up with the offered rate (achieved = offered, to
    /// <see cref="AchievedFraction"/>) with no steadily increasing build-up of messages inside it, nothing refused,
    /// and, when a limit is given, p99 end to end within it.
    /// </summary>
    public bool Sustainable(double p99LimitMicros) =>
        Bounded && Refused == 0 && Achieved >= Offered * AchievedFraction && (p99LimitMicros <= 0 || P99Micros <= p99LimitMicros)
        && (Persister is null || Persister.Bounded);

    /// <summary>Why the step is unsustainable, naming the queue that grew (empty when it is sustainable).</summary>
    public string Why(double p99LimitMicros)
    {
        var why = new List<string>();
        if (!Bounded)
        {
            why.Add(string.Create(CultureInfo.InvariantCulture, $"messages inside the service (sent - matched) grew {GrowthPerSecond:N0}/s"));
        }

        if (Persister is { Bounded: false } p)
        {
            why.Add(p.Why);
        }

        if (Achieved < Offered * AchievedFraction)
        {
            why.Add(string.Create(CultureInfo.InvariantCulture, $"achieved {Achieved:N0}/s < {AchievedFraction:P0} of offered"));
        }

        if (Refused > 0)
        {
            why.Add(string.Create(CultureInfo.InvariantCulture, $"{Refused:N0} sends refused"));
        }

        if (p99LimitMicros > 0 && P99Micros > p99LimitMicros)
        {
            why.Add(string.Create(CultureInfo.InvariantCulture, $"p99 {P99Micros:F0} us above the {p99LimitMicros:F0} us limit"));
        }

        return string.Join("; ", why);
    }

    /// <summary>The path the step measured: the service with the persister, or the service alone.</summary>
    public string Path => Persister is null ? "the service alone (no persister)" : "the whole path (service and PostgreSQL persister)";
}

/// <summary>
/// The persister's lag (inputs the service journalled minus those PostgreSQL holds) judged as a queue of the step,
/// by the rule the service's own queues follow (<see cref="OperationalAnalysis.Bounded"/>: it grew when the
/// least-squares slope over the steady window, times the window, and the rise of its typical level both exceed the
/// tolerance), plus a drain check: after the last answer the persister must catch up within the drain time.
/// </summary>
/// <param name="Grew">The lag's growth over the steady window and the rise of its typical level both exceeded the tolerance.</param>
/// <param name="GrowthPerSecond">The lag's least-squares slope over the steady window, inputs per second.</param>
/// <param name="CaughtUp">Whether PostgreSQL held every journalled input within the drain time after the step.</param>
/// <param name="Samples">Lag samples in the steady window.</param>
/// <param name="MaxLag">The largest lag sampled in the window, inputs.</param>
/// <param name="LevelRise">The rise of the lag's typical level over the window (<see cref="OperationalAnalysis.LevelRise"/>), inputs.</param>
internal sealed record PersisterVerdict(bool Grew, double GrowthPerSecond, bool CaughtUp, int Samples, long MaxLag, double LevelRise = 0)
{
    /// <summary>The lag showed no growth over the steady window and drained after the step.</summary>
    public bool Bounded => !Grew && CaughtUp;

    /// <summary>The persister's lag judged over the steady window [<paramref name="from"/>, <paramref name="to"/>] (seconds of the run's clock).</summary>
    public static PersisterVerdict Of(IReadOnlyList<LagPoint> points, double? catchUpSeconds, double from, double to, double tolerance)
    {
        var x = new List<double>();
        var y = new List<double>();
        long max = 0;
        foreach (var p in points)
        {
            if (p.Seconds >= from && p.Seconds <= to)
            {
                x.Add(p.Seconds);
                y.Add(p.Lag);
                max = Math.Max(max, p.Lag);
            }
        }

        double[] lags = y.ToArray();
        double growth = x.Count >= 3 ? OperationalAnalysis.Slope(x.ToArray(), lags) : 0;
        double window = x.Count >= 2 ? x[^1] - x[0] : 0;
        double rise = OperationalAnalysis.LevelRise(lags);
        return new PersisterVerdict(OperationalAnalysis.BuiltUp(growth * window, rise, tolerance), growth, catchUpSeconds is not null, x.Count, max, rise);
    }

    /// <summary>What is wrong with the persister's lag (empty when bounded).</summary>
    public string Why => Bounded ? ""
        : !Grew ? "persister lag (journalled - persisted) did not drain after the step"
        : string.Create(CultureInfo.InvariantCulture, $"persister lag (journalled - persisted) grew {GrowthPerSecond:N0} inputs/s{(CaughtUp ? "" : " and did not drain after the step")}");

    /// <summary>One line for the report.</summary>
    public string Line => string.Create(CultureInfo.InvariantCulture,
        $"persister lag {(Bounded ? "bounded" : "NOT bounded")} (growth {GrowthPerSecond:F1} inputs/s over the steady part, typical level {LevelRise:+0;-0;0} inputs, {Samples} samples, max {MaxLag:N0}; {(CaughtUp ? "drained" : "NOT drained")} after the step)");
}

/// <summary>What the MST search found.</summary>
/// <param name="Mst">The highest sustainable offered rate found (0 when even the first was not).</param>
/// <param name="Steps">Every step, in the order run.</param>
/// <param name="P99LimitMicros">The p99 limit the search used (0: none).</param>
/// <param name="Confirmed">
/// True when a confirmation step at <paramref name="Mst"/> was sustainable, false when every confirmation failed
/// (<paramref name="Mst"/> is then 0), null when none was asked for.
/// </param>
internal sealed record MstResult(double Mst, IReadOnlyList<StepResult> Steps, double P99LimitMicros, bool? Confirmed = null)
{
    /// <summary>Seconds of each confirmation step's measured part (0: none asked for).</summary>
    public double ConfirmSeconds { get; init; }

    /// <summary>The offered-vs-achieved curve: the steps by offered rate.</summary>
    public IEnumerable<StepResult> Curve => Steps.OrderBy(s => s.Offered);
}

/// <summary>
/// The maximum sustainable throughput search (paper 001): the MST is where the sustainable state meets the
/// unsustainable one. The offered rate doubles from <c>start</c> until a step is unsustainable (or the ceiling is
/// sustainable), then the interval between the last sustainable and the first unsustainable rate is halved until it
/// is narrower than <c>precision</c> (a fraction of the rate) or the step budget is spent. With <c>confirm</c>, the
/// rate found is then run again over a longer window (paper 001: sustainable means no steadily increasing build-up
/// "for an unlimited execution time"; a short step sees only a fast one, since a queue's growth is judged against a
/// fixed tolerance over the window); a confirmation that is unsustainable lowers the rate by
/// <see cref="ConfirmationBackOff"/> and confirms again, up to <c>maxConfirmations</c> times (the MST is 0, not
/// confirmed, when none holds).
/// </summary>
internal static class MstSearch
{
    /// <summary>A failed confirmation tries this fraction of its rate next.</summary>
    public const double ConfirmationBackOff = 0.9;

    public static MstResult Run(Func<double, StepResult> step, double start, double ceiling, double precision = 0.05, int maxSteps = 12,
        double p99LimitMicros = 0, Func<double, StepResult>? confirm = null, int maxConfirmations = 3)
    {
        ArgumentNullException.ThrowIfNull(step);
        if (start <= 0 || ceiling < start || precision <= 0 || maxSteps < 1)
        {
            throw new ArgumentOutOfRangeException(nameof(start), "start must be positive and at most the ceiling; precision and steps positive");
        }

        var steps = new List<StepResult>();
        double good = 0, bad = double.PositiveInfinity;
        double rate = start;
        while (steps.Count < maxSteps)
        {
            var r = step(rate);
            steps.Add(r);
            if (r.Sustainable(p99LimitMicros))
            {
                good = rate;
                if (rate >= ceiling)
                {
                    break;
                }

                rate = Math.Min(ceiling, rate * 2);
            }
            else
            {
                bad = rate;
                break;
            }
        }

        while (steps.Count < maxSteps && !double.IsPositiveInfinity(bad) && bad - good > precision * bad)
        {
            rate = Math.Round(good > 0 ? (good + bad) / 2 : bad / 2);
            if (rate <= 0)
            {
                break;
            }

            var r = step(rate);
            steps.Add(r);
            if (r.Sustainable(p99LimitMicros))
            {
                good = rate;
            }
            else
            {
                bad = rate;
            }
        }

        if (confirm is null || good <= 0 || maxConfirmations < 1)
        {
            return new MstResult(good, steps, p99LimitMicros);
        }

        double candidate = good;
        for (int i = 0; i < maxConfirmations && candidate > 0; i++)
        {
            var r = confirm(candidate) with { Confirmation = true };
            steps.Add(r);
            if (r.Sustainable(p99LimitMicros))
            {
                return new MstResult(candidate, steps, p99LimitMicros, Confirmed: true);
            }

            candidate = Math.Round(candidate * ConfirmationBackOff);
        }

        return new MstResult(0, steps, p99LimitMicros, Confirmed: false);
    }
}
