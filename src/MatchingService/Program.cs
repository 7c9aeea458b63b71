using System.CommandLine;
using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Net.Sockets;
using RapidFix.Engine.Configuration;
using RapidFix.Engine.Store;
using RapidFix.MatchingService;

// The matching service: one FIX session per participant, the matcher behind them (docs/matching-service.md).
//   dotnet run -c Release --project src/MatchingService -- --config <settings> --static-data <dir>
// Exit codes: 0 stopped cleanly (Ctrl+C, SIGTERM, --seconds), 1 the continuous phase allocated or the matcher
// stopped on a journal fault, 2 the service could not start (settings, static data, journal, port).
var config = new Option<FileInfo>("--config")
{
    Description = "QuickFIX-style settings: one acceptor [SESSION] per participant",
    DefaultValueFactory = _ => new FileInfo(Path.Combine(AppContext.BaseDirectory, "demo", "service.cfg")),
};
var staticData = new Option<DirectoryInfo>("--static-data")
{
    Description = "the static-data directory (CSV files, docs/matching.md)",
    DefaultValueFactory = _ => new DirectoryInfo(Path.Combine(AppContext.BaseDirectory, "StaticData", "Demo")),
};
var port = new Option<int>("--port") { Description = "listen on this port instead of the settings' SocketAcceptPort (0: the settings')" };
var dataDir = new Option<DirectoryInfo?>("--data-dir") { Description = "session stores and input journal here instead of the settings' FileStorePath" };
var seconds = new Option<int>("--seconds") { Description = "stop after this many seconds (0: run until Ctrl+C or SIGTERM)" };
var noWarmUp = new Option<bool>("--no-warm-up") { Description = "skip the warm-up (faster start; the first trades then compile code)" };
var waitLogons = new Option<int>("--wait-for-participants")
{
    Description = "seconds to wait at startup for every participant to log on before the continuous phase (a measured run: connection set-up allocates)",
};
var businessDate = new Option<int>("--business-date") { Description = "business date (yyyymmdd) of a new input journal (default: today, UTC; a journal keeps its own)" };
var rollTime = new Option<string?>("--roll-time")
{
    Description = "time of day (UTC, HH:MM[:SS]) the business date ends: the service rolls to the next business day and expires trades open too long (default: no roll)",
};
var expiryDays = new Option<int>("--expiry-days")
{
    Description = "business days a trade may stay open before it expires into the exception queue",
    DefaultValueFactory = _ => 3,
};
var openTrades = new Option<int>("--open-trades")
{
    Description = "trades the matcher holds open at once, sized at startup (cleared trades kept: a quarter of it; message rows: 8 a trade); a full table is an exception to the sender, counted",
    DefaultValueFactory = _ => ServiceOptions.DefaultOpenTrades,
};
var log = new Option<FileInfo?>("--log") { Description = "the engine's log file (default: standard output)" };
var maxInputs = new Option<int>("--max-inputs")
{
    Description = "inputs the day's input journal holds (a full journal refuses further inputs, counted)",
    DefaultValueFactory = _ => 4_000_000,
};
var partitions = new Option<int>("--partitions")
{
    Description = "partitions the trades are split into across matching services (docs/scale-out.md)",
    DefaultValueFactory = _ => 1,
};
var own = new Option<string?>("--own") { Description = "the partitions this instance owns, comma-separated (default: every one)" };
var journalBytes = new Option<int>("--journal-bytes")
{
    Description = "bytes of the input journal's write window in memory, committed at startup and reused once durable (the file is bounded by the disk and --max-inputs; a window the disk has not caught up with refuses inputs, counted)",
    DefaultValueFactory = _ => 64 << 20,
};

var root = new RootCommand("RapidFix matching service: post-trade matching (NOE, ALC, NPR, SET -> CLS) behind one FIX session per participant.")
{
    config, staticData, port, dataDir, seconds, noWarmUp, log, maxInputs, journalBytes, businessDate, waitLogons, rollTime, expiryDays, openTrades, partitions, own,
};
root.Validators.Add(result =>
{
    if (Given(result, port) is < 0 or > 65535)
    {
        result.AddError("--port must be between 0 and 65535");
    }

    if (Given(result, seconds) < 0)
    {
        result.AddError("--seconds must not be negative");
    }

    if (Given(result, maxInputs) < 0)
    {
        result.AddError("--max-inputs must be positive");
    }

    if (Given(result, journalBytes) < 64 << 10)
    {
        result.AddError("--journal-bytes must be at least 65536 (64 KiB)");
    }

    if (Given(result, businessDate) is int date && date != 0 && !RapidFix.Matching.Codes.IsDate(date))
    {
        result.AddError("--business-date must be a date yyyymmdd");
    }

    if (Given(result, expiryDays) < 1)
    {
        result.AddError("--expiry-days must be at least 1");
    }

    if (Given(result, openTrades) < 1)
    {
        result.AddError("--open-trades must be at least 1");
    }

    if (Given(result, partitions) < 1)
    {
        result.AddError("--partitions must be at least 1");
    }

    if (result.GetValue(own) is string owned && ParseOwned(owned) is null)
    {
        result.AddError("--own must list partition numbers, comma-separated");
    }

    if (result.GetValue(rollTime) is string roll && ParseRollTime(roll) is null)
    {
        result.AddError("--roll-time must be a time of day HH:MM or HH:MM:SS (UTC)");
    }
});
root.SetAction(parse =>
{
    var options = new ServiceOptions
    {
        SettingsPath = parse.GetValue(config)!.FullName,
        StaticDataPath = parse.GetValue(staticData)!.FullName,
        Port = parse.GetValue(port),
        DataDirectory = parse.GetValue(dataDir)?.FullName,
        WarmUp = !parse.GetValue(noWarmUp),
        LogPath = parse.GetValue(log)?.FullName,
        MaxInputs = parse.GetValue(maxInputs),
        InputJournalBytes = parse.GetValue(journalBytes),
        BusinessDate = parse.GetValue(businessDate),
        WaitForLogons = TimeSpan.FromSeconds(parse.GetValue(waitLogons)),
        RollTime = parse.GetValue(rollTime) is string roll ? ParseRollTime(roll) : null,
        ExpiryBusinessDays = parse.GetValue(expiryDays),
        OpenTrades = parse.GetValue(openTrades),
        Partitions = parse.GetValue(partitions),
        OwnedPartitions = parse.GetValue(own) is string owned ? ParseOwned(owned) : null,
    };
    return ServiceRun.Execute(options, parse.GetValue(seconds));
});
return root.Parse(args).Invoke();

