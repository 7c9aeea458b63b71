using System.Net;
using System.Net.Sockets;
using RapidFix.Engine.Codec;
using RapidFix.Engine.Fields;
using RapidFix.Engine.Sessions;
using RapidFix.Engine.Transport;
using RapidFix.Tests.Shared;

namespace RapidFix.Engine.Tests.Sessions;

/// <summary>A RapidFix initiator and a RapidFix acceptor talking over loopback.</summary>
[Collection(nameof(SessionEndToEnd))]
public sealed class SessionEndToEndTests
{
    public static TheoryData<SocketTransport> Transports => new() { SocketTransport.Pipelines, SocketTransport.DedicatedThread };

    private static string With(SocketTransport transport, string extra = "") => $"SocketTransport={transport}\n{extra}";
    [Theory]
    [MemberData(nameof(Transports))]
    public void Orders_and_executions_flow_and_logout_ends_both_sides(SocketTransport transport)
    {
        var executor = new ExecutingApplication();
        using var acceptor = SessionHarness.Acceptor(executor, extra: With(transport));
        var client = new OrderingApplication();
        using var initiator = SessionHarness.Initiator(client, SessionHarness.Endpoint(acceptor.Acceptors[0].LocalEndPoint.Port), With(transport));
        var session = initiator.Sessions[0];
        SessionHarness.WaitUntil(() => session.IsLoggedOn && initiator.Initiators[0].Connection is not null, "logon");
        Assert.Equal(transport, initiator.Initiators[0].Connection!.Transport);
        Assert.Equal(transport, acceptor.Acceptors[0].Connections().Single(c => !c.IsClosed).Transport);

        for (int i = 1; i <= 100; i++)
        {
            Assert.Equal(SendResult.Sent, client.SendOrder(session, i));
        }

        SessionHarness.WaitUntil(() => client.Executions == 100, "100 executions");
        Assert.Equal(100, executor.Orders);
        Assert.Equal(100, client.LastExecuted);
        Assert.Equal(102, session.NextSenderMsgSeqNum); // Logon + 100 orders
        Assert.Equal(102, session.NextTargetMsgSeqNum);

        session.Logout();
        SessionHarness.WaitUntil(() => !session.IsLoggedOn && !acceptor.Sessions[0].IsLoggedOn, "logout on both sides");
        Assert.Equal(SendResult.NotLoggedOn, client.SendOrder(session, 101));
    }

    [Theory]
    [MemberData(nameof(Transports))]
    public void Steady_message_flow_allocates_nothing_on_any_engine_thread(SocketTransport transport)
    {
        var executor = new ExecutingApplication();
        using var acceptor = SessionHarness.Acceptor(executor, extra: With(transport));
        var client = new OrderingApplication();
        using var initiator = SessionHarness.Initiator(client, SessionHarness.Endpoint(acceptor.Acceptors[0].LocalEndPoint.Port), With(transport));
        var session = initiator.Sessions[0];
        SessionHarness.WaitUntil(() => session.IsLoggedOn && initiator.Initiators[0].Connection is not null, "logon");
        SessionHarness.WaitUntil(() => acceptor.Sessions[0].IsLoggedOn, "acceptor logon");
        Assert.Equal(transport, initiator.Initiators[0].Connection!.Transport);
        Assert.Equal(transport, acceptor.Acceptors[0].Connections().Single(c => !c.IsClosed).Transport);

        SteadyState.AssertRoundTripsAllocateNothing(client, session, executor, initiator.Initiators[0].Connection!, () => AcceptorConnectionAllocated(acceptor));
        Assert.True(acceptor.Sessions[0].IsLoggedOn);
    }

    private static long AcceptorConnectionAllocated(RapidFix.Engine.Hosting.FixEngine acceptor) =>
        acceptor.Acceptors[0].Connections().Single(c => !c.IsClosed).ThreadAllocatedBytes;

    [Fact]
    public void A_refused_logon_gets_a_logout_with_the_reason_and_no_application_message_gets_through()
    {
        var executor = new ExecutingApplication
        {
            LogonPolicy = logon => logon.GetValue(Tags.Password).SequenceEqual("secret"u8)
                ? LogonDecision.Accept
                : LogonDecision.Refuse("bad password"),
        };
        using var acceptor = SessionHarness.Acceptor(executor);
        var client = new OrderingApplication();
        var addPassword = new PasswordApplication(client, "wrong");
        using var initiator = SessionHarness.Initiator(addPassword, SessionHarness.Endpoint(acceptor.Acceptors[0].LocalEndPoint.Port));
        var session = initiator.Sessions[0];

        SessionHarness.WaitUntil(() => client.LogoutText is not null, "the logout");
        Assert.Equal("bad password", client.LogoutText);
        Assert.False(session.IsLoggedOn);
        Assert.Equal(0, executor.Logons);
        Assert.Equal(0, executor.Orders);
    }

