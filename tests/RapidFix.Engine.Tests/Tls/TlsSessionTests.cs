using System.Net.Sockets;
using System.Security.Authentication;
using System.Text;
using RapidFix.Engine.Diagnostics;
using RapidFix.Engine.Sessions;
using RapidFix.Engine.Tests.Sessions;
using RapidFix.Engine.Transport;
using RapidFix.Tests.Shared;

namespace RapidFix.Engine.Tests.Tls;

/// <summary>
/// A RapidFix acceptor and initiator over TLS on loopback, with certificates made at run time: the session works
/// end to end and allocates nothing once logged on; every peer TLS refuses (no client certificate, a certificate
/// from another CA, the wrong server name, plaintext) is refused and logged with its address and the reason.
/// </summary>
[Collection(nameof(SessionEndToEnd))]
public sealed class TlsSessionTests(TlsCertificates certificates) : IClassFixture<TlsCertificates>
{
    public static TheoryData<SocketTransport> Transports => new() { SocketTransport.Pipelines, SocketTransport.DedicatedThread };

    private static string With(SocketTransport transport, string tls) => $"SocketTransport={transport}\n{tls}";

    [Theory]
    [MemberData(nameof(Transports))]
    public void Logon_orders_executions_and_logout_run_over_tls(SocketTransport transport)
    {
        var executor = new ExecutingApplication();
        using var acceptor = SessionHarness.Acceptor(executor, extra: With(transport, certificates.Acceptor()));
        var client = new OrderingApplication();
        using var initiator = SessionHarness.Initiator(client, SessionHarness.Endpoint(acceptor.Acceptors[0].LocalEndPoint.Port),
            With(transport, certificates.Initiator("SSLServerName=localhost")));
        var session = initiator.Sessions[0];
        SessionHarness.WaitUntil(() => session.IsLoggedOn && acceptor.Sessions[0].IsLoggedOn, "logon over TLS");

        var initiatorConnection = initiator.Initiators[0].Connection!;
        var acceptorConnection = acceptor.Acceptors[0].Connections().Single(c => !c.IsClosed);
        Assert.True(initiatorConnection.IsTls);
        Assert.True(acceptorConnection.IsTls);
        Assert.True(acceptor.Acceptors[0].IsTls);
        Assert.Contains(initiatorConnection.TlsProtocol, new[] { SslProtocols.Tls12, SslProtocols.Tls13 });

        // Larger than one TLS record too: a message split over records must come out whole.
        for (int i = 1; i <= 200; i++)
        {
            Assert.Equal(SendResult.Sent, client.SendOrder(session, i));
        }

        SessionHarness.WaitUntil(() => client.Executions == 200, "200 executions");
        Assert.Equal(200, executor.Orders);
        Assert.Equal(200, client.LastExecuted);

        session.Logout();
        SessionHarness.WaitUntil(() => !session.IsLoggedOn && !acceptor.Sessions[0].IsLoggedOn, "logout on both sides");
    }

    [Fact]
    public void The_initiator_checks_the_server_against_the_host_it_connected_to_when_no_server_name_is_set()
    {
        // 127.0.0.1 is in the server certificate's names.
        var executor = new ExecutingApplication();
        using var acceptor = SessionHarness.Acceptor(executor, extra: certificates.Acceptor());
        var client = new OrderingApplication();
        using var initiator = SessionHarness.Initiator(client, SessionHarness.Endpoint(acceptor.Acceptors[0].LocalEndPoint.Port), certificates.Initiator());
        SessionHarness.WaitUntil(() => initiator.Sessions[0].IsLoggedOn, "logon over TLS");
    }

    public static TheoryData<SocketTransport, string> TransportsAndProtocols => new()
    {
        { SocketTransport.Pipelines, "Tls13" },
        { SocketTransport.DedicatedThread, "Tls13" },
        { SocketTransport.Pipelines, "Tls12" },
    };

    [Theory]
    [MemberData(nameof(TransportsAndProtocols))]
    public void Steady_message_flow_over_tls_allocates_nothing_on_any_engine_thread(SocketTransport transport, string protocol)
    {
        var executor = new ExecutingApplication();
        using var acceptor = SessionHarness.Acceptor(executor, extra: With(transport, certificates.Acceptor($"SSLProtocols={protocol}")));
        var client = new OrderingApplication();
        using var initiator = SessionHarness.Initiator(client, SessionHarness.Endpoint(acceptor.Acceptors[0].LocalEndPoint.Port),
            With(transport, certificates.Initiator($"SSLServerName=localhost\nSSLProtocols={protocol}")));
        var session = initiator.Sessions[0];
        SessionHarness.WaitUntil(() => session.IsLoggedOn && acceptor.Sessions[0].IsLoggedOn, "logon over TLS");
        var initiatorConnection = initiator.Initiators[0].Connection!;
        var acceptorConnection = acceptor.Acceptors[0].Connections().Single(c => !c.IsClosed);
        Assert.True(initiatorConnection.IsTls && acceptorConnection.IsTls);
        Assert.Equal(Enum.Parse<SslProtocols>(protocol), initiatorConnection.TlsProtocol);

        SteadyState.AssertRoundTripsAllocateNothing(client, session, executor, initiatorConnection, () => acceptorConnection.ThreadAllocatedBytes);
    }

