namespace RapidFix.TradeDriver.Measure;

/// <summary>
/// One sample of every counter the operational analysis needs, taken at a fixed interval by the sampler: the driver's
/// and sink's own counters and the service's stats file. Cumulative counts (arrivals and completions), never depths:
/// a queue's length is what arrived minus what left, so no sample can miss a burst between two others.
/// </summary>
internal struct QueueSample
{
    public long Tick;
    public long DriverSent;
    public long ServiceReceived;
    public long Journalled;
    public long Refused;
    public long Matched;
    public long AnswersSent;
    public long SinkReceived;
    public long Gen0Collections;
    public long ResidentBytes;
    public long AllocatedBytes;
}

/// <summary>A component of the path: what arrives at it and what leaves it, as sampled.</summary>
internal enum Component
{
    /// <summary>From the driver's send to the service's session: the driver's socket, the network, the service's socket and framer.</summary>
    SocketInbound,

    /// <summary>The service's session thread: validation, the input journal's append, the ring's publish.</summary>
    SessionJournal,

    /// <summary>The matcher's input ring and the matcher thread.</summary>
    Matcher,

    /// <summary>From an answer's hand-over to its session to the sink: the session's outbound queue, both sockets.</summary>
    Outbound,
}

/// <summary>What operational analysis derives for one component over a window (Denning and Buzen's laws).</summary>
/// <param name="Arrivals">A: messages that arrived.</param>
/// <param name="Completions">C: messages that left.</param>
/// <param name="Seconds">T: the window.</param>
/// <param name="Throughput">X = C / T (messages per second).</param>
/// <param name="ArrivalRate">λ = A / T.</param>
/// <param name="Utilisation">U = B / T, B the busy time: the time the component held work (its queue was not empty at a sample).</param>
/// <param name="ServiceTime">S = B / C (seconds): the utilisation law U = X S.</param>
/// <param name="MeanQueue">N = W / T, W the area under the queue length (message-seconds).</param>
/// <param name="ResponseTime">R = W / C (seconds): Little's law N = X R.</param>
/// <param name="MaxQueue">The longest queue sampled.</param>
internal sealed record ComponentAnalysis(Component Component, long Arrivals, long Completions, double Seconds, double Throughput, double ArrivalRate,
    double Utilisation, double ServiceTime, double MeanQueue, double ResponseTime, long MaxQueue)
{
    /// <summary>The component's name in reports.</summary>
    public string Name => Component switch
    {
        Component.SocketInbound => "socket inbound",
        Component.SessionJournal => "session + input journal",
        Component.Matcher => "matcher ring + thread",
        _ => "outbound (session to sink)",
    };
}

/// <summary>The operational analysis of a window: every component, and the bottleneck.</summary>
internal sealed record OperationalReport(IReadOnlyList<ComponentAnalysis> Components, Component Bottleneck, int Samples, double IntervalSeconds)
{
    /// <summary>The bottleneck's analysis.</summary>
    public ComponentAnalysis BottleneckAnalysis => Components.First(c => c.Component == Bottleneck);
}

/// <summary>Operational analysis (paper 000, after Buzen and Denning) of cumulative counters sampled at a fixed interval.</summary>
internal static class OperationalAnalysis
{
    /// <summary>The components in the order a message passes them.</summary>
    public static readonly Component[] Path = [Component.SocketInbound, Component.SessionJournal, Component.Matcher, Component.Outbound];

    /// <summary>The arrivals and completions of a component in a sample.</summary>
    public static (long Arrived, long Completed) Counts(in QueueSample s, Component c) => c switch
    {
        Component.SocketInbound => (s.DriverSent, s.ServiceReceived),
        Component.SessionJournal => (s.ServiceReceived, s.Journalled + s.Refused),
        Component.Matcher => (s.Journalled, s.Matched),
        _ => (s.AnswersSent, s.SinkReceived),
    };