    [Fact]
    public void Credentials_added_by_the_initiator_application_open_the_session()
    {
        var executor = new ExecutingApplication
        {
            LogonPolicy = logon => logon.GetValue(Tags.Username).SequenceEqual("trader"u8) && logon.GetValue(Tags.Password).SequenceEqual("secret"u8)
                ? LogonDecision.Accept
                : LogonDecision.Refuse("bad credentials"),
        };
        using var acceptor = SessionHarness.Acceptor(executor);
        var client = new OrderingApplication();
        using var initiator = SessionHarness.Initiator(new PasswordApplication(client, "secret"), SessionHarness.Endpoint(acceptor.Acceptors[0].LocalEndPoint.Port));
        SessionHarness.WaitUntil(() => initiator.Sessions[0].IsLoggedOn, "logon");

        // The acceptor answers the Logon before it tells its application: wait for that, then count.
        SessionHarness.WaitUntil(() => executor.Logons > 0, "the acceptor application's OnLogon");
        Assert.Equal(1, executor.Logons);
        Assert.True(acceptor.Sessions[0].IsLoggedOn);
    }

    [Fact]
    public void The_initiator_fails_over_to_the_next_host_and_reconnects_after_the_acceptor_restarts()
    {
        int deadPort = SessionHarness.FreePort();
        int port = SessionHarness.FreePort();
        string journal = Path.Combine(Path.GetTempPath(), "rapidfix-failover-" + Guid.NewGuid().ToString("N"));
        string store = $"StoreType=journal\nFileStorePath={journal}";
        var client = new OrderingApplication();
        var executor = new ExecutingApplication();
        var acceptor = SessionHarness.Acceptor(executor, port, store);
        using var initiator = SessionHarness.Initiator(client,
            $"SocketConnectHost=127.0.0.1\nSocketConnectPort={deadPort}\nSocketConnectHost1=127.0.0.1\nSocketConnectPort1={port}");
        var session = initiator.Sessions[0];
        SessionHarness.WaitUntil(() => session.IsLoggedOn, "logon through the failover host");
        Assert.True(initiator.Initiators[0].Attempts >= 2, $"attempts {initiator.Initiators[0].Attempts}");
        client.SendOrder(session, 1);
        SessionHarness.WaitUntil(() => client.Executions == 1, "the first execution");
        int sentBefore = session.NextSenderMsgSeqNum;

        acceptor.Dispose(); // the counterparty goes away (logout exchanged)
        SessionHarness.WaitUntil(() => !session.IsLoggedOn, "the disconnection");
        session.Enable();   // the logout came from the other side: keep trying
        // The acceptor comes back with its journal: both sides resume their sequence numbers.
        using var restarted = SessionHarness.Acceptor(new ExecutingApplication(), port, store);
        SessionHarness.WaitUntil(() => session.IsLoggedOn, "the logon after the restart", 30);
        Assert.True(session.NextSenderMsgSeqNum > sentBefore); // sequence numbers carried on, not reset
        Assert.Equal(SendResult.Sent, client.SendOrder(session, 2));
        SessionHarness.WaitUntil(() => client.Executions == 2, "the second execution");
        Directory.Delete(journal, recursive: true);
    }