    [Fact]
    public void A_plaintext_client_is_refused_by_a_tls_acceptor_and_logged_with_its_address_and_the_reason()
    {
        var log = new CapturedLog();
        var executor = new ExecutingApplication();
        using var acceptor = SessionHarness.Acceptor(executor, extra: certificates.Acceptor(), log: log.Log);
        int port = acceptor.Acceptors[0].LocalEndPoint.Port;

        using var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        socket.Connect(System.Net.IPAddress.Loopback, port);
        string local = socket.LocalEndPoint!.ToString()!;
        socket.Send(SessionHarness.RawLogon(1, "CLIENT", "EXEC"));

        Assert.True(SessionHarness.ClosedByServer(socket, TimeSpan.FromSeconds(15)), "the acceptor kept a plaintext connection open");
        Assert.False(acceptor.Sessions[0].IsLoggedOn);
        Assert.Equal(0, executor.Logons);
        SessionHarness.WaitUntil(() => log.Text.Contains($"peer {local}: TLS handshake failed"), "the refusal in the log");
        string line = log.Text.Split('\n').First(l => l.Contains($"peer {local}: TLS handshake failed"));
        Assert.Contains("WARN", line);
        Assert.True(line.Length > $"peer {local}: TLS handshake failed: ".Length + 40, $"no reason given: {line}");
    }

    [Fact]
    public void A_client_that_never_completes_the_handshake_is_dropped_at_the_handshake_timeout()
    {
        var log = new CapturedLog();
        using var acceptor = SessionHarness.Acceptor(new ExecutingApplication(), extra: certificates.Acceptor("LogonTimeout=1"), log: log.Log);
        using var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        socket.Connect(System.Net.IPAddress.Loopback, acceptor.Acceptors[0].LocalEndPoint.Port);

        Assert.True(SessionHarness.ClosedByServer(socket, TimeSpan.FromSeconds(15)), "a silent client kept its connection");
        SessionHarness.WaitUntil(() => log.Text.Contains("did not complete in time"), "the timeout in the log");
    }

    [Fact]
    public void A_client_that_stalls_in_the_middle_of_a_tls_record_is_still_dropped_by_the_connection_timer()
    {
        // After a good handshake the client sends the start of a record and nothing more: the connection thread
        // waits for the rest inside the TLS read, and must still run its timer (here the unrouted connection's
        // LogonTimeout), not hang until the peer sends again.
        using var acceptor = SessionHarness.Acceptor(new ExecutingApplication(), extra: certificates.Acceptor("LogonTimeout=2"));
        using var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        socket.Connect(System.Net.IPAddress.Loopback, acceptor.Acceptors[0].LocalEndPoint.Port);
        using var network = new NetworkStream(socket, ownsSocket: false);
        using var ssl = new System.Net.Security.SslStream(network, leaveInnerStreamOpen: true, (_, _, _, _) => true);
        ssl.AuthenticateAsClient(new System.Net.Security.SslClientAuthenticationOptions
        {
            TargetHost = "localhost",
            ClientCertificates = [certificates.ClientCertificate],
            EnabledSslProtocols = SslProtocols.Tls13,
        });

        var started = DateTime.UtcNow;
        socket.Send([23, 3, 3, 0x01, 0x00, 1, 2, 3]); // application data, 256 bytes announced, 3 sent
        Assert.True(SessionHarness.ClosedByServer(socket, TimeSpan.FromSeconds(20)), "a connection stalled mid-record was never dropped");
        Assert.True(DateTime.UtcNow - started >= TimeSpan.FromSeconds(0.5), "dropped before its LogonTimeout");
        Assert.Equal(0, acceptor.Sessions[0].IsLoggedOn ? 1 : 0);
    }

    [Fact]
    public void A_client_without_a_certificate_is_refused_when_one_is_required()
    {
        string log = Refused(certificates.Acceptor(), NoClientCertificate, "the peer presented no certificate");
        Assert.Matches(@"peer 127\.0\.0\.1:\d+: TLS handshake failed: ", log);
    }

