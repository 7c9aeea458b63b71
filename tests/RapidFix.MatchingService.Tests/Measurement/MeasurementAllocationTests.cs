using System.Diagnostics;
using RapidFix.Engine.Codec;
using RapidFix.Engine.Configuration;
using RapidFix.Engine.Fields;
using RapidFix.Engine.Hosting;
using RapidFix.Engine.Sessions;
using RapidFix.Tests.Shared;
using RapidFix.TradeDriver;
using RapidFix.TradeDriver.Measure;

namespace RapidFix.MatchingService.Tests.Measurement;

/// <summary>
/// The driver and the sink allocate nothing while they measure: the driver's send over real FIX sessions, the sink's
/// classification and recording of every kind of answer, the recorder, and the service's stats publisher.
/// </summary>
public sealed class MeasurementAllocationTests
{
    [Fact]
    public void The_sink_classifies_and_records_every_kind_of_answer_without_allocating()
    {
        var schedule = new OpenLoopSchedule(1000, 0, 0, 10, 0, Stopwatch.Frequency);
        var latency = new LatencyRecorder(Stopwatch.Frequency);
        var intended = new IntendedTimes(100);
        for (int trade = 1; trade <= 100; trade++)
        {
            for (int kind = 0; kind < IntendedTimes.SlotsPerTrade; kind++)
            {
                intended.Set(trade, kind, 1 + (trade * IntendedTimes.SlotsPerTrade) + kind);
            }
        }

        var sink = new TradeSink(intended, schedule, latency);
        string[] texts =
        [
            "8=FIX.4.4|35=AR|49=MATCH|56=IM1|34=2|52=20261123-10:00:00.000|571=T5-NOE|487=0|150=F|939=0|55=[N/A]|",
            "8=FIX.4.4|35=P|49=MATCH|56=IM1|34=3|52=20261123-10:00:00.000|70=T5-ALC2|60=20261123-10:00:00.000|87=0|",
            "8=FIX.4.4|35=AU|49=MATCH|56=EB1|34=4|52=20261123-10:00:00.000|664=T6-NPR1|75=20261123|60=20261123-10:00:00.000|940=1|",
            "8=FIX.4.4|35=AK|49=MATCH|56=IM1|34=5|52=20261123-10:00:00.000|664=T5-CLS1|666=0|773=1|665=4|70=T5-ALC1|",
            "8=FIX.4.4|35=j|49=MATCH|56=EB1|34=6|52=20261123-10:00:00.000|45=9|372=T|379=T7-SET1|380=5|",
            "8=FIX.4.4|35=j|49=MATCH|56=EB1|34=7|52=20261123-10:00:00.000|372=J|379=T8-ALC1|380=0|58=unmatched|",
        ];
        var messages = texts.Select(t =>
        {
            var m = new FixMessage();
            Assert.Equal(FixParseError.None, m.ParseCopy(FixSamples.Wire(t)));
            return m;
        }).ToArray();
        var state = (sink, messages, next: new int[1]);
        long bytes = Allocations.Measure(state, static s =>
        {
            s.sink.Observe(s.messages[s.next[0]], 1_000_000);
            s.next[0] = (s.next[0] + 1) % s.messages.Length;
        }, iterations: 30_000, warmup: 3_000); // 36,000 answers: six kinds, each as often
        Assert.Equal(0, bytes);

        // What it counted: per six answers, four acks (one rejecting), one CLS, one notice, nothing untraced.
        Assert.Equal(sink.Received, sink.Acks + sink.Cls + sink.Notices);
        Assert.Equal(sink.Acks, 4 * sink.Cls);
        Assert.Equal(sink.Rejected, sink.Cls);
        Assert.Equal(sink.Notices, sink.Cls);
        Assert.Equal(0, sink.Untraced);
        Assert.Equal(sink.Acks, latency.Of(LatencyChannel.Ack, RunPhase.Steady).TotalCount);
        Assert.Equal(sink.Cls, latency.Of(LatencyChannel.Cls, RunPhase.Steady).TotalCount);
    }

    [Fact]
    public void The_recorder_and_interval_histograms_allocate_nothing()
    {
        var latency = new LatencyRecorder(Stopwatch.Frequency);
        var interval = LatencyRecorder.New();
        var state = (latency, interval, n: new long[1]);
        long bytes = Allocations.Measure(state, static s =>
        {
            s.latency.Record(LatencyChannel.Ack, RunPhase.Steady, 1 + (s.n[0]++ % 100_000));
            if (s.n[0] % 1000 == 0)
            {
                s.latency.TakeInterval(LatencyChannel.Ack, s.interval);
            }
        }, iterations: 50_000);
        Assert.Equal(0, bytes);
    }

