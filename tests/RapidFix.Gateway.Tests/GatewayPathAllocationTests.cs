using System.Diagnostics;
using RapidFix.Engine.Hosting;
using RapidFix.Engine.Sessions;
using RapidFix.MatchingService;
using RapidFix.TradeDriver;

namespace RapidFix.Gateway.Tests;

/// <summary>
/// The gateway's whole routing path in its continuous phase, in process, over real FIX sessions on loopback: the
/// participants' messages routed by partition into the forward ring, forwarded in batches to two live services,
/// their acks, CLS and notices carried back, the services' BusinessMessageRejects with their RefSeqNum turned back
/// into the participants' MsgSeqNums, and the messages of a third partition held for its service, which is down.
/// Rounds of the same warm it up; the round over new trades inside the continuous phase must allocate nothing on any
/// thread of the path and run no collection.
/// </summary>
[Collection(nameof(GatewayProcesses))]
public sealed class GatewayPathAllocationTests : IDisposable
{
    private readonly ScaleOut _scale = new();

    public void Dispose() => _scale.Dispose();

    [Fact]
    public void Forwarding_answers_RefSeqNum_rewrites_and_holding_allocate_nothing_in_the_continuous_phase()
    {
        // A thread of its own, as the gateway's main thread: it switches the phases and drives the participants.
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

        // The measured round covered every part of the path.
        Assert.True(r.Forwarded > 0 && r.Answers > 0, $"forwarded {r.Forwarded}, answers {r.Answers}");
        Assert.True(r.Rewritten > 0, "no RefSeqNum turned back in the measured round");
        Assert.True(r.Held > 0, "nothing held for the service that is down in the measured round");
        Assert.Equal(0, r.Report.Continuous.Gen0Collections);
        // Every thread of the path: the connection threads (the gateway's both sides, the services', the
        // participants') and the gateway's forwarder (engine threads), the session stores' flusher threads, and the
        // thread that drives the participants. The test host's own threads allocate meanwhile, so the process-wide
        // count is checked out of process (tools/zero-gc-gateway.sh).
        Assert.Equal(0, r.Report.Continuous.EngineThreadsAllocatedBytes);
        Assert.Equal(0, r.FlusherBytes);
        Assert.Equal(0, r.DriverThreadBytes);
    }

