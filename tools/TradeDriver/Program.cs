using System.CommandLine;
using System.Diagnostics;
using RapidFix.Engine.Configuration;
using RapidFix.TradeDriver;

// tools/TradeDriver: generates trade sets for the matching service and verifies the service against them
// (docs/matching-service.md). Exit codes: 0 success, 1 mismatches (verify) or a rate not sustainable (throughput),
// 2 a usage or environment error.
var trades = new Option<int>("--trades") { Description = "trades in the set", DefaultValueFactory = _ => 10_000 };
var seed = new Option<int>("--seed") { Description = "random seed: the same seed gives the same set", DefaultValueFactory = _ => 1 };
var output = new Option<DirectoryInfo>("--out") { Description = "directory for messages.fix and expected.csv", Required = true };
var window = new Option<int>("--shuffle-window") { Description = "messages of this many consecutive trades are interleaved at random", DefaultValueFactory = _ => 16 };
var duplicates = new Option<double>("--duplicates") { Description = "fraction of trades with one message sent twice" };
var amendments = new Option<double>("--amendments") { Description = "fraction of trades with an allocation replaced" };
var cancels = new Option<double>("--cancels") { Description = "fraction of trades with an allocation cancelled and sent again" };
var bad = new Option<double>("--bad")
{
    Description = "fraction of bad trades, shared equally by: unknown ISIN, bad check digit, holiday settlement date, net beyond tolerance, a missing message",
};

var fast = new Option<bool>("--fast") { Description = "also write the set FAST-encoded: messages.fast and its templates.xml" };
var generate = new Command("generate", "write a set of standard trades (seven messages each) and their expected outcomes")
{
    trades, seed, output, window, duplicates, amendments, cancels, bad, fast,
};
generate.Validators.Add(r =>
{
    if (Given(r, trades) < 1)
    {
        r.AddError("--trades must be positive");
    }

    if (Given(r, window) < 1)
    {
        r.AddError("--shuffle-window must be positive");
    }

    foreach (var o in new[] { duplicates, amendments, cancels, bad })
    {
        if (GivenFraction(r, o) is < 0 or > 1)
        {
            r.AddError($"{o.Name} is a fraction between 0 and 1");
        }
    }

    if ((GivenFraction(r, duplicates) ?? 0) + (GivenFraction(r, amendments) ?? 0) + (GivenFraction(r, cancels) ?? 0) + (GivenFraction(r, bad) ?? 0) > 1)
    {
        r.AddError("the fractions add up to more than 1");
    }
});
generate.SetAction(parse =>
{
    var clock = Stopwatch.StartNew();
    var dir = parse.GetValue(output)!.FullName;
    var (count, messages) = TradeGenerator.Write(dir, new GeneratorOptions
    {
        Trades = parse.GetValue(trades),
        Seed = parse.GetValue(seed),
        ShuffleWindow = parse.GetValue(window),
        Duplicates = parse.GetValue(duplicates),
        Amendments = parse.GetValue(amendments),
        Cancels = parse.GetValue(cancels),
        Bad = parse.GetValue(bad),
    }, parse.GetValue(fast));
    Console.WriteLine($"{count} trades, {messages} messages in {dir} ({clock.Elapsed.TotalSeconds:F1} s)");
    return 0;
});

var staticOut = new Option<DirectoryInfo>("--out") { Description = "directory for the static data's CSV files", Required = true };
var writeStatic = new Command("static-data", "write the static data the generated sets need (the demo's, with the generated securities) for a service's --static-data")
{
    staticOut,
};
writeStatic.SetAction(parse =>
{
    var dir = parse.GetValue(staticOut)!.FullName;
    TradeUniverse.WriteStaticData(dir);
    Console.WriteLine($"static data of the generated sets ({TradeUniverse.SecurityCount} generated securities) in {dir}");
    return 0;
});

