using System.Net;
using System.Net.Sockets;
using RapidFix.Engine.Codec;
using RapidFix.Engine.Configuration;
using RapidFix.Engine.Fields;
using RapidFix.Engine.Hosting;
using RapidFix.Engine.Sessions;
using RapidFix.Engine.Transport;

namespace RapidFix.Engine.Tests.Sessions;

/// <summary>Raw bytes from a test client into an acceptor: framing over the pipe, and what both transports drop.</summary>
[Collection(nameof(SessionEndToEnd))]
public sealed class PipeTransportTests
{
    public static TheoryData<SocketTransport> Transports => new() { SocketTransport.Pipelines, SocketTransport.DedicatedThread };

    [Fact]
    public void Tiny_writes_and_many_messages_in_one_write_are_framed_by_the_pipe_transport()
    {
        var executor = new ExecutingApplication();
        using var acceptor = SessionHarness.Acceptor(executor, extra: "SocketTransport=Pipelines");
        using var client = Connect(acceptor);
        using var drain = new Drain(client);
        var random = new Random(7);
        int seq = 1;

        // A Logon and 20 orders, each dribbled out 1 to 3 bytes per TCP write.
        WriteInPieces(client, Logon(seq++), random);
        SessionHarness.WaitUntil(() => acceptor.Sessions[0].IsLoggedOn, "logon from tiny writes");
        var connection = Assert.IsType<PipeConnection>(acceptor.Acceptors[0].Connections().Single(c => !c.IsClosed));
        for (int i = 1; i <= 20; i++)
        {
            WriteInPieces(client, Order(seq++, i), random);
        }

        SessionHarness.WaitUntil(() => executor.Orders == 20, "20 orders from tiny writes");
        long splitBefore = connection.SplitMessages;

        // 2000 orders (about 400 KB) in one write: reads fill whole blocks, so messages straddle block boundaries.
        var burst = new MemoryStream();
        for (int i = 21; i <= 2020; i++)
        {
            burst.Write(Order(seq++, i));
        }

        client.Send(burst.ToArray());
        SessionHarness.WaitUntil(() => executor.Orders == 2020, "2000 orders from one write");

        Assert.False(connection.IsClosed);
        Assert.Equal(2021, connection.Framer.Messages);
        Assert.Equal(0, connection.Framer.SkippedBytes);
        Assert.Equal(0, connection.Framer.GarbledMessages);
        Assert.Equal(0, connection.Framer.BadChecksums);
        Assert.True(connection.SplitMessages > splitBefore, "no message crossed a pipe segment: the multi-segment path did not run");
        Assert.Equal(0, connection.Pool!.Buffers.RentFailures);
        Assert.Equal(0, connection.Pool!.OversizeRequests);
        Assert.Equal(2022, acceptor.Sessions[0].NextTargetMsgSeqNum);
        SessionHarness.WaitUntil(() => drain.Executions == 2020, "2020 executions back");
    }

    [Theory]
    [InlineData(0)]
    [InlineData(10)]
    public void SocketReceiveCoalesceMilliseconds_takes_a_burst_in_few_reads(int coalesce)
    {
        var executor = new ExecutingApplication();
        using var acceptor = SessionHarness.Acceptor(executor, extra: $"SocketTransport=Pipelines\nSocketReceiveCoalesceMilliseconds={coalesce}");
        using var client = Connect(acceptor);
        using var drain = new Drain(client);
        int seq = 1;
        client.Send(Logon(seq++));
        SessionHarness.WaitUntil(() => acceptor.Sessions[0].IsLoggedOn, "logon");
        var connection = Assert.IsType<PipeConnection>(acceptor.Acceptors[0].Connections().Single(c => !c.IsClosed));
        long reads = connection.Reads;

        // 60 orders, one TCP write each, about 0.5 ms apart (30 ms or more in all).
        var watch = System.Diagnostics.Stopwatch.StartNew();
        for (int i = 1; i <= 60; i++)
        {
            client.Send(Order(seq++, i));
            var next = watch.Elapsed + TimeSpan.FromMilliseconds(0.5);
            while (watch.Elapsed < next)
            {
            }
        }

        SessionHarness.WaitUntil(() => executor.Orders == 60, "60 orders");
        long taken = connection.Reads - reads;
        if (coalesce == 0)
        {
            // Read as they come (about one read each on a quiet machine; a loaded one batches some): no wait.
            Assert.True(taken >= 1);
            Assert.Equal(0, connection.CoalescingWaits);
        }
        else
        {
            // One read, then a 10 ms wait while the next 20 or so arrive: a handful of reads for 30 ms or more of orders.
            long allowed = 2 + (watch.ElapsedMilliseconds / coalesce);
            Assert.True(taken <= allowed, $"{taken} reads for 60 orders in {watch.ElapsedMilliseconds} ms (at most {allowed})");
            Assert.True(connection.CoalescingWaits > 0);
        }

        SessionHarness.WaitUntil(() => drain.Executions == 60, "60 executions back");
    }

