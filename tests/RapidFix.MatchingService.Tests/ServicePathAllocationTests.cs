using System.Diagnostics;
using RapidFix.Engine.Hosting;
using RapidFix.Engine.Sessions;
using RapidFix.TradeDriver;

namespace RapidFix.MatchingService.Tests;

/// <summary>
/// The service's whole message path in its continuous phase, in process: real FIX sessions over loopback, the input
/// journal, the ring, the matcher thread, acks, CLS fan-out, exception notices, rejections of bad trades, duplicates,
/// amendments and cancels, back-pressure refusals (BusinessMessageReject 4), an unsupported message type
/// (BusinessMessageReject 3) and a business-date roll that expires trades. Rounds of all that warm it up; the same
/// round over new trades inside the continuous phase must allocate nothing on any thread of the path and run no
/// collection.
/// </summary>
[Collection(nameof(ServiceProcesses))]
public sealed class ServicePathAllocationTests : IDisposable
{
    private readonly string _work = Path.Combine(Path.GetTempPath(), "rapidfix-service-path-" + Guid.NewGuid().ToString("N"));

    public void Dispose()
    {
        if (Directory.Exists(_work))
        {
            Directory.Delete(_work, recursive: true);
        }
    }

    [Fact]
    public void Every_answer_kind_through_the_sessions_allocates_nothing_in_the_continuous_phase()
    {
        // A thread of its own, as the service's main thread: it switches the phases and drives the participants.
        Result? result = null;
        Exception? failure = null;
        var thread = new Thread(() =>
        {
            try
            {
                result = Run();
            }
            catch (Exception ex)
            {
                failure = ex;
            }
        });
        thread.Start();
        thread.Join();
        Assert.Null(failure);
        var r = result!;

        // The measured round covered every kind of answer.
        Assert.True(r.Refused > 0, "no refusal in the measured round");
        Assert.True(r.Cls > 0, "no CLS in the measured round");
        Assert.True(r.Expired > 0, "nothing expired in the measured round");
        Assert.Equal(0, r.Report.Continuous.Gen0Collections);
        // Every thread of the path: the connection threads (the service's and the participants') and the matcher
        // thread (engine threads), the journals' flusher threads, and the thread that drives the participants. The
        // process-wide precise count is not asserted here: the test host allocates on threads of its own while a test
        // runs (measured: about 1.7 KB a second with the sessions idle). tools/zero-gc-service.sh checks the
        // service's process as a whole, out of process, in CI.
        Assert.Equal(0, r.Report.Continuous.EngineThreadsAllocatedBytes);
        Assert.Equal(0, r.FlusherBytes);
        Assert.Equal(0, r.DriverThreadBytes);
    }

    private Result Run()
    {
        Directory.CreateDirectory(_work);
        var (messages, _) = TradeGenerator.Generate(new GeneratorOptions
        {
            Trades = 240, Seed = 3, Duplicates = 0.05, Amendments = 0.05, Cancels = 0.05, Bad = 0.2,
        });
        var set = Verifier.Encode(messages);
        int half = set.Count / 2;
        string config = Path.Combine(_work, "service.cfg");
        File.WriteAllText(config, Verifier.ServiceSettings(TradeGenerator.Participants, "MATCH", set.Count * 4));
        var server = MatchingServer.Start(new ServiceOptions
        {
            SettingsPath = config,
            StaticDataPath = DocumentedExamplesTests.GeneratedStaticData,
            Port = Participants.FreePort(),
            DataDirectory = Path.Combine(_work, "data"),
            BusinessDate = 20261123,
            LogPath = Path.Combine(_work, "engine.log"),
            MaxInputs = set.Count * 10,
            InputRingBytes = 16 << 10, // a burst overflows it: refusals
            ExpiryBusinessDays = 1,     // each round's roll expires what the round left open
        });
        var collector = new AnswerCollector { Keep = false };
        using var participants = new Participants(TradeGenerator.Participants, "MATCH", "127.0.0.1", server.Port, collector);
        Assert.True(participants.WaitForLogons(TimeSpan.FromSeconds(60)), "logons");
        var news = (Type: "B"u8.ToArray(), Body: "148=warm\u000133=1\u000158=up\u0001"u8.ToArray());
        var sessions = participants.Sessions;
        var round = new Round(set, participants, sessions, collector, server, news);

        round.Run(0, half);
        Thread.Sleep(300); // tier-1 compilation of what the round ran settles
        round.Run(0, half);
        Thread.Sleep(300);

        long flushers = server.FlusherAllocatedBytes;
        server.EnterContinuous();
        long mine = GC.GetAllocatedBytesForCurrentThread();
        long refused = server.Counters.BusinessRejectsForBusy, cls = collector.Cls, expired = server.Expired;
        round.Run(half, set.Count);
        mine = GC.GetAllocatedBytesForCurrentThread() - mine;
        server.EndContinuous();
        flushers = server.FlusherAllocatedBytes - flushers;
        return new Result(server.Counters.BusinessRejectsForBusy - refused, collector.Cls - cls, server.Expired - expired, mine, flushers, server.Stop());
    }

    private sealed record Result(long Refused, long Cls, long Expired, long DriverThreadBytes, long FlusherBytes, EngineRunReport Report);

    // One round, allocation-free on this thread: the messages in paced chunks (each chunk's acks awaited), a burst of
    // the same messages again (duplicates, and refusals once the ring is full), a message type the service does not
    // handle, and a business-date roll.
    private sealed class Round(List<(string Sender, byte[] MsgType, byte[] Body)> set, Participants participants, IReadOnlyList<FixSession> sessions,
        AnswerCollector collector, MatchingServer server, (byte[] Type, byte[] Body) news)
    {
        private const int Chunk = 16;

        public void Run(int from, int to)
        {
            for (int start = from; start < to; start += Chunk)
            {
                long count = collector.Count;
                int end = Math.Min(to, start + Chunk);
                Send(start, end);
                WaitForAnswers(count + 1);
            }
            long before = collector.Count;
            for (int burst = 0; burst < 4; burst++)
            {
                Send(from, to);
            }
            WaitForAnswers(before + (4L * (to - from) / 2));
            participants[set[from].Sender].Send(news.Type, news.Body);
            // The roll waits for room in the ring (the burst may still fill it) and then for the matcher to process it:
            // a fixed sleep instead left the measured round without its expiries on a loaded machine (1 run in 4).
            long rolls = server.Rolls;
            long deadline = Stopwatch.GetTimestamp() + (60 * Stopwatch.Frequency);
            while (server.RollBusinessDate() == 0 && Stopwatch.GetTimestamp() < deadline)
            {
                Thread.Sleep(5);
            }

            while (server.Rolls == rolls && Stopwatch.GetTimestamp() < deadline)
            {
                Thread.Sleep(1);
            }

            Thread.Sleep(200); // the roll's notices
        }

        private void Send(int start, int end)
        {
            for (int i = start; i < end; i++)
            {
                var (sender, type, body) = set[i];
                participants[sender].SendDeferred(type, body);
            }

            for (int s = 0; s < sessions.Count; s++) // not foreach: the list's enumerator would be boxed
            {
                sessions[s].FlushDeferred();
            }
        }

        private void WaitForAnswers(long count)
        {
            long deadline = Stopwatch.GetTimestamp() + (60 * Stopwatch.Frequency);
            while (collector.Count < count && Stopwatch.GetTimestamp() < deadline)
            {
                Thread.Sleep(1);
            }

            Thread.Sleep(20);
        }
    }
}