    [Fact]
    public void A_client_without_a_certificate_is_served_when_none_is_required()
    {
        var executor = new ExecutingApplication();
        using var acceptor = SessionHarness.Acceptor(executor, extra: certificates.Acceptor("SSLRequireClientCertificate=N"));
        var client = new OrderingApplication();
        using var initiator = SessionHarness.Initiator(client, SessionHarness.Endpoint(acceptor.Acceptors[0].LocalEndPoint.Port), NoClientCertificate);
        SessionHarness.WaitUntil(() => initiator.Sessions[0].IsLoggedOn, "logon over TLS without a client certificate");
        Assert.True(initiator.Initiators[0].Connection!.IsTls);
    }

    [Fact]
    public void A_client_certificate_from_another_ca_is_refused()
    {
        string log = Refused(certificates.Acceptor(), certificates.Initiator("SSLServerName=localhost", clientPfx: certificates.OtherClientPfx),
            "certificate (CN=client) was refused");
        Assert.Contains("RemoteCertificateChainErrors", log);
    }

    [Fact]
    public void A_server_certificate_from_another_ca_is_refused_by_the_initiator()
    {
        Refused(certificates.Acceptor(), certificates.Initiator("SSLServerName=localhost", caFile: certificates.OtherCaFile),
            "certificate (CN=localhost) was refused", initiatorLogs: true);
    }

    [Fact]
    public void A_server_certificate_for_another_name_is_refused_by_the_initiator()
    {
        Refused(certificates.Acceptor(), certificates.Initiator("SSLServerName=fix.example.com"), "does not name 'fix.example.com'", initiatorLogs: true);
    }

    [Fact]
    public void A_plaintext_initiator_never_reaches_a_tls_acceptor_session()
    {
        Refused(certificates.Acceptor(), "", "TLS handshake failed: ");
    }

    /// <summary>An initiator that trusts our CA and names the server, but has no certificate of its own.</summary>
    private string NoClientCertificate => $"""
        SSLEnable=Y
        SSLCACertificate={certificates.CaFile}
        SSLCheckCertificateRevocation=N
        SSLServerName=localhost
        """;

    /// <summary>
    /// An acceptor and an initiator TLS must keep apart: the refusal, with the peer's address, appears in the log of
    /// the side that refuses, and no session logs on. Returns that log.
    /// </summary>
    private static string Refused(string acceptorTls, string initiatorTls, string expected, bool initiatorLogs = false)
    {
        var log = new CapturedLog();
        var executor = new ExecutingApplication();
        using var acceptor = SessionHarness.Acceptor(executor, extra: acceptorTls, log: initiatorLogs ? null : log.Log);
        int port = acceptor.Acceptors[0].LocalEndPoint.Port;
        using var initiator = SessionHarness.Initiator(new OrderingApplication(), SessionHarness.Endpoint(port), initiatorTls, initiatorLogs ? log.Log : null);

        SessionHarness.WaitUntil(() => log.Text.Contains(expected), $"'{expected}' in the log");
        Assert.Matches(initiatorLogs ? $@"peer 127\.0\.0\.1:{port}: TLS handshake failed: " : @"peer 127\.0\.0\.1:\d+: TLS handshake failed: ", log.Text);
        Thread.Sleep(500);
        Assert.False(initiator.Sessions[0].IsLoggedOn);
        Assert.False(acceptor.Sessions[0].IsLoggedOn);
        Assert.Equal(0, executor.Logons);
        return log.Text;
    }
}

/// <summary>An engine log whose text the test can read while the engine runs.</summary>
internal sealed class CapturedLog
{
    private readonly LockedText _stream = new();

    public CapturedLog()
    {
        Log = new EngineLog(_stream, 4096, LogLevel.Debug);
    }

    public EngineLog Log { get; }

    public string Text => _stream.Text;

    private sealed class LockedText : Stream
    {
        private readonly StringBuilder _text = new();

        public string Text
        {
            get
            {
                lock (_text)
                {
                    return _text.ToString();
                }
            }
        }

        public override bool CanRead => false;

        public override bool CanSeek => false;

        public override bool CanWrite => true;

        public override long Length => 0;

        public override long Position { get => 0; set { } }

        public override void Flush()
        {
        }

        public override int Read(byte[] buffer, int offset, int count) => throw new NotSupportedException();

        public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();

        public override void SetLength(long value) => throw new NotSupportedException();

        public override void Write(byte[] buffer, int offset, int count)
        {
            lock (_text)
            {
                _text.Append(Encoding.UTF8.GetString(buffer, offset, count));
            }
        }
    }
}
