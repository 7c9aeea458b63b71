using RapidFix.Engine.Sessions;

namespace RapidFix.Engine.Tests.Sessions;

/// <summary>
/// When an acceptor answers a Logon, the session is logged on before its answer can reach the counterparty: a
/// thread that holds the answer (the counterparty's, or a test's) never finds IsLoggedOn still false. An answer the
/// transport refuses leaves the session not logged on, with no OnLogout for a logon that never was.
/// </summary>
public sealed class LogonVisibilityTests
{
    [Fact]
    public void The_session_is_logged_on_when_its_logon_answer_reaches_the_transport()
    {
        using var h = new ProtocolHarness();
        var loggedOnAtSend = new List<bool>();
        h.Transport.OnSend = () => loggedOnAtSend.Add(h.Session.IsLoggedOn);

        h.Logon();

        var answer = Assert.Single(h.TakeSent());
        Assert.Equal("A", answer.Type());
        Assert.Equal([true], loggedOnAtSend);
        Assert.True(h.Session.IsLoggedOn);
        Assert.Equal(1, h.Application.Logons);
    }

    [Fact]
    public void A_logon_answer_the_transport_refuses_leaves_the_session_not_logged_on_and_calls_no_OnLogout()
    {
        using var h = new ProtocolHarness();
        h.Transport.Accepts = false;

        h.Logon();

        Assert.False(h.Session.IsLoggedOn);
        Assert.False(h.Session.IsConnected);
        Assert.Equal(0, h.Application.Logons);
        Assert.Equal(0, h.Application.Logouts);
    }
}
