using System.Diagnostics;
using System.Net.Sockets;
using RapidFix.Engine.Hosting;
using RapidFix.Engine.Tests.Abuse;
using RapidFix.Engine.Tests.Sessions;
using RapidFix.Engine.Transport;
using RapidFix.Pools.Diagnostics;

namespace RapidFix.Engine.Tests.Transport;

/// <summary>What a connection holds while it waits for its Logon and what it leaves behind when it ends.</summary>
[Collection(nameof(NetworkAbuse))]
public sealed class ConnectionLifetimeTests
{
    // High enough that the cycles below are never refused: they must each get a connection thread.
    private const string NoLimits = "MaxPendingLogons=100000\nMaxPendingLogonsPerAddress=100000";

    public static TheoryData<SocketTransport> Transports => new() { SocketTransport.Pipelines, SocketTransport.DedicatedThread };

    [Fact]
    public void Ten_thousand_connections_opened_and_closed_leave_memory_and_the_thread_registry_flat()
    {
        using var acceptor = SessionHarness.Acceptor(new ExecutingApplication(), extra: NoLimits);
        Cycle(acceptor, 500); // the first connections compile the paths and size the runtime's own caches
        int registryBefore = EngineThreads.All.Length;

        // The heap and working set are the process's: test classes of other collections run beside this one and
        // move them by several MB either way (seen: -15 to +8 MB of heap, +6 to +111 MB of working set over one
        // round, on the code before and after). A leak grows in every round, noise does not: the bound must hold
        // over one of three rounds of 10,000 connections (the defect this guards leaked 70 KB a connection,
        // 700 MB a round; these bounds are 1.6 KB and 6.4 KB a connection).
        string growth = "";
        bool flat = false;
        for (int round = 0; round < 3 && !flat; round++)
        {
            var before = AbuseHarness.SettledMemory();
            var watch = Stopwatch.StartNew();
            Cycle(acceptor, 10_000);
            var elapsed = watch.Elapsed;
            var after = AbuseHarness.SettledMemory();
            long heap = after.Heap - before.Heap, workingSet = after.WorkingSet - before.WorkingSet;
            growth += $"round {round + 1}: heap {heap >> 20} MB, working set {workingSet >> 20} MB ({elapsed.TotalSeconds:F1} s); ";
            flat = heap < 16 << 20 && workingSet < 64 << 20;
        }

        int registryAfter = EngineThreads.All.Length;

        // Leaking one 70 KB pair of histograms per connection is 700 MB a round; a connection's buffers, 40 GB.
        Assert.True(registryAfter - registryBefore <= 64, $"the engine-threads registry grew from {registryBefore} to {registryAfter} recorders");
        Assert.True(flat, $"memory grew in every round of 10,000 connections: {growth}");

        // And the port still serves a counterparty that logs on.
        AbuseHarness.TimeLogon(acceptor, out var client);
        client.Dispose();
    }

    [Fact]
    public void A_connections_latency_figures_outlive_it()
    {
        bool previous = EngineLatency.AlwaysRecord;
        EngineLatency.AlwaysRecord = true;
        try
        {
            // Each connection logs on with MsgSeqNum 1.
            using var acceptor = SessionHarness.Acceptor(new ExecutingApplication(), extra: "ResetOnLogon=Y");
            long before = ReceiveCount();
            for (int i = 0; i < 3; i++)
            {
                using var client = LoggedOn(acceptor, out _);
                client.Send(PipeTransportTests.Order(2, i + 1));
                AbuseHarness.ReadMessage(client); // the execution: the order went through the receive path
                client.Shutdown(SocketShutdown.Both);
                SessionHarness.WaitUntil(() => !acceptor.Sessions[0].IsConnected, "the disconnection");
                SessionHarness.WaitUntil(() => acceptor.Acceptors[0].Connections().All(c => c.IsClosed && c.Recorder is null), "the connection's end");
            }

            // The Logon and the order of each of the three connections, recorded on threads that have all ended.
            Assert.True(ReceiveCount() - before >= 6, $"{ReceiveCount() - before} receive timings kept of at least 6");
        }
        finally
        {
            EngineLatency.AlwaysRecord = previous;
        }

        static long ReceiveCount()
        {
            long total = 0;
            foreach (var recorder in EngineThreads.All)
            {
                total += recorder.Histogram(LatencyChannel.Receive).TotalCount;
            }

            return total;
        }
    }