var input = new Option<DirectoryInfo?>("--input") { Description = "a set written by generate (default: generate --trades with a mix of every kind)" };
var vTrades = new Option<int>("--trades") { Description = "trades to generate when no --input is given", DefaultValueFactory = _ => 10_000 };
var host = new Option<string?>("--host") { Description = "a running matching service (default: start one in this process on a free port)" };
var port = new Option<int>("--port") { Description = "the running service's port (with --host)", DefaultValueFactory = _ => 5010 };
var staticData = new Option<DirectoryInfo?>("--static-data") { Description = "static data of the in-process service (default: the set's static-data folder, else the generated sets' static data: the demo's and the generated securities)" };
var timeout = new Option<int>("--timeout") { Description = "seconds to wait for the answers after the last message", DefaultValueFactory = _ => 300 };
var idle = new Option<int>("--idle") { Description = "seconds without any answer after which the wait for answers ends early (a partition's service still starting behind a gateway needs more)", DefaultValueFactory = _ => 5 };
var showRejections = new Option<bool>("--show-rejections") { Description = "print every rejecting ack (with the exception's text) as it arrives" };
var pace = new Option<int>("--pace") { Description = "send at most this many messages a second (0: as fast as the window allows); fault runs use it to keep traffic flowing through a fault" };
var verify = new Command("verify", "send a set through FIX sessions to the matching service and check every trade's acks, CLS and exceptions")
{
    input, vTrades, seed, host, port, staticData, timeout, idle, showRejections, pace,
};
verify.Validators.Add(r =>
{
    if (Given(r, vTrades) < 1)
    {
        r.AddError("--trades must be positive");
    }

    if (Given(r, pace) < 0)
    {
        r.AddError("--pace must be 0 or positive");
    }

    if (Given(r, idle) < 1)
    {
        r.AddError("--idle must be at least 1 second");
    }

    if (Given(r, port) is < 0 or > 65535)
    {
        r.AddError("--port must be between 0 and 65535");
    }
});
verify.SetAction(parse => Guarded(() => Verifier.Run(new VerifyOptions
{
    Input = parse.GetValue(input)?.FullName,
    Trades = parse.GetValue(vTrades),
    Seed = parse.GetValue(seed),
    Host = parse.GetValue(host),
    Port = parse.GetValue(port),
    // Static data: the option's, else the set's own (generate writes it beside the set), else the generated sets'.
    StaticData = parse.GetValue(staticData)?.FullName
                 ?? (parse.GetValue(input) is { } set && Directory.Exists(TradeGenerator.StaticDataOf(set.FullName)) ? TradeGenerator.StaticDataOf(set.FullName) : null),
    Timeout = TimeSpan.FromSeconds(parse.GetValue(timeout)),
    Idle = TimeSpan.FromSeconds(parse.GetValue(idle)),
    ShowRejections = parse.GetValue(showRejections),
    Pace = parse.GetValue(pace),
}, Console.Out)));

var rate = new Option<int>("--rate") { Description = "messages per second offered (open loop)", DefaultValueFactory = _ => 10_000 };
var seconds = new Option<int>("--seconds") { Description = "how long to offer them", DefaultValueFactory = _ => 60 };
var throughput = new Command("throughput", "offer trades at a fixed rate for a while and say whether the service sustained it (nothing refused, every input matched, backlog bounded)")
{
    rate, seconds, host, port, staticData,
};
throughput.Validators.Add(r =>
{
    if (Given(r, rate) < 7)
    {
        r.AddError("--rate must be at least 7 (one trade a second)");
    }

    if (Given(r, seconds) < 1)
    {
        r.AddError("--seconds must be positive");
    }
});
throughput.SetAction(parse => Guarded(() => Throughput.Run(new ThroughputOptions
{
    Rate = parse.GetValue(rate),
    Seconds = parse.GetValue(seconds),
    Host = parse.GetValue(host),
    Port = parse.GetValue(port),
    StaticData = parse.GetValue(staticData)?.FullName,
}, Console.Out)));

var root = new RootCommand("RapidFix trade driver: trade sets for the matching service, and checks of the service against them.")
{
    generate, writeStatic, verify, throughput,
};
RapidFix.TradeDriver.Measure.MeasureCommands.Register(root); // run, table, mst, curve, oa, soak (docs/measurement.md)
GatewayThroughput.Register(root); // gateway-throughput (docs/scale-out.md)
return root.Parse(args).Invoke();

// A user's or the environment's mistake gets its message and exit code 2, not a stack trace.
static int Guarded(Func<int> run)
{
    try
    {
        return run();
    }
    catch (Exception ex) when (ex is ConfigurationException or IOException or InvalidDataException or UnauthorizedAccessException
                                   or System.Net.Sockets.SocketException or RapidFix.Engine.Store.StoreException)
    {
        Console.Error.WriteLine($"trade driver: {ex.Message}");
        return 2;
    }
}

// The value of an option the command line gives, or null when it is absent (validators see no default values, and
// an absent option needs no check).
static int? Given(System.CommandLine.Parsing.CommandResult result, Option<int> option) =>
    result.GetResult(option) is { Implicit: false } ? result.GetValue(option) : null;

static double? GivenFraction(System.CommandLine.Parsing.CommandResult result, Option<double> option) =>
    result.GetResult(option) is { Implicit: false } ? result.GetValue(option) : null;
