using System.Text.RegularExpressions;
using RapidFix.Engine.Codec;
using RapidFix.Engine.Configuration;
using RapidFix.Engine.Diagnostics;
using RapidFix.Engine.Fields;
using RapidFix.Engine.Sessions;
using RapidFix.Engine.Tests.Sessions;
using RapidFix.Engine.Validation;
using RapidFix.Tests.Shared;

namespace RapidFix.Engine.Tests.Runtime;

/// <summary>
/// FileLogPath's event file has the session's events, as QuickFIX/n writes them there (logon, rejects, logout,
/// disconnection with its reason), each line timestamped, whatever the engine log is; routing them costs the logging
/// thread no allocation.
/// </summary>
public sealed class SessionEventLogTests : IDisposable
{
    private readonly string _directory = Path.Combine(Path.GetTempPath(), "rapidfix-eventlog-" + Guid.NewGuid().ToString("N"));

    public void Dispose()
    {
        try
        {
            Directory.Delete(_directory, recursive: true);
        }
        catch (IOException)
        {
        }
    }

    [Fact]
    public void A_logon_a_reject_and_a_logout_are_in_the_session_event_file_with_timestamps()
    {
        var rejecting = new RejectingApplication();
        var client = new OrderingApplication();
        string logs = Path.Combine(_directory, "acceptor");

        // No engine log given (EngineLog.Null, which writes nothing): the event file has the events all the same.
        using (var acceptor = SessionHarness.Acceptor(rejecting, extra: $"FileLogPath={logs}", log: EngineLog.Null))
        {
            using (var initiator = SessionHarness.Initiator(client, SessionHarness.Endpoint(acceptor.Acceptors[0].LocalEndPoint.Port)))
            {
                var session = initiator.Sessions[0];
                SessionHarness.WaitUntil(() => session.IsLoggedOn && acceptor.Sessions[0].IsLoggedOn, "logon");
                Assert.Equal(SendResult.Sent, client.SendOrder(session, 1));
                SessionHarness.WaitUntil(() => rejecting.Orders == 1 && acceptor.Sessions[0].Counters.RejectsSent == 1, "the order rejected");
            }

            SessionHarness.WaitUntil(() => !acceptor.Sessions[0].IsConnected, "disconnection");
        }

        string[] lines = File.ReadAllLines(Path.Combine(logs, "FIX.4.4-EXEC-CLIENT.event.current.log"));
        foreach (string line in lines)
        {
            // "yyyyMMdd-HH:mm:ss.fff : text", QuickFIX's event-file layout.
            Assert.Matches(@"^\d{8}-\d\d:\d\d:\d\d\.\d{3} : \S", line);
        }

        int logon = IndexOf(lines, "logon received, MsgSeqNum 1, HeartBtInt 30");
        int reject = IndexOf(lines, "Reject sent: Value is incorrect (out of range) for this tag, tag 38");
        int logout = IndexOf(lines, "logout received, MsgSeqNum 3");
        int closed = IndexOf(lines, "disconnected: logout exchanged");
        Assert.True(logon < reject && reject < logout && logout < closed, string.Join('\n', lines));

        // The transport's line about the connection names the peer.
        Assert.Contains(lines, l => Regex.IsMatch(l, @"^\S+ : peer 127\.0\.0\.1:\d+: connection closed: logout exchanged$"));
        IndexOf(lines, "logon sent, MsgSeqNum 1");
        IndexOf(lines, "logout sent, MsgSeqNum 3");

        // In time order, the log's own lines included.
        Assert.Equal(lines.Order(StringComparer.Ordinal).Select(l => l[..21]), lines.Select(l => l[..21]));
        Assert.Contains("Session log opened", lines[0], StringComparison.Ordinal);
        Assert.Contains("Session log closed", lines[^1], StringComparison.Ordinal);
    }

