using System.Text;
using RapidFix.Engine.Configuration;
using RapidFix.Engine.Diagnostics;
using RapidFix.Engine.Tests.Sessions;
using RapidFix.Tests.Shared;

namespace RapidFix.Engine.Tests.Runtime;

/// <summary>FileLogPath: the QuickFIX file-log layout, written off the session's thread, allocation-free on it.</summary>
public sealed class MessageLogTests : IDisposable
{
    private readonly string _directory = Path.Combine(Path.GetTempPath(), "rapidfix-msglog-" + Guid.NewGuid().ToString("N"));

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
    public void Every_message_received_and_sent_is_in_the_session_file_in_order()
    {
        var executor = new ExecutingApplication();
        var client = new OrderingApplication();
        string acceptorLogs = Path.Combine(_directory, "acceptor");
        using (var acceptor = SessionHarness.Acceptor(executor, extra: $"FileLogPath={acceptorLogs}"))
        {
            using (var initiator = SessionHarness.Initiator(client, SessionHarness.Endpoint(acceptor.Acceptors[0].LocalEndPoint.Port)))
            {
                var session = initiator.Sessions[0];
                SessionHarness.WaitUntil(() => session.IsLoggedOn && acceptor.Sessions[0].IsLoggedOn, "logon");
                for (int i = 1; i <= 50; i++)
                {
                    Assert.Equal(RapidFix.Engine.Sessions.SendResult.Sent, client.SendOrder(session, i));
                }

                SessionHarness.WaitUntil(() => client.Executions == 50, "50 executions");
            }

            SessionHarness.WaitUntil(() => !acceptor.Sessions[0].IsConnected, "disconnection");
        }

        string prefix = Path.Combine(acceptorLogs, "FIX.4.4-EXEC-CLIENT");
        string[] lines = File.ReadAllLines(prefix + ".messages.current.log");
        var received = new List<int>();
        var sent = new List<int>();
        foreach (string line in lines)
        {
            // "yyyyMMdd-HH:mm:ss.fff : 8=FIX.4.4<SOH>..." as QuickFIX writes it.
            Assert.Matches(@"^\d{8}-\d\d:\d\d:\d\d\.\d{3} : 8=FIX\.4\.4\u0001", line);
            int seq = int.Parse(Field(line, "34"), System.Globalization.CultureInfo.InvariantCulture);
            (Field(line, "49") == "CLIENT" ? received : sent).Add(seq);
        }

        // Logon, 50 orders, Logout in; Logon, 50 executions, Logout out: each side in sequence, nothing missing.
        Assert.Equal(Enumerable.Range(1, 52), received);
        Assert.Equal(Enumerable.Range(1, 52), sent);
        Assert.Contains(lines, l => l.Contains("\u000135=D\u0001", StringComparison.Ordinal));
        Assert.Contains(lines, l => l.Contains("\u000135=8\u0001", StringComparison.Ordinal));
        string events = File.ReadAllText(prefix + ".event.current.log");
        Assert.Contains("Session log opened", events, StringComparison.Ordinal);
        Assert.Contains("Session log closed", events, StringComparison.Ordinal);
    }

    [Fact]
    public void A_full_ring_drops_and_counts_never_blocks_and_the_drop_is_reported_in_the_event_log()
    {
        using var writer = new MessageFileLog(_directory);
        var id = new SessionId("FIX.4.4", "A", "B");
        writer.Paused = true;
        var log = writer.Open(id, 4096, 1024);
        byte[] message = Encoding.ASCII.GetBytes(new string('x', 500));
        int accepted = 0;
        for (int i = 0; i < 20; i++)
        {
            accepted += log.Outgoing(message) ? 1 : 0;
        }

        Assert.InRange(accepted, 1, 8);
        Assert.Equal(20 - accepted, log.Dropped);
        writer.Paused = false;
        SessionHarness.WaitUntil(() => log.Pending == 0, "the writer drains the ring");
        writer.Flush();
        Assert.Equal(accepted, File.ReadAllLines(log.MessagesPath).Length);
        Assert.Contains($"{20 - accepted} record(s) dropped", File.ReadAllText(log.EventsPath), StringComparison.Ordinal);
    }

    [Fact]
    public void Copying_messages_into_the_ring_allocates_nothing_while_the_writer_drains_it()
    {
        using var writer = new MessageFileLog(_directory);
        var log = writer.Open(new SessionId("FIX.4.4", "A", "B"), 1 << 20, 1024);
        byte[] message = Encoding.ASCII.GetBytes("8=FIX.4.4\u00019=5\u000135=0\u000110=000\u0001");
        long bytes = Allocations.Measure(log, l =>
        {
            l.Incoming(message);
            l.Outgoing(message);
        }, 20_000);
        Assert.Equal(0, bytes);
        SessionHarness.WaitUntil(() => log.Pending == 0, "the writer drains the ring");
    }

    [Fact]
    public void The_file_prefix_is_QuickFIX_s_and_never_leaves_the_directory()
    {
        Assert.Equal("FIX.4.4-EXEC-CLIENT", MessageFileLog.Prefix(new SessionId("FIX.4.4", "EXEC", "CLIENT")));
        Assert.Equal("FIX.4.2-S_SS_SL-T_TS_TL-Q", MessageFileLog.Prefix(new SessionId("FIX.4.2", "S", "T", "SS", "SL", "TS", "TL", "Q")));
        Assert.Equal("FIX.4.4-.._.._etc-B", MessageFileLog.Prefix(new SessionId("FIX.4.4", "../../etc", "B")));
    }

    private static string Field(string line, string tag)
    {
        int start = line.IndexOf("\u0001" + tag + "=", StringComparison.Ordinal) + tag.Length + 2;
        return line[start..line.IndexOf('\u0001', start)];
    }
}
