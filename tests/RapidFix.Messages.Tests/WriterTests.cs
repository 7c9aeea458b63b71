using System.Text.RegularExpressions;
using RapidFix.Engine.Codec;
using RapidFix.Engine.Fields;
using RapidFix.Engine.Sessions;
using RapidFix.Engine.Validation;
using RapidFix.Messages.Fix44;
using RapidFix.Tests.Shared;

namespace RapidFix.Messages.Tests;

/// <summary>The typed writer builds a message in the session's own buffer: header, body, trailer, store, transport.</summary>
public class WriterTests
{
    private static readonly long TransactTime = new DateTime(2026, 11, 21, 21, 30, 15, 120, DateTimeKind.Utc).Ticks * 100 - DateTime.UnixEpoch.Ticks * 100;

    [Fact]
    public void A_written_message_parses_validates_and_reads_back()
    {
        var fixture = new SessionFixture();
        int seq = fixture.Store.NextSenderMsgSeqNum;

        var result = WriteExecution(fixture.Session);

        Assert.Equal(SendResult.Sent, result);
        Assert.Equal(seq + 1, fixture.Store.NextSenderMsgSeqNum);
        var sent = fixture.LastSent();
        Assert.Equal(ValidationResult.Valid, new MessageValidator(fixture.Options.Dictionary).Validate(sent));
        var report = new ExecutionReport(sent);
        Assert.Equal(seq, report.Header.MsgSeqNum);
        Assert.Equal("BROKER01"u8.ToArray(), report.Header.SenderCompID.ToArray());
        Assert.Equal("CLIENT01"u8.ToArray(), report.Header.TargetCompID.ToArray());
        Assert.Equal("EXE-1"u8.ToArray(), report.ExecID.ToArray());
        Assert.Equal(Values.ExecType.Trade, report.ExecType);
        Assert.Equal(new FixDecimal(41235, -2), report.LastPx);
        Assert.Equal(TransactTime, report.TransactTime.UnixNanoseconds);
        Assert.Equal(2, report.NoPartyIDs.Count);
        Assert.Equal("TRADER9"u8.ToArray(), report.NoPartyIDs[1].PartyID.ToArray());
        Assert.Equal(Values.PartyRole.OrderOriginationTrader, report.NoPartyIDs[1].PartyRole);
    }

    [Fact]
    public void It_sends_the_same_bytes_as_the_body_writer_and_Send()
    {
        var typed = new SessionFixture();
        var copied = new SessionFixture();

        WriteExecution(typed.Session);
        var body = new FixBodyWriter(new byte[1024]);
        body.Add(FieldTags.OrderID, "BRK-1"u8);
        body.Add(FieldTags.ExecID, "EXE-1"u8);
        body.AddChar(FieldTags.ExecType, Values.ExecType.Trade);
        body.AddChar(FieldTags.OrdStatus, Values.OrdStatus.PartiallyFilled);
        body.Add(FieldTags.NoPartyIDs, 2L);
        body.Add(FieldTags.PartyID, "DESK1"u8);
        body.AddChar(FieldTags.PartyIDSource, Values.PartyIDSource.ProprietaryCustomCode);
        body.Add(FieldTags.PartyRole, Values.PartyRole.ExecutingFirm);
        body.Add(FieldTags.PartyID, "TRADER9"u8);
        body.AddChar(FieldTags.PartyIDSource, Values.PartyIDSource.ProprietaryCustomCode);
        body.Add(FieldTags.PartyRole, Values.PartyRole.OrderOriginationTrader);
        body.Add(FieldTags.Symbol, "MSFT"u8);
        body.AddChar(FieldTags.Side, Values.Side.Buy);
        body.Add(FieldTags.LeavesQty, new FixDecimal(1000, 0));
        body.Add(FieldTags.CumQty, new FixDecimal(500, 0));
        body.Add(FieldTags.AvgPx, new FixDecimal(41235, -2));
        body.Add(FieldTags.LastPx, new FixDecimal(41235, -2));
        body.AddTimestamp(FieldTags.TransactTime, TransactTime);
        Assert.Equal(SendResult.Sent, copied.Session.Send(MsgTypes.ExecutionReportBytes, body.Written));

        Assert.Equal(WithoutSendingTime(copied.Transport.Last), WithoutSendingTime(typed.Transport.Last));
    }

    [Fact]
    public void Not_logged_on_the_writer_is_closed_and_uses_no_sequence_number()
    {
        var fixture = new SessionFixture();
        fixture.Session.OnDisconnected(fixture.Transport, DisconnectReason.PeerClosed);
        int seq = fixture.Store.NextSenderMsgSeqNum;
        long sends = fixture.Transport.Sends;

        using var writer = ExecutionReportWriter.Begin(fixture.Session);
        writer.ExecID("EXE-1"u8).ExecType(Values.ExecType.Trade);

        Assert.False(writer.IsOpen);
        Assert.Equal(SendResult.NotLoggedOn, writer.Send());
        Assert.Equal(seq, fixture.Store.NextSenderMsgSeqNum);
        Assert.Equal(sends, fixture.Transport.Sends);
    }

    [Fact]
    public void Disposing_without_Send_abandons_the_message_and_frees_the_session()
    {
        var fixture = new SessionFixture();
        int seq = fixture.Store.NextSenderMsgSeqNum;
        long sends = fixture.Transport.Sends;

        using (var writer = ExecutionReportWriter.Begin(fixture.Session))
        {
            writer.ExecID("EXE-1"u8);
        }

        Assert.Equal(seq, fixture.Store.NextSenderMsgSeqNum);
        Assert.Equal(sends, fixture.Transport.Sends);

        // Another thread can take the session's lock: the writer released it.
        Assert.Equal(SendResult.Sent, WriteOnAnotherThread(fixture.Session));
        Assert.Equal(seq + 1, fixture.Store.NextSenderMsgSeqNum);
    }

