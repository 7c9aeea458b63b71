using System.Globalization;
using System.Text;
using RapidFix.Engine.Codec;
using RapidFix.Engine.Configuration;
using RapidFix.Engine.Fields;
using RapidFix.Engine.Hosting;
using RapidFix.Engine.Sessions;
using RapidFix.Engine.Time;
using RapidFix.Messages.Fix44;

namespace RapidFix.TradeDriver.Measure;

/// <summary>
/// The echo work of the side-by-side run (docs/measurement.md "QuickFIX/n side by side"), on a RapidFix acceptor:
/// each trade input is answered with the ack the driver's sink classifies, echoing the input's ID, and nothing else
/// happens (no matcher, no journal): AE gets an AR (TradeReportID 571, TradeReportTransType 487 when the input has
/// one, ExecType F, TrdRptStatus 0, Symbol [N/A]), J a P (AllocID 70, TransactTime, AllocStatus 0), AK an AU
/// (ConfirmID 664, TradeDate 75 when the input has one, TransactTime, AffirmStatus 1); a T is answered by nothing,
/// as the service answers a good one. <see cref="QuickFixNEcho"/> does exactly this on QuickFIX/n. Answers go out
/// through the typed writers, in the session's own buffer: the continuous phase allocates nothing
/// (MeasurementAllocationTests).
/// </summary>
internal sealed class EchoApplication : FixApplicationBase
{
    private static ReadOnlySpan<byte> NotApplicable => "[N/A]"u8;

    private readonly EngineClock _clock = EngineClock.Shared;
    private long _answered;

    /// <summary>Acks sent.</summary>
    public long Answered => Interlocked.Read(ref _answered);

    public override MessageDisposition FromApp(FixSession session, FixMessage message)
    {
        Answer(session, message);
        return MessageDisposition.Accept;
    }

    /// <summary>Writes and sends the ack of one input (none for a T or a type the echo does not know).</summary>
    public SendResult Answer(FixSession session, FixMessage message)
    {
        var type = message.MsgType;
        SendResult result;
        if (type.SequenceEqual("AE"u8))
        {
            message.TryGetText(FieldScope.Message, 571, out var id);
            using var w = TradeCaptureReportAckWriter.Begin(session);
            w.TradeReportID(id);
            if (message.TryGetText(FieldScope.Message, 487, out var trans))
            {
                w.TradeReportTransType(trans);
            }

            w.ExecType("F"u8).TrdRptStatus("0"u8).Symbol(NotApplicable);
            result = w.Send();
        }
        else if (type.SequenceEqual("J"u8))
        {
            message.TryGetText(FieldScope.Message, 70, out var id);
            using var w = AllocationInstructionAckWriter.Begin(session);
            w.AllocID(id).TransactTime(Now()).AllocStatus("0"u8);
            result = w.Send();
        }
        else if (type.SequenceEqual("AK"u8))
        {
            message.TryGetText(FieldScope.Message, 664, out var id);
            using var w = ConfirmationAckWriter.Begin(session);
            w.ConfirmID(id);
            if (message.TryGetText(FieldScope.Message, 75, out var tradeDate))
            {
                w.TradeDate(tradeDate);
            }

            w.TransactTime(Now()).AffirmStatus("1"u8);
            result = w.Send();
        }
        else
        {
            return SendResult.Sent; // a T: no ack, as the service answers a good settlement instruction
        }

        if (result == SendResult.Sent)
        {
            Interlocked.Increment(ref _answered);
        }

        return result;
    }

    private long Now() => _clock.UtcNowNanos;
}

/// <summary>
/// The RapidFix echo acceptor as a program: the trade driver's <c>echo-acceptor</c> subcommand, started as a child
/// process by the side-by-side run so that, like the QuickFIX/n peer, it runs in its own process. The protocol on its
/// standard streams is the peers' shared one (<see cref="EchoPeer"/>): it prints <c>listening on PORT</c> once the
/// sessions accept; a <c>mark</c> line on its input starts the measured part; at the end of its input it prints
/// <c>gc COLLECTIONS ALLOCATED</c> (since the mark) and exits.
/// </summary>
internal static class EchoAcceptor
{
    /// <summary>
    /// The acceptor's settings: one FIX 4.4 session per participant, express store (QuickFIX/n's peer has its memory
    /// store), messages validated against the built-in FIX 4.4 dictionary (the peer validates against its own).
    /// </summary>
    public static string Settings(int port, string compId, IEnumerable<string> participants, long messages)
    {
        // Stores sized for the run, as the driver's initiators are (a full store would refuse answers mid-run).
        long storeMessages = Math.Max(100_000, messages + 10_000);
        var text = new StringBuilder();
        text.AppendLine("[DEFAULT]").AppendLine("ConnectionType=acceptor").AppendLine("SocketAcceptHost=127.0.0.1")
            .AppendLine(CultureInfo.InvariantCulture, $"SocketAcceptPort={port}").AppendLine("StartTime=00:00:00").AppendLine("EndTime=00:00:00")
            .AppendLine("StoreType=express").AppendLine(CultureInfo.InvariantCulture, $"StoreMaxMessages={storeMessages}")
            .AppendLine(CultureInfo.InvariantCulture, $"StoreMaxBytes={Math.Min(Array.MaxLength, storeMessages * 600)}")
            .AppendLine("OutboundQueueDepth=262144");
        foreach (var p in participants)
        {
            text.AppendLine("[SESSION]").AppendLine("BeginString=FIX.4.4").AppendLine(CultureInfo.InvariantCulture, $"SenderCompID={compId}")
                .AppendLine(CultureInfo.InvariantCulture, $"TargetCompID={p}");
        }

        return text.ToString();
    }

    /// <summary>Runs the acceptor until its standard input ends; returns the exit code.</summary>
    public static int Run(int port, long messages, TextReader input, TextWriter output)
    {
        var application = new EchoApplication();
        using var engine = FixEngine.Create(SettingsFile.Parse(Settings(port, EchoPeer.CompId, TradeGenerator.Participants, messages), "echo acceptor"),
            _ => application);
        engine.Start();
        output.WriteLine(string.Create(CultureInfo.InvariantCulture, $"listening on {port}"));
        output.Flush();
        return EchoPeer.ServeUntilEndOfInput(input, output);
    }
}
