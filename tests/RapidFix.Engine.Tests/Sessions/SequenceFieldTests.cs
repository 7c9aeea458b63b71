using RapidFix.Engine.Fields;

namespace RapidFix.Engine.Tests.Sessions;

/// <summary>
/// Every sequence field is checked against its range: a bad one is rejected naming its tag (reason 5), a missing
/// or unusable MsgSeqNum ends the session with a Logout, and nothing invalid is ever sent back.
/// </summary>
public sealed class SequenceFieldTests
{
    [Theory]
    [InlineData("7=-5|16=0", 7)]
    [InlineData("7=0|16=0", 7)]
    [InlineData("7=99999999999|16=0", 7)]
    [InlineData("7=1|16=-1", 16)]
    [InlineData("7=1|16=99999999999", 16)]
    public void A_resend_request_with_a_sequence_number_out_of_range_is_rejected_naming_the_tag(string body, int tag)
    {
        using var h = LoggedOn();
        h.Receive("2", "2", body);

        var reject = Assert.Single(h.TakeSent());
        Assert.Equal(("3", "5", tag.ToString(System.Globalization.CultureInfo.InvariantCulture), "2"),
            (reject.Type(), reject.Field(Tags.SessionRejectReason), reject.Field(Tags.RefTagID), reject.Field(Tags.RefSeqNum)));
        Assert.Equal(3, h.Session.NextTargetMsgSeqNum);
        Assert.True(h.Session.IsLoggedOn);
    }

    [Theory]
    [InlineData("2147483647")]
    [InlineData("99999999999")]
    [InlineData("-5")]
    public void A_sequence_reset_to_a_number_out_of_range_is_rejected_and_changes_nothing(string newSeqNo)
    {
        using var h = LoggedOn();
        h.Receive("4", "2", "36=" + newSeqNo);

        var reject = Assert.Single(h.TakeSent());
        Assert.Equal(("3", "5", "36"), (reject.Type(), reject.Field(Tags.SessionRejectReason), reject.Field(Tags.RefTagID)));
        Assert.Equal(2, h.Session.NextTargetMsgSeqNum);

        h.Order(2);
        Assert.Equal([2], h.Application.Orders);
    }

    [Fact]
    public void A_sequence_reset_below_the_expected_number_is_rejected_with_ref_tag_36()
    {
        using var h = LoggedOn();
        h.Order(2);
        h.TakeSent();
        h.Receive("4", "0", "36=1");

        var reject = Assert.Single(h.TakeSent());
        Assert.Equal(("3", "5", "36"), (reject.Type(), reject.Field(Tags.SessionRejectReason), reject.Field(Tags.RefTagID)));

        using var compatible = new ProtocolHarness("AcceptanceScriptCompatibility=Y");
        compatible.Logon();
        compatible.Order(2);
        compatible.TakeSent();
        compatible.Receive("4", "0", "36=1");
        Assert.Equal("<absent>", Assert.Single(compatible.TakeSent()).Field(Tags.RefTagID));
    }

    [Theory]
    [InlineData(null)]
    [InlineData("99999999999")]
    [InlineData("2147483647")]
    [InlineData("12x")]
    public void A_message_without_a_usable_msg_seq_num_gets_a_logout_and_a_disconnection(string? seq)
    {
        using var h = LoggedOn(validate: seq != "12x"); // the dictionary itself refuses "12x" as a number
        h.Receive("0", seq);

        var logout = Assert.Single(h.TakeSent());
        Assert.Equal(("5", "MsgSeqNum(34) missing or not a valid sequence number"), (logout.Type(), logout.Field(Tags.Text)));
        Assert.True(h.Transport.Closed);
    }

    [Fact]
    public void A_resend_request_is_never_answered_with_an_invalid_sequence_number()
    {
        using var h = LoggedOn();
        foreach (string begin in new[] { "-5", "0", "99999999999" })
        {
            h.Receive("2", h.Session.NextTargetMsgSeqNum.ToString(System.Globalization.CultureInfo.InvariantCulture), $"7={begin}|16=0");
        }

        foreach (var sent in h.TakeSent())
        {
            Assert.Equal("3", sent.Type());
            Assert.True(sent.Seq() >= 1);
        }
    }

    private static ProtocolHarness LoggedOn(bool validate = true)
    {
        var h = new ProtocolHarness(validate ? "" : "UseDataDictionary=N");
        h.Logon();
        h.TakeSent();
        return h;
    }
}