    /// <summary>
    /// What the driver reads at both ends of its measured phase to name the thread that allocated (the runtime's
    /// counters), and the path the interval recorder's phase flip takes when a writer is caught in its critical
    /// section (a completed <c>Task.Delay</c> of 0.5 ms, set up by the sampler's warm-up): 0 bytes once called.
    /// </summary>
    [Fact]
    public void The_runtime_counters_and_the_recorder_s_flip_wait_allocate_nothing()
    {
        long bytes = Allocations.Measure(0, static state =>
        {
            var a = RuntimeActivity.Take();
            _ = (a - RuntimeActivity.Take()).JitMethods;
            Sampler.HistogramPhaserWait();
        }, iterations: 2_000);
        Assert.Equal(0, bytes);
    }

    [Fact]
    public void The_thread_census_sees_a_thread_started_between_two_censuses()
    {
        var before = ThreadCensus.Take();
        using var go = new ManualResetEventSlim();
        var thread = new Thread(() => go.Wait()) { Name = "census-probe", IsBackground = true };
        thread.Start();
        try
        {
            var after = ThreadCensus.Take();
            if (after.Count == 0)
            {
                return; // no /proc here
            }

            Assert.Contains("threads started: ", ThreadCensus.Between(before, after), StringComparison.Ordinal);
            Assert.Contains("census-probe", ThreadCensus.Between(before, after), StringComparison.Ordinal);
            Assert.StartsWith("no thread started", ThreadCensus.Between(after, after), StringComparison.Ordinal);
        }
        finally
        {
            go.Set();
            thread.Join();
        }
    }

    [Fact]
    public void The_driver_streams_the_set_through_a_ring_smaller_than_the_run_over_fix_sessions_without_allocating_and_never_waits_for_answers()
    {
        var participants = TradeGenerator.Participants;
        int port = Participants.FreePort();
        var received = new Recorder();
        using var acceptor = AcceptorFor(participants, port, received);
        // A ring of 256 messages for a run of thousands: every slot is formatted again many times over.
        var (set, intended) = TradeSet.Prepare(1000, participants, capacity: 256);
        var schedule = new OpenLoopSchedule(1000, 0, 0, 60, Stopwatch.GetTimestamp(), Stopwatch.Frequency);
        var latency = new LatencyRecorder(Stopwatch.Frequency);
        var sink = new TradeSink(intended, schedule, latency);
        using var engine = Initiators.Start(participants, "MATCH", "127.0.0.1", port, sink);
        Assert.True(Initiators.WaitForLogons(engine, TimeSpan.FromSeconds(60)), "the initiators did not log on");
        var sessions = participants.Select(p => engine.Sessions.First(s => s.Id.SenderCompId == p)).ToArray();
        var driver = new OpenLoopDriver(set, sessions, schedule, intended, latency);

        // Each call is made at the next message's intended time: one message a call, then the ring is topped up
        // (formatting ahead: what Run does between sends). Warmed up as Allocations.Measure does (twice, a pause
        // after each for the tiered compiler); the window's bytes are split between the send and the formatting,
        // and the window says what the runtime did in it, so a failure names where the bytes came from.
        var probe = new SendProbe(driver, schedule);
        for (int round = 0; round < 2; round++)
        {
            SendOneAtATime(probe, 1000);
            Thread.Sleep(200);
        }

        var window = Allocations.Window(probe, static p =>
        {
            p.Reset(p.Driver.Next);
            SendOneAtATime(p, 3000);
        });
        Assert.True(window.Bytes == 0, $"{window}: sending {probe.SendBytes}, formatting ahead {probe.FormatBytes} (messages {probe.From} to {driver.Next})");
        Assert.Equal(0, driver.Refused);

        // Open loop: a driver that comes back 500 messages late sends all of them at once, each keeping its own
        // intended time (the send lag of the first is the longest), whatever came back meanwhile; the ring (256)
        // cannot hold them all ahead, so some are formatted inline.
        long before = driver.Next;
        long inline = set.FormattedInline;
        Assert.Equal(500, driver.SendDue(schedule.IntendedTime(before + 499)));
        Assert.Equal(before + 500, driver.Next);
        Assert.Equal(before + 500, latency.Of(LatencyChannel.Send, RunPhase.Steady).TotalCount);
        Assert.True(set.FormattedInline > inline, "a burst longer than the ring formats inline");
        Assert.Equal(0, driver.Refused);
        Assert.True(driver.Next > 10 * set.Capacity, $"the run ({driver.Next} messages) is many times the ring ({set.Capacity})");

        // What went over the wire is TradeGenerator's set for seed 7, in its order per participant.
        long sent = driver.Next;
        var deadline = Stopwatch.StartNew();
        while (received.Count < sent && deadline.Elapsed < TimeSpan.FromSeconds(60))
        {
            Thread.Sleep(20);
        }

        Assert.Equal(sent, received.Count);
        var (expected, _) = TradeGenerator.Generate(new GeneratorOptions { Trades = (int)((sent / 7 / TradeStream.Window) + 2) * TradeStream.Window, Seed = 7 });
        long ackable = 0;
        foreach (var participant in participants)
        {
            var want = expected.Take((int)sent).Where(m => m.Sender == participant).Select(m => m.MsgType + " " + m.Id + (m.MsgType == "T" ? "-M" : "")).ToList();
            Assert.Equal(want, received.Of(participant));
            ackable += want.Count(w => !w.StartsWith("T ", StringComparison.Ordinal));
        }

        Assert.Equal(ackable, driver.SentAckable);
    }