    private Result Run()
    {
        // Three partitions: 0 (IM2 with EB2) and 1 (IM1 with EB1, IM2 with EB1) have their services; partition 2
        // (IM1 with EB2) belongs to a service that is never started, so its messages are held.
        Assert.Equal([1, 2, 1, 0], new[] { Partition("IM1", "EB1"), Partition("IM1", "EB2"), Partition("IM2", "EB1"), Partition("IM2", "EB2") });
        var set = GatewayThroughput.EncodedSet(new GeneratorOptions
        {
            Trades = 240, Seed = 3, Duplicates = 0.05, Amendments = 0.05, Cancels = 0.05, Bad = 0.2,
        });
        int half = set.Count / 2;
        using var a = _scale.StartService("a", ScaleOut.FreePort(), 3, [0]);
        using var b = _scale.StartService("b", ScaleOut.FreePort(), 3, [1]);
        var gateway = _scale.StartGateway(3, [new("127.0.0.1", a.Port, [0]), new("127.0.0.1", b.Port, [1]), new("127.0.0.1", ScaleOut.FreePort(), [2])]);
        try
        {
            ScaleOut.Until(() => Enumerable.Range(0, 2).All(k => Enumerable.Range(0, ScaleOut.Participants.Length).All(p => gateway.ServiceSession(k, p).IsLoggedOn)),
                "the gateway's logons to the two services");
            var collector = new AnswerCollector { Keep = false };
            using var participants = new Participants(ScaleOut.Participants, "MATCH", "127.0.0.1", gateway.Port, collector);
            Assert.True(participants.WaitForLogons(TimeSpan.FromSeconds(60)), "the participants' logons to the gateway");
            Assert.True(gateway.WaitForParticipants(TimeSpan.FromSeconds(10)), "the gateway's participant sessions");
            // Each round ends with a SET the matcher refuses (SettlInstTransType T, restate, is not taken): its
            // BusinessMessageReject names the gateway's MsgSeqNum in RefSeqNum, which is turned back.
            var (setSender, _, setBody) = ScaleOut.Example("SET-A");
            var refused = Enumerable.Range(0, 3).Select(i => System.Text.Encoding.ASCII.GetBytes(
                setBody.Replace("\u0001163=N\u0001", "\u0001163=T\u0001", StringComparison.Ordinal).Replace("777=SET-4001", $"777=SET-RESTATE-{i}", StringComparison.Ordinal))).ToArray();
            var round = new Round(set, participants, participants.Sessions, collector, gateway, participants[setSender], refused);

            round.Run(0, half);
            Thread.Sleep(300); // tier-1 compilation of what the round ran settles
            round.Run(0, half);
            Thread.Sleep(300);

            long flushers = gateway.FlusherAllocatedBytes;
            var before = gateway.Counters;
            long held = Held(gateway);
            gateway.EnterContinuous();
            long mine = GC.GetAllocatedBytesForCurrentThread();
            round.Run(half, set.Count);
            mine = GC.GetAllocatedBytesForCurrentThread() - mine;
            gateway.EndContinuous();
            flushers = gateway.FlusherAllocatedBytes - flushers;
            var after = gateway.Counters;
            return new Result(after.Forwarded - before.Forwarded, after.Answers - before.Answers, after.RefSeqNumRewritten - before.RefSeqNumRewritten,
                Held(gateway) - held, mine, flushers, gateway.Stop());
        }
        finally
        {
            gateway.Dispose();
        }
    }

    private static int Partition(string im, string eb) =>
        RapidFix.Matching.TradePartition.Of(System.Text.Encoding.ASCII.GetBytes(im), System.Text.Encoding.ASCII.GetBytes(eb), 3);

    private static long Held(GatewayServer gateway)
    {
        long held = 0;
        for (int p = 0; p < ScaleOut.Participants.Length; p++)
        {
            held += gateway.ServiceSession(2, p).MessagesStoredWhileNotLoggedOn;
        }

        return held;
    }

    private sealed record Result(long Forwarded, long Answers, long Rewritten, long Held, long DriverThreadBytes, long FlusherBytes, EngineRunReport Report);

    // One round, allocation-free on this thread: the messages in chunks, each chunk forwarded (the gateway's counter)
    // before the next is sent, then the answers left to settle.
    private sealed class Round(List<(string Sender, byte[] MsgType, byte[] Body)> set, Participants participants, IReadOnlyList<FixSession> sessions,
        AnswerCollector collector, GatewayServer gateway, FixSession setSender, byte[][] refusedSets)
    {
        private const int Chunk = 16;
        private int _round;

        public void Run(int from, int to)
        {
            for (int start = from; start < to; start += Chunk)
            {
                int end = Math.Min(to, start + Chunk);
                long forwarded = gateway.Counters.Forwarded;
                for (int i = start; i < end; i++)
                {
                    var (sender, type, body) = set[i];
                    participants[sender].SendDeferred(type, body);
                }

                for (int s = 0; s < sessions.Count; s++) // not foreach: the list's enumerator would be boxed
                {
                    sessions[s].FlushDeferred();
                }

                long deadline = Stopwatch.GetTimestamp() + (60 * Stopwatch.Frequency);
                while (gateway.Counters.Forwarded < forwarded + (end - start) && Stopwatch.GetTimestamp() < deadline)
                {
                    Thread.Sleep(1);
                }
            }

            setSender.Send("T"u8, refusedSets[_round++]);

            // The answers of the round: settled once none has arrived for a while.
            long count = -1;
            while (collector.Count != count)
            {
                count = collector.Count;
                Thread.Sleep(300);
            }
        }
    }
}
