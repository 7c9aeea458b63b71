using System.CommandLine;
using System.Diagnostics;
using System.Net.Sockets;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using RapidFix.Engine.Configuration;
using RapidFix.Engine.Store;
using RapidFix.Gateway;

// The gateway of scaled-out matching services (docs/scale-out.md):
//   dotnet run -c Release --project src/Gateway -- --partitions 2 --service 127.0.0.1:5011=0 --service 127.0.0.1:5012=1
// Exit codes: 0 stopped cleanly, 1 the continuous phase allocated, 2 cannot start (options, stores, port).
var participants = new Option<string>("--participants")
{
    Description = "the participants' CompIDs, comma-separated (one acceptor session each)",
    DefaultValueFactory = _ => "IM1,IM2,EB1,EB2",
};
var services = new Option<string[]>("--service")
{
    Description = "a matching service and the partitions it owns: HOST:PORT=P[,P...] (once per service)",
    Required = true,
    AllowMultipleArgumentsPerToken = false,
};
var partitions = new Option<int>("--partitions") { Description = "partitions the trades are split into", DefaultValueFactory = _ => 1 };
var port = new Option<int>("--port") { Description = "the participants' acceptor port", DefaultValueFactory = _ => 5010 };
var dataDir = new Option<DirectoryInfo>("--data-dir")
{
    Description = "the session stores",
    DefaultValueFactory = _ => new DirectoryInfo(Path.Combine("store", "gateway")),
};
var compId = new Option<string>("--comp-id") { Description = "the utility's CompID (the services' too)", DefaultValueFactory = _ => "MATCH" };
var hold = new Option<int>("--hold")
{
    Description = "messages of one participant held for a service that is down (then refused with BusinessMessageReject 4)",
    DefaultValueFactory = _ => 100_000,
};
var seconds = new Option<int>("--seconds") { Description = "stop after this many seconds (0: run until Ctrl+C or SIGTERM)" };
var waitServices = new Option<int>("--wait-for-services")
{
    Description = "seconds to wait at startup for every service to be connected before the continuous phase (connecting allocates)",
};
var waitParticipants = new Option<int>("--wait-for-participants")
{
    Description = "seconds to wait at startup for every participant to log on before the continuous phase (connecting allocates)",
};
var noWarmUp = new Option<bool>("--no-warm-up")
{
    Description = "skip the warm-up through a scratch gateway (faster start; the first messages of the continuous phase then compile the path)",
};
var log = new Option<FileInfo?>("--log") { Description = "the engine's log file (default: standard output)" };
var root = new RootCommand("RapidFix gateway: the participants' FIX acceptor in front of N matching services, each owning a set of partitions.")
{
    participants, services, partitions, port, dataDir, compId, hold, seconds, waitServices, waitParticipants, noWarmUp, log,
};
root.Validators.Add(result =>
{
    foreach (var text in result.GetValue(services) ?? [])
    {
        if (ParseService(text) is null)
        {
            result.AddError($"--service {text}: expected HOST:PORT=P[,P...]");
        }
    }
});
root.SetAction(parse =>
{
    var options = new GatewayOptions
    {
        Participants = parse.GetValue(participants)!.Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries),
        Services = [.. parse.GetValue(services)!.Select(s => ParseService(s)!)],
        Partitions = parse.GetValue(partitions),
        AcceptPort = parse.GetValue(port),
        DataDirectory = parse.GetValue(dataDir)!.FullName,
        CompId = parse.GetValue(compId)!,
        HoldPerParticipant = parse.GetValue(hold),
        LogPath = parse.GetValue(log)?.FullName,
    };
    return GatewayRun.Execute(options, parse.GetValue(seconds), parse.GetValue(waitServices), parse.GetValue(waitParticipants), !parse.GetValue(noWarmUp));
});
return root.Parse(args).Invoke();

