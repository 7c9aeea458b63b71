using System.Net;
using RapidFix.Engine.Configuration;
using RapidFix.Engine.Fields;
using RapidFix.Engine.Sessions;

namespace RapidFix.Engine.Tests.Sessions;

/// <summary>
/// What a hostile (or broken) counterparty's Logon gets: bounded HeartBtInt, credentials and source addresses
/// checked before the application sees anything, a Logout with the reason, the refusal logged with the peer's
/// address, and a session left as it was.
/// </summary>
public sealed class LogonDefenceTests
{
    [Theory]
    [InlineData("-5", "HeartBtInt -5 is negative")]
    [InlineData("0", "HeartBtInt 0 is below MinHeartBtInt 1")]
    [InlineData("1000000", "HeartBtInt 1000000 is above MaxHeartBtInt 300")]
    public void A_heartbeat_interval_out_of_bounds_is_refused_with_a_logout_naming_the_limit(string heartBtInt, string reason)
    {
        using var h = new ProtocolHarness();
        h.Receive("A", "1", $"98=0|108={heartBtInt}");

        var logout = Assert.Single(h.TakeSent());
        Assert.Equal("5", logout.Type());
        Assert.Equal(reason, logout.Field(Tags.Text));
        Assert.True(h.Transport.Closed);
        Assert.Equal(0, h.Application.LogonRequests);
        Assert.Equal(0, h.Application.Logons);
        Assert.Contains("peer 192.0.2.10:40001: logon refused: " + reason, h.LogText(), StringComparison.Ordinal);
    }

