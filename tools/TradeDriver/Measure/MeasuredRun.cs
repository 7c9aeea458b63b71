using System.Diagnostics;
using HdrHistogram;
using RapidFix.Engine.Configuration;
using RapidFix.Engine.Hosting;
using RapidFix.Engine.Sessions;

namespace RapidFix.TradeDriver.Measure;

/// <summary>How one measured run goes.</summary>
internal sealed record RunOptions
{
    /// <summary>Messages per second offered in the warm-up and steady parts.</summary>
    public double Rate { get; init; } = 10_000;

    public double WarmUpSeconds { get; init; } = 5;

    public double RampSeconds { get; init; } = 2;

    /// <summary>The measured part.</summary>
    public double SteadySeconds { get; init; } = 60;

    /// <summary>How often the queues are sampled (operational analysis).</summary>
    public double SampleSeconds { get; init; } = 0.05;

    /// <summary>How often interval histograms are taken (latency over time, .hlog, the progress line).</summary>
    public double IntervalSeconds { get; init; } = 1;

    /// <summary>Seconds to wait for the last answers after the last send.</summary>
    public double DrainSeconds { get; init; } = 30;

    /// <summary>Trace the service (EventPipe) for its GC verdict and its own send/receive latencies.</summary>
    public bool Trace { get; init; } = true;

    /// <summary>The service's input-journal and session-store flush policy.</summary>
    public string FlushPolicy { get; init; } = "GroupCommit";

    /// <summary>The service's static data: by default the generated sets' (<see cref="TradeUniverse"/>).</summary>
    [System.Diagnostics.CodeAnalysis.AllowNull]
    public string StaticData { get => _staticData ?? TradeUniverse.StaticDataDirectory; init => _staticData = value; }

    private readonly string? _staticData;

    /// <summary>Where the run's files go.</summary>
    public required string OutputDirectory { get; init; }

    /// <summary>Print a progress line every interval.</summary>
    public bool Progress { get; init; } = true;

    /// <summary>Write every interval's histograms into an .hlog (soak).</summary>
    public bool WriteHlog { get; init; } = true;

    /// <summary>Bytes of the service's input journal write window; 0: the service's default (<see cref="JournalSizing"/>).</summary>
    public long JournalBytes { get; init; }

    /// <summary>Run the PostgreSQL persister beside the service when its binaries are present.</summary>
    public bool Persist { get; init; } = true;

    /// <summary>
    /// The least time the driver's thread sleeps between two turns, each sending every message due then
    /// (<see cref="OpenLoopDriver.Run"/>, Linux): 100 µs, so that the driver wakes at most 10,000 times a second
    /// whatever the rate (its send lag is then up to a tick more); zero: the old loop, which yielded until the next
    /// message was due and kept a core busy.
    /// </summary>
    public TimeSpan SendTick { get; init; } = TimeSpan.FromMicroseconds(100);

    /// <summary>
    /// Run the driver's timing threads (the sending thread, the sessions' receiving threads) under real-time
    /// scheduling where the kernel allows it (<see cref="TimingThreads"/>); false: ordinary threads.
    /// </summary>
    public bool RealtimeDriver { get; init; } = true;
}

/// <summary>One interval of the run: throughput and latency over time.</summary>
internal readonly record struct IntervalPoint(double Seconds, RunPhase Phase, double SentPerSecond, double MatchedPerSecond, long AckCount,
    double AckP50, double AckP99, double AckP9999, double AckMax, long Gen0Collections, long ResidentBytes);

/// <summary>Everything a measured run produced.</summary>
internal sealed class RunResult
{
    public required RunOptions Options { get; init; }

    public required OpenLoopSchedule Schedule { get; init; }

    public required LatencyRecorder Latency { get; init; }

    public required IReadOnlyList<IntervalPoint> Intervals { get; init; }

    public required QueueSample[] Samples { get; init; }

    /// <summary>The samples of the steady part (operational analysis window).</summary>
    public required ArraySegment<QueueSample> SteadySamples { get; init; }

    public OperationalReport? Analysis { get; init; }

    public required double AchievedPerSecond { get; init; }

    public required double SentPerSecond { get; init; }

    public required bool Bounded { get; init; }