    [Theory]
    [MemberData(nameof(Transports))]
    public void Connections_awaiting_their_logon_hold_only_logon_sized_buffers(SocketTransport transport)
    {
        const int Count = 100;
        using var acceptor = SessionHarness.Acceptor(new ExecutingApplication(), extra: $"{NoLimits}\nSocketTransport={transport}");
        var before = AbuseHarness.SettledMemory();
        var idle = new List<Socket>();
        try
        {
            for (int i = 0; i < Count; i++)
            {
                idle.Add(AbuseHarness.Connect(acceptor));
            }

            SessionHarness.WaitUntil(() => acceptor.Acceptors[0].Connections().Count(c => !c.IsClosed) == Count, "every connection accepted");
            var after = AbuseHarness.SettledMemory();
            long perConnection = (after.Heap - before.Heap) / Count;

            // Full-size buffers are 4 MB of outbound buffer and 130 KB or more of receive buffers per connection.
            Assert.True(perConnection < 256 * 1024, $"{perConnection / 1024} KB of managed heap per connection awaiting its logon");
            Assert.All(acceptor.Acceptors[0].Connections(), c => Assert.False(c.IsBound));
            Assert.Equal(Count, acceptor.Acceptors[0].PendingLogons);
        }
        finally
        {
            idle.ForEach(s => s.Dispose());
        }

        SessionHarness.WaitUntil(() => acceptor.Acceptors[0].PendingLogons == 0, "the pending count back to 0");
    }

    [Theory]
    [MemberData(nameof(Transports))]
    public void A_logon_and_the_orders_behind_it_in_one_write_are_all_processed(SocketTransport transport)
    {
        var executor = new ExecutingApplication();
        using var acceptor = SessionHarness.Acceptor(executor, extra: $"SocketTransport={transport}");
        using var client = AbuseHarness.Connect(acceptor);
        client.Send([.. SessionHarness.RawLogon(1, "CLIENT", "EXEC"), .. PipeTransportTests.Order(2, 1), .. PipeTransportTests.Order(3, 2)]);

        SessionHarness.WaitUntil(() => executor.Orders == 2, "both orders that followed the Logon in its buffer");
        var connection = acceptor.Acceptors[0].Connections().Single();
        Assert.True(connection.IsBound);
        Assert.False(connection.IsClosed);
        Assert.Equal(0, acceptor.Acceptors[0].PendingLogons);
        if (connection is PipeConnection pipe)
        {
            Assert.NotNull(pipe.Pool);
        }
    }

    /// <summary>Connects and closes <paramref name="count"/> times, at most a few dozen connections alive at once.</summary>
    private static void Cycle(FixEngine acceptor, int count)
    {
        var port = acceptor.Acceptors[0];
        for (int i = 0; i < count; i++)
        {
            var socket = AbuseHarness.Connect(acceptor);
            if (i % 2 == 0)
            {
                socket.LingerState = new LingerOption(true, 0); // a reset, as a crashing client would leave
            }

            socket.Dispose();
            if (i % 32 == 31)
            {
                SessionHarness.WaitUntil(() => port.Connections().Count(c => !c.IsClosed) < 16, "the connections to end");
            }
        }

        SessionHarness.WaitUntil(() => port.Connections().All(c => c.IsClosed), "every connection to end");
    }

    private static Socket LoggedOn(FixEngine acceptor, out string logonAnswer)
    {
        var client = AbuseHarness.Connect(acceptor);
        client.Send(SessionHarness.RawLogon(1, "CLIENT", "EXEC"));
        client.ReceiveTimeout = 15_000;
        logonAnswer = AbuseHarness.ReadMessage(client);
        return client;
    }
}
