using System.Diagnostics;
using System.Net;
using System.Net.Sockets;
using System.Text;
using RapidFix.Engine.Hosting;
using RapidFix.Engine.Sessions;
using RapidFix.Engine.Tests.Sessions;

namespace RapidFix.Engine.Tests.Abuse;

/// <summary>
/// A real acceptor on loopback against what a hostile counterparty does: garbage, a slow trickle, a connection
/// flood, forged logons, a reader that stops reading. Each test checks that the abuse is refused and logged with the
/// address and the reason, that nothing escapes as a fault, and that a proper counterparty still logs on.
/// </summary>
[Collection(nameof(NetworkAbuse))]
public sealed class NetworkAbuseTests
{
    [Fact]
    public void Garbage_bytes_are_refused_and_logged_with_the_address()
    {
        using var log = new CapturedLog();
        using var acceptor = SessionHarness.Acceptor(new ExecutingApplication(), log: log.Log);
        var random = new Random(11);
        var peers = new List<EndPoint>();
        for (int i = 0; i < 20; i++)
        {
            using var attacker = AbuseHarness.Connect(acceptor);
            var garbage = new byte[random.Next(1, 20_000)];
            random.NextBytes(garbage);
            Send(attacker, garbage);
            Assert.True(SessionHarness.ClosedByServer(attacker, TimeSpan.FromSeconds(15)), "garbage was not refused");
            peers.Add(attacker.LocalEndPoint!);
        }

        // Each garbage connection ends with a line naming its address and why (what the garbage looked like to the
        // framer decides which: garbled, too large for a Logon, or a bad first message).
        foreach (var peer in peers)
        {
            log.WaitForLine(peer, "connection closed before logon: ");
        }

        AssertStillServes(acceptor, log);
    }

    [Fact]
    public void A_slowloris_logon_is_dropped_at_the_logon_timeout_and_logged()
    {
        using var log = new CapturedLog();
        using var acceptor = SessionHarness.Acceptor(new ExecutingApplication(), extra: "LogonTimeout=1", log: log.Log);
        using var attacker = AbuseHarness.Connect(acceptor);
        var logon = SessionHarness.RawLogon(1, "CLIENT", "EXEC");
        var started = Stopwatch.StartNew();
        bool closed = false;
        for (int i = 0; i < logon.Length - 1 && started.Elapsed < TimeSpan.FromSeconds(10); i++)
        {
            // One byte every 50 ms: the Logon would take several seconds to arrive.
            if (!TrySend(attacker, logon.AsSpan(i, 1)))
            {
                closed = true;
                break;
            }

            Thread.Sleep(50);
        }

        Assert.True(closed || SessionHarness.ClosedByServer(attacker, TimeSpan.FromSeconds(10)), "the trickling connection was not dropped");
        Assert.InRange(started.Elapsed, TimeSpan.FromSeconds(0.9), TimeSpan.FromSeconds(8));
        log.WaitForLine(attacker.LocalEndPoint!, "no logon within LogonTimeout (1 s)");
        log.WaitForLine(attacker.LocalEndPoint!, "connection closed before logon: timed out waiting for logon");
        AssertStillServes(acceptor, log);
    }

    public static TheoryData<string, string> HostileLogons => new()
    {
        { "unknown CompIDs", "no session for the logon's CompIDs" },
        { "bad checksum", "garbled data before logon" },
        { "huge BodyLength", "garbled data before logon" },
        { "not a Logon first", "first message was not a logon" },
        { "second connection for a logged-on session", "session already logged on" },
    };

    [Theory]
    [MemberData(nameof(HostileLogons))]
    public void Hostile_logons_are_refused_and_logged_with_the_address_and_the_reason(string attack, string reason)
    {
        using var log = new CapturedLog();
        var executor = new ExecutingApplication();
        using var acceptor = SessionHarness.Acceptor(executor, log: log.Log);
        Socket? owner = null;
        if (attack == "second connection for a logged-on session")
        {
            AbuseHarness.TimeLogon(acceptor, out owner);
        }

        try
        {
            using var attacker = AbuseHarness.Connect(acceptor);
            byte[] bytes = attack switch
            {
                "unknown CompIDs" => SessionHarness.RawLogon(1, "STRANGER", "EXEC"),
                "bad checksum" => WithBadChecksum(SessionHarness.RawLogon(1, "CLIENT", "EXEC")),
                "huge BodyLength" => "8=FIX.4.4\u00019=999999999\u000135=A\u000134=1\u0001"u8.ToArray(),
                "not a Logon first" => SessionHarness.RawFinish(SessionHarness.RawHeader(1, "0"u8, "CLIENT", "EXEC")),
                _ => SessionHarness.RawLogon(2, "CLIENT", "EXEC"),
            };
            Send(attacker, bytes);
            Assert.True(SessionHarness.ClosedByServer(attacker, TimeSpan.FromSeconds(15)), $"{attack}: the connection was not closed");
            log.WaitForLine(attacker.LocalEndPoint!, "connection closed before logon: " + reason);
            Assert.Equal(owner is null ? 0 : 1, executor.Logons);
        }
        finally
        {
            owner?.Dispose();
        }

        AssertNoFault(log);
    }

