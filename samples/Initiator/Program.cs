using System.Text;
using RapidFix.Engine.Codec;
using RapidFix.Engine.Configuration;
using RapidFix.Engine.Diagnostics;
using RapidFix.Engine.Fields;
using RapidFix.Engine.Hosting;
using RapidFix.Engine.Sessions;

// The sample initiator: logs on to samples/Acceptor, sends an order every interval and prints the executions.
//   dotnet run --project samples/Initiator [-- <settings.cfg>] [--orders N] [--interval-ms M]
string config = Path.Combine(AppContext.BaseDirectory, "initiator.cfg");
int orders = 10;
int intervalMs = 1000;
for (int i = 0; i < args.Length; i++)
{
    switch (args[i])
    {
        case "--orders": orders = int.Parse(args[++i], System.Globalization.CultureInfo.InvariantCulture); break;
        case "--interval-ms": intervalMs = int.Parse(args[++i], System.Globalization.CultureInfo.InvariantCulture); break;
        default: config = args[i]; break;
    }
}

var settings = SettingsFile.Load(config);
var application = new PrintingApplication();
using var log = new EngineLog(Console.OpenStandardOutput());
using var engine = FixEngine.Create(settings, _ => application, log);
engine.Start();
var session = engine.Sessions[0];
Console.WriteLine($"initiator {session.Id}: connecting to {string.Join(", ", settings.Sessions[0].GetConnectEndpoints())}");
var deadline = DateTime.UtcNow.AddSeconds(30);
while (!session.IsLoggedOn && DateTime.UtcNow < deadline)
{
    Thread.Sleep(50);
}

if (!session.IsLoggedOn)
{
    Console.Error.WriteLine("could not log on within 30 s: is samples/Acceptor running?");
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
