using System.Collections.Concurrent;
using System.Diagnostics.Tracing;
using System.Net;
using RapidFix.Engine.Diagnostics;
using RapidFix.Engine.Tests.Sessions;
using RapidFix.Pools.Diagnostics;
using RapidFix.Tests.Shared;

namespace RapidFix.Engine.Tests.Abuse;

/// <summary>
/// Every refusal (a connection refused by the transport, a Logon refused by its session, a TLS handshake that
/// failed) goes through one allocation-free log path that names the peer and the reason, and the "RapidFix" event
/// source's ConnectionRefused event carries both.
/// </summary>
[Collection(nameof(NetworkAbuse))]
public sealed class RefusalLogTests
{
    internal static readonly IPEndPoint Peer = new(IPAddress.Parse("192.0.2.10"), 40001);

    public static TheoryData<string, string> Refusals => new()
    {
        { "transport", "peer 192.0.2.10:40001: connection refused: 32 connections awaiting logon from this address (limit MaxPendingLogonsPerAddress 32)" },
        { "session", "FIX.4.4:EXEC->CLIENT: peer 192.0.2.10:40001: logon refused: Password do not match the session's; logging out" },
        { "session without a Logout", "FIX.4.4:EXEC->CLIENT: peer 192.0.2.10:40001: logon refused: SendingTime accuracy problem; disconnecting without a Logout (not answered)" },
        { "TLS", "peer 192.0.2.10:40001: TLS handshake failed: the peer presented no certificate" },
    };

    [Theory]
    [MemberData(nameof(Refusals))]
    public void Each_kind_of_refusal_is_logged_with_the_peer_and_the_reason(string kind, string expected)
    {
        using var log = new CapturedLog();
        int session = log.Log.RegisterSession("FIX.4.4:EXEC->CLIENT");
        Refuse(log.Log, kind, session);
        Assert.Contains(log.Text().Split('\n'), line => line.Contains(" WARN  ", StringComparison.Ordinal) && line.EndsWith(expected, StringComparison.Ordinal));
    }

    [Fact]
    public void Long_reasons_are_cut_at_the_end_of_the_line_not_dropped()
    {
        using var log = new CapturedLog();
        string reason = "the peer's certificate was refused: " + new string('x', 5000) + "é";
        log.Log.WriteRefusal(LogLevel.Warning, LogEvent.TlsHandshakeFailed, -1, Peer, reason);
        var line = log.Text().Split('\n').Single(l => l.Contains("TLS handshake failed", StringComparison.Ordinal));
        Assert.Contains("peer 192.0.2.10:40001: TLS handshake failed: the peer's certificate was refused: xxx", line, StringComparison.Ordinal);
        Assert.InRange(line.Length, 1000, 2048);
    }

    public static TheoryData<string, string> Addresses => new()
    {
        { "192.0.2.10", "192.0.2.10:40001" },
        { "::ffff:192.0.2.10", "192.0.2.10:40001" }, // an IPv4 peer of a dual-mode socket
        { "2001:db8::7", "[2001:db8::7]:40001" },
    };

    [Theory]
    [MemberData(nameof(Addresses))]
    public void Peer_addresses_are_written_as_address_and_port(string address, string expected)
    {
        var into = new char[64];
        int n = EngineLog.FormatPeer(new IPEndPoint(IPAddress.Parse(address), 40001), into);
        Assert.Equal(expected, new string(into, 0, n));
    }

    [Fact]
    public void A_logon_refused_by_a_real_acceptor_is_logged_with_the_peer_and_the_reason()
    {
        using var log = new CapturedLog();
        using var acceptor = SessionHarness.Acceptor(new ExecutingApplication(), extra: "MaxHeartBtInt=10", log: log.Log);
        using var client = AbuseHarness.Connect(acceptor);
        client.Send(SessionHarness.RawLogon(1, "CLIENT", "EXEC")); // HeartBtInt 30
        client.ReceiveTimeout = 15_000;
        Assert.Contains("\u000135=5\u0001", AbuseHarness.ReadMessage(client), StringComparison.Ordinal);
        log.WaitForLine(client.LocalEndPoint!, "logon refused: HeartBtInt 30 is above MaxHeartBtInt 10; logging out");
    }

    /// <summary>The refusal of each kind, as the transport, the session and the TLS layer record it.</summary>
    internal static void Refuse(EngineLog log, string kind, int session)
    {
        switch (kind)
        {
            case "transport":
                log.WritePeer(LogLevel.Warning, LogEvent.TooManyPendingFromAddress, -1, Peer, 32, 32);
                break;
            case "session":
                log.WriteRefusal(LogLevel.Warning, LogEvent.LogonRejected, session, Peer, "Password do not match the session's");
                break;
            case "session without a Logout":
                log.WriteRefusal(LogLevel.Warning, LogEvent.LogonRejectedNoLogout, session, Peer, "SendingTime accuracy problem", "not answered");
                break;
            default:
                log.WriteRefusal(LogLevel.Warning, LogEvent.TlsHandshakeFailed, -1, Peer, "the peer presented no certificate");
                break;
        }
    }
}