    [Theory]
    [MemberData(nameof(Transports))]
    public void A_counterparty_that_stops_reading_is_disconnected_when_the_outbound_buffer_is_full(SocketTransport transport)
    {
        using var listener = new TcpListener(IPAddress.Loopback, 0);
        listener.Start();
        int port = ((IPEndPoint)listener.LocalEndpoint).Port;
        var client = new OrderingApplication();
        var options = new FixSessionOptions(new RapidFix.Engine.Configuration.SessionId("FIX.4.4", "CLIENT", "EXEC"))
        {
            IsInitiator = true,
            Dictionary = RapidFix.Engine.Dictionary.StandardDictionaries.Load("FIX44"),
            OutboundBufferBytes = 256 * 1024,
            CheckLatency = false,
        };
        var session = new FixSession(options, new RapidFix.Engine.Store.MemoryMessageStore(1_000_000, 512 << 20, DateTime.UtcNow), client);
        var socket = new Socket(SocketType.Stream, ProtocolType.Tcp);
        socket.ReceiveBufferSize = 8192;
        socket.SendBufferSize = 8192;
        socket.Connect(IPAddress.Loopback, port);
        using var server = listener.AcceptSocket();
        server.ReceiveBufferSize = 8192;
        var connection = FixSocketConnection.Create(transport, socket, session, null, options.MaxMessageSize, options.OutboundBufferBytes);
        Assert.Equal(transport, connection.Transport);
        connection.Start();

        // The counterparty answers the logon, then never reads again.
        var logon = ReadMessage(server);
        Assert.Contains("35=A", logon, StringComparison.Ordinal);
        server.Send(SessionHarness.RawLogon(1, "EXEC", "CLIENT"));
        SessionHarness.WaitUntil(() => session.IsLoggedOn, "logon");

        int sent = 0;
        SendResult result = SendResult.Sent;
        for (; sent < 100_000 && result == SendResult.Sent; sent++)
        {
            result = client.SendOrder(session, sent);
        }

        Assert.Equal(SendResult.TransportFailed, result);
        SessionHarness.WaitUntil(() => connection.IsClosed, "the disconnection");
        Assert.Equal(DisconnectReason.OutboundBufferFull, connection.CloseReason);
        Assert.True(connection.PendingBytes <= options.OutboundBufferBytes);
        Assert.True(sent > 100, $"the socket and the buffer held {sent} messages");
        Assert.False(session.IsLoggedOn);
    }

    [Theory]
    [MemberData(nameof(Transports))]
    public void A_message_beyond_the_counterpartys_max_message_size_gets_a_logout_with_the_reason(SocketTransport transport)
    {
        var executor = new ExecutingApplication();
        using var acceptor = SessionHarness.Acceptor(executor, extra: With(transport, "MaxMessageSize=1024"));
        var client = new OrderingApplication();
        using var initiator = SessionHarness.Initiator(client, SessionHarness.Endpoint(acceptor.Acceptors[0].LocalEndPoint.Port), With(transport));
        var session = initiator.Sessions[0];
        SessionHarness.WaitUntil(() => session.IsLoggedOn, "logon");

        var body = new byte[4096];
        var writer = new FixBodyWriter(body);
        writer.Add(148, Enumerable.Repeat((byte)'x', 2000).ToArray());
        Assert.Equal(SendResult.Sent, session.Send("B"u8, writer.Written)); // a 2 KB News: beyond the acceptor's 1 KB

        SessionHarness.WaitUntil(() => client.LogoutText is not null, "the acceptor's logout");
        Assert.Equal("Message larger than MaxMessageSize (1024 bytes)", client.LogoutText);
        Assert.Equal(0, executor.Orders);
    }

    [Theory]
    [MemberData(nameof(Transports))]
    public void A_message_beyond_our_own_max_message_size_is_not_sent(SocketTransport transport)
    {
        var executor = new ExecutingApplication();
        using var acceptor = SessionHarness.Acceptor(executor, extra: With(transport));
        var client = new OrderingApplication();
        using var initiator = SessionHarness.Initiator(client, SessionHarness.Endpoint(acceptor.Acceptors[0].LocalEndPoint.Port), With(transport, "MaxMessageSize=1024"));
        var session = initiator.Sessions[0];
        SessionHarness.WaitUntil(() => session.IsLoggedOn, "logon");
        int next = session.NextSenderMsgSeqNum;

        var body = new byte[4096];
        var writer = new FixBodyWriter(body);
        writer.Add(148, Enumerable.Repeat((byte)'x', 3000).ToArray());
        Assert.Equal(SendResult.TooLarge, session.Send("B"u8, writer.Written));
        Assert.Equal(next, session.NextSenderMsgSeqNum); // no sequence number used
        Assert.Equal(SendResult.Sent, client.SendOrder(session, 1));
        SessionHarness.WaitUntil(() => client.Executions == 1, "the execution");
    }

