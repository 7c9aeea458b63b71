namespace RapidFix.Engine.Tests.Sessions;

/// <summary>A RapidFix initiator sends the Username and Password of its settings; a RapidFix acceptor requires them.</summary>
[Collection(nameof(SessionEndToEnd))]
public sealed class CredentialsEndToEndTests
{
    [Fact]
    public void An_initiator_with_the_configured_credentials_logs_on_and_one_with_a_wrong_password_is_refused()
    {
        var executor = new ExecutingApplication();
        using var acceptor = SessionHarness.Acceptor(executor, extra: "Username=client-a\nPassword=right-pw\nAllowedRemoteAddresses=127.0.0.0/8, ::1");
        string endpoint = SessionHarness.Endpoint(acceptor.Acceptors[0].LocalEndPoint.Port);

        var wrong = new OrderingApplication();
        using (var initiator = SessionHarness.Initiator(wrong, endpoint, "Username=client-a\nPassword=wrong-pw"))
        {
            SessionHarness.WaitUntil(() => wrong.LogoutText is not null, "the refusal");
            Assert.Equal("Logon refused: invalid Username or Password", wrong.LogoutText);
            Assert.Equal(0, executor.Logons);
        }

        SessionHarness.WaitUntil(() => !acceptor.Sessions[0].IsConnected, "the refused connection closed");
        var right = new OrderingApplication();
        using var good = SessionHarness.Initiator(right, endpoint, "Username=client-a\nPassword=right-pw");
        SessionHarness.WaitUntil(() => good.Sessions[0].IsLoggedOn && acceptor.Sessions[0].IsLoggedOn, "logon");
        Assert.Equal(1, executor.Logons);
        Assert.True(acceptor.Sessions[0].Counters.LogonsRefused >= 1);
    }
}