    [Fact]
    public void Sending_twice_is_refused_and_the_second_message_is_unaffected()
    {
        var fixture = new SessionFixture();
        var writer = NewsWriter.Begin(fixture.Session);
        writer.Headline("first"u8).LinesOfText(1).Text("one"u8);
        Assert.Equal(SendResult.Sent, writer.Send());
        long sends = fixture.Transport.Sends;

        Assert.True(SendThrows(writer));
        Assert.Equal(sends, fixture.Transport.Sends);

        // A stale writer's fields never reach the next message.
        using var next = NewsWriter.Begin(fixture.Session);
        writer.Headline("stale"u8);
        next.Headline("second"u8).LinesOfText(1).Text("two"u8);
        Assert.Equal(SendResult.Sent, next.Send());
        var news = new News(fixture.LastSent());
        Assert.Equal("second"u8.ToArray(), news.Headline.ToArray());
        Assert.DoesNotContain("stale", FixSamples.Text(fixture.Transport.Last), StringComparison.Ordinal);
    }

    [Fact]
    public void A_second_writer_on_the_same_thread_is_refused()
    {
        var fixture = new SessionFixture();
        using var first = NewsWriter.Begin(fixture.Session);

        Assert.Throws<InvalidOperationException>(() => { NewsWriter.Begin(fixture.Session); });

        first.Headline("first"u8).LinesOfText(1).Text("one"u8);
        Assert.Equal(SendResult.Sent, first.Send());
    }

    [Fact]
    public void Another_message_sent_while_the_writer_is_open_voids_the_writer_not_the_message()
    {
        var fixture = new SessionFixture();
        int seq = fixture.Store.NextSenderMsgSeqNum;
        var writer = NewsWriter.Begin(fixture.Session);
        writer.Headline("half"u8);

        // The same thread (it holds the session) sends with the old API: that message goes out whole.
        Assert.Equal(SendResult.Sent, fixture.Session.Send("B"u8, "148=whole\u000133=1\u000158=x\u0001"u8));
        Assert.Equal("whole"u8.ToArray(), new News(fixture.LastSent()).Headline.ToArray());

        Assert.True(SendThrows(writer));
        Assert.Equal(seq + 1, fixture.Store.NextSenderMsgSeqNum);
        Assert.Equal(SendResult.Sent, WriteOnAnotherThread(fixture.Session));
    }

    [Fact]
    public void A_message_larger_than_MaxMessageSize_is_refused_without_a_sequence_number()
    {
        var fixture = new SessionFixture();
        int seq = fixture.Store.NextSenderMsgSeqNum;
        var huge = new byte[fixture.Options.MaxMessageSize + 2048];
        huge.AsSpan().Fill((byte)'x');

        var writer = NewsWriter.Begin(fixture.Session);
        writer.Headline(huge).LinesOfText(1).Text("one"u8);

        Assert.Equal(SendResult.TooLarge, writer.Send());
        Assert.Equal(seq, fixture.Store.NextSenderMsgSeqNum);
        Assert.Equal(SendResult.Sent, WriteExecution(fixture.Session));
    }

    [Fact]
    public void Writing_and_sending_allocates_nothing()
    {
        var fixture = new SessionFixture();
        long bytes = Allocations.Measure(fixture.Session, static session => WriteExecution(session), iterations: 5_000);

        Assert.Equal(0, bytes);
        Assert.True(fixture.Transport.Sends > 5_000);
    }

    /// <summary>An ExecutionReport (ExecID EXE-1, two parties) through the typed writer.</summary>
    internal static SendResult WriteExecution(FixSession session)
    {
        using var w = ExecutionReportWriter.Begin(session);
        w.OrderID("BRK-1"u8).ExecID("EXE-1"u8).ExecType(Values.ExecType.Trade).OrdStatus(Values.OrdStatus.PartiallyFilled);
        w.NoPartyIDs(2)
            .PartyID("DESK1"u8).PartyIDSource(Values.PartyIDSource.ProprietaryCustomCode).PartyRole(Values.PartyRole.ExecutingFirm)
            .PartyID("TRADER9"u8).PartyIDSource(Values.PartyIDSource.ProprietaryCustomCode).PartyRole(Values.PartyRole.OrderOriginationTrader);
        w.Symbol("MSFT"u8).Side(Values.Side.Buy)
            .LeavesQty(new FixDecimal(1000, 0)).CumQty(new FixDecimal(500, 0)).AvgPx(new FixDecimal(41235, -2)).LastPx(new FixDecimal(41235, -2))
            .TransactTime(TransactTime);
        return w.Send();
    }

    /// <summary>Writes an ExecutionReport from another thread; fails when that thread cannot take the session within 30 s.</summary>
    private static SendResult? WriteOnAnotherThread(FixSession session)
    {
        SendResult? result = null;
        var thread = new Thread(() => result = WriteExecution(session));
        thread.Start();
        Assert.True(thread.Join(TimeSpan.FromSeconds(30)), "another thread could not take the session: the writer kept its lock");
        return result;
    }

    private static bool SendThrows(NewsWriter writer)
    {
        try
        {
            writer.Send();
            return false;
        }
        catch (InvalidOperationException)
        {
            return true;
        }
    }

    /// <summary>The message with SendingTime's value and the CheckSum masked (the two runs differ only there).</summary>
    private static string WithoutSendingTime(ReadOnlySpan<byte> wire) =>
        Regex.Replace(FixSamples.Text(wire), @"\|52=[^|]*\|(.*)\|10=\d{3}\|$", "|52=*|$1|10=*|");
}