    [Theory]
    [MemberData(nameof(Transports))]
    public void A_connection_that_never_completes_its_logon_is_dropped_after_the_logon_timeout(SocketTransport transport)
    {
        var executor = new ExecutingApplication();
        using var acceptor = SessionHarness.Acceptor(executor, extra: With(transport, "LogonTimeout=1"));
        int port = acceptor.Acceptors[0].LocalEndPoint.Port;
        var started = System.Diagnostics.Stopwatch.StartNew();

        // One client says nothing; the other sends the start of a Logon and stops there.
        using var silent = new Socket(SocketType.Stream, ProtocolType.Tcp);
        silent.Connect(IPAddress.Loopback, port);
        using var half = new Socket(SocketType.Stream, ProtocolType.Tcp);
        half.Connect(IPAddress.Loopback, port);
        half.Send("8=FIX.4.4\u00019=75\u000135=A\u000134=1\u0001"u8);

        Assert.True(SessionHarness.ClosedByServer(silent, TimeSpan.FromSeconds(10)), "the silent connection was not dropped");
        Assert.True(SessionHarness.ClosedByServer(half, TimeSpan.FromSeconds(10)), "the half-logon connection was not dropped");
        Assert.True(started.Elapsed >= TimeSpan.FromSeconds(0.95), $"dropped after {started.Elapsed}, before the 1 s LogonTimeout");

        Assert.Equal(2, acceptor.Acceptors[0].Connections().Count(c => c.IsClosed && c.CloseReason == DisconnectReason.LogonTimeout));
        Assert.All(acceptor.Acceptors[0].Connections(), c => Assert.Equal(transport, c.Transport));

        // The port still serves a client that logs on properly.
        var client = new OrderingApplication();
        using var initiator = SessionHarness.Initiator(client, SessionHarness.Endpoint(port), With(transport));
        SessionHarness.WaitUntil(() => initiator.Sessions[0].IsLoggedOn, "a proper logon after the dropped ones");
        Assert.Equal(0, executor.Orders);
    }

    [Fact]
    public void An_application_that_throws_costs_the_connection_not_the_process_and_the_order_is_not_lost()
    {
        var executor = new ExecutingApplication { ThrowOnNextOrder = true };
        var output = new MemoryStream();
        using var log = new RapidFix.Engine.Diagnostics.EngineLog(output);
        using var acceptor = SessionHarness.Acceptor(executor, log: log);
        var client = new OrderingApplication();
        using var initiator = SessionHarness.Initiator(client, SessionHarness.Endpoint(acceptor.Acceptors[0].LocalEndPoint.Port));
        var session = initiator.Sessions[0];
        SessionHarness.WaitUntil(() => session.IsLoggedOn, "logon");

        Assert.Equal(SendResult.Sent, client.SendOrder(session, 1));

        // The acceptor's connection thread logs the fault and closes; the initiator reconnects, the acceptor asks
        // for the order again (it was never processed) and this time executes it.
        SessionHarness.WaitUntil(() => client.Executions == 1, "the execution after the reconnection", 30);
        Assert.Equal(1, executor.Orders);
        Assert.True(acceptor.Sessions[0].IsLoggedOn);
        log.Flush();
        string text;
        lock (output)
        {
            text = System.Text.Encoding.UTF8.GetString(output.ToArray());
        }

        Assert.Contains("unexpected error in an engine thread", text, StringComparison.Ordinal);
        Assert.Contains("fault: System.InvalidOperationException: test: the application failed", text, StringComparison.Ordinal);
        Assert.Contains("unexpected error in the engine thread (see the fault line)", text, StringComparison.Ordinal);
    }

    private static string ReadMessage(Socket socket)
    {
        var buffer = new byte[4096];
        int n = socket.Receive(buffer);
        return System.Text.Encoding.ASCII.GetString(buffer, 0, n).Replace('\u0001', '|');
    }

    /// <summary>Adds Username and Password to the Logon, forwarding everything else.</summary>
    private sealed class PasswordApplication(OrderingApplication inner, string password) : FixApplicationBase
    {
        private readonly byte[] _password = System.Text.Encoding.ASCII.GetBytes(password);

        public override void FromAdmin(FixSession session, FixMessage message) => inner.FromAdmin(session, message);

        public override MessageDisposition FromApp(FixSession session, FixMessage message) => inner.FromApp(session, message);

        public override void OnSendingAdmin(FixSession session, ReadOnlySpan<byte> msgType, FixEncoder body)
        {
            if (msgType.SequenceEqual("A"u8))
            {
                body.Add(Tags.Username, "trader"u8);
                body.Add(Tags.Password, _password);
            }
        }
    }
}

/// <summary>End-to-end tests open sockets and measure threads: one at a time.</summary>
[CollectionDefinition(nameof(SessionEndToEnd), DisableParallelization = true)]
public sealed class SessionEndToEnd
{
}
