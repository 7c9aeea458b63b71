using RapidFix.Engine.Codec;
using RapidFix.Engine.Sessions;
using RapidFix.Messages.Fix44;
using RapidFix.Tests.Shared;

namespace RapidFix.Messages.Tests;

/// <summary>
/// The typed writer keeps <see cref="FixSession.Send"/>'s semantics: the <see cref="IToAppHook"/> sees, amends or
/// vetoes what it wrote, and SendWhileNotLoggedOn decides what a message written while not logged on becomes.
/// </summary>
public class WriterSendSemanticsTests
{
    private const string Store = "SendWhileNotLoggedOn=Store";
    private const string Refuse = "SendWhileNotLoggedOn=Refuse";

    [Fact]
    public void Not_logged_on_with_Store_the_message_is_stored_and_goes_out_on_the_resend_after_logon()
    {
        var fixture = new SessionFixture(settingsLines: Store);
        fixture.Disconnect();
        int seq = fixture.Store.NextSenderMsgSeqNum;
        int stored = fixture.Store.MessageCount;
        long sends = fixture.Transport.Sends;

        using (var writer = ExecutionReportWriter.Begin(fixture.Session))
        {
            Assert.True(writer.IsOpen);
        }

        Assert.Equal(SendResult.Stored, WriterTests.WriteExecution(fixture.Session));
        Assert.Equal(seq + 1, fixture.Store.NextSenderMsgSeqNum);
        Assert.Equal(stored + 1, fixture.Store.MessageCount);
        Assert.Equal(1, fixture.Session.MessagesStoredWhileNotLoggedOn);
        Assert.Equal(sends, fixture.Transport.Sends);

        // After logon the counterparty asks for the gap: the stored report goes out as it was written, PossDupFlag=Y.
        fixture.Reconnect(2);
        fixture.Receive("2", 3, $"7={seq}|16={seq}|");
        var resent = new ExecutionReport(fixture.LastSent());
        Assert.Equal(seq, resent.Header.MsgSeqNum);
        Assert.True(resent.Header.PossDupFlag);
        Assert.Equal("EXE-1"u8.ToArray(), resent.ExecID.ToArray());
        Assert.Equal(2, resent.NoPartyIDs.Count);
    }

    [Fact]
    public void Not_logged_on_with_Refuse_the_writer_is_closed_and_nothing_is_stored()
    {
        var fixture = new SessionFixture(settingsLines: Refuse);
        fixture.Disconnect();
        int seq = fixture.Store.NextSenderMsgSeqNum;
        int stored = fixture.Store.MessageCount;

        using (var writer = ExecutionReportWriter.Begin(fixture.Session))
        {
            Assert.False(writer.IsOpen);
        }

        Assert.Equal(SendResult.NotLoggedOn, WriterTests.WriteExecution(fixture.Session));
        Assert.Equal(seq, fixture.Store.NextSenderMsgSeqNum);
        Assert.Equal(stored, fixture.Store.MessageCount);
    }

    [Fact]
    public void The_ToApp_hook_sees_the_fields_as_written_and_its_amendment_is_sent_and_stored()
    {
        var hook = new ToAppHook { AppendText = "AMENDED"u8.ToArray() };
        var fixture = new SessionFixture(hook);

        Assert.Equal(SendResult.Sent, WriterTests.WriteExecution(fixture.Session));

        Assert.Equal(1, hook.Calls);
        Assert.Equal("8"u8.ToArray(), hook.LastMsgType);
        Assert.StartsWith("37=BRK-1|17=EXE-1|150=F|39=1|453=2|448=DESK1|", FixSamples.Text(hook.LastBody), StringComparison.Ordinal);
        Assert.EndsWith("|60=20261121-21:30:15.120|", FixSamples.Text(hook.LastBody), StringComparison.Ordinal);
        var sent = new ExecutionReport(fixture.LastSent());
        Assert.Equal("AMENDED"u8.ToArray(), sent.Text.ToArray());

        // The resend carries the amendment too: it was stored with it.
        fixture.Receive("2", 2, $"7={sent.Header.MsgSeqNum}|16={sent.Header.MsgSeqNum}|");
        var resent = new ExecutionReport(fixture.LastSent());
        Assert.True(resent.Header.PossDupFlag);
        Assert.Equal("AMENDED"u8.ToArray(), resent.Text.ToArray());
    }