    [Theory]
    [InlineData(SocketTransport.Pipelines)]
    [InlineData(SocketTransport.DedicatedThread)]
    public void A_burst_larger_than_a_receive_block_is_taken_in_one_wake_not_a_block_per_coalescing_wait(SocketTransport transport)
    {
        // A 100-ms coalescing wait after each wake: taking one 16 KiB block a wake, 1,000 orders (about 190 KB) took ten
        // or more waits (a second); draining the socket while reads fill their space takes what has arrived at once.
        var executor = new ExecutingApplication();
        using var acceptor = SessionHarness.Acceptor(executor, extra: $"SocketTransport={transport}\nSocketReceiveCoalesceMilliseconds=100");
        using var client = Connect(acceptor);
        using var drain = new Drain(client);
        int seq = 1;
        client.Send(Logon(seq++));
        SessionHarness.WaitUntil(() => acceptor.Sessions[0].IsLoggedOn, "logon");
        var connection = acceptor.Acceptors[0].Connections().Single(c => !c.IsClosed);
        long waits = connection.CoalescingWaits;

        var burst = new List<byte>();
        for (int i = 1; i <= 1_000; i++)
        {
            burst.AddRange(Order(seq++, i));
        }

        Assert.True(burst.Count > 10 * 16 * 1024 / 2, $"the burst is {burst.Count} bytes"); // several receive blocks
        client.Send(burst.ToArray()); // one write: the kernel hands it over in as few pieces as it can
        SessionHarness.WaitUntil(() => executor.Orders == 1_000, "1,000 orders");

        long taken = connection.CoalescingWaits - waits;
        Assert.True(taken <= 4, $"{taken} coalescing waits for one burst of {burst.Count} bytes");
        SessionHarness.WaitUntil(() => drain.Executions == 1_000, "1,000 executions back");
    }

    public static TheoryData<SocketTransport, string, DisconnectReason> BadFirstMessages()
    {
        var data = new TheoryData<SocketTransport, string, DisconnectReason>();
        foreach (var transport in new[] { SocketTransport.Pipelines, SocketTransport.DedicatedThread })
        {
            data.Add(transport, "bad checksum", DisconnectReason.GarbledBeforeLogon);
            data.Add(transport, "garbage then oversized", DisconnectReason.GarbledBeforeLogon);
            data.Add(transport, "heartbeat first", DisconnectReason.NotLogonFirst);
            data.Add(transport, "unknown session", DisconnectReason.UnknownSession);
        }

        return data;
    }

    [Theory]
    [MemberData(nameof(BadFirstMessages))]
    public void Garbage_oversized_and_wrong_first_messages_close_with_the_same_reason_on_both_transports(SocketTransport transport, string input, DisconnectReason expected)
    {
        var executor = new ExecutingApplication();
        using var acceptor = SessionHarness.Acceptor(executor, extra: $"SocketTransport={transport}\nMaxMessageSize=1024");
        using var client = Connect(acceptor);
        byte[] bytes = input switch
        {
            "bad checksum" => "8=FIX.4.4\u00019=5\u000135=0\u000110=000\u0001"u8.ToArray(),
            "garbage then oversized" => [.. "no FIX here \u0001\u0001 8=FI"u8, .. "X.4.4\u00019=5000\u000135=A\u0001"u8, .. new byte[5000]],
            "heartbeat first" => Heartbeat(1),
            _ => Logon(1, sender: "STRANGER"),
        };

        client.Send(bytes);
        Assert.True(SessionHarness.ClosedByServer(client, TimeSpan.FromSeconds(10)), "the connection was not dropped");
        var connection = acceptor.Acceptors[0].Connections().Single();
        SessionHarness.WaitUntil(() => connection.IsClosed, "the close");
        Assert.Equal(transport, connection.Transport);
        Assert.Equal(expected, connection.CloseReason);
        Assert.Null(connection.Session);
        Assert.Equal(0, executor.Logons);
    }

    [Fact]
    public void Sessions_sharing_a_port_must_agree_on_the_socket_transport()
    {
        var settings = SettingsFile.Parse("""
            [DEFAULT]
            ConnectionType=acceptor
            SocketAcceptPort=5001
            SenderCompID=EXEC
            StartTime=00:00:00
            EndTime=00:00:00
            StoreType=express
            [SESSION]
            BeginString=FIX.4.4
            TargetCompID=A
            [SESSION]
            BeginString=FIX.4.4
            TargetCompID=B
            SocketTransport=DedicatedThread
            """, "mixed.cfg");

        var error = Assert.Throws<ConfigurationException>(() => FixEngine.Create(settings, _ => new ExecutingApplication()));
        Assert.Equal(SettingKeys.SocketTransport, error.Key);
        Assert.Equal(14, error.Line);
    }

