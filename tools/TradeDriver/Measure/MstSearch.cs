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
internal sealed record StepResult(double Offered, double Achieved, bool Bounded, double GrowthPerSecond, double P50Micros, double P99Micros,
    double P9999Micros, long Refused)
{
    /// <summary>Achieved must be at least this fraction of offered for the step to be sustainable.</summary>
    public const double AchievedFraction = 0.98;

    /// <summary>
    /// Sustainable as paper 001 defines it: the service keeps up with the offered rate (achieved = offered, to
    /// <see cref="AchievedFraction"/>) with no steadily increasing build-up of messages inside it, nothing refused,
    /// and, when a limit is given, p99 end to end within it.
    /// </summary>
    public bool Sustainable(double p99LimitMicros) =>
        Bounded && Refused == 0 && Achieved >= Offered * AchievedFraction && (p99LimitMicros <= 0 || P99Micros <= p99LimitMicros);
}

/// <summary>What the MST search found.</summary>
/// <param name="Mst">The highest sustainable offered rate found (0 when even the first was not).</param>
/// <param name="Steps">Every step, in the order run.</param>
/// <param name="P99LimitMicros">The p99 limit the search used (0: none).</param>
internal sealed record MstResult(double Mst, IReadOnlyList<StepResult> Steps, double P99LimitMicros)
{
    /// <summary>The offered-vs-achieved curve: the steps by offered rate.</summary>
    public IEnumerable<StepResult> Curve => Steps.OrderBy(s => s.Offered);
}

/// <summary>
/// The maximum sustainable throughput search (paper 001): the MST is where the sustainable state meets the
/// unsustainable one. The offered rate doubles from <c>start</c> until a step is unsustainable (or the ceiling is
/// sustainable), then the interval between the last sustainable and the first unsustainable rate is halved until it
/// is narrower than <c>precision</c> (a fraction of the rate) or the step budget is spent.
/// </summary>
internal static class MstSearch
{
    public static MstResult Run(Func<double, StepResult> step, double start, double ceiling, double precision = 0.05, int maxSteps = 12,
        double p99LimitMicros = 0)
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

        return new MstResult(good, steps, p99LimitMicros);
    }
}