    public required double GrowthPerSecond { get; init; }

    /// <summary>The rise of the queue's typical level over the steady part (<see cref="OperationalAnalysis.LevelRise"/>), messages.</summary>
    public double LevelRise { get; init; }

    public required long Sent { get; init; }

    public required long Refused { get; init; }

    public required long Acks { get; init; }

    public required long Rejected { get; init; }

    public required long Cls { get; init; }

    public required long Notices { get; init; }

    public required long Untraced { get; init; }

    public required long ExpectedAcks { get; init; }

    public required double DrainSeconds { get; init; }

    /// <summary>The service's continuous-phase report (collections, bytes), null when it printed none.</summary>
    public (long Collections, long AllocatedBytes)? ServiceContinuous { get; init; }

    /// <summary>The service's GCs during the steady part, from its stats file.</summary>
    public long SteadyServiceCollections { get; init; }

    /// <summary>The trace's analysis, when traced and the analyzer ran.</summary>
    public TraceVerdict? Trace { get; init; }

    public required IReadOnlyList<string> Notes { get; init; }

    /// <summary>The input journal and stores the run was sized for.</summary>
    public JournalSizing Sizing { get; init; }

    /// <summary>The PostgreSQL persister beside the run, or null when none ran (<see cref="PersisterSkipped"/> says why).</summary>
    public PersisterSummary? Persister { get; init; }

    /// <summary>Why no persister ran, or null when one did.</summary>
    public string? PersisterSkipped { get; init; }

    /// <summary>
    /// Collections in the driver's own process in its measured phase (from the warm-up's end to the end of the
    /// drain: the last answers awaited, the persister caught up); -1 when the run ended before its warm-up did.
    /// </summary>
    public long DriverCollections { get; init; } = -1;

    /// <summary>Bytes the driver's sending thread allocated from its warm-up's end to the last send (-1: unknown).</summary>
    public long DriverAllocatedBytes { get; init; } = -1;

    /// <summary>
    /// Bytes the driver's whole process allocated in its measured phase (<see cref="DriverCollections"/>'s window;
    /// <c>GC.GetTotalAllocatedBytes(precise: true)</c> at both ends); -1 when the run ended before its warm-up did.
    /// </summary>
    public long DriverProcessAllocatedBytes { get; init; } = -1;

    /// <summary>Bytes the run's own thread (it waits for the warm-up's end, the last send, the drain, the persister) allocated in the measured phase (-1: unknown).</summary>
    public long MainAllocatedBytes { get; init; } = -1;

    /// <summary>Bytes the sampler's thread allocated from its first interval after the warm-up to its stop (-1: unknown).</summary>
    public long SamplerAllocatedBytes { get; init; } = -1;

    /// <summary>Bytes the persister-lag poller's thread allocated from the warm-up's end to its stop (-1: no persister, or unknown).</summary>
    public long LagPollerAllocatedBytes { get; init; } = -1;

    /// <summary>
    /// Bytes the participants' session threads (the initiators' connection threads: receiving, the sink) allocated in
    /// the measured phase, as the engine's own per-thread counters last saw them (-1: unknown).
    /// </summary>
    public long SessionThreadsAllocatedBytes { get; init; } = -1;

    /// <summary>
    /// Bytes the threads reading the children's standard output and error (the service's, the persister's:
    /// <see cref="ChildOutput"/>) allocated in the measured phase (-1: unknown).
    /// </summary>
    public long OutputThreadsAllocatedBytes { get; init; } = -1;

    /// <summary>
    /// Bytes of the process's count in the measured phase that none of the threads the driver counts allocated: the
    /// runtime's own threads (thread pool, timer, tiered compilation, finalizer) or a thread of a library (-1: unknown).
    /// </summary>
    public long OtherThreadsAllocatedBytes => DriverProcessAllocatedBytes < 0 ? -1
        : DriverProcessAllocatedBytes - Math.Max(0, DriverAllocatedBytes) - Math.Max(0, MainAllocatedBytes) - Math.Max(0, SamplerAllocatedBytes)
          - Math.Max(0, LagPollerAllocatedBytes) - Math.Max(0, SessionThreadsAllocatedBytes) - Math.Max(0, OutputThreadsAllocatedBytes);