// The value of an option the command line gives, or null when it is absent (validators see no default values, and
// an absent option needs no check).
static int? Given(System.CommandLine.Parsing.CommandResult result, Option<int> option) =>
    result.GetResult(option) is { Implicit: false } ? result.GetValue(option) : null;

static TimeSpan? ParseRollTime(string text) =>
    TimeSpan.TryParseExact(text, ["hh\\:mm", "hh\\:mm\\:ss"], System.Globalization.CultureInfo.InvariantCulture, out var time) && time < TimeSpan.FromDays(1)
        ? time
        : null;

static int[]? ParseOwned(string text)
{
    var parts = text.Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries);
    var owned = new int[parts.Length];
    for (int i = 0; i < parts.Length; i++)
    {
        if (!int.TryParse(parts[i], System.Globalization.NumberStyles.None, System.Globalization.CultureInfo.InvariantCulture, out owned[i]))
        {
            return null;
        }
    }

    return parts.Length > 0 ? owned : null;
}

namespace RapidFix.MatchingService
{
    /// <summary>One run of the service from the command line.</summary>
    internal static class ServiceRun
    {
        public static int Execute(ServiceOptions options, int seconds)
        {
            MatchingServer server;
            try
            {
                server = MatchingServer.Start(options, Console.Out);
            }
            catch (Exception ex) when (ex is ConfigurationException or InvalidDataException or StoreException or SocketException or IOException
                                           or UnauthorizedAccessException or OutOfMemoryException)
            {
                // A user's mistake (or an environment problem) gets its message, not a stack trace.
                Console.Error.WriteLine($"matching service: cannot start: {ex.Message}");
                return 2;
            }

            using var stats = ServiceStatsPublisher.FromEnvironment(server); // queue depths for a measuring process (docs/measurement.md)
            Console.WriteLine($"ready: port {server.Port}. Ctrl+C stops.");
            Console.Out.Flush();
            // A flag and a sleep, not an event: waiting on an event allocates its lock on the first wait, which would
            // be in the continuous phase.
            var stop = new StrongBox<bool>();
            Console.CancelKeyPress += (_, e) =>
            {
                e.Cancel = true;
                Volatile.Write(ref stop.Value, true);
            };
            using var sigterm = System.Runtime.InteropServices.PosixSignalRegistration.Create(System.Runtime.InteropServices.PosixSignal.SIGTERM, c =>
            {
                c.Cancel = true;
                Volatile.Write(ref stop.Value, true);
            });
            long end = seconds > 0 ? Stopwatch.GetTimestamp() + (seconds * Stopwatch.Frequency) : long.MaxValue;
            _ = stats?.StopRequested; // compiled in startup, not at the first poll below
            server.EnterContinuous(); // the last thing startup does: nothing below allocates until the stop
            // A measuring process asks for the stop through the stats file (no signal: its dispatch allocates).
            while (!Volatile.Read(ref stop.Value) && !(stats is not null && stats.StopRequested) && Stopwatch.GetTimestamp() < end)
            {
                Thread.Sleep(100);
            }

            server.EndContinuous(); // before anything is read for the report below
            var counters = server.Counters;
            var matcher = server.MatcherCounters;
            int open = server.OpenTrades;
            long flushers = server.FlusherAllocatedBytes;
            bool faulted = server.Fault is not null;
            var report = server.Stop();
            Console.WriteLine($"inputs matched {counters.InputsMatched}, answers sent {counters.AnswersSent}, refused for back-pressure {counters.InputsRefused}, " +
                              $"held back {counters.AnswersHeldBack}, journal flusher threads allocated {flushers} bytes since startup");
            Console.WriteLine($"trades cleared {matcher.Cleared}, open {open}, inputs rejected {matcher.Rejected} (table full {matcher.TableFull})");
            var c = report.Continuous;
            Console.WriteLine($"continuous phase: {c.Gen0Collections} collections, {c.AllocatedBytes} bytes allocated");
            if (faulted)
            {
                Console.Error.WriteLine("matching service: the matcher stopped: the input journal faulted");
            }

            return faulted || c.AllocatedBytes > 0 ? 1 : 0;
        }
    }
}