    [Fact]
    public void A_reader_that_stops_reading_gets_a_Logout_with_the_reason_when_it_reads_again()
    {
        using var log = new CapturedLog();
        using var acceptor = SessionHarness.Acceptor(new ExecutingApplication(), extra: SlowReaderSettings, log: log.Log);
        using var reader = LoggedOnNonReader(acceptor);
        FillUntilRefused(acceptor.Sessions[0]);

        // Reading again: what was queued, then our Logout with its reason, then the close.
        var received = ReadToClose(reader, TimeSpan.FromSeconds(20));
        int logout = received.LastIndexOf("\u000135=5\u0001", StringComparison.Ordinal);
        Assert.True(logout >= 0, $"no Logout among the {received.Length} bytes received before the close");
        Assert.Contains("\u000158=Outbound buffer full: counterparty too slow\u0001", received[logout..], StringComparison.Ordinal);
        log.WaitForLine(reader.LocalEndPoint!, "outbound buffer full (");
        log.WaitForLine(reader.LocalEndPoint!, "connection closed: outbound buffer full");
        AssertNoFault(log);
    }

    [Fact]
    public void A_reader_that_never_reads_again_is_closed_and_the_log_says_why_the_Logout_could_not_go()
    {
        using var log = new CapturedLog();
        using var acceptor = SessionHarness.Acceptor(new ExecutingApplication(), extra: SlowReaderSettings, log: log.Log);
        using var reader = LoggedOnNonReader(acceptor);
        FillUntilRefused(acceptor.Sessions[0]);

        var line = log.WaitForLine(reader.LocalEndPoint!, "bytes unsent, our Logout among them: the counterparty stopped reading");
        log.WaitForLine(reader.LocalEndPoint!, "connection closed: outbound buffer full");
        SessionHarness.WaitUntil(() => acceptor.Acceptors[0].Connections().All(c => c.IsClosed), "the close");
        Assert.Contains("closing with ", line, StringComparison.Ordinal);
        AssertNoFault(log);
    }

    // A 64 KB outbound buffer and small fixed socket buffers (no autotuning), so that a reader that stops reading
    // fills them all in a moment.
    internal const string SlowReaderSettings = "OutboundQueueDepth=64\nSocketSendBufferSize=8192";

    /// <summary>A logged-on raw client with a small receive buffer that reads nothing after the Logon answer.</summary>
    private static Socket LoggedOnNonReader(FixEngine acceptor)
    {
        var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp) { NoDelay = true, ReceiveBufferSize = 4096 };
        socket.Connect(IPAddress.Loopback, AbuseHarness.Port(acceptor));
        socket.Send(SessionHarness.RawLogon(1, "CLIENT", "EXEC"));
        socket.ReceiveTimeout = 15_000;
        AbuseHarness.ReadMessage(socket);
        return socket;
    }

    /// <summary>Sends News from the acceptor's session until a send is refused (the outbound buffer is full).</summary>
    internal static void FillUntilRefused(FixSession session)
    {
        var body = Encoding.ASCII.GetBytes("148=" + new string('x', 400) + "\u0001");
        for (int i = 0; i < 1_000_000; i++)
        {
            if (session.Send("B"u8, body) != SendResult.Sent)
            {
                return;
            }
        }

        Assert.Fail("a million messages went out to a reader that does not read");
    }

    /// <summary>Everything the socket receives until the server closes it.</summary>
    private static string ReadToClose(Socket socket, TimeSpan within)
    {
        socket.ReceiveTimeout = (int)within.TotalMilliseconds;
        var all = new MemoryStream();
        var buffer = new byte[1 << 16];
        try
        {
            int n;
            while ((n = socket.Receive(buffer)) > 0)
            {
                all.Write(buffer, 0, n);
            }
        }
        catch (SocketException e) when (e.SocketErrorCode == SocketError.ConnectionReset)
        {
        }

        return Encoding.ASCII.GetString(all.ToArray());
    }

    private static byte[] WithBadChecksum(byte[] message)
    {
        var copy = (byte[])message.Clone();
        int at = copy.Length - 4; // "10=ddd|": the last digit
        copy[at + 2] = (byte)(copy[at + 2] == (byte)'9' ? '0' : copy[at + 2] + 1);
        return copy;
    }

    private static void Send(Socket socket, byte[] bytes)
    {
        if (!TrySend(socket, bytes))
        {
            // Closed by the server before everything went: the close is what the test checks.
        }
    }

    internal static bool TrySend(Socket socket, ReadOnlySpan<byte> bytes)
    {
        try
        {
            socket.Send(bytes);
            return true;
        }
        catch (SocketException)
        {
            return false;
        }
    }

    /// <summary>A proper counterparty logs on after the abuse, and no fault was logged.</summary>
    private static void AssertStillServes(FixEngine acceptor, CapturedLog log)
    {
        AbuseHarness.TimeLogon(acceptor, out var client);
        client.Dispose();
        AssertNoFault(log);
    }

    internal static void AssertNoFault(CapturedLog log)
    {
        var text = log.Text();
        Assert.DoesNotContain("fault:", text, StringComparison.Ordinal);
        Assert.DoesNotContain("unexpected error in an engine thread", text, StringComparison.Ordinal);
    }

    internal static string Tail(string text) => text.Length <= 4000 ? text : text[^4000..];
}