    /// <summary>What the runtime did in the driver's process in its measured phase (methods compiled, thread-pool work), null: not measured.</summary>
    public RuntimeActivity? RuntimeInMeasuredPhase { get; init; }

    /// <summary>The threads started in the measured phase and the runtime's that ran (<see cref="ThreadCensus.Between"/>), null: not measured.</summary>
    public string? ThreadsInMeasuredPhase { get; init; }

    /// <summary>Seconds of the driver's measured phase (<see cref="DriverCollections"/>'s window).</summary>
    public double DriverMeasuredSeconds { get; init; }

    /// <summary>
    /// Seconds from the warm-up's end to the opening of the driver's measured phase (the run thread takes its
    /// snapshots first): near 0; more says the run thread did not get a core when the window was due.
    /// </summary>
    public double DriverWindowLateSeconds { get; init; }

    /// <summary>Seconds from the warm-up's end to the end of the sending (ramps and steady part: their sum when nothing ended early).</summary>
    public double DriverSendingSeconds { get; init; }

    /// <summary>
    /// The driver's own GC verdict: its process collected nothing and allocated nothing in its measured phase
    /// (null: not measured, the run ended before its warm-up did).
    /// </summary>
    public bool? DriverZeroGc => DriverCollections < 0 || DriverProcessAllocatedBytes < 0 ? null : DriverCollections == 0 && DriverProcessAllocatedBytes == 0;

    /// <summary>The driver's sleeps between its turns (<see cref="OpenLoopDriver.Sleeps"/>).</summary>
    public long DriverSleeps { get; init; }

    /// <summary>How the driver's timing threads were scheduled (<see cref="TimingThreads.Describe"/>).</summary>
    public string DriverScheduling { get; init; } = "";

    /// <summary>The machine's page-cache writeback settings at the run's start (<see cref="HostWriteback.Describe"/>).</summary>
    public string HostWriteback { get; init; } = "";

    /// <summary>The driver's estimated memory: its streamed set, its intended-time window, its runtime (<see cref="JournalSizing.DriverBytes"/>).</summary>
    public long DriverBytes { get; init; }

    /// <summary>
    /// The persister's lag judged as a queue over the steady window (the tolerance the service's queues have), or
    /// null when no persister ran.
    /// </summary>
    public PersisterVerdict? PersisterVerdict => Persister is { } p
        ? Measure.PersisterVerdict.Of(p.Points, p.CatchUpSeconds, (Schedule.StartOf(RunPhase.Steady) - Schedule.Start) / (double)Schedule.Frequency,
            (Schedule.StartOf(RunPhase.RampDown) - Schedule.Start) / (double)Schedule.Frequency, MeasuredRun.Tolerance(Schedule.Rate))
        : null;

    /// <summary>Sustainable as paper 001 defines it (<see cref="StepResult.Sustainable"/>).</summary>
    public StepResult Step
    {
        get
        {
            var ack = Latency.Of(LatencyChannel.Ack, RunPhase.Steady);
            double P(double p) => ack.TotalCount == 0 ? 0 : ack.GetValueAtPercentile(p) / 1000.0;
            return new StepResult(Schedule.Rate, AchievedPerSecond, Bounded, GrowthPerSecond, P(50), P(99), P(99.99), Refused, PersisterVerdict);
        }
    }

    /// <summary>The table's rows: the driver's send lag, end to end per input and per trade, per phase; the engine's own from its trace.</summary>
    public IReadOnlyList<LatencyRow> Rows(RunPhase phase)
    {
        double seconds = Schedule.SecondsOf(phase);
        var rows = new List<LatencyRow>
        {
            LatencyRow.From("driver send lag", Latency.Of(LatencyChannel.Send, phase), seconds),
            LatencyRow.From("input to ack (e2e)", Latency.Of(LatencyChannel.Ack, phase), seconds),
            LatencyRow.From("trade to CLS (e2e)", Latency.Of(LatencyChannel.Cls, phase), seconds),
        };
        if (phase == RunPhase.Steady && Trace is { } t)
        {
            rows.InsertRange(0, t.Rows);
        }

        return rows;
    }
}

