using System.CommandLine;
using System.Text;
using RapidFix.Engine.Codec;
using RapidFix.Engine.Configuration;
using RapidFix.Engine.Diagnostics;
using RapidFix.Engine.Fields;
using RapidFix.Engine.Hosting;
using RapidFix.Engine.Sessions;
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

    var body = new byte[1024];
    var symbols = new[] { "MSFT", "AAPL", "VOD.L", "SAP.DE" };
    for (int n = 1; n <= orders; n++)
    {
        var order = new FixBodyWriter(body);
        order.Add(Tags.ClOrdID, Encoding.ASCII.GetBytes($"ORD-{DateTime.UtcNow:HHmmss}-{n}"));
        order.AddChar(Tags.Side, (byte)'1');
        order.Add(Tags.Symbol, Encoding.ASCII.GetBytes(symbols[n % symbols.Length]));
        order.Add(Tags.OrderQty, 100 * n);
        order.AddChar(Tags.OrdType, (byte)'2');
        order.Add(Tags.Price, new FixDecimal(10_000 + n, -2));
        order.AddTimestamp(Tags.TransactTime, RapidFix.Engine.Time.EngineClock.Shared.UtcNowNanos);
        order.AddChar(21, (byte)'1');
        var result = session.Send("D"u8, order.Written);
        Console.WriteLine($"sent order {n}: {result}");
        Thread.Sleep(intervalMs);
    }

    Thread.Sleep(500);
    Console.WriteLine($"{application.Executions} executions received; logging out");
    return 0;
}

internal sealed class PrintingApplication : FixApplicationBase
{
    public int Executions;

    public override void OnLogon(FixSession session) => Console.WriteLine($"{session.Id}: logged on");

    public override void OnLogout(FixSession session) => Console.WriteLine($"{session.Id}: logged out");

    public override MessageDisposition FromApp(FixSession session, FixMessage message)
    {
        if (message.MsgType.SequenceEqual("8"u8))
        {
            Interlocked.Increment(ref Executions);
            message.TryGetLong(14, out long cum);
            message.TryGetLong(151, out long leaves);
            message.TryGetDecimal(31, out var px);
            Console.WriteLine($"execution {Encoding.ASCII.GetString(message.GetValue(Tags.ExecID))} for {Encoding.ASCII.GetString(message.GetValue(Tags.ClOrdID))}: filled {cum} @ {px}, {leaves} left");
            return MessageDisposition.Accept;
        }

        return MessageDisposition.UnsupportedMessageType;
    }
}