    [Theory]
    [MemberData(nameof(Transports))]
    public void The_setting_chooses_the_connection_kind(SocketTransport transport)
    {
        var settings = SettingsFile.Parse($"""
            [DEFAULT]
            ConnectionType=initiator
            SocketConnectHost=127.0.0.1
            SocketConnectPort=1
            HeartBtInt=30
            StartTime=00:00:00
            EndTime=00:00:00
            StoreType=express
            SocketTransport={transport}
            [SESSION]
            BeginString=FIX.4.4
            SenderCompID=CLIENT
            TargetCompID=EXEC
            """, "initiator.cfg");
        Assert.Equal(transport, FixSessionOptions.FromSettings(settings.Sessions[0]).SocketTransport);
    }

    private static Socket Connect(FixEngine acceptor)
    {
        var socket = new Socket(SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
        socket.Connect(IPAddress.Loopback, acceptor.Acceptors[0].LocalEndPoint.Port);
        return socket;
    }

    private static void WriteInPieces(Socket socket, byte[] message, Random random)
    {
        for (int at = 0; at < message.Length;)
        {
            int n = Math.Min(message.Length - at, random.Next(1, 4));
            socket.Send(message, at, n, SocketFlags.None);
            at += n;
            if (random.Next(4) == 0)
            {
                Thread.Sleep(1); // lets the connection read the pieces one by one
            }
        }
    }

    private static byte[] Logon(int seq, string sender = "CLIENT") => SessionHarness.RawLogon(seq, sender, "EXEC");

    private static byte[] Heartbeat(int seq) => Finish(Header(seq, "0"u8));

    internal static byte[] Order(int seq, long id)
    {
        var encoder = Header(seq, "D"u8);
        encoder.Add(Tags.ClOrdID, id);
        encoder.AddChar(21, (byte)'1');
        encoder.Add(Tags.Symbol, "MSFT"u8);
        encoder.AddChar(Tags.Side, (byte)'1');
        encoder.AddTimestamp(Tags.TransactTime, RapidFix.Engine.Time.EngineClock.Shared.UtcNowNanos);
        encoder.Add(Tags.OrderQty, 100L);
        encoder.AddChar(Tags.OrdType, (byte)'2');
        encoder.Add(Tags.Price, new FixDecimal(41237, -2));
        return Finish(encoder);
    }

    private static FixEncoder Header(int seq, ReadOnlySpan<byte> msgType) => SessionHarness.RawHeader(seq, msgType, "CLIENT", "EXEC");

    private static byte[] Finish(FixEncoder encoder) => SessionHarness.RawFinish(encoder);

    /// <summary>Reads what the acceptor sends back so that it never blocks, counting ExecutionReports.</summary>
    private sealed class Drain : IDisposable
    {
        private readonly Thread _thread;
        private readonly Socket _socket;
        private long _executions;

        public Drain(Socket socket)
        {
            _socket = socket;
            _thread = new Thread(Run) { IsBackground = true };
            _thread.Start();
        }

        public long Executions => Interlocked.Read(ref _executions);

        private void Run()
        {
            var framer = new FixFramer();
            var buffer = new byte[1 << 20];
            int filled = 0;
            try
            {
                while (true)
                {
                    int n = _socket.Receive(buffer, filled, buffer.Length - filled, SocketFlags.None);
                    if (n == 0)
                    {
                        return;
                    }

                    filled += n;
                    int offset = 0;
                    while (true)
                    {
                        var frame = framer.Frame(new ReadOnlySpan<byte>(buffer, offset, filled - offset));
                        if (frame.Status == FrameStatus.NeedMoreData)
                        {
                            break;
                        }

                        if (frame.Status == FrameStatus.Complete &&
                            FixMessage.PeekMsgType(new ReadOnlySpan<byte>(buffer, offset + frame.Start, frame.Length)).SequenceEqual("8"u8))
                        {
                            Interlocked.Increment(ref _executions);
                        }

                        offset += frame.Consumed;
                    }

                    buffer.AsSpan(offset, filled - offset).CopyTo(buffer);
                    filled -= offset;
                }
            }
            catch (SocketException)
            {
            }
            catch (ObjectDisposedException)
            {
            }
        }

        public void Dispose()
        {
            try
            {
                _socket.Shutdown(SocketShutdown.Both);
            }
            catch (SocketException)
            {
            }

            _thread.Join(TimeSpan.FromSeconds(2));
        }
    }
}
