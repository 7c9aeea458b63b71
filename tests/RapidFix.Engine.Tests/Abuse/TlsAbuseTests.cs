using System.Net;
using System.Net.Security;
using System.Net.Sockets;
using System.Security.Authentication;
using System.Text;
using RapidFix.Engine.Hosting;
using RapidFix.Engine.Tests.Sessions;
using RapidFix.Engine.Tests.Tls;
using RapidFix.Engine.Transport;

namespace RapidFix.Engine.Tests.Abuse;

/// <summary>Hostile counterparties over TLS: what holds for plaintext connections holds inside TLS records too.</summary>
[Collection(nameof(NetworkAbuse))]
public sealed class TlsAbuseTests(TlsCertificates certificates) : IClassFixture<TlsCertificates>
{
    [Fact]
    public void A_tls_reader_that_stops_reading_gets_a_Logout_with_the_reason_when_it_reads_again()
    {
        // The reserve kept for a last Logout must work when the outbound buffer holds TLS records: the message that
        // does not fit is refused before it is encrypted (a record dropped after would break the stream), and the
        // session's Logout is encrypted into the reserve.
        using var log = new CapturedLog();
        using var acceptor = SessionHarness.Acceptor(new ExecutingApplication(), extra: certificates.Acceptor(NetworkAbuseTests.SlowReaderSettings), log: log.Log);
        using var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp) { NoDelay = true, ReceiveBufferSize = 4096 };
        socket.Connect(IPAddress.Loopback, AbuseHarness.Port(acceptor));
        using var network = new NetworkStream(socket, ownsSocket: false);
        using var ssl = new SslStream(network, leaveInnerStreamOpen: true, (_, _, _, _) => true);
        ssl.AuthenticateAsClient(new SslClientAuthenticationOptions
        {
            TargetHost = "localhost",
            ClientCertificates = [certificates.ClientCertificate],
            EnabledSslProtocols = SslProtocols.Tls12 | SslProtocols.Tls13,
        });
        socket.ReceiveTimeout = 15_000;
        ssl.Write(SessionHarness.RawLogon(1, "CLIENT", "EXEC"));
        SessionHarness.WaitUntil(() => acceptor.Sessions[0].IsLoggedOn, "the logon over TLS");

        NetworkAbuseTests.FillUntilRefused(acceptor.Sessions[0]);