// HOST:PORT=P[,P...]
static ServiceEndpoint? ParseService(string text)
{
    int equals = text.IndexOf('=', StringComparison.Ordinal);
    int colon = equals < 0 ? -1 : text.LastIndexOf(':', equals);
    if (colon <= 0 || !int.TryParse(text.AsSpan(colon + 1, equals - colon - 1), System.Globalization.NumberStyles.None,
            System.Globalization.CultureInfo.InvariantCulture, out int servicePort) || servicePort is < 1 or > 65535)
    {
        return null;
    }

    var owned = new List<int>();
    foreach (var part in text[(equals + 1)..].Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries))
    {
        if (!int.TryParse(part, System.Globalization.NumberStyles.None, System.Globalization.CultureInfo.InvariantCulture, out int p))
        {
            return null;
        }

        owned.Add(p);
    }

    return owned.Count > 0 ? new ServiceEndpoint(text[..colon], servicePort, owned) : null;
}

namespace RapidFix.Gateway
{
    /// <summary>One run of the gateway from the command line.</summary>
    internal static class GatewayRun
    {
        public static int Execute(GatewayOptions options, int seconds, int waitForServices, int waitForParticipants, bool warmUp)
        {
            GatewayServer gateway;
            try
            {
                gateway = GatewayServer.Start(options, Console.Out);
            }
            catch (Exception ex) when (ex is ConfigurationException or StoreException or SocketException or IOException or UnauthorizedAccessException)
            {
                Console.Error.WriteLine($"gateway: cannot start: {ex.Message}");
                return 2;
            }

            if (waitForServices > 0 && !gateway.WaitForServices(TimeSpan.FromSeconds(waitForServices)))
            {
                Console.WriteLine("gateway: not every service is connected; continuing (connecting to it allocates in the continuous phase)");
            }

            if (waitForParticipants > 0 && !gateway.WaitForParticipants(TimeSpan.FromSeconds(waitForParticipants)))
            {
                Console.WriteLine("gateway: not every participant is logged on; continuing (connecting allocates in the continuous phase)");
            }

            if (warmUp)
            {
                // Last in startup, as the matching service's: every path of the phase through a scratch gateway.
                gateway.WarmUp(Console.Out);
            }

            Console.WriteLine($"ready: port {gateway.Port}. Ctrl+C stops.");
            Console.Out.Flush();
            // A flag and a sleep, not an event (the service's reason: a first wait on an event allocates its lock).
            // Ctrl+C and SIGTERM both stop it; the registrations' handlers cancel the default termination.
            var stop = new StrongBox<bool>();
            Action<PosixSignalContext> stopping = context =>
            {
                context.Cancel = true;
                Volatile.Write(ref stop.Value, true);
            };
            using var interrupt = PosixSignalRegistration.Create(PosixSignal.SIGINT, stopping);
            using var terminate = PosixSignalRegistration.Create(PosixSignal.SIGTERM, stopping);
            long end = seconds > 0 ? Stopwatch.GetTimestamp() + (seconds * Stopwatch.Frequency) : long.MaxValue;
            gateway.EnterContinuous();
            while (!Volatile.Read(ref stop.Value) && Stopwatch.GetTimestamp() < end)
            {
                Thread.Sleep(100);
            }

            gateway.EndContinuous(); // first: what follows (the counters, the stop) is shutdown work
            var counters = gateway.Counters;
            var report = gateway.Stop();
            Console.WriteLine($"forwarded {counters.Forwarded}, answers {counters.Answers}, refused: ring full {counters.RefusedRingFull}, " +
                              $"service down {counters.RefusedServiceDown}; failures: forward {counters.ForwardFailures}, answer {counters.AnswerFailures}");
            var c = report.Continuous;
            Console.WriteLine($"continuous phase: {c.Gen0Collections} collections, {c.AllocatedBytes} bytes allocated ({c.EngineThreadsAllocatedBytes} by engine threads), " +
                              $"{gateway.MethodsCompiledInPhase} methods compiled");
            return c.AllocatedBytes > 0 ? 1 : 0;
        }
    }
}