    [Theory]
    [InlineData(true)]
    [InlineData(false)]
    public void A_vetoed_message_is_neither_stored_nor_sent_and_uses_no_sequence_number(bool loggedOn)
    {
        var hook = new ToAppHook { VetoExecId = "EXE-1"u8.ToArray() };
        var fixture = new SessionFixture(hook, settingsLines: Store);
        if (!loggedOn)
        {
            fixture.Disconnect();
        }

        int seq = fixture.Store.NextSenderMsgSeqNum;
        int stored = fixture.Store.MessageCount;
        long sends = fixture.Transport.Sends;

        Assert.Equal(SendResult.Vetoed, WriterTests.WriteExecution(fixture.Session));

        Assert.Equal(seq, fixture.Store.NextSenderMsgSeqNum);
        Assert.Equal(stored, fixture.Store.MessageCount);
        Assert.Equal(sends, fixture.Transport.Sends);
        Assert.Equal(1, fixture.Session.MessagesVetoed);
        Assert.Equal(0, fixture.Session.MessagesStoredWhileNotLoggedOn);

        // The session is free again: a message the hook lets through takes the number.
        using var writer = NewsWriter.Begin(fixture.Session);
        writer.Headline("next"u8);
        Assert.Equal(loggedOn ? SendResult.Sent : SendResult.Stored, writer.Send());
        Assert.Equal(seq + 1, fixture.Store.NextSenderMsgSeqNum);
    }

    [Fact]
    public void Writing_through_the_hook_storing_and_vetoing_allocate_nothing()
    {
        var hook = new ToAppHook { AppendText = "AMENDED"u8.ToArray() };
        var fixture = new SessionFixture(hook, settingsLines: Store);
        Assert.Equal(0, Allocations.Measure(fixture.Session, static session => WriterTests.WriteExecution(session), iterations: 2_000));

        fixture.Disconnect();
        Assert.Equal(0, Allocations.Measure(fixture.Session, static session => WriterTests.WriteExecution(session), iterations: 2_000));
        Assert.True(fixture.Session.MessagesStoredWhileNotLoggedOn >= 2_000);

        hook.VetoExecId = "EXE-1"u8.ToArray();
        Assert.Equal(0, Allocations.Measure(fixture.Session, static session => WriterTests.WriteExecution(session), iterations: 2_000));
        Assert.True(fixture.Session.MessagesVetoed >= 2_000);
    }

    /// <summary>Records what it saw (in buffers allocated once), vetoes one ExecID, appends a Text.</summary>
    private sealed class ToAppHook : FixApplicationBase, IToAppHook
    {
        private readonly byte[] _body = new byte[4096];
        private readonly byte[] _msgType = new byte[8];
        private int _bodyLength;
        private int _msgTypeLength;

        public byte[]? VetoExecId { get; set; }

        public byte[]? AppendText { get; set; }

        public int Calls { get; private set; }

        public byte[] LastBody => _body.AsSpan(0, _bodyLength).ToArray();

        public byte[] LastMsgType => _msgType.AsSpan(0, _msgTypeLength).ToArray();

        public ToAppDecision ToApp(FixSession session, ReadOnlySpan<byte> msgType, ReadOnlySpan<byte> body, FixEncoder message)
        {
            Calls++;
            body.CopyTo(_body);
            _bodyLength = body.Length;
            msgType.CopyTo(_msgType);
            _msgTypeLength = msgType.Length;
            if (VetoExecId is { } veto && Contains(body, FieldTags.ExecID, veto))
            {
                return ToAppDecision.DoNotSend;
            }

            if (AppendText is { } text)
            {
                message.Add(FieldTags.Text, text);
            }

            return ToAppDecision.Send;
        }

        private static bool Contains(ReadOnlySpan<byte> body, int tag, ReadOnlySpan<byte> value)
        {
            Span<byte> field = stackalloc byte[64];
            int length = 0;
            tag.TryFormat(field, out length, provider: System.Globalization.CultureInfo.InvariantCulture);
            field[length++] = (byte)'=';
            value.CopyTo(field[length..]);
            length += value.Length;
            field[length++] = 1;
            return body.IndexOf(field[..length]) >= 0;
        }
    }
}