        var received = ReadToClose(ssl, socket);
        int logout = received.LastIndexOf("\u000135=5\u0001", StringComparison.Ordinal);
        Assert.True(logout >= 0, $"no Logout among the {received.Length} bytes received before the close");
        Assert.Contains("\u000158=Outbound buffer full: counterparty too slow\u0001", received[logout..], StringComparison.Ordinal);
        log.WaitForLine(socket.LocalEndPoint!, "connection closed: outbound buffer full");
        NetworkAbuseTests.AssertNoFault(log);
    }

    [Fact]
    public void A_tls_connection_flood_holds_at_most_MaxPendingLogons_handshakes_and_their_buffers()
    {
        // An acceptor's TLS connection holds its plaintext record buffer (17 KB) and SslStream's state from its
        // accept, before any Logon: bearable only because MaxPendingLogons bounds how many exist at once.
        const int Limit = 32, Flood = 3 * Limit;
        using var log = new CapturedLog();
        using var acceptor = SessionHarness.Acceptor(new ExecutingApplication(),
            extra: certificates.Acceptor($"MaxPendingLogons={Limit}\nMaxPendingLogonsPerAddress={Limit}\nLogonTimeout=30"), log: log.Log);
        var port = acceptor.Acceptors[0];

        // One handshake refused first: the process's TLS machinery (its caches, the server certificate's context)
        // is made once, not per connection.
        using (var plaintext = AbuseHarness.Connect(acceptor))
        {
            plaintext.Send(SessionHarness.RawLogon(1, "CLIENT", "EXEC"));
            Assert.True(SessionHarness.ClosedByServer(plaintext, TimeSpan.FromSeconds(20)), "a plaintext Logon on a TLS port was not refused");
        }

        SessionHarness.WaitUntil(() => port.PendingLogons == 0, "the refused handshake's connection to end");
        long refusedBefore = port.RefusedConnections;
        var before = AbuseHarness.SettledMemory();
        var flood = new List<Socket>();
        try
        {
            // Connections that never start the handshake: each admitted one waits in it until LogonTimeout. First
            // the limit's worth (all admitted), measured; then twice as many more, all refused, measured again.
            flood = Flooded(acceptor, port, Limit, Limit, out var admitted);
            Assert.Equal(refusedBefore, port.RefusedConnections);
            flood.AddRange(Flooded(acceptor, port, Flood - Limit, 0, out _));
            SessionHarness.WaitUntil(() => port.RefusedConnections - refusedBefore >= Flood - Limit, "the connections beyond the limit refused");

            // The bound: never more than the limit awaiting a Logon or open. (Exactly the limit is what a quiet run
            // shows alone; in the clean-clone rehearsal's full suite of 2026-11-24 with a limit of 16 both runtimes saw 15 after the 32
            // refusals, one admitted connection having already ended: unexplained, noted in docs/security.md's known gaps.)
            Assert.InRange(port.PendingLogons, 1, Limit);
            Assert.InRange(port.Connections().Count(c => !c.IsClosed), 1, Limit);
            Assert.All(port.Connections().Where(c => !c.IsClosed), c => Assert.True(c.IsTls && !c.IsBound));
            var after = AbuseHarness.SettledMemory();

            // Each admitted connection: the TLS record buffers and SslStream's state in the handshake, the framer, the
            // Logon buffer and view (about 260 KB, measured); a refused one holds nothing, so the flood costs at most
            // MaxPendingLogons of them. The heap is the process's: the runtime's own pools (SslStream rents from the
            // shared array pool) move it from run to run, so the limit is 32 (the CI run of 2026-11-28 saw 441 KB
            // per admitted connection with 16, where quiet runs see 240-270 KB), and a refused connection is
            // allowed a quarter of an admitted one's, not nothing (0-4 KB seen; the CI run of 2026-11-29 failed on
            // 61 KB, an artefact of GC.GetTotalMemory that SettledMemory no longer uses).
            long perAdmitted = (admitted.Heap - before.Heap) / Limit;
            long perRefused = (after.Heap - admitted.Heap) / (Flood - Limit);
            Assert.True(perAdmitted < 384 * 1024, $"{perAdmitted / 1024} KB of managed heap per admitted TLS connection ({Limit} admitted)");
            Assert.True(perRefused < perAdmitted / 4, $"{perRefused / 1024} KB of managed heap per refused TLS connection ({Flood - Limit} refused, {perAdmitted / 1024} KB per admitted one)");
            SessionHarness.WaitUntil(() => log.Text().Contains($"(limit MaxPendingLogons {Limit})", StringComparison.Ordinal), "the refusals logged with the limit");
        }
        finally
        {
            flood.ForEach(s => s.Dispose());
        }

        SessionHarness.WaitUntil(() => port.PendingLogons == 0, "the pending count back to 0");
        NetworkAbuseTests.AssertNoFault(log);
    }

    /// <summary>
    /// Opens <paramref name="count"/> connections that never start the handshake and waits until the port holds
    /// <paramref name="pending"/> of them awaiting a Logon; the settled memory is taken then.
    /// </summary>
    private static List<Socket> Flooded(FixEngine acceptor, FixAcceptor port, int count, int pending, out (long Heap, long WorkingSet) memory)
    {
        var sockets = new List<Socket>(count);
        for (int i = 0; i < count; i++)
        {
            sockets.Add(AbuseHarness.Connect(acceptor));
        }

        if (pending > 0)
        {
            // Counted as pending at its accept, a connection builds SslStream's handshake state on its own thread
            // when that starts reading: measured once every one of them waits in its handshake for the peer's bytes.
            SessionHarness.WaitUntil(() => port.PendingLogons >= pending, $"{pending} connections awaiting their handshake");
            SessionHarness.WaitUntil(
                () => port.Connections().Count(c => !c.IsClosed && c.TlsHandshakeWaitedForPeer) >= pending,
                $"{pending} connections waiting in their handshake for the peer");
        }

        memory = pending > 0 ? AbuseHarness.SettledMemory() : default;
        return sockets;
    }

    /// <summary>Everything decrypted until the server closes the connection.</summary>
    private static string ReadToClose(SslStream ssl, Socket socket)
    {
        socket.ReceiveTimeout = 20_000;
        var all = new MemoryStream();
        var buffer = new byte[1 << 16];
        try
        {
            int n;
            while ((n = ssl.Read(buffer, 0, buffer.Length)) > 0)
            {
                all.Write(buffer, 0, n);
            }
        }
        catch (IOException)
        {
            // Reset after the last record: what was decrypted is what the test checks.
        }

        return Encoding.ASCII.GetString(all.ToArray());
    }
}
