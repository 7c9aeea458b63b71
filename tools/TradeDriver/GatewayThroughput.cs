using System.CommandLine;
using RapidFix.Gateway;
using RapidFix.MatchingService;

namespace RapidFix.TradeDriver;

/// <summary>
/// gateway-throughput: the whole scaled-out path measured beside the direct one, in one run (docs/scale-out.md).
/// For each offered rate, <see cref="Throughput"/> runs once against one service (participant → service → back)
/// and once through a gateway in front of N services owning a partition each (participant → gateway → service →
/// gateway → back), every process part in this one (in-process services and gateway, loopback sockets, the same
/// store settings). Prints each run's verdict, then the highest rate each kept bounded and their ratio.
/// </summary>
internal static class GatewayThroughput
{
    /// <summary>Adds the command to the trade driver's root command.</summary>
    public static void Register(RootCommand root)
    {
        var rates = new Option<string>("--rates") { Description = "offered rates (messages/s), comma-separated, each run both ways", DefaultValueFactory = _ => "2000,4000,8000" };
        var seconds = new Option<int>("--seconds") { Description = "how long each run offers its rate", DefaultValueFactory = _ => 10 };
        var services = new Option<int>("--services") { Description = "matching services behind the gateway (one partition each)", DefaultValueFactory = _ => 2 };
        var command = new Command("gateway-throughput", "the throughput run direct to one service and through a gateway to N services, side by side")
        {
            rates, seconds, services,
        };
        command.Validators.Add(r =>
        {
            foreach (var rate in r.GetResult(rates) is { Implicit: false } ? Rates(r.GetValue(rates) ?? "") : [])
            {
                if (rate < 7)
                {
                    r.AddError("--rates: each rate must be a whole number of at least 7 (one trade a second)");
                    break;
                }
            }

            // Validators see no default values: only what the command line gives is checked.
            if ((r.GetResult(seconds) is { Implicit: false } && r.GetValue(seconds) < 1) || (r.GetResult(services) is { Implicit: false } && r.GetValue(services) < 1))
            {
                r.AddError("--seconds and --services must be positive");
            }
        });
        command.SetAction(parse => Run(Rates(parse.GetValue(rates)!), parse.GetValue(seconds), parse.GetValue(services), new VerifyOptions().StaticData, Console.Out));
        root.Subcommands.Add(command);
    }

    /// <summary>A generated set, encoded (for other assemblies: the generator's message type is internal to the service).</summary>
    public static List<(string Sender, byte[] MsgType, byte[] Body)> EncodedSet(GeneratorOptions options) =>
        Verifier.Encode(TradeGenerator.Generate(options).Messages);

    public static int Run(int[] rates, int seconds, int services, string staticData, TextWriter output)
    {
        int bestDirect = 0, bestGateway = 0;
        output.WriteLine($"{"rate",8} {"direct",-12} {"gateway",-12}   (throughput, {seconds} s each; gateway: {services} services, one partition each)");
        foreach (int rate in rates)
        {
            var direct = Once(rate, seconds, 0, staticData);
            var gateway = Once(rate, seconds, services, staticData);
            output.WriteLine($"{rate,8} {(direct.Bounded ? "bounded" : "NOT bounded"),-12} {(gateway.Bounded ? "bounded" : "NOT bounded"),-12}");
            output.WriteLine($"         direct:  {direct.Summary}");
            output.WriteLine($"         gateway: {gateway.Summary}");
            bestDirect = direct.Bounded ? Math.Max(bestDirect, rate) : bestDirect;
            bestGateway = gateway.Bounded ? Math.Max(bestGateway, rate) : bestGateway;
        }

        string ratio = bestDirect > 0 ? $"{(double)bestGateway / bestDirect:F2}" : "n/a";
        output.WriteLine($"highest bounded rate: direct {bestDirect}/s, through the gateway {bestGateway}/s, ratio {ratio}");
        return 0;
    }

    private static int[] Rates(string text)
    {
        var parts = text.Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries);
        var rates = new int[parts.Length];
        for (int i = 0; i < parts.Length; i++)
        {
            rates[i] = int.TryParse(parts[i], System.Globalization.NumberStyles.None, System.Globalization.CultureInfo.InvariantCulture, out int rate) ? rate : -1;
        }

        return rates;
    }

    // One throughput run: direct to one service (services 0), or through a gateway to that many services.
    private static (bool Bounded, string Summary) Once(int rate, int seconds, int services, string staticData)
    {
        string work = Path.Combine(Path.GetTempPath(), "rapidfix-gateway-throughput-" + Guid.NewGuid().ToString("N"));
        int messages = (int)Math.Min(int.MaxValue / 700, ((long)rate * seconds) + 1024);
        var servers = new List<MatchingServer>();
        GatewayServer? gateway = null;
        try
        {
            int port;
            if (services == 0)
            {
                servers.Add(Verifier.StartService(work, staticData, messages, "MATCH", TextWriter.Null, warmUp: true));
                port = servers[0].Port;
            }
            else
            {
                var endpoints = new List<ServiceEndpoint>();
                for (int k = 0; k < services; k++)
                {
                    var server = Verifier.StartService(Path.Combine(work, "service-" + k), staticData, messages, "MATCH", TextWriter.Null, warmUp: true, services, [k]);
                    servers.Add(server);
                    endpoints.Add(new ServiceEndpoint("127.0.0.1", server.Port, [k]));
                }

                gateway = GatewayServer.Start(new GatewayOptions
                {
                    Participants = TradeGenerator.Participants,
                    Services = endpoints,
                    Partitions = services,
                    AcceptHost = "127.0.0.1",
                    AcceptPort = Participants.FreePort(),
                    DataDirectory = Path.Combine(work, "gateway"),
                    StoreFlushPolicy = "OsOnly", // as the services' stores here (Verifier.ServiceSettings)
                    StoreMaxMessages = Math.Max(100_000, messages),
                    StoreMaxBytes = (int)Math.Min(Array.MaxLength, Math.Max(100_000, messages) * 600L),
                    LogPath = Path.Combine(work, "gateway.log"),
                });
                if (!gateway.WaitForServices(TimeSpan.FromSeconds(60)))
                {
                    return (false, "the gateway could not log on to every service");
                }

                port = gateway.Port;
            }

            var text = new StringWriter();
            int exit = Throughput.Run(new ThroughputOptions { Rate = rate, Seconds = seconds, Host = "127.0.0.1", Port = port, StaticData = staticData }, text);
            var lines = text.ToString().Split('\n', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries);
            string summary = lines.LastOrDefault(l => l.StartsWith("offered", StringComparison.Ordinal)) ?? lines.LastOrDefault() ?? "";
            if (gateway is not null)
            {
                var c = gateway.Counters;
                summary += $"; gateway forwarded {c.Forwarded}, answers {c.Answers}, refused (ring full) {c.RefusedRingFull}";
            }

            return (exit == 0, summary);
        }
        finally
        {
            gateway?.Stop();
            foreach (var server in servers)
            {
                server.Stop();
            }

            try
            {
                Directory.Delete(work, recursive: true);
            }
            catch (IOException)
            {
                // a log file still held by a stopping thread: the temporary directory is left behind
            }
        }
    }
}
