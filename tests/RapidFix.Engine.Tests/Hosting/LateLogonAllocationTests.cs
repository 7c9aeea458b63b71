using System.Net;
using System.Net.Sockets;
using System.Runtime.CompilerServices;
using RapidFix.Engine.Configuration;
using RapidFix.Engine.Hosting;
using RapidFix.Engine.Sessions;
using RapidFix.Engine.Tests.Sessions;
using RapidFix.Engine.Tests.Store;
using RapidFix.Engine.Transport;
using RapidFix.Pools.Phases;

namespace RapidFix.Engine.Tests.Hosting;

/// <summary>
/// A counterparty that logs on after the phase switch, trades, disconnects and logs on again: the session's full-size
/// connection buffers were made at startup, so that path allocates a per-connection constant (sockets, the connection
/// object, its Logon-sized buffers), not the outbound buffer (64 MiB here).
/// </summary>
[Collection(AllocationTestCollection.Name)]
public sealed class LateLogonAllocationTests
{
    private const int Orders = 3;

    /// <summary>
    /// What one connection of the measured path may allocate in the whole process: the sockets, the connection, its
    /// framer and its Logon-sized buffers (about 175 KB with MaxMessageSize 64 KB, measured), not its full-size ones.
    /// </summary>
    private const long BoundPerConnection = 256 * 1024;

    [Theory]
    [InlineData(SocketTransport.Pipelines)]
    [InlineData(SocketTransport.DedicatedThread)]
    public void A_logon_and_a_reconnect_in_the_continuous_phase_allocate_no_full_size_buffers(SocketTransport transport)
    {
        var executor = new ExecutingApplication();
        var settings = SettingsFile.Parse($"""
            [DEFAULT]
            ConnectionType=acceptor
            SocketAcceptHost=127.0.0.1
            SocketAcceptPort=0
            NonStopSession=Y
            StoreType=express
            OutboundQueueDepth=65536
            SocketTransport={transport}
            [SESSION]
            BeginString=FIX.4.4
            SenderCompID=EXEC
            TargetCompID=CLIENT
            """, "late-logon.cfg");
        using var host = EngineHost.Start(settings, _ => executor, new EngineHostOptions
        {
            Name = "late-logon",
            MaxWarmUp = TimeSpan.FromSeconds(15),
            MinWarmUpRounds = 3,
            SettledRounds = 2,
        });
        var session = host.Sessions[0];
        var port = host.Engine.Acceptors[0].LocalEndPoint.Port;
        var client = new Counterparty(port);

        // Startup: the same path, until the JIT has compiled it (compilation allocates).
        host.WarmUp(_ => client.Session(session, executor));
        host.EnterContinuous();

        // Two connections' worth of messages, written before the measurement.
        client.Prepare(2);
        long before = GC.GetTotalAllocatedBytes(precise: true);
        client.Session(session, executor);
        client.Session(session, executor);
        long allocated = GC.GetTotalAllocatedBytes(precise: true) - before;
        var report = host.Shutdown();

        Assert.Equal(EnginePhase.Shutdown, host.Phases.Phase);
        Assert.True(allocated < 2 * BoundPerConnection,
            $"a logon, {Orders} orders, a disconnection and a second logon in the continuous phase allocated {allocated / 1024} KB (bound {2 * BoundPerConnection / 1024} KB; the outbound buffer is 64 MiB)");
        Assert.True(report.Continuous.AllocatedBytes < 2 * BoundPerConnection, $"the continuous phase allocated {report.Continuous.AllocatedBytes / 1024} KB");
    }

    /// <summary>A raw FIX client: each <see cref="Session"/> connects, logs on, sends orders, reads their executions and closes.</summary>
    private sealed class Counterparty(int port)
    {
        private readonly byte[] _received = new byte[64 * 1024];
        private readonly Queue<byte[]> _messages = new();
        private int _seq;

        /// <summary>Messages for <paramref name="connections"/> more connections, made now (they allocate).</summary>
        public void Prepare(int connections)
        {
            for (int c = 0; c < connections; c++)
            {
                _messages.Enqueue(SessionHarness.RawLogon(++_seq, "CLIENT", "EXEC"));
                for (int i = 0; i < Orders; i++)
                {
                    _messages.Enqueue(PipeTransportTests.Order(++_seq, _seq));
                }
            }
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public void Session(FixSession session, ExecutingApplication executor)
        {
            if (_messages.Count == 0)
            {
                Prepare(1);
            }

            long orders = executor.Orders;
            var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp) { NoDelay = true, ReceiveTimeout = 20_000 };
            try
            {
                socket.Connect(IPAddress.Loopback, port);
                socket.Send(_messages.Dequeue());
                for (int i = 0; i < Orders; i++)
                {
                    socket.Send(_messages.Dequeue());
                }

                // The Logon's answer and one execution per order.
                int executions = 0, filled = 0;
                var deadline = Environment.TickCount64 + 20_000;
                while (executions < Orders)
                {
                    Assert.True(Environment.TickCount64 < deadline, "the executions did not come back");
                    if (filled == _received.Length)
                    {
                        filled = 0;
                    }

                    int n = socket.Receive(_received, filled, _received.Length - filled, SocketFlags.None);
                    Assert.True(n > 0, "the acceptor closed the connection");
                    filled += n;
                    executions = Count(_received.AsSpan(0, filled), "\u000135=8\u0001"u8);
                }
            }
            finally
            {
                socket.Dispose();
            }

            // The application counts an order after its execution went out; the session sees the close after it.
            long expected = orders + Orders;
            SessionHarness.WaitUntil(() => executor.Orders == expected && !session.IsConnected, "every order executed and the disconnection seen");
        }

        private static int Count(ReadOnlySpan<byte> bytes, ReadOnlySpan<byte> what)
        {
            int count = 0;
            for (int at; (at = bytes.IndexOf(what)) >= 0; bytes = bytes.Slice(at + what.Length))
            {
                count++;
            }

            return count;
        }
    }
}
