using RapidFix.Engine.Codec;
using RapidFix.Engine.Configuration;
using RapidFix.Engine.Fields;
using RapidFix.Engine.Sessions;
using RapidFix.Engine.Tests.Sessions;
using RapidFix.Tests.Shared;

namespace RapidFix.Engine.Tests.Runtime;

/// <summary>
/// What <see cref="FixSession.Send"/> does while the session is not logged on (SendWhileNotLoggedOn) and what the
/// <see cref="IToAppHook"/> may do to an outgoing application message.
/// </summary>
public sealed class SendSemanticsTests
{
    private const string Store = "SendWhileNotLoggedOn=Store";

    [Fact]
    public void A_message_sent_before_logon_is_stored_with_its_MsgSeqNum_and_goes_out_on_the_resend_after_logon()
    {
        using var h = new ProtocolHarness(Store);
        byte[] body = new byte[256];

        Assert.Equal(SendResult.Stored, Send(h.Session, body, "EARLY"));
        Assert.Equal(2, h.Session.NextSenderMsgSeqNum);
        Assert.Equal(1, h.Store.MessageCount);
        Assert.Equal(1, h.Session.MessagesStoredWhileNotLoggedOn);
        Assert.Empty(h.TakeSent());

        // Our Logon answer carries MsgSeqNum 2: the counterparty sees the gap and asks for 1.
        h.Logon();
        var logon = Assert.Single(h.TakeSent());
        Assert.Equal("A", logon.Type());
        Assert.Equal(2, logon.Seq());

        h.Receive("2", "2", "7=1|16=0");
        var answer = h.TakeSent();
        Assert.Equal(2, answer.Count); // the order again, then a gap fill over our Logon
        var resent = answer[0];
        Assert.Equal("4", answer[1].Type());
        Assert.Equal("D", resent.Type());
        Assert.Equal(1, resent.Seq());
        Assert.Equal("Y", resent.Field(Tags.PossDupFlag));
        Assert.Equal("EARLY", resent.Field(Tags.ClOrdID));
    }

    [Theory]
    [InlineData("SendWhileNotLoggedOn=Refuse")]
    [InlineData("")]
    public void SendWhileNotLoggedOn_Refuse_the_default_stores_nothing_and_uses_no_MsgSeqNum(string setting)
    {
        using var h = new ProtocolHarness(setting);
        Assert.Equal(SendResult.NotLoggedOn, Send(h.Session, new byte[256], "EARLY"));
        Assert.Equal(1, h.Session.NextSenderMsgSeqNum);
        Assert.Equal(0, h.Store.MessageCount);
        Assert.Equal(0, h.Session.MessagesStoredWhileNotLoggedOn);
    }