    [Fact]
    public void The_heartbeat_bounds_are_settings_and_zero_may_be_admitted()
    {
        using var h = new ProtocolHarness("MinHeartBtInt=0\nMaxHeartBtInt=3600");
        h.Receive("A", "1", "98=0|108=0");
        Assert.True(h.Session.IsLoggedOn);
        Assert.Equal(0, h.Session.HeartBtInt);

        var error = Assert.Throws<ConfigurationException>(() => new ProtocolHarness("MinHeartBtInt=60\nMaxHeartBtInt=30"));
        Assert.Contains("MinHeartBtInt 60 is above MaxHeartBtInt 30", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void The_logon_hook_sees_the_remote_endpoint_and_an_application_refusal_is_logged_with_it()
    {
        using var h = new ProtocolHarness();
        h.Application.LogonPolicy = _ => LogonDecision.Refuse("not today");
        h.Logon();

        Assert.Equal(h.Peer, h.Application.PeerAtLogon);
        var logout = Assert.Single(h.TakeSent());
        Assert.Equal("not today", logout.Field(Tags.Text));
        Assert.Contains("peer 192.0.2.10:40001: logon refused: refused by the application: not today", h.LogText(), StringComparison.Ordinal);
        Assert.Equal(1, h.Session.Counters.LogonsRefused);
    }

    [Fact]
    public void Username_and_password_from_settings_and_the_environment_are_required_and_the_password_never_logged()
    {
        const string variable = "RAPIDFIX_TEST_LOGON_PASSWORD";
        Environment.SetEnvironmentVariable(variable, "s3cret-pw");
        try
        {
            using var h = new ProtocolHarness($"Username=alice\nPasswordEnvironmentVariable={variable}");
            h.Logon(body: "553=alice|554=wrong-pw");
            var refused = Assert.Single(h.TakeSent());
            Assert.Equal("Logon refused: invalid Username or Password", refused.Field(Tags.Text));
            Assert.True(h.Transport.Closed);
            Assert.Equal(0, h.Application.LogonRequests);

            h.Connect();
            h.Logon();
            Assert.Equal("Logon refused: invalid Username or Password", Assert.Single(h.TakeSent()).Field(Tags.Text));

            h.Connect();
            h.Logon(body: "553=alice|554=s3cret-pw");
            Assert.True(h.Session.IsLoggedOn);
            Assert.Equal(1, h.Application.Logons);

            string log = h.LogText();
            Assert.Contains("peer 192.0.2.10:40001: logon refused: Password do not match the session's", log, StringComparison.Ordinal);
            Assert.Contains("peer 192.0.2.10:40001: logon refused: Username and Password missing", log, StringComparison.Ordinal);
            Assert.DoesNotContain("s3cret-pw", log, StringComparison.Ordinal);
        }
        finally
        {
            Environment.SetEnvironmentVariable(variable, null);
        }
    }

    [Fact]
    public void A_password_variable_that_is_not_set_is_an_error_at_startup()
    {
        var error = Assert.Throws<ConfigurationException>(() => new ProtocolHarness("PasswordEnvironmentVariable=RAPIDFIX_TEST_UNSET_VARIABLE"));
        Assert.Contains("'RAPIDFIX_TEST_UNSET_VARIABLE' is not set", error.Message, StringComparison.Ordinal);
        Assert.Throws<ConfigurationException>(() => new ProtocolHarness("AllowedRemoteAddresses=10.0.0.0/33"));
        Assert.Throws<ConfigurationException>(() => new ProtocolHarness("AllowedRemoteAddresses=not-an-address"));
    }

    [Fact]
    public void A_logon_from_outside_the_allowed_addresses_is_refused_and_logged_with_the_address()
    {
        using (var outside = new ProtocolHarness("AllowedRemoteAddresses=10.0.0.0/8, 2001:db8::/32"))
        {
            outside.Logon();
            Assert.Equal("Logon refused: source address not allowed", Assert.Single(outside.TakeSent()).Field(Tags.Text));
            Assert.True(outside.Transport.Closed);
            Assert.Equal(0, outside.Application.LogonRequests);
            Assert.Contains("peer 192.0.2.10:40001: logon refused: address not in AllowedRemoteAddresses (10.0.0.0/8, 2001:db8::/32)", outside.LogText(), StringComparison.Ordinal);
        }

        using var inside = new ProtocolHarness("AllowedRemoteAddresses=10.0.0.0/8, 2001:db8::/32", new IPEndPoint(IPAddress.Parse("::ffff:10.20.30.40"), 5000));
        inside.Logon();
        Assert.True(inside.Session.IsLoggedOn);
    }

    [Theory]
    [InlineData("10.1.2.3", true)]
    [InlineData("11.1.2.3", false)]
    [InlineData("192.168.7.1", true)]
    [InlineData("192.168.8.1", false)]
    [InlineData("::ffff:192.168.7.200", true)]
    [InlineData("2001:db8:1::5", true)]
    [InlineData("2001:db9::5", false)]
    [InlineData("198.51.100.7", true)]
    [InlineData("198.51.100.8", false)]
    public void The_address_filter_matches_addresses_and_ranges_of_both_families(string address, bool allowed)
    {
        var filter = RemoteAddressFilter.Parse("10.0.0.0/8, 192.168.6.0/23, 2001:db8::/32, 198.51.100.7");
        Assert.Equal(allowed, filter.Allows(new IPEndPoint(IPAddress.Parse(address), 1)));
        Assert.False(filter.Allows(null));
    }

    [Fact]
    public void A_logon_with_a_bad_sending_time_gets_a_logout_and_leaves_the_numbers_for_the_next_logon()
    {
        using var h = new ProtocolHarness("ResetOnDisconnect=Y");
        h.Receive("A", "1", "98=0|108=30", header: "52=20010101-00:00:00");
        var logout = Assert.Single(h.TakeSent());
        Assert.Equal("5", logout.Type());
        Assert.Equal("SendingTime accuracy problem", logout.Field(Tags.Text));
        Assert.True(h.Transport.Closed);

        h.Connect();
        h.Logon();
        var answer = Assert.Single(h.TakeSent());
        Assert.Equal(("A", 1), (answer.Type(), answer.Seq()));
        Assert.True(h.Session.IsLoggedOn);
    }

    [Fact]
    public void In_acceptance_script_compatibility_a_bad_sending_time_closes_without_a_logout_and_says_so()
    {
        using var h = new ProtocolHarness("ResetOnDisconnect=Y\nAcceptanceScriptCompatibility=Y");
        h.Receive("A", "1", "98=0|108=30", header: "52=20010101-00:00:00");
        Assert.Empty(h.TakeSent());
        Assert.True(h.Transport.Closed);
        Assert.Contains("refused: SendingTime accuracy problem; disconnecting without a Logout", h.LogText(), StringComparison.Ordinal);

        h.Connect();
        h.Logon();
        Assert.Equal(1, Assert.Single(h.TakeSent()).Seq());
    }

    [Fact]
    public void A_refused_logon_with_reset_seq_num_flag_does_not_reset_the_session()
    {
        using var h = new ProtocolHarness();
        h.Logon();
        h.Order(2);
        h.Order(3);
        h.PeerCloses();
        int nextTarget = h.Session.NextTargetMsgSeqNum;
        int nextSender = h.Session.NextSenderMsgSeqNum;
        Assert.Equal(4, nextTarget);

        h.Application.LogonPolicy = _ => LogonDecision.Refuse("who are you");
        h.Connect();
        h.Receive("A", "1", "98=0|108=30|141=Y");
        Assert.Equal("who are you", Assert.Single(h.TakeSent()).Field(Tags.Text));
        Assert.True(h.Transport.Closed);
        Assert.Equal(nextTarget, h.Session.NextTargetMsgSeqNum);
        Assert.Equal(nextSender + 1, h.Session.NextSenderMsgSeqNum); // the refusal's Logout, as QuickFIX counts it
    }

    [Fact]
    public void A_reset_logon_while_logged_on_is_answered_with_the_flag_from_one()
    {
        using var h = new ProtocolHarness();
        h.Logon();
        h.Order(2);
        h.Receive("0", "3");
        h.TakeSent();

        h.Receive("A", "1", "98=0|108=30|141=Y");
        var answer = Assert.Single(h.TakeSent());
        Assert.Equal(("A", 1, "Y"), (answer.Type(), answer.Seq(), answer.Field(Tags.ResetSeqNumFlag)));
        Assert.Equal(2, h.Session.NextTargetMsgSeqNum);
        Assert.Equal(2, h.Session.NextSenderMsgSeqNum);
    }

    [Fact]
    public void In_acceptance_script_compatibility_a_reset_logon_is_answered_without_the_flag()
    {
        using var h = new ProtocolHarness("AcceptanceScriptCompatibility=Y");
        h.Logon();
        h.TakeSent();
        h.Receive("A", "1", "98=0|108=30|141=Y");
        var answer = Assert.Single(h.TakeSent());
        Assert.Equal(("A", 1, "<absent>"), (answer.Type(), answer.Seq(), answer.Field(Tags.ResetSeqNumFlag)));
    }

    [Fact]
    public void A_second_logon_without_reset_is_refused_and_on_logon_runs_once()
    {
        using var h = new ProtocolHarness();
        h.Logon();
        h.TakeSent();
        h.Logon(seq: 2);

        var logout = Assert.Single(h.TakeSent());
        Assert.Equal(("5", "Logon received while already logged on"), (logout.Type(), logout.Field(Tags.Text)));
        Assert.True(h.Transport.Closed);
        Assert.Equal(1, h.Application.Logons);
    }

    [Fact]
    public void Connections_closed_before_a_valid_logon_are_logged_with_the_address_and_the_reason()
    {
        using var h = new ProtocolHarness();
        h.Receive("0", "1");
        Assert.Empty(h.TakeSent());
        Assert.True(h.Transport.Closed);

        h.Connect();
        h.Receive("A", "1", "98=0"); // no HeartBtInt
        Assert.Empty(h.TakeSent());
        Assert.True(h.Transport.Closed);

        string log = h.LogText();
        Assert.Contains("peer 192.0.2.10:40001: logon refused: first message was not a Logon (MsgType 0); disconnecting without a Logout", log, StringComparison.Ordinal);
        Assert.Contains("peer 192.0.2.10:40001: logon refused: invalid Logon: reject 1 (Required tag missing) tag 108", log, StringComparison.Ordinal);
        Assert.Equal(2, h.Session.Counters.LogonsRefused);
    }
}
