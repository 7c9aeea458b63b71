using System.CommandLine;
using System.Text;
using RapidFix.Engine.Codec;
using RapidFix.Engine.Configuration;
using RapidFix.Engine.Diagnostics;
using RapidFix.Engine.Fields;
using RapidFix.Engine.Hosting;
using RapidFix.Engine.Sessions;
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
/// Answers each order with two executions. The message path allocates nothing: the reply is written with a
/// FixBodyWriter over a buffer created once, and values are read with the typed getters.
/// </summary>
internal sealed class FillingApplication(bool quiet) : FixApplicationBase
{
    private readonly byte[] _body = new byte[4096];
    private readonly byte[] _id = new byte[32];
    private long _executions;

    public override void OnLogon(FixSession session) => Console.WriteLine($"{session.Id}: logged on");

    public override void OnLogout(FixSession session) => Console.WriteLine($"{session.Id}: logged out");

    public override MessageDisposition FromApp(FixSession session, FixMessage message)
    {
        if (!message.MsgType.SequenceEqual("D"u8))
        {
            return MessageDisposition.UnsupportedMessageType;
        }

        if (!message.TryGetLong(Tags.OrderQty, out long quantity) || quantity <= 0)
        {
            return MessageDisposition.Reject(RapidFix.Engine.Validation.SessionRejectReason.ValueIsIncorrect, Tags.OrderQty);
        }

        message.TryGetDecimal(Tags.Price, out var price);
        long first = Math.Max(1, quantity / 2);
        SendExecution(session, message, execType: (byte)'F', ordStatus: (byte)'1', lastQty: first, cumQty: first, leaves: quantity - first, price);
        SendExecution(session, message, execType: (byte)'F', ordStatus: (byte)'2', lastQty: quantity - first, cumQty: quantity, leaves: 0, price);
        if (!quiet)
        {
            Console.WriteLine($"{session.Id}: order {Encoding.ASCII.GetString(message.GetValue(Tags.ClOrdID))} {quantity} {Encoding.ASCII.GetString(message.GetValue(Tags.Symbol))} @ {price} filled");
        }

        return MessageDisposition.Accept;
    }

    private void SendExecution(FixSession session, FixMessage order, byte execType, byte ordStatus, long lastQty, long cumQty, long leaves, FixDecimal price)
    {
        long exec = ++_executions;
        int n = FixValue.FormatLong(exec, _id);
        var body = new FixBodyWriter(_body);
        body.Add(Tags.OrderID, order.GetValue(Tags.ClOrdID));
        body.Add(Tags.ClOrdID, order.GetValue(Tags.ClOrdID));
        body.Add(Tags.ExecID, _id.AsSpan(0, n));
        body.AddChar(150, execType);
        body.AddChar(Tags.OrdStatus, ordStatus);
        body.Add(Tags.Symbol, order.GetValue(Tags.Symbol));
        body.Add(Tags.Side, order.GetValue(Tags.Side));
        body.Add(Tags.OrderQty, cumQty + leaves);
        body.Add(32, lastQty);
        body.Add(31, price);
        body.Add(151, leaves);
        body.Add(14, cumQty);
        body.Add(6, price);
        session.Send("8"u8, body.Written);
    }
}