/// <summary>
/// One measured run: the service started in its own process, one initiator per participant, the driver on the
/// open-loop schedule, the sink, the sampler; then the drain, the service's stop and its trace's verdict.
/// </summary>
internal static class MeasuredRun
{
    public static RunResult Execute(RunOptions o, TextWriter output, Func<bool>? stopRequested = null)
    {
        stopRequested ??= () => false;
        Directory.CreateDirectory(o.OutputDirectory);
        var notes = new List<string>();
        long frequency = Stopwatch.Frequency;
        // A provisional schedule sizes the set; the real one starts once everyone is logged on.
        var sizing = new OpenLoopSchedule(o.Rate, o.WarmUpSeconds, o.RampSeconds, o.SteadySeconds, 0, frequency);
        var participants = TradeGenerator.Participants;
        // The journal and stores are sized and checked against the machine before anything is generated or started.
        var journal = JournalSizing.For(sizing.Total, participants.Count, o.JournalBytes, o.Rate);
        journal.Check(o.OutputDirectory);
        string writeback = HostWriteback.Describe();
        var (set, intended) = TradeSet.Prepare(o.Rate, participants);
        output.WriteLine(string.Create(System.Globalization.CultureInfo.InvariantCulture,
            $"measure: {sizing.Total} messages ({TradeStream.TradesFor(sizing.Total)} trades, streamed through a ring of {set.Capacity:N0}; intended times of the last {intended.Window:N0} trades) at {o.Rate:F0}/s: warm-up {o.WarmUpSeconds} s, ramps {o.RampSeconds} s, steady {o.SteadySeconds} s"));
        string work = Path.Combine(o.OutputDirectory, "service");
        if (Directory.Exists(work))
        {
            Directory.Delete(work, recursive: true);
        }

        // The persister tails the service's data directory from the start (it waits for the journals to appear). A
        // cluster that will not start is the same as none: one line, and the run goes on without persistence.
        string? skipped = PersisterRun.Unavailable(!o.Persist, output);
        PersisterRun? started = null;
        if (skipped is null)
        {
            journal.CheckDatabase(o.OutputDirectory);
            try
            {
                started = PersisterRun.Start(Path.Combine(work, "data"), work, output);
            }
            catch (Exception e) when (e is InvalidOperationException or Npgsql.NpgsqlException or IOException or System.ComponentModel.Win32Exception)
            {
                skipped = "PostgreSQL did not start: " + e.Message.Split('\n')[0];
            }
        }

        if (skipped is not null)
        {
            output.WriteLine(PersisterRun.SkipLine(skipped));
        }

        using var persister = started;
        using var service = ServiceProcess.Start(work, journal, o.Trace, o.FlushPolicy, o.StaticData);
        if (!service.WaitListening(TimeSpan.FromSeconds(180)))
        {
            throw new InvalidDataException("the matching service did not start: " + string.Join(" | ", service.Lines.TakeLast(5)));
        }

        var latency = new LatencyRecorder(frequency);
        // The schedule that runs starts once the service is ready (below); nothing is sent, so nothing answered, before.
        TimingThreads.Reset();
        var sink = new TradeSink(intended, sizing, latency) { RaiseReceivingThreads = o.RealtimeDriver };
        using var engine = Initiators.Start(participants, "MATCH", "127.0.0.1", service.Port, sink);
        if (!Initiators.WaitForLogons(engine, TimeSpan.FromSeconds(60)))
        {
            throw new InvalidDataException($"the participants could not log on to the service on port {service.Port}");
        }

        if (!service.WaitReady(TimeSpan.FromSeconds(300)))
        {
            throw new InvalidDataException("the matching service did not reach its continuous phase: " + string.Join(" | ", service.Lines.TakeLast(5)));
        }

        ServiceStatsReader? stats = null;
        for (int i = 0; i < 100 && stats is null; i++)
        {
            stats = ServiceStatsReader.TryOpen(service.StatsPath);
            if (stats is null)
            {
                Thread.Sleep(50);
            }
        }

        if (stats is null)
        {
            notes.Add("the service's stats file never appeared: no queue samples");
        }

        // One delegate, made now: one made per call in the measured phase would allocate.
        Func<long> journalled = () => stats is not null && stats.TryRead(out var now) ? now.Journalled : 0;

        var sessions = new FixSession[participants.Count];
        for (int i = 0; i < sessions.Length; i++)
        {
            sessions[i] = engine.Sessions.First(s => s.Id.SenderCompId == participants[i]);
        }

        var schedule = new OpenLoopSchedule(o.Rate, o.WarmUpSeconds, o.RampSeconds, o.SteadySeconds, Stopwatch.GetTimestamp() + (frequency / 10), frequency);
        sink.Schedule = schedule;
        double runSeconds = (schedule.End - schedule.Start) / (double)frequency;
        persister?.StartPolling(service.StatsPath, schedule.Start, TimeSpan.FromSeconds(o.IntervalSeconds),
            (int)Math.Min(10_000_000, ((runSeconds + (3 * o.DrainSeconds) + 60) / o.IntervalSeconds) + 64));
        var driver = new OpenLoopDriver(set, sessions, schedule, intended, latency, o.SendTick);
        var sampler = new Sampler(o, schedule, driver, sink, stats, latency, output);
        var samplerThread = new Thread(sampler.Run) { IsBackground = true, Name = "measure-sampler" };
        samplerThread.Start();
        // What this thread calls in the measured phase, called once now: a first call's lazy set-up allocates.
        _ = service.HasExited;
        _ = persister?.HasExited;
        _ = journalled();
        _ = GcSnapshot.Take();
        _ = RapidFix.Pools.Diagnostics.EngineThreads.TotalAllocatedBytes;
        _ = RuntimeActivity.Take();
        _ = OutputThreadsAllocated(service, persister);
        _ = ThreadCensus.Take();
        // No timer of startup may wake the runtime's timer thread in the measured phase (QuietTimers: Npgsql's
        // stopped command timeouts woke it 300 s after startup, and the thread pool allocated 2,072 bytes); the
        // persister's set-up runs in a child for that. Said when something else schedules one.
        if (QuietTimers.FurthestWakeUpMs() is > 5_000 and var wake)
        {
            notes.Add(string.Create(System.Globalization.CultureInfo.InvariantCulture,
                $"the runtime's timer thread in the driver's process was due to wake {wake / 1000.0:F0} s after the schedule was made ({Timer.ActiveCount} timers running): its thread-pool work then may allocate in the measured phase"));
        }

        // Start sending on an empty young generation: what startup allocated (the service's start-up, the sessions,
        // the sampler's histograms, an earlier step's run) is collected now, not while the driver measures.
        Thread.Sleep(20);
        // Finalizers found by the second collection run now too, not on the finalizer thread inside the phase.
        GC.Collect();
        GC.WaitForPendingFinalizers();
        GC.Collect();
        GC.WaitForPendingFinalizers();
        // The sending thread stays parked after its last send until the measured phase has ended: a thread's exit is
        // the runtime's work (its finalizer thread cleans up after it) and belongs outside the window.
        var sending = new ParkedThread(
            () =>
            {
                if (o.RealtimeDriver)
                {
                    TimingThreads.RaiseCurrentThread();
                }

                driver.Run(stopRequested);
            },
            "measure-driver",
            ThreadPriority.AboveNormal);
        // The driver's measured phase starts when its warm-up ends: from then on its process must allocate nothing
        // (its sessions' first sends, the JIT's first calls, the sampler's first interval are warm-up).
        long warmedUp = schedule.StartOf(RunPhase.RampUp);
        for (long left = warmedUp - Stopwatch.GetTimestamp(); left > 0 && !sending.Done; left = warmedUp - Stopwatch.GetTimestamp())
        {
            sending.WaitDone((int)Math.Clamp(left * 1000 / frequency, 1, 100)); // called before the window, too
        }

        GcSnapshot? measuredFrom = null;
        long mainFrom = 0, sessionsFrom = 0, outputFrom = 0;
        RuntimeActivity activityFrom = default;
        ThreadCensus? censusFrom = null;
        if (!sending.Done)
        {
            censusFrom = ThreadCensus.Take(); // allocates: just before the window
            persister?.MarkAllocations();
            driver.MarkAllocations();
            sessionsFrom = RapidFix.Pools.Diagnostics.EngineThreads.TotalAllocatedBytes;
            outputFrom = OutputThreadsAllocated(service, persister);
            activityFrom = RuntimeActivity.Take();
            measuredFrom = GcSnapshot.Take();
            mainFrom = GC.GetAllocatedBytesForCurrentThread();
        }

        sending.WaitDone();
        long sendingEnded = Stopwatch.GetTimestamp();

        long ackable = driver.SentAckable; // a refused send gets no ack
        long drainStart = Stopwatch.GetTimestamp();
        long drainLimit = drainStart + (long)(o.DrainSeconds * frequency);
        while (sink.Acks < ackable && Stopwatch.GetTimestamp() < drainLimit && !service.HasExited)
        {
            Thread.Sleep(10);
        }

        double drainSeconds = (Stopwatch.GetTimestamp() - drainStart) / (double)frequency;
        long missingAcks = ackable - sink.Acks;
        Thread.Sleep(200); // the last samples
        double? catchUp = null;
        long finalJournalled = 0;
        if (persister is not null)
        {
            catchUp = persister.WaitCaughtUp(journalled, TimeSpan.FromSeconds(o.DrainSeconds));
            finalJournalled = journalled();
        }

        // The measured phase ends here: everything after it (stopping processes, reading files, the analysis) allocates.
        long mainTo = GC.GetAllocatedBytesForCurrentThread();
        long sessionsTo = RapidFix.Pools.Diagnostics.EngineThreads.TotalAllocatedBytes;
        long outputTo = OutputThreadsAllocated(service, persister);
        var activityTo = RuntimeActivity.Take();
        var measuredTo = GcSnapshot.Take();
        string? threads = censusFrom is null ? null : ThreadCensus.Between(censusFrom, ThreadCensus.Take());
        sending.Release();
        if (missingAcks > 0)
        {
            notes.Add($"{missingAcks} acks still missing {o.DrainSeconds:F0} s after the last send");
        }

        PersisterSummary? persisted = null;
        if (persister is not null)
        {
            int persisterExit = persister.Stop(TimeSpan.FromSeconds(30));
            File.WriteAllLines(Path.Combine(work, "persister-output.txt"), persister.Lines);
            var points = persister.Points;
            persisted = new PersisterSummary(persister.Describe, points, catchUp, points.Count > 0 ? Math.Max(0, finalJournalled - points[^1].Persisted) : finalJournalled, persisterExit);
            if (catchUp is null)
            {
                notes.Add(persisted.Line);
            }

            if (persisterExit != 0)
            {
                notes.Add($"the persister exited with code {persisterExit} (its output: {Path.Combine(work, "persister-output.txt")})");
            }

            if (persister.PointsDropped > 0)
            {
                notes.Add($"{persister.PointsDropped} persister-lag readings did not fit the array sized for the run (not in the lag figures)");
            }
        }

        sampler.Stop();
        samplerThread.Join();
        stats?.Dispose();
        // The service stops first, its participants still connected: their logout and the connections' tear-down
        // belong to its shutdown (a tear-down allocates, as a set-up does), not to its continuous phase.
        int exit = service.Stop(TimeSpan.FromSeconds(60));
        engine.Dispose();
        if (exit is not 0 and not 1)
        {
            notes.Add($"the service exited with code {exit}");
        }

        File.WriteAllLines(Path.Combine(work, "output.txt"), service.Lines);
        var continuous = service.ContinuousReport();
        TraceVerdict? trace = null;
        if (service.TracePath is { } tracePath)
        {
            trace = TraceVerdict.Analyze(tracePath, Path.Combine(o.OutputDirectory, "trace-analysis"), notes);
        }

        var samples = sampler.Samples;
        var steady = SteadyWindow(samples, schedule);
        double steadySeconds = steady.Count > 1 ? (steady[^1].Tick - steady[0].Tick) / (double)frequency : 0;
        double achieved = steadySeconds > 0 ? (steady[^1].Matched - steady[0].Matched) / steadySeconds : 0;
        double sentRate = steadySeconds > 0 ? (steady[^1].DriverSent - steady[0].DriverSent) / steadySeconds : 0;
        bool bounded = OperationalAnalysis.Bounded(steady, frequency, Tolerance(o.Rate), out double growth, out double levelRise);
        OperationalReport? analysis = steady.Count >= 2 && stats is not null ? OperationalAnalysis.Analyze(steady, frequency) : null;
        if (stats is null)
        {
            bounded = false;
        }

        if (latency.Clamped > 0)
        {
            notes.Add($"{latency.Clamped} latencies above an hour were recorded as an hour");
        }

        if (sink.Untraced > 0)
        {
            notes.Add($"{sink.Untraced} answers named no message the driver sent (not measured)");
        }

        if (sink.TooLate > 0)
        {
            notes.Add($"{sink.TooLate} answers came back more than {IntendedTimes.LatenessSeconds:F0} s of trades late (their intended time was reused): counted, not timed");
        }

        if (set.KeysOfOpenTrades > 0)
        {
            notes.Add($"{set.KeysOfOpenTrades} trades took the matching key of a trade that had not cleared {TradeUniverse.UniqueTrades:N0} trades earlier (the generator's keys repeat after that many): the service may have matched them together; the run's matching results are suspect");
        }

        if (set.FormattedInline > 0)
        {
            notes.Add($"the driver formatted {set.FormattedInline} messages inline, due before the stream had them ready (still timed from their intended times)");
        }

        return new RunResult
        {
            Options = o,
            Schedule = schedule,
            Latency = latency,
            Intervals = sampler.Intervals,
            Samples = samples,
            SteadySamples = steady,
            Analysis = analysis,
            AchievedPerSecond = achieved,
            SentPerSecond = sentRate,
            Bounded = bounded,
            GrowthPerSecond = growth,
            LevelRise = levelRise,
            Sent = driver.Next - driver.Refused,
            Refused = driver.Refused + (steady.Count > 0 ? steady[^1].Refused : 0),
            Acks = sink.Acks,
            Rejected = sink.Rejected,
            Cls = sink.Cls,
            Notices = sink.Notices,
            Untraced = sink.Untraced,
            ExpectedAcks = ackable,
            DrainSeconds = drainSeconds,
            ServiceContinuous = continuous,
            SteadyServiceCollections = steady.Count > 1 ? steady[^1].Gen0Collections - steady[0].Gen0Collections : 0,
            Trace = trace,
            Notes = notes,
            Sizing = journal,
            Persister = persisted,
            PersisterSkipped = skipped,
            DriverCollections = measuredFrom is { } f ? measuredTo.Collections - f.Collections : -1,
            DriverAllocatedBytes = driver.AllocatedWhileSending,
            DriverProcessAllocatedBytes = measuredFrom is { } g ? measuredTo.AllocatedBytes - g.AllocatedBytes : -1,
            DriverMeasuredSeconds = measuredFrom is { } h ? (measuredTo.Timestamp - h.Timestamp) / (double)frequency : 0,
            DriverWindowLateSeconds = measuredFrom is { } w ? (w.Timestamp - warmedUp) / (double)frequency : 0,
            DriverSendingSeconds = (sendingEnded - warmedUp) / (double)frequency,
            SamplerAllocatedBytes = sampler.AllocatedAfterWarmUp,
            MainAllocatedBytes = measuredFrom is null ? -1 : mainTo - mainFrom,
            LagPollerAllocatedBytes = persister?.PollerAllocated ?? -1,
            SessionThreadsAllocatedBytes = measuredFrom is null ? -1 : sessionsTo - sessionsFrom,
            OutputThreadsAllocatedBytes = measuredFrom is null ? -1 : outputTo - outputFrom,
            RuntimeInMeasuredPhase = measuredFrom is null ? null : activityTo - activityFrom,
            ThreadsInMeasuredPhase = threads,
            DriverBytes = journal.DriverBytes,
            DriverSleeps = driver.Sleeps,
            DriverScheduling = TimingThreads.Describe(o.RealtimeDriver),
            HostWriteback = writeback,
        };
    }

