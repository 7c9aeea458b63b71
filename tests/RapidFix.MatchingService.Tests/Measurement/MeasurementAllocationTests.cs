using System.Diagnostics;
using RapidFix.Engine.Codec;
using RapidFix.Engine.Configuration;
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
        for (int slot = 8; slot < 8 * 101; slot++)
        {
            intended.Set(slot, 1 + slot);
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

    [Fact]
    public void The_driver_sends_on_schedule_over_fix_sessions_without_allocating_and_never_waits_for_answers()
    {
        var participants = TradeGenerator.Participants;
        int port = Participants.FreePort();
        using var acceptor = AcceptorFor(participants, port);
        var (messages, intended) = TradeSet.Prepare(20_000, participants);
        var schedule = new OpenLoopSchedule(1000, 0, 0, 15, Stopwatch.GetTimestamp(), Stopwatch.Frequency);
        var latency = new LatencyRecorder(Stopwatch.Frequency);
        var sink = new TradeSink(intended, schedule, latency);
        using var engine = Initiators.Start(participants, "MATCH", "127.0.0.1", port, sink, messages.Length);
        Assert.True(Initiators.WaitForLogons(engine, TimeSpan.FromSeconds(60)), "the initiators did not log on");
        var sessions = participants.Select(p => engine.Sessions.First(s => s.Id.SenderCompId == p)).ToArray();
        var driver = new OpenLoopDriver(messages, sessions, schedule, intended, latency);

        // Each call is made at the next message's intended time: one message a call.
        var state = (driver, schedule);
        long bytes = Allocations.Measure(state, static s =>
        {
            if (s.driver.SendDue(s.schedule.IntendedTime(s.driver.Next)) != 1)
            {
                throw new InvalidOperationException("one message was due");
            }
        }, iterations: 3000, warmup: 1000);
        Assert.Equal(0, bytes);
        Assert.Equal(0, driver.Refused);

        // Open loop: a driver that comes back 500 messages late sends all of them at once, each keeping its own
        // intended time (the send lag of the first is the longest), whatever came back meanwhile.
        long before = driver.Next;
        Assert.Equal(500, driver.SendDue(schedule.IntendedTime(before + 499)));
        Assert.Equal(before + 500, driver.Next);
        Assert.Equal(before + 500, latency.Of(LatencyChannel.Send, RunPhase.Steady).TotalCount);
        Assert.Equal(0, driver.Refused);
    }

    [Fact]
    public void The_service_stats_publisher_copies_the_counters_without_allocating()
    {
        string work = Path.Combine(Path.GetTempPath(), "rapidfix-stats-" + Guid.NewGuid().ToString("N"));
        var server = Verifier.StartService(work, DocumentedExamplesTests.DemoStaticData, 1000, "MATCH", TextWriter.Null);
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

    // An acceptor per participant that takes whatever comes (the driver's send path is what is measured).
    private static FixEngine AcceptorFor(IReadOnlyList<string> participants, int port)
    {
        var text = new System.Text.StringBuilder();
        text.AppendLine("[DEFAULT]").AppendLine("ConnectionType=acceptor").AppendLine("SocketAcceptHost=127.0.0.1").AppendLine($"SocketAcceptPort={port}")
            .AppendLine("StartTime=00:00:00").AppendLine("EndTime=00:00:00").AppendLine("StoreType=express").AppendLine("StoreMaxMessages=200000")
            .AppendLine("StoreMaxBytes=200000000");
        foreach (var p in participants)
        {
            text.AppendLine("[SESSION]").AppendLine("BeginString=FIX.4.4").AppendLine("SenderCompID=MATCH").AppendLine($"TargetCompID={p}");
        }

        var engine = FixEngine.Create(SettingsFile.Parse(text.ToString(), "acceptor"), _ => new FixApplicationBase());
        engine.Start();
        return engine;
    }
}
