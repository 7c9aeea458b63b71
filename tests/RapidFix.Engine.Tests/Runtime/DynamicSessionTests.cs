using System.Text;
using RapidFix.Engine.Configuration;
using RapidFix.Engine.Diagnostics;
using RapidFix.Engine.Hosting;
using RapidFix.Engine.Sessions;
using RapidFix.Engine.Tests.Sessions;

namespace RapidFix.Engine.Tests.Runtime;

/// <summary>Acceptor templates (AcceptorTemplate=Y, TargetCompID=*) and sessions added and removed at run time.</summary>
public sealed class DynamicSessionTests
{
    private const string Template = """
        [DEFAULT]
        ConnectionType=acceptor
        SocketAcceptHost=127.0.0.1
        SocketAcceptPort=0
        StartTime=00:00:00
        EndTime=00:00:00
        StoreType=express
        [SESSION]
        BeginString=FIX.4.4
        SenderCompID=EXEC
        TargetCompID=*
        AcceptorTemplate=Y
        """;

    [Fact]
    public void An_unknown_CompID_logs_on_through_the_template_and_trades()
    {
        var executor = new ExecutingApplication();
        using var acceptor = Start(Template, executor);
        Assert.Empty(acceptor.SessionsSnapshot());
        Assert.Equal("*", Assert.Single(acceptor.Templates).TargetCompId);

        var client = new OrderingApplication();
        using var initiator = SessionHarness.Initiator(client, SessionHarness.Endpoint(acceptor.Acceptors[0].LocalEndPoint.Port));
        var session = initiator.Sessions[0];
        SessionHarness.WaitUntil(() => session.IsLoggedOn, "logon through the template");
        for (int i = 1; i <= 10; i++)
        {
            Assert.Equal(SendResult.Sent, client.SendOrder(session, i));
        }

        SessionHarness.WaitUntil(() => client.Executions == 10, "10 executions");
        var created = Assert.Single(acceptor.SessionsSnapshot());
        Assert.Equal(new SessionId("FIX.4.4", "EXEC", "CLIENT"), created.Id);
        Assert.True(created.IsLoggedOn);
        Assert.Same(created, acceptor.Find(created.Id));
    }

    [Fact]
    public void A_template_logon_the_application_refuses_gets_a_Logout_is_logged_with_the_address_and_reason_and_leaves_no_session()
    {
        var executor = new ExecutingApplication { LogonPolicy = _ => LogonDecision.Refuse("not a customer") };
        var logBytes = new MemoryStream();
        using var log = new EngineLog(logBytes, 4096, LogLevel.Debug);
        using var acceptor = Start(Template, executor, log);

        var client = new OrderingApplication();
        using (var initiator = SessionHarness.Initiator(client, SessionHarness.Endpoint(acceptor.Acceptors[0].LocalEndPoint.Port)))
        {
            SessionHarness.WaitUntil(() => client.LogoutText is not null, "the refusal's Logout");
            Assert.Equal("not a customer", client.LogoutText);
            Assert.False(initiator.Sessions[0].IsLoggedOn);
        }

        Assert.Empty(acceptor.SessionsSnapshot());
        log.Flush();
        string text;
        lock (logBytes)
        {
            text = Encoding.UTF8.GetString(logBytes.ToArray());
        }

        Assert.Matches(@"peer 127\.0\.0\.1:\d+: logon refused: .*not a customer", text);
    }

    [Fact]
    public void Removing_a_live_session_logs_its_counterparty_out_and_stops_routing_to_it()
    {
        var executor = new ExecutingApplication();
        using var acceptor = Start(Template, executor);
        var client = new OrderingApplication();
        using var initiator = SessionHarness.Initiator(client, SessionHarness.Endpoint(acceptor.Acceptors[0].LocalEndPoint.Port));
        SessionHarness.WaitUntil(() => initiator.Sessions[0].IsLoggedOn, "logon through the template");
        var created = Assert.Single(acceptor.SessionsSnapshot());

        Assert.True(acceptor.RemoveSession(created.Id, "Removed by the operator"));
        SessionHarness.WaitUntil(() => client.LogoutText is not null, "the counterparty's Logout");
        Assert.Equal("Removed by the operator", client.LogoutText);
        Assert.False(created.IsConnected);
        Assert.DoesNotContain(created, acceptor.SessionsSnapshot());
        Assert.DoesNotContain(created, acceptor.Acceptors[0].Sessions);
        Assert.False(acceptor.RemoveSession(new SessionId("FIX.4.4", "EXEC", "NOBODY")));
    }

    [Fact]
    public void A_session_added_at_run_time_is_served_on_the_port_and_a_template_section_must_be_an_acceptor()
    {
        var executor = new ExecutingApplication();
        using var acceptor = Start(Template.Replace("TargetCompID=*", "TargetCompID=OTHER", StringComparison.Ordinal)
            .Replace("AcceptorTemplate=Y", "", StringComparison.Ordinal), executor);
        int port = acceptor.Acceptors[0].LocalEndPoint.Port;
        var added = SettingsFile.Parse(Template.Replace("SocketAcceptPort=0", $"SocketAcceptPort={port}", StringComparison.Ordinal)
            .Replace("TargetCompID=*", "TargetCompID=CLIENT", StringComparison.Ordinal)
            .Replace("AcceptorTemplate=Y", "", StringComparison.Ordinal), "added.cfg").Sessions[0];
        var session = acceptor.AddSession(added, executor);
        Assert.Contains(session, acceptor.Acceptors[0].Sessions);

        var client = new OrderingApplication();
        using var initiator = SessionHarness.Initiator(client, SessionHarness.Endpoint(port));
        SessionHarness.WaitUntil(() => session.IsLoggedOn && initiator.Sessions[0].IsLoggedOn, "logon of the added session");
        Assert.Throws<ArgumentException>(() => acceptor.AddSession(added, executor));

        var error = Assert.Throws<ConfigurationException>(() => FixEngine.Create(SettingsFile.Parse(
            Template.Replace("ConnectionType=acceptor", "ConnectionType=initiator\nHeartBtInt=30\nSocketConnectHost=127.0.0.1\nSocketConnectPort=1", StringComparison.Ordinal), "t.cfg"),
            _ => executor));
        Assert.Contains("AcceptorTemplate", error.Message, StringComparison.Ordinal);
    }

    private static FixEngine Start(string settings, IFixApplication application, EngineLog? log = null)
    {
        var engine = FixEngine.Create(SettingsFile.Parse(settings, "template.cfg"), _ => application, log ?? SessionHarness.Log);
        engine.Start();
        return engine;
    }
}