    // The children's output readers' allocated bytes so far (allocation-free).
    private static long OutputThreadsAllocated(ServiceProcess service, PersisterRun? persister) =>
        service.OutputThreadsAllocatedBytes + (persister?.OutputThreadsAllocatedBytes ?? 0);

    /// <summary>The growth a queue may show over the steady window: a tenth of a second's messages, at least 1,000.</summary>
    internal static double Tolerance(double rate) => Math.Max(1000, rate * 0.1);


    // The samples from the steady part's start to its end.
    private static ArraySegment<QueueSample> SteadyWindow(QueueSample[] samples, OpenLoopSchedule schedule)
    {
        long from = schedule.StartOf(RunPhase.Steady), to = schedule.StartOf(RunPhase.RampDown);
        int first = Array.FindIndex(samples, s => s.Tick >= from);
        int last = Array.FindLastIndex(samples, s => s.Tick <= to);
        return first < 0 || last < first ? ArraySegment<QueueSample>.Empty : new ArraySegment<QueueSample>(samples, first, last - first + 1);
    }
}

/// <summary>
/// The driver process's collections and allocated bytes at one moment: <c>GC.CollectionCount(0)</c> (every
/// collection counts generation 0) and <c>GC.GetTotalAllocatedBytes(precise: true)</c> (which pauses the runtime
/// for a moment to count what every thread's allocation context holds: taken twice a run, at the warm-up's end and
/// after the drain, never in the steady part).
/// </summary>
internal readonly record struct GcSnapshot(long Collections, long AllocatedBytes, long Timestamp)
{
    public static GcSnapshot Take() => new(GC.CollectionCount(0), GC.GetTotalAllocatedBytes(precise: true), Stopwatch.GetTimestamp());
}