/// <summary>
/// The refusal path's allocations and its trace events: with the allocation tests, never beside a test whose
/// in-process listener would make every event allocate.
/// </summary>
[Collection(RapidFix.Engine.Tests.Store.AllocationTestCollection.Name)]
public sealed class RefusalTraceTests
{
    private static readonly IPEndPoint Peer = RefusalLogTests.Peer;

    private static void Refuse(EngineLog log, string kind, int session) => RefusalLogTests.Refuse(log, kind, session);

    [Fact]
    public void The_refusal_path_allocates_nothing_after_warm_up()
    {
        // A log that writes (its writer thread formats the lines) and whose ring may fill: a full ring drops, counted.
        using var output = new MemoryStream();
        using var log = new EngineLog(output, 1024, LogLevel.Info);
        int session = log.RegisterSession("FIX.4.4:EXEC->CLIENT");
        long bytes = Allocations.Measure((log, session), static s =>
        {
            Refuse(s.log, "transport", s.session);
            Refuse(s.log, "session", s.session);
            Refuse(s.log, "session without a Logout", s.session);
            Refuse(s.log, "TLS", s.session);
        }, 10_000);
        Assert.Equal(0, bytes);
        Assert.True(log.Written > 0, "the writer thread wrote nothing");
    }

    [Fact]
    public void The_event_source_traces_refusals_with_the_peer_and_the_reason()
    {
        using var listener = new RefusalListener();
        using var log = new CapturedLog();
        int session = log.Log.RegisterSession("FIX.4.4:EXEC->CLIENT");
        foreach (var kind in new[] { "transport", "session", "session without a Logout", "TLS" })
        {
            Refuse(log.Log, kind, session);
        }

        // A connection that closes before its Logon is a refusal too; one that ends after it is not.
        log.Log.WritePeer(LogLevel.Warning, LogEvent.ClosedBeforeLogon, -1, Peer, (long)RapidFix.Engine.Sessions.DisconnectReason.UnknownSession);
        log.Log.WritePeer(LogLevel.Info, LogEvent.ConnectionClosed, session, Peer, (long)RapidFix.Engine.Sessions.DisconnectReason.PeerClosed);

        // The listener hears the whole process: other tests' refusals come from other addresses.
        var events = listener.Events.Where(e => e.Peer == "192.0.2.10:40001").ToArray();
        Assert.Contains(("", "192.0.2.10:40001", (int)LogEvent.TooManyPendingFromAddress, "", 32L, 32L), events);
        Assert.Contains(("FIX.4.4:EXEC->CLIENT", "192.0.2.10:40001", (int)LogEvent.LogonRejected, "Password do not match the session's", 0L, 0L), events);
        Assert.Contains(("FIX.4.4:EXEC->CLIENT", "192.0.2.10:40001", (int)LogEvent.LogonRejectedNoLogout, "SendingTime accuracy problem", 0L, 0L), events);
        Assert.Contains(("", "192.0.2.10:40001", (int)LogEvent.TlsHandshakeFailed, "the peer presented no certificate", 0L, 0L), events);
        Assert.Contains(("", "192.0.2.10:40001", (int)LogEvent.ClosedBeforeLogon, "", (long)RapidFix.Engine.Sessions.DisconnectReason.UnknownSession, 0L), events);
        Assert.DoesNotContain(events, e => e.Event == (int)LogEvent.ConnectionClosed);
    }

    private sealed class RefusalListener : EventListener
    {
        public ConcurrentQueue<(string Session, string Peer, int Event, string Reason, long A, long B)> Events { get; } = new();

        protected override void OnEventSourceCreated(EventSource source)
        {
            if (source.Name == RapidFixEventSource.ProviderName)
            {
                EnableEvents(source, EventLevel.Warning, RapidFixEventSource.Keywords.Sessions);
            }
        }

        protected override void OnEventWritten(EventWrittenEventArgs e)
        {
            if (e.EventName == "ConnectionRefused" && e.Payload is { } p)
            {
                var invariant = System.Globalization.CultureInfo.InvariantCulture;
                Events.Enqueue(((string)p[0]!, (string)p[1]!, Convert.ToInt32(p[2], invariant), (string)p[3]!, Convert.ToInt64(p[4], invariant),
                    Convert.ToInt64(p[5], invariant)));
            }
        }
    }
}