    /// <summary>
    /// The driver's turns (issue 10: its CPU a message): with a send tick it sleeps at least a tick between two turns,
    /// each sending every message then due, so at 20,000 messages/s and a 1-ms tick it wakes about a thousand times a
    /// second (20 messages a turn) instead of yielding between every two messages; every message still goes out, in
    /// order, with its own intended time. The sleep itself allocates nothing.
    /// </summary>
    [Fact]
    public void The_driver_sends_a_tick_s_messages_a_turn_and_sleeps_between_turns()
    {
        if (!PreciseSleep.Available)
        {
            return; // Linux only: elsewhere the old loop runs
        }

        Assert.Equal(0, Allocations.Measure(0, static _ => PreciseSleep.Sleep(1_000, 1_000_000_000), iterations: 200, warmup: 200));
        var participants = TradeGenerator.Participants;
        int port = Participants.FreePort();
        var received = new Recorder();
        using var acceptor = AcceptorFor(participants, port, received);
        var (set, intended) = TradeSet.Prepare(20_000, participants);
        var latency = new LatencyRecorder(Stopwatch.Frequency);
        var sink = new TradeSink(intended, new OpenLoopSchedule(20_000, 0, 0, 1, 0, Stopwatch.Frequency), latency);
        using var engine = Initiators.Start(participants, "MATCH", "127.0.0.1", port, sink);
        Assert.True(Initiators.WaitForLogons(engine, TimeSpan.FromSeconds(60)), "the initiators did not log on");
        var sessions = participants.Select(p => engine.Sessions.First(s => s.Id.SenderCompId == p)).ToArray();
        var schedule = new OpenLoopSchedule(20_000, 0, 0, 1, Stopwatch.GetTimestamp() + (Stopwatch.Frequency / 20), Stopwatch.Frequency);
        sink.Schedule = schedule;
        var driver = new OpenLoopDriver(set, sessions, schedule, intended, latency, TimeSpan.FromMilliseconds(1));
        driver.Run(() => false);

        Assert.Equal(schedule.Total, driver.Next);
        Assert.Equal(0, driver.Refused);
        Assert.Equal(schedule.Total, latency.Of(LatencyChannel.Send, RunPhase.Steady).TotalCount);
        // A turn a millisecond at most (a loaded machine makes fewer, longer ones): 1 s of messages and the 50 ms
        // before the first, against 20,000 turns for a driver that woke for every message.
        Assert.InRange(driver.Sleeps, 1, 1_200);
        var deadline = Stopwatch.StartNew();
        while (received.Count < schedule.Total && deadline.Elapsed < TimeSpan.FromSeconds(60))
        {
            Thread.Sleep(20);
        }

        Assert.Equal(schedule.Total, received.Count);
    }

