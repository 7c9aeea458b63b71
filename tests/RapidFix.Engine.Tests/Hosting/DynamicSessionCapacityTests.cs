using System.Net;
using System.Net.Sockets;
using RapidFix.Engine.Configuration;
using RapidFix.Engine.Hosting;
using RapidFix.Engine.Sessions;
using RapidFix.Engine.Tests.Abuse;
using RapidFix.Engine.Tests.Sessions;

namespace RapidFix.Engine.Tests.Hosting;

/// <summary>
/// An acceptor template's run-time sessions take their connection buffers from DynamicSessionCapacity slots made at
/// startup: a Logon when none is free is refused with a Logout naming the limit, and a removed session's slot serves
/// the next one.
/// </summary>
public sealed class DynamicSessionCapacityTests
{
    private const string Template = """
        [DEFAULT]
        ConnectionType=acceptor
        SocketAcceptHost=127.0.0.1
        SocketAcceptPort=0
        NonStopSession=Y
        StoreType=express
        [SESSION]
        BeginString=FIX.4.4
        SenderCompID=EXEC
        TargetCompID=*
        AcceptorTemplate=Y
        DynamicSessionCapacity=1
        """;

    [Fact]
    public void A_logon_beyond_the_slots_gets_a_Logout_naming_the_limit_and_a_removed_session_gives_its_slot_to_the_next()
    {
        using var log = new CapturedLog();
        using var engine = FixEngine.Create(SettingsFile.Parse(Template, "capacity.cfg"), _ => new ExecutingApplication(), log.Log);
        engine.Start();

        // The one slot: the first counterparty's session takes it.
        using var first = LogOn("FIRST", out var firstAnswer);
        Assert.Contains("\u000135=A\u0001", firstAnswer, StringComparison.Ordinal);
        var firstSession = Assert.Single(engine.SessionsSnapshot());
        var slot = firstSession.ConnectionBuffers;
        Assert.NotNull(slot);
        Assert.False(slot.RefusalOnly);

        // None left: a Logout naming the limit, the connection closed, the refusal logged with the address.
        using (var second = LogOn("SECOND", out var refused))
        {
            Assert.Contains("\u000135=5\u0001", refused, StringComparison.Ordinal);
            Assert.Contains("\u000158=DynamicSessionCapacity (1) sessions of template", refused, StringComparison.Ordinal);
            Assert.True(SessionHarness.ClosedByServer(second, TimeSpan.FromSeconds(15)), "the refused connection stayed open");
            log.WaitForLine(second.LocalEndPoint!, "DynamicSessionCapacity (1)");
        }

        Assert.Single(engine.SessionsSnapshot());

        // Removed, the first session's slot serves the next counterparty.
        Assert.True(engine.RemoveSession(firstSession.Id));
        using var third = LogOn("SECOND", out var accepted);
        Assert.Contains("\u000135=A\u0001", accepted, StringComparison.Ordinal);
        var thirdSession = Assert.Single(engine.SessionsSnapshot());
        Assert.Equal("SECOND", thirdSession.Id.TargetCompId);
        Assert.Same(slot, thirdSession.ConnectionBuffers);
        Assert.True(thirdSession.IsLoggedOn);

        Socket LogOn(string sender, out string answer)
        {
            var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp) { NoDelay = true, ReceiveTimeout = 15_000 };
            socket.Connect(IPAddress.Loopback, engine.Acceptors[0].LocalEndPoint.Port);
            socket.Send(SessionHarness.RawLogon(1, sender, "EXEC"));
            answer = AbuseHarness.ReadMessage(socket);
            return socket;
        }
    }
}