    /// <summary>
    /// Derives every component's figures over <paramref name="samples"/> (cumulative counters, in time order; at
    /// least two). Each interval between two samples counts as busy when the queue held work at its start, and adds
    /// that queue length times its length to W. The bottleneck is the most utilised component; among equally
    /// utilised ones (within 2 %), the one with the longest mean queue.
    /// </summary>
    public static OperationalReport Analyze(ReadOnlySpan<QueueSample> samples, long ticksPerSecond)
    {
        if (samples.Length < 2)
        {
            throw new ArgumentException("operational analysis needs at least two samples", nameof(samples));
        }

        double seconds = (samples[^1].Tick - samples[0].Tick) / (double)ticksPerSecond;
        var result = new List<ComponentAnalysis>();
        foreach (var c in Path)
        {
            var (a0, c0) = Counts(samples[0], c);
            var (a1, c1) = Counts(samples[^1], c);
            double busy = 0, area = 0;
            long max = 0;
            for (int k = 0; k + 1 < samples.Length; k++)
            {
                var (ak, ck) = Counts(samples[k], c);
                long n = Math.Max(0, ak - ck);
                max = Math.Max(max, n);
                double dt = (samples[k + 1].Tick - samples[k].Tick) / (double)ticksPerSecond;
                if (n > 0)
                {
                    busy += dt;
                    area += n * dt;
                }
            }

            var (al, cl) = Counts(samples[^1], c);
            max = Math.Max(max, Math.Max(0, al - cl));
            long arrivals = a1 - a0, completions = c1 - c0;
            double x = seconds > 0 ? completions / seconds : 0;
            result.Add(new ComponentAnalysis(c, arrivals, completions, seconds, x, seconds > 0 ? arrivals / seconds : 0, seconds > 0 ? busy / seconds : 0,
                completions > 0 ? busy / completions : 0, seconds > 0 ? area / seconds : 0, completions > 0 ? area / completions : 0, max));
        }

        var bottleneck = result.OrderByDescending(r => Math.Round(r.Utilisation / 0.02)).ThenByDescending(r => r.MeanQueue).First().Component;
        return new OperationalReport(result, bottleneck, samples.Length, seconds / (samples.Length - 1));
    }

    /// <summary>
    /// Whether the messages inside the system (sent by the driver, not yet processed by the matcher) stayed bounded
    /// over the window (paper 001: no steadily increasing build-up inside the queues). A queue built up when both its
    /// least-squares slope, times the window, and the rise of its typical level (<see cref="LevelRise"/>) exceed
    /// <paramref name="tolerance"/> messages. The slope alone is not enough: a queue that drains between bursts has
    /// a slope as soon as its bursts fall late in the window (a soak at 14,400/s read +6.7 messages/s, 4,000 over
    /// 600 s, from a queue whose median stayed near 150), but its typical level does not move; a steady build-up
    /// moves both.
    /// </summary>
    public static bool Bounded(ReadOnlySpan<QueueSample> samples, long ticksPerSecond, double tolerance, out double growthPerSecond, out double levelRise)
    {
        growthPerSecond = 0;
        levelRise = 0;
        if (samples.Length < 3)
        {
            return true;
        }

        var xs = new double[samples.Length];
        var ys = new double[samples.Length];
        for (int i = 0; i < samples.Length; i++)
        {
            xs[i] = (samples[i].Tick - samples[0].Tick) / (double)ticksPerSecond;
            ys[i] = samples[i].DriverSent - samples[i].Matched;
        }

        growthPerSecond = Slope(xs, ys);
        levelRise = LevelRise(ys);
        double window = (samples[^1].Tick - samples[0].Tick) / (double)ticksPerSecond;
        return !BuiltUp(growthPerSecond * window, levelRise, tolerance);
    }

    /// <summary>
    /// A queue built up over a window: its least-squares growth over the window and the rise of its typical level
    /// (<see cref="LevelRise"/>) both exceed the tolerance.
    /// </summary>
    public static bool BuiltUp(double growthOverWindow, double levelRise, double tolerance) => growthOverWindow > tolerance && levelRise > tolerance;

    /// <summary>
    /// How much a queue's typical level rose over the window, in the queue's units: the median of the last third of
    /// its samples minus the median of the first third, times 1.5 (the two medians lie two-thirds of the window
    /// apart, so a queue growing steadily by g over the window rises by g). Bursts and drains move a median little;
    /// a build-up moves it. 0 with fewer than six samples.
    /// </summary>
    public static double LevelRise(ReadOnlySpan<double> y)
    {
        int third = y.Length / 3;
        if (third < 2)
        {
            return 0;
        }

        return 1.5 * (Median(y[^third..]) - Median(y[..third]));
    }

    /// <summary>The median of <paramref name="values"/> (0 when there are none).</summary>
    public static double Median(ReadOnlySpan<double> values)
    {
        var sorted = values.ToArray();
        Array.Sort(sorted);
        int n = sorted.Length;
        return n == 0 ? 0 : n % 2 == 1 ? sorted[n / 2] : (sorted[(n / 2) - 1] + sorted[n / 2]) / 2;
    }

    /// <summary>The least-squares slope of <paramref name="y"/> against <paramref name="x"/> (0 with fewer than two distinct x).</summary>
    public static double Slope(ReadOnlySpan<double> x, ReadOnlySpan<double> y)
    {
        double n = x.Length, sx = 0, sy = 0, sxx = 0, sxy = 0;
        for (int i = 0; i < x.Length; i++)
        {
            sx += x[i];
            sy += y[i];
            sxx += x[i] * x[i];
            sxy += x[i] * y[i];
        }

        double denominator = (n * sxx) - (sx * sx);
        return denominator > 0 ? ((n * sxy) - (sx * sy)) / denominator : 0;
    }
}