    [Fact]
    public void The_service_stats_publisher_copies_the_counters_without_allocating()
    {
        string work = Path.Combine(Path.GetTempPath(), "rapidfix-stats-" + Guid.NewGuid().ToString("N"));
        var server = Verifier.StartService(work, DocumentedExamplesTests.GeneratedStaticData, 1000, "MATCH", TextWriter.Null);
        try
        {
            string path = Path.Combine(work, "service.stats");
            using var publisher = ServiceStatsPublisher.Start(server, path);
            long bytes = Allocations.Measure(publisher, static p => p.Publish(), iterations: 20_000);
            Assert.Equal(0, bytes);
            using var reader = ServiceStatsReader.TryOpen(path);
            Assert.NotNull(reader);
            Assert.Equal(Environment.ProcessId, reader!.ProcessId);
            Assert.True(reader.TryRead(out var stats));
            Assert.True(stats.Continuous, "the service is in its continuous phase");
            Assert.Equal(0, stats.Matched);
            Assert.True(stats.Timestamp > 0);
            Assert.True(reader.ResidentBytes() > 0 || !OperatingSystem.IsLinux());
        }
        finally
        {
            server.Stop();
            Directory.Delete(work, recursive: true);
        }
    }

    // One message a call at its intended time, then the ring topped up; what each half allocated on this thread is
    // added up. Compiled optimized at once, as Allocations' own loop (no on-stack replacement of the measuring loop).
    [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.NoInlining | System.Runtime.CompilerServices.MethodImplOptions.AggressiveOptimization)]
    private static void SendOneAtATime(SendProbe p, int messages)
    {
        for (int i = 0; i < messages; i++)
        {
            long start = GC.GetAllocatedBytesForCurrentThread();
            if (p.Driver.SendDue(p.Schedule.IntendedTime(p.Driver.Next)) != 1)
            {
                throw new InvalidOperationException("one message was due");
            }

            long sent = GC.GetAllocatedBytesForCurrentThread();
            p.Driver.FormatAhead();
            p.SendBytes += sent - start;
            p.FormatBytes += GC.GetAllocatedBytesForCurrentThread() - sent;
        }
    }

    private sealed class SendProbe(OpenLoopDriver driver, OpenLoopSchedule schedule)
    {
        public OpenLoopDriver Driver { get; } = driver;

        public OpenLoopSchedule Schedule { get; } = schedule;

        public long SendBytes { get; set; }

        public long FormatBytes { get; set; }

        public long From { get; private set; }

        public void Reset(long from)
        {
            From = from;
            SendBytes = 0;
            FormatBytes = 0;
        }
    }

    // An acceptor per participant that takes whatever comes (the driver's send path is what is measured).
    private static FixEngine AcceptorFor(IReadOnlyList<string> participants, int port, FixApplicationBase? application = null)
    {
        var text = new System.Text.StringBuilder();
        text.AppendLine("[DEFAULT]").AppendLine("ConnectionType=acceptor").AppendLine("SocketAcceptHost=127.0.0.1").AppendLine($"SocketAcceptPort={port}")
            .AppendLine("StartTime=00:00:00").AppendLine("EndTime=00:00:00").AppendLine("StoreType=express").AppendLine("StoreMaxMessages=200000")
            .AppendLine("StoreMaxBytes=200000000");
        foreach (var p in participants)
        {
            text.AppendLine("[SESSION]").AppendLine("BeginString=FIX.4.4").AppendLine("SenderCompID=MATCH").AppendLine($"TargetCompID={p}");
        }

        var engine = FixEngine.Create(SettingsFile.Parse(text.ToString(), "acceptor"), _ => application ?? new FixApplicationBase());
        engine.Start();
        return engine;
    }

    // Every application message the acceptor gets, as "MsgType ID" per sender, in order.
    private sealed class Recorder : FixApplicationBase
    {
        private readonly System.Collections.Concurrent.ConcurrentDictionary<string, List<string>> _bySender = new();
        private long _count;

        public long Count => Interlocked.Read(ref _count);

        public List<string> Of(string sender)
        {
            var list = _bySender.GetOrAdd(sender, _ => []);
            lock (list)
            {
                return [.. list];
            }
        }

        public override MessageDisposition FromApp(FixSession session, FixMessage message)
        {
            string type = System.Text.Encoding.ASCII.GetString(message.MsgType);
            int tag = type switch { "AE" => 571, "J" => 70, "AK" => 664, _ => 777 }; // a SET's 162 is inside its group: its 777 is "<162>-M"
            string id = message.TryGetText(FieldScope.Message, tag, out var v) ? System.Text.Encoding.ASCII.GetString(v) : "?";
            var list = _bySender.GetOrAdd(session.Id.TargetCompId, _ => []);
            lock (list)
            {
                list.Add(type + " " + id);
            }

            Interlocked.Increment(ref _count);
            return MessageDisposition.Accept;
        }
    }
}