/// <summary>The driver's participants: one RapidFix initiator session each, every answer to the sink.</summary>
internal static class Initiators
{
    /// <summary>Messages and bytes of each initiator's express store: nothing is kept (PersistMessages=N), so a fixed small one.</summary>
    public const int StoreMessages = 10_000;

    /// <inheritdoc cref="StoreMessages"/>
    public const int StoreBytes = 1 << 20;

    /// <summary>
    /// Starts one initiator per participant. The driver keeps nothing it sends (PersistMessages=N: a resend request
    /// would be answered with a gap fill, and the service never asks for one on loopback), so its memory does not
    /// grow with the run. It does not validate the answers against the FIX 4.4 dictionary either (UseDataDictionary=N:
    /// the session-level checks still run, the sink reads top-level fields only, and no answer repeats a tag it reads),
    /// since what a message costs the driver is CPU taken from the service on a shared machine (issue 10); the answers'
    /// conformance is the service's tests' and the verifier's to check.
    /// </summary>
    public static FixEngine Start(IReadOnlyList<string> participants, string serviceCompId, string host, int port, IFixApplication sink)
    {
        var text = new System.Text.StringBuilder();
        text.AppendLine("[DEFAULT]").AppendLine("ConnectionType=initiator").AppendLine($"SocketConnectHost={host}").AppendLine($"SocketConnectPort={port}")
            .AppendLine("ReconnectInterval=1").AppendLine("HeartBtInt=30").AppendLine("StartTime=00:00:00").AppendLine("EndTime=00:00:00")
            // Open loop: the answers of a stalled service pile up here rather than slow the driver.
            .AppendLine("OutboundQueueDepth=262144").AppendLine("StoreType=express").AppendLine("PersistMessages=N").AppendLine("UseDataDictionary=N")
            .AppendLine($"StoreMaxMessages={StoreMessages}").AppendLine($"StoreMaxBytes={StoreBytes}");
        foreach (var id in participants)
        {
            text.AppendLine("[SESSION]").AppendLine("BeginString=FIX.4.4").AppendLine($"SenderCompID={id}").AppendLine($"TargetCompID={serviceCompId}");
        }

        var engine = FixEngine.Create(SettingsFile.Parse(text.ToString(), "measure initiators"), _ => sink);
        engine.Start();
        return engine;
    }

    public static bool WaitForLogons(FixEngine engine, TimeSpan timeout)
    {
        var deadline = Stopwatch.StartNew();
        while (deadline.Elapsed < timeout)
        {
            if (engine.Sessions.All(s => s.IsLoggedOn))
            {
                return true;
            }

            Thread.Sleep(10);
        }

        return false;
    }
}
