using System.CommandLine;
using System.Text;
using RapidFix.Engine.Codec;
using RapidFix.Engine.Configuration;
using RapidFix.Engine.Diagnostics;
using RapidFix.Engine.Fields;
using RapidFix.Engine.Hosting;
using RapidFix.Engine.Sessions;
using RapidFix.Messages.Fix44;
using RapidFix.Samples;

// The sample initiator: logs on to samples/Acceptor, sends an order every interval and prints the executions.
//   dotnet run --project samples/Initiator [-- [settings.cfg] [--orders N] [--interval-ms M]]     (--help lists them)
// Exit codes: 0 done, 1 no logon within --logon-timeout, 2 a usage, settings or environment error (one line).
var configArgument = new Argument<FileInfo>("settings")
{
    Description = "QuickFIX-style settings file (default: initiator.cfg beside the program)",
    DefaultValueFactory = _ => new FileInfo(Path.Combine(AppContext.BaseDirectory, "initiator.cfg")),
}.NotAnOption();
var ordersOption = new Option<int>("--orders") { Description = "orders to send", DefaultValueFactory = _ => 10 }.AtLeast(0);
var intervalOption = new Option<int>("--interval-ms") { Description = "pause between orders, in milliseconds", DefaultValueFactory = _ => 1000 }.AtLeast(0);
var logonTimeoutOption = new Option<int>("--logon-timeout") { Description = "seconds to wait for the logon", DefaultValueFactory = _ => 30 }.AtLeast(1);
var root = new RootCommand("RapidFix sample initiator: logs on to samples/Acceptor, sends orders and prints the executions.")
{
    configArgument, ordersOption, intervalOption, logonTimeoutOption,
};
root.SetAction(parse => SampleCommand.Guarded("initiator", () => RunInitiator(
    parse.GetValue(configArgument)!.FullName, parse.GetValue(ordersOption), parse.GetValue(intervalOption), parse.GetValue(logonTimeoutOption))));
return SampleCommand.Invoke(root, args);

static int RunInitiator(string config, int orders, int intervalMs, int logonTimeoutSeconds)
{
    var settings = SettingsFile.Load(config);
    var application = new PrintingApplication();
    using var log = new EngineLog(Console.OpenStandardOutput());
    using var engine = FixEngine.Create(settings, _ => application, log);
    engine.Start();
    var session = engine.Sessions[0];
    string endpoints = string.Join(", ", settings.Sessions[0].GetConnectEndpoints().Select(e => $"{e.Host}:{e.Port}"));
    Console.WriteLine($"initiator {session.Id}: connecting to {endpoints}");
    var deadline = DateTime.UtcNow.AddSeconds(logonTimeoutSeconds);
    while (!session.IsLoggedOn && DateTime.UtcNow < deadline)
    {
        Thread.Sleep(50);
    }

    if (!session.IsLoggedOn)
    {
        Console.Error.WriteLine($"initiator: could not log on to {endpoints} within {logonTimeoutSeconds} s: is samples/Acceptor running?");
        return 1;
    }

    // Everything an order needs is made here, once: the loop writes each order in place, in the session's buffer.
    byte[] clOrdId = new byte[48];
    int prefix = Encoding.ASCII.GetBytes($"ORD-{DateTime.UtcNow:HHmmss}-", clOrdId);
    byte[][] symbols = [.. new[] { "MSFT", "AAPL", "VOD.L", "SAP.DE" }.Select(Encoding.ASCII.GetBytes)];
    for (int n = 1; n <= orders; n++)
    {
        int length = prefix + FixValue.FormatLong(n, clOrdId.AsSpan(prefix));
        using var order = NewOrderSingleWriter.Begin(session); // the header in the session's buffer, its lock held until Send
        order.ClOrdID(clOrdId.AsSpan(0, length)).HandlInst(Values.HandlInst.AutomatedExecutionOrderPrivate)
            .Symbol(symbols[n % symbols.Length]).Side(Values.Side.Buy).TransactTime(RapidFix.Engine.Time.EngineClock.Shared.UtcNowNanos)
            .OrderQty(new FixDecimal(100 * n, 0)).OrdType(Values.OrdType.Limit).Price(new FixDecimal(10_000 + n, -2));
        var result = order.Send();
        Console.WriteLine($"sent order {n}: {result}");
        Thread.Sleep(intervalMs);
    }

    // Each order is done when its Filled execution is back; a busy acceptor may take a while (10 s at most here).
    var answered = DateTime.UtcNow.AddSeconds(10);
    while (Volatile.Read(ref application.Filled) < orders && DateTime.UtcNow < answered)
    {
        Thread.Sleep(20);
    }

    Console.WriteLine($"{Volatile.Read(ref application.Executions)} executions received; logging out");
    return 0;
}

/// <summary>Prints each execution, read in place through the typed ExecutionReport view the cracker hands over.</summary>
internal sealed class PrintingApplication : FixApplicationBase, IMessageHandler
{
    public int Executions;
    public int Filled;

    public override void OnLogon(FixSession session) => Console.WriteLine($"{session.Id}: logged on");

    public override void OnLogout(FixSession session) => Console.WriteLine($"{session.Id}: logged out");

    public override MessageDisposition FromApp(FixSession session, FixMessage message) => MessageCracker.Crack(this, message, session);

    public MessageDisposition OnMessage(ExecutionReport report, FixSession session)
    {
        Console.WriteLine($"execution {Encoding.ASCII.GetString(report.ExecID)} for {Encoding.ASCII.GetString(report.ClOrdID)}: " +
            $"filled {report.CumQty} @ {report.LastPx}, {report.LeavesQty} left");
        Interlocked.Increment(ref Executions);
        if (report.OrdStatus == Values.OrdStatus.Filled)
        {
            Interlocked.Increment(ref Filled);
        }

        return MessageDisposition.Accept;
    }
}