    [Fact]
    public void An_event_of_a_session_is_routed_to_its_file_only_until_the_log_is_detached()
    {
        using var writer = new MessageFileLog(_directory);
        var log = new EngineLog(null);
        var id = new SessionId("FIX.4.4", "A", "B");
        var sessionLog = writer.Open(id, 4096, 1024);
        int index = log.RegisterSession(id.ToString());
        int other = log.RegisterSession("FIX.4.4:A->C");
        log.RouteEvents(index, sessionLog);
        log.Write(LogLevel.Warning, LogEvent.MsgSeqNumTooHigh, index, 5, 9);
        log.Write(LogLevel.Info, LogEvent.LogonSent, other, 1);
        log.RouteEvents(index, null);
        log.Write(LogLevel.Info, LogEvent.LogoutSent, index, 7);
        writer.Flush();

        string events = File.ReadAllText(sessionLog.EventsPath);
        Assert.Contains(" : MsgSeqNum too high, expecting 5 but received 9\n", events, StringComparison.Ordinal);
        Assert.DoesNotContain("logon sent", events, StringComparison.Ordinal);
        Assert.DoesNotContain("logout sent", events, StringComparison.Ordinal);
    }

    [Fact]
    public void A_full_event_ring_drops_and_counts_and_the_drop_is_reported()
    {
        using var writer = new MessageFileLog(_directory);
        var log = new EngineLog(null);
        var sessionLog = writer.Open(new SessionId("FIX.4.4", "A", "B"), 4096, 1024);
        int index = log.RegisterSession("FIX.4.4:A->B");
        log.RouteEvents(index, sessionLog);
        writer.Paused = true;
        for (int i = 0; i < 2_000; i++)
        {
            log.Write(LogLevel.Warning, LogEvent.RejectSent, index, (long)SessionRejectReason.ValueIsIncorrect, i);
        }

        Assert.InRange(sessionLog.Dropped, 1, 2_000 - 1);
        long dropped = sessionLog.Dropped;
        writer.Paused = false;
        writer.Flush();
        string[] lines = File.ReadAllLines(sessionLog.EventsPath);
        Assert.Equal(2_000 - dropped, lines.Count(l => l.Contains("Reject sent", StringComparison.Ordinal)));
        Assert.Contains(lines, l => l.Contains($"{dropped} record(s) dropped", StringComparison.Ordinal));
    }

    [Fact]
    public void Logging_a_session_event_into_its_event_file_allocates_nothing()
    {
        using var writer = new MessageFileLog(_directory);
        var log = new EngineLog(null);
        var sessionLog = writer.Open(new SessionId("FIX.4.4", "A", "B"), 4096, 1024);
        int index = log.RegisterSession("FIX.4.4:A->B");
        log.RouteEvents(index, sessionLog);
        long bytes = Allocations.Measure((log, index), s => s.log.Write(LogLevel.Warning, LogEvent.RejectSent, s.index, 5, 38), 20_000);
        Assert.Equal(0, bytes);
        writer.Flush();
        Assert.Contains("Reject sent: Value is incorrect (out of range) for this tag, tag 38", File.ReadAllText(sessionLog.EventsPath), StringComparison.Ordinal);
    }

    private static int IndexOf(string[] lines, string text)
    {
        int index = Array.FindIndex(lines, l => l.EndsWith(" : " + text, StringComparison.Ordinal));
        Assert.True(index >= 0, $"no line \"{text}\" in:\n{string.Join('\n', lines)}");
        return index;
    }

    /// <summary>Rejects every order (OrderQty is "out of range"): the acceptor answers with a session Reject.</summary>
    private sealed class RejectingApplication : FixApplicationBase
    {
        private long _orders;

        public long Orders => Interlocked.Read(ref _orders);

        public override MessageDisposition FromApp(FixSession session, FixMessage message)
        {
            Interlocked.Increment(ref _orders);
            return MessageDisposition.Reject(SessionRejectReason.ValueIsIncorrect, Tags.OrderQty);
        }
    }
}
