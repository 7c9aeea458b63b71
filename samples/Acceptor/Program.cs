using System.CommandLine;
using System.Text;
using RapidFix.Engine.Codec;
using RapidFix.Engine.Configuration;
using RapidFix.Engine.Diagnostics;
using RapidFix.Engine.Fields;
using RapidFix.Engine.Hosting;
using RapidFix.Engine.Sessions;
using RapidFix.Engine.Validation;
using RapidFix.Messages.Fix44;
using RapidFix.Samples;

// The sample acceptor: fills every NewOrderSingle in two ExecutionReports (a partial fill, then the rest).
//   dotnet run --project samples/Acceptor [-- [settings.cfg] [--quiet]]     (--help lists the options)
// Exit codes: 0 stopped by Ctrl+C or SIGTERM, 2 a usage, settings or environment error (one line, no stack trace).
var configArgument = new Argument<FileInfo>("settings")
{
    Description = "QuickFIX-style settings file (default: acceptor.cfg beside the program)",
    DefaultValueFactory = _ => new FileInfo(Path.Combine(AppContext.BaseDirectory, "acceptor.cfg")),
}.NotAnOption();
var quietOption = new Option<bool>("--quiet") { Description = "print logons and logouts only, not every order" };
var root = new RootCommand("RapidFix sample acceptor: fills every NewOrderSingle with two ExecutionReports.") { configArgument, quietOption };
root.SetAction(parse => SampleCommand.Guarded("acceptor", () => RunAcceptor(parse.GetValue(configArgument)!.FullName, parse.GetValue(quietOption))));
return SampleCommand.Invoke(root, args);

static int RunAcceptor(string config, bool quiet)
{
    var settings = SettingsFile.Load(config);
    foreach (var warning in settings.Warnings)
    {
        Console.Error.WriteLine(warning);
    }

    using var log = new EngineLog(Console.OpenStandardOutput());
    using var engine = FixEngine.Create(settings, _ => new FillingApplication(quiet), log);
    engine.Start();
    Console.WriteLine($"acceptor listening on {engine.Acceptors[0].LocalEndPoint}; sessions: {string.Join(", ", engine.Sessions.Select(s => s.Id))}. Ctrl+C stops.");
    var stop = new ManualResetEventSlim();
    Console.CancelKeyPress += (_, e) =>
    {
        e.Cancel = true;
        stop.Set();
    };
    AppDomain.CurrentDomain.ProcessExit += (_, _) => stop.Set();
    stop.Wait();
    Console.WriteLine("stopping: logging out");
    return 0;
}

/// <summary>
/// Answers each order with two executions. Orders arrive through the MessageCracker as typed views over the receive
/// buffer; each execution is written by the generated ExecutionReportWriter in place, in the session's own buffer.
/// With --quiet the message path allocates nothing (the order's line on the console is the only allocation).
/// </summary>
internal sealed class FillingApplication(bool quiet) : FixApplicationBase, IMessageHandler
{
    private readonly byte[] _id = new byte[20];
    private long _executions;

    public override void OnLogon(FixSession session) => Console.WriteLine($"{session.Id}: logged on");

    public override void OnLogout(FixSession session) => Console.WriteLine($"{session.Id}: logged out");

    // One OnMessage per message type handled; the cracker answers the others with a BusinessMessageReject
    // (UnsupportedMessageType), as QuickFIX/n's does.
    public override MessageDisposition FromApp(FixSession session, FixMessage message) => MessageCracker.Crack(this, message, session);

    public MessageDisposition OnMessage(NewOrderSingle order, FixSession session)
    {
        // The session validated the order against the dictionary: OrderQty is there and a number; whole and positive is ours to check.
        decimal requested = order.OrderQty.ToDecimal();
        if (requested <= 0 || requested != decimal.Truncate(requested) || requested > long.MaxValue / 2)
        {
            return MessageDisposition.Reject(SessionRejectReason.ValueIsIncorrect, FieldTags.OrderQty);
        }

        long quantity = (long)requested;
        order.TryGetPrice(out var price); // a market order has none: executed at 0 in this sample
        long first = Math.Max(1, quantity / 2);
        SendExecution(session, order, Values.OrdStatus.PartiallyFilled, lastQty: first, cumQty: first, leaves: quantity - first, price);
        SendExecution(session, order, Values.OrdStatus.Filled, lastQty: quantity - first, cumQty: quantity, leaves: 0, price);
        if (!quiet)
        {
            Console.WriteLine($"{session.Id}: order {Encoding.ASCII.GetString(order.ClOrdID)} {quantity} {Encoding.ASCII.GetString(order.Symbol)} @ {price} filled");
        }

        return MessageDisposition.Accept;
    }

    private void SendExecution(FixSession session, NewOrderSingle order, byte ordStatus, long lastQty, long cumQty, long leaves, FixDecimal price)
    {
        int n = FixValue.FormatLong(++_executions, _id);
        using var report = ExecutionReportWriter.Begin(session); // the header in the session's buffer, its lock held until Send
        report.OrderID(order.ClOrdID).ClOrdID(order.ClOrdID).ExecID(_id.AsSpan(0, n))
            .ExecType(Values.ExecType.Trade).OrdStatus(ordStatus).Symbol(order.Symbol).Side(order.Side)
            .OrderQty(new FixDecimal(cumQty + leaves, 0)).LastQty(new FixDecimal(lastQty, 0)).LastPx(price)
            .LeavesQty(new FixDecimal(leaves, 0)).CumQty(new FixDecimal(cumQty, 0)).AvgPx(price);
        report.Send();
    }
}
