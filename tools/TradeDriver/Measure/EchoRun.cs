using System.Diagnostics;
using System.Globalization;
using RapidFix.Engine.Sessions;

namespace RapidFix.TradeDriver.Measure;

/// <summary>One peer's echo run: what the driver offered, what came back, and the latencies.</summary>
internal sealed record EchoResult(string Peer, OpenLoopSchedule Schedule, LatencyRecorder Latency, double Achieved, long Sent, long Refused, long Acks,
    long ExpectedAcks, (long Collections, long AllocatedBytes)? PeerGc, IReadOnlyList<string> Notes)
{
    /// <summary>Offered messages per second (ramps aside).</summary>
    public double Offered => Schedule.Rate;

    /// <summary>Acks offered per second in the steady part: a T (two a trade) gets no ack.</summary>
    public double OfferedAcks => Schedule.Rate * 5 / 7;

    /// <summary>
    /// Sustainable: the acks of the steady part kept up with what was offered (at least <see cref="StepResult.AchievedFraction"/>),
    /// every ack came back, nothing was refused.
    /// </summary>
    public bool Sustainable => Achieved >= OfferedAcks * StepResult.AchievedFraction && Acks >= ExpectedAcks && Refused == 0;

    /// <summary>Steady input-to-ack at percentile <paramref name="p"/>, µs (0 when nothing was measured).</summary>
    public double Percentile(double p)
    {
        var ack = Latency.Of(LatencyChannel.Ack, RunPhase.Steady);
        return ack.TotalCount == 0 ? 0 : ack.GetValueAtPercentile(p) / 1000.0;
    }

    /// <summary>The table's rows: the driver's send lag and input to ack, steady part.</summary>
    public IReadOnlyList<LatencyRow> Rows()
    {
        double seconds = Schedule.SecondsOf(RunPhase.Steady);
        return
        [
            LatencyRow.From($"{Peer}: driver send lag", Latency.Of(LatencyChannel.Send, RunPhase.Steady), seconds),
            LatencyRow.From($"{Peer}: input to ack", Latency.Of(LatencyChannel.Ack, RunPhase.Steady), seconds),
        ];
    }

    /// <summary>One line: achieved, p50/p99/p99.99, GC of the peer's process.</summary>
    public string Line => string.Create(CultureInfo.InvariantCulture,
        $"{Peer}: acks {Achieved:F0}/s of {OfferedAcks:F0}/s offered ({(Sustainable ? "sustainable" : "NOT sustainable")}), input to ack p50 {Percentile(50):F1} us, p99 {Percentile(99):F1} us, p99.99 {Percentile(99.99):F1} us; " +
        $"{Acks} of {ExpectedAcks} acks back; GC of its process {(PeerGc is { } g ? $"{g.Collections} ({g.AllocatedBytes:N0} bytes allocated)" : "unknown")}");
}

/// <summary>
/// The driver against an echo acceptor on a port (no service, no stats file): the same streamed set, open-loop
/// schedule, driver and sink as a measured run; achieved is counted from the sink's acks over the steady part.
/// </summary>
internal static class EchoRun
{
    /// <summary>Runs the schedule of <paramref name="o"/> against <paramref name="peer"/> (listening already).</summary>
    public static EchoResult Execute(EchoPeer peer, RunOptions o, TextWriter output, Func<bool> stopRequested)
    {
        long frequency = Stopwatch.Frequency;
        var sizing = new OpenLoopSchedule(o.Rate, o.WarmUpSeconds, o.RampSeconds, o.SteadySeconds, 0, frequency);
        var participants = TradeGenerator.Participants;
        var (set, intended) = TradeSet.Prepare(o.Rate, participants);
        var latency = new LatencyRecorder(frequency);
        var sink = new TradeSink(intended, sizing, latency);
        var notes = new List<string>();
        using var engine = Initiators.Start(participants, EchoPeer.CompId, "127.0.0.1", peer.Port, sink);
        if (!Initiators.WaitForLogons(engine, TimeSpan.FromSeconds(60)))
        {
            throw new InvalidDataException($"the participants could not log on to the {peer.Name} echo acceptor on port {peer.Port}");
        }

        var sessions = new FixSession[participants.Count];
        for (int i = 0; i < sessions.Length; i++)
        {
            sessions[i] = engine.Sessions.First(s => s.Id.SenderCompId == participants[i]);
        }

        output.WriteLine(string.Create(CultureInfo.InvariantCulture,
            $"echo ({peer.Name}): {sizing.Total} messages at {o.Rate:F0}/s: warm-up {o.WarmUpSeconds} s, ramps {o.RampSeconds} s, steady {o.SteadySeconds} s"));
        var schedule = new OpenLoopSchedule(o.Rate, o.WarmUpSeconds, o.RampSeconds, o.SteadySeconds, Stopwatch.GetTimestamp() + (frequency / 10), frequency);
        sink.Schedule = schedule;
        var driver = new OpenLoopDriver(set, sessions, schedule, intended, latency, o.SendTick);
        var driverThread = new Thread(() => driver.Run(stopRequested)) { Name = "echo-driver", Priority = ThreadPriority.AboveNormal };
        driverThread.Start();

        // Achieved: the acks the sink counted between the steady part's start and its end.
        long steadyFrom = schedule.StartOf(RunPhase.Steady), steadyTo = schedule.StartOf(RunPhase.RampDown);
        WaitUntil(steadyFrom, stopRequested);
        long acksAtStart = sink.Acks;
        long startTick = Stopwatch.GetTimestamp();
        peer.Mark();
        WaitUntil(steadyTo, stopRequested);
        long acksAtEnd = sink.Acks;
        double steadySeconds = (Stopwatch.GetTimestamp() - startTick) / (double)frequency;
        driverThread.Join();

        long ackable = driver.SentAckable;
        var drain = Stopwatch.StartNew();
        while (sink.Acks < ackable && drain.Elapsed.TotalSeconds < o.DrainSeconds)
        {
            Thread.Sleep(10);
        }

        if (sink.Acks < ackable)
        {
            notes.Add($"{peer.Name}: {ackable - sink.Acks} acks still missing {o.DrainSeconds:F0} s after the last send");
        }

        if (sink.Untraced > 0)
        {
            notes.Add($"{peer.Name}: {sink.Untraced} answers named no message the driver sent (not measured)");
        }

        engine.Dispose();
        var gc = peer.Stop(TimeSpan.FromSeconds(30));
        if (gc is null)
        {
            notes.Add($"{peer.Name}: the echo acceptor reported no GC count (its output: {string.Join(" | ", peer.Lines.TakeLast(3))})");
        }

        return new EchoResult(peer.Name, schedule, latency, steadySeconds > 0 ? (acksAtEnd - acksAtStart) / steadySeconds : 0, driver.Next - driver.Refused,
            driver.Refused, sink.Acks, ackable, gc, notes);
    }

    private static void WaitUntil(long tick, Func<bool> stop)
    {
        while (Stopwatch.GetTimestamp() < tick && !stop())
        {
            Thread.Sleep(1);
        }
    }
}