    [Fact]
    public void Without_PersistMessages_Store_is_an_error_at_startup()
    {
        using var h = new ProtocolHarness("PersistMessages=N");
        Assert.Equal(NotLoggedOnSend.Refuse, h.Options.SendWhileNotLoggedOn);
        Assert.Equal(SendResult.NotLoggedOn, Send(h.Session, new byte[256], "EARLY"));
        Assert.Equal(1, h.Session.NextSenderMsgSeqNum);

        var error = Assert.Throws<ConfigurationException>(() => new ProtocolHarness("PersistMessages=N\nSendWhileNotLoggedOn=Store"));
        Assert.Contains("SendWhileNotLoggedOn", error.Message, StringComparison.Ordinal);
        Assert.Contains("PersistMessages", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void A_vetoed_message_is_neither_stored_nor_sent_and_consumes_no_MsgSeqNum()
    {
        var app = new ToAppApplication { VetoClOrdId = "VETO"u8.ToArray() };
        using var h = new ProtocolHarness(application: app);
        h.Logon();
        h.TakeSent();
        int next = h.Session.NextSenderMsgSeqNum;
        int stored = h.Store.MessageCount;
        byte[] body = new byte[256];

        Assert.Equal(SendResult.Vetoed, Send(h.Session, body, "VETO"));
        Assert.Equal(next, h.Session.NextSenderMsgSeqNum);
        Assert.Equal(stored, h.Store.MessageCount);
        Assert.Empty(h.TakeSent());
        Assert.Equal(1, h.Session.MessagesVetoed);

        // The next message takes the number the vetoed one would have had.
        Assert.Equal(SendResult.Sent, Send(h.Session, body, "KEEP"));
        var sent = Assert.Single(h.TakeSent());
        Assert.Equal(next, sent.Seq());
        Assert.Equal(2, app.Calls);
    }

    [Fact]
    public void A_vetoed_message_while_not_logged_on_is_not_stored()
    {
        var app = new ToAppApplication { VetoClOrdId = "VETO"u8.ToArray() };
        using var h = new ProtocolHarness(Store, application: app);
        Assert.Equal(SendResult.Vetoed, Send(h.Session, new byte[256], "VETO"));
        Assert.Equal(1, h.Session.NextSenderMsgSeqNum);
        Assert.Equal(0, h.Store.MessageCount);
    }

    [Fact]
    public void ToApp_amends_the_message_before_it_is_stored_so_the_resend_carries_the_amendment_too()
    {
        var app = new ToAppApplication { AppendText = "AMENDED"u8.ToArray() };
        using var h = new ProtocolHarness(application: app);
        h.Logon();
        h.TakeSent();
        Assert.Equal(SendResult.Sent, Send(h.Session, new byte[256], "ORDER1"));
        var sent = Assert.Single(h.TakeSent());
        Assert.Equal("AMENDED", sent.Field(Tags.Text));
        Assert.Equal("ORDER1", sent.Field(Tags.ClOrdID));

        h.Receive("2", "2", $"7={sent.Seq()}|16={sent.Seq()}");
        var resent = Assert.Single(h.TakeSent());
        Assert.Equal("Y", resent.Field(Tags.PossDupFlag));
        Assert.Equal("AMENDED", resent.Field(Tags.Text));
    }

    [Fact]
    public void Sending_through_the_ToApp_hook_and_storing_while_not_logged_on_allocate_nothing()
    {
        var app = new ToAppApplication { AppendText = "AMENDED"u8.ToArray(), VetoClOrdId = "VETO"u8.ToArray() };
        using var h = new ProtocolHarness(Store, application: app);
        byte[] body = new byte[256];
        int length = Body(body, "ORDER1");
        var state = (h.Session, Body: body, Length: length);

        // Not logged on: stored.
        long stored = Allocations.Measure(state, s => s.Session.Send("D"u8, s.Body.AsSpan(0, s.Length)), 2_000, warmup: 500);
        Assert.Equal(0, stored);

        h.Logon();
        h.Transport.Keep = false;
        long sent = Allocations.Measure(state, s => s.Session.Send("D"u8, s.Body.AsSpan(0, s.Length)), 2_000, warmup: 500);
        Assert.Equal(0, sent);

        int vetoLength = Body(body, "VETO");
        var vetoState = (h.Session, Body: body, Length: vetoLength);
        long vetoed = Allocations.Measure(vetoState, s => s.Session.Send("D"u8, s.Body.AsSpan(0, s.Length)), 2_000, warmup: 500);
        Assert.Equal(0, vetoed);
        Assert.True(h.Session.MessagesVetoed > 0);
    }

    private static SendResult Send(FixSession session, byte[] buffer, string clOrdId) =>
        session.Send("D"u8, buffer.AsSpan(0, Body(buffer, clOrdId)));

    private static int Body(byte[] buffer, string clOrdId)
    {
        var w = new FixBodyWriter(buffer);
        w.Add(Tags.ClOrdID, System.Text.Encoding.ASCII.GetBytes(clOrdId));
        w.AddChar(21, (byte)'1'); // HandlInst
        w.Add(Tags.Symbol, "MSFT"u8);
        w.AddChar(Tags.Side, (byte)'1');
        w.AddTimestamp(Tags.TransactTime, RapidFix.Engine.Time.EngineClock.Shared.UtcNowNanos);
        w.Add(Tags.OrderQty, 100L);
        w.AddChar(Tags.OrdType, (byte)'1');
        return w.Written.Length;
    }

    /// <summary>Vetoes orders with one ClOrdID, appends a Text to the others; allocation-free.</summary>
    private sealed class ToAppApplication : RecordingApplication, IToAppHook
    {
        public byte[]? VetoClOrdId { get; init; }

        public byte[]? AppendText { get; init; }

        public int Calls { get; private set; }

        public ToAppDecision ToApp(FixSession session, ReadOnlySpan<byte> msgType, ReadOnlySpan<byte> body, FixEncoder message)
        {
            Calls++;
            if (VetoClOrdId is not null && body.IndexOf(VetoClOrdId) >= 0)
            {
                return ToAppDecision.DoNotSend;
            }

            if (AppendText is not null)
            {
                message.Add(Tags.Text, AppendText);
            }

            return ToAppDecision.Send;
        }
    }
}
