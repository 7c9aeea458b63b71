using System.Diagnostics;

namespace RapidFix.TradeDriver.Measure;

/// <summary>The parts of a measured run; only <see cref="Steady"/> makes the headline figures.</summary>
internal enum RunPhase : byte
{
    /// <summary>At the full rate, before anything is measured: JIT, caches, connections settle.</summary>
    WarmUp,

    /// <summary>The rate rises linearly from a tenth to the full rate.</summary>
    RampUp,

    /// <summary>The full rate: the figures.</summary>
    Steady,

    /// <summary>The rate falls linearly back to a tenth.</summary>
    RampDown,
}

/// <summary>
/// An open-loop schedule: message <c>i</c> is due at a time fixed before the run starts, whatever the engine does
/// (the BizTalk paper's driver, and the cure for coordinated omission: a stalled engine delays the sends, it does not
/// move the schedule, so every latency counted from the intended time includes the stall). Warm-up and steady parts
/// run at the full rate; the ramps rise from and fall to a tenth of it linearly. Times are
/// <see cref="Stopwatch.GetTimestamp"/> ticks; every member is allocation-free.
/// </summary>
internal sealed class OpenLoopSchedule
{
    private const double RampFloor = 0.1;

    // Per phase: first message, message count, start tick, duration in ticks, start and end rate (messages per tick).
    private readonly long[] _first = new long[4];
    private readonly long[] _count = new long[4];
    private readonly long[] _startTick = new long[4];
    private readonly double[] _ticks = new double[4];
    private readonly double[] _r0 = new double[4];
    private readonly double[] _r1 = new double[4];

    /// <param name="rate">Messages per second at the full rate.</param>
    /// <param name="warmUp">Seconds of warm-up.</param>
    /// <param name="ramp">Seconds of each ramp.</param>
    /// <param name="steady">Seconds at the full rate that are measured.</param>
    /// <param name="start">The tick at which the first message is due.</param>
    /// <param name="frequency">Ticks per second (<see cref="Stopwatch.Frequency"/>; tests give their own).</param>
    public OpenLoopSchedule(double rate, double warmUp, double ramp, double steady, long start, long frequency)
    {
        if (rate <= 0 || warmUp < 0 || ramp < 0 || steady <= 0)
        {
            throw new ArgumentOutOfRangeException(nameof(rate), "the rate and the steady part must be positive, the other parts not negative");
        }

        Rate = rate;
        Start = start;
        Frequency = frequency;
        double perTick = rate / frequency;
        double[] seconds = [warmUp, ramp, steady, ramp];
        double[] r0 = [perTick, perTick * RampFloor, perTick, perTick];
        double[] r1 = [perTick, perTick, perTick, perTick * RampFloor];
        long first = 0;
        long tick = start;
        for (int p = 0; p < 4; p++)
        {
            _first[p] = first;
            _startTick[p] = tick;
            _ticks[p] = seconds[p] * frequency;
            _r0[p] = r0[p];
            _r1[p] = r1[p];
            _count[p] = (long)Math.Floor((r0[p] + r1[p]) / 2 * _ticks[p]);
            first += _count[p];
            tick += (long)Math.Round(_ticks[p]);
        }

        Total = first;
        End = tick;
    }

    /// <summary>Messages per second at the full rate.</summary>
    public double Rate { get; }

    /// <summary>The tick the first message is due.</summary>
    public long Start { get; }

    /// <summary>The tick the ramp-down ends.</summary>
    public long End { get; }

    /// <summary>Ticks per second.</summary>
    public long Frequency { get; }

    /// <summary>Messages in the whole schedule.</summary>
    public long Total { get; }

    /// <summary>Messages of a phase.</summary>
    public long CountOf(RunPhase phase) => _count[(int)phase];

    /// <summary>The first message of a phase.</summary>
    public long FirstOf(RunPhase phase) => _first[(int)phase];

    /// <summary>Seconds of a phase.</summary>
    public double SecondsOf(RunPhase phase) => _ticks[(int)phase] / Frequency;

    /// <summary>The tick at which a phase begins.</summary>
    public long StartOf(RunPhase phase) => _startTick[(int)phase];

    /// <summary>The phase message <paramref name="index"/> belongs to.</summary>
    public RunPhase PhaseOf(long index)
    {
        int p = 3;
        while (p > 0 && index < _first[p])
        {
            p--;
        }

        return (RunPhase)p;
    }

    /// <summary>The phase whose time span holds <paramref name="tick"/> (ramp-down for any later tick).</summary>
    public RunPhase PhaseAt(long tick)
    {
        int p = 3;
        while (p > 0 && tick < _startTick[p])
        {
            p--;
        }

        return (RunPhase)p;
    }

    /// <summary>The tick at which message <paramref name="index"/> is due.</summary>
    public long IntendedTime(long index)
    {
        int p = (int)PhaseOf(index);
        double k = index - _first[p];
        double r0 = _r0[p];
        double a = (_r1[p] - r0) / (2 * _ticks[p]);
        // Messages due by t: r0 t + a t^2 (a linear rate); the k-th is due where that reaches k.
        double t = Math.Abs(a) < 1e-30 ? k / r0 : (-r0 + Math.Sqrt(Math.Max(0, (r0 * r0) + (4 * a * k)))) / (2 * a);
        return _startTick[p] + (long)t;
    }

    /// <summary>How many messages are due at <paramref name="tick"/> (the first message not yet due).</summary>
    public long DueBy(long tick)
    {
        if (tick < Start)
        {
            return 0;
        }

        if (tick >= End)
        {
            return Total;
        }

        int p = (int)PhaseAt(tick);
        double t = tick - _startTick[p];
        double a = (_r1[p] - _r0[p]) / (2 * _ticks[p]);
        long due = _first[p] + (long)Math.Floor((_r0[p] * t) + (a * t * t)) + 1;
        // Floating point must neither put a message ahead of its own intended time nor hold it back past it.
        long end = _first[p] + _count[p];
        due = Math.Min(due, end);
        while (due > _first[p] && IntendedTime(due - 1) > tick)
        {
            due--;
        }

        while (due < end && IntendedTime(due) <= tick)
        {
            due++;
        }

        return due;
    }
}
