using System.CommandLine;

namespace RapidFix.Samples.FixLoad;

/// <summary>The command line of the load.</summary>
internal sealed record LoadOptions
{
    public double Seconds { get; init; } = 60;

    public int Rate { get; init; } = 10_000;

    public int Port { get; init; }

    public bool AllocatingHandler { get; init; }

    public long NoGcRegionBytes { get; init; }

    public int WarmUpBurst { get; init; } = 2_000;

    public string? LogPath { get; init; }

    /// <summary>
    /// The command line (System.CommandLine: --help, errors, exit codes); its action runs <paramref name="run"/>
    /// with the parsed options.
    /// </summary>
    public static RootCommand Command(Func<LoadOptions, int> run)
    {
        var defaults = new LoadOptions();
        var seconds = new Option<double>("--seconds") { Description = "length of the continuous phase, in seconds", DefaultValueFactory = _ => defaults.Seconds };
        seconds.Check(value => value is > 0 and <= 7 * 24 * 3600, "--seconds needs a positive number of seconds (at most a week)");
        var rate = new Option<int>("--rate") { Description = "NewOrderSingle messages per second, paced each millisecond", DefaultValueFactory = _ => defaults.Rate };
        rate.Check(value => value is >= 1 and <= 1_000_000, "--rate needs a number of messages per second between 1 and 1000000");
        var port = new Option<int>("--port") { Description = "loopback port of the acceptor (default: a free one)" };
        port.Check(value => value is >= 1 and <= 65535, "--port needs a TCP port number (1-65535)");
        var burst = new Option<int>("--warmup-burst") { Description = "orders per warm-up round", DefaultValueFactory = _ => defaults.WarmUpBurst }.AtLeast(1);
        var noGcRegion = new Option<long>("--no-gc-region") { Description = "run the continuous phase inside a no-GC region of this many bytes (the tripwire)" };
        noGcRegion.Check(value => value > 0, "--no-gc-region needs a positive number of bytes");
        var allocating = new Option<bool>("--allocating-handler") { Description = "make the acceptor's order handler allocate in the continuous phase (to prove the gate fails)" };
        var log = new Option<string>("--log") { Description = "write the engine's log (logons, rejects, disconnections) to this file" };
        var root = new RootCommand("RapidFix FixLoad: an initiator sends NewOrderSingle at a steady rate to an acceptor in this process; prints the latency table and what the GC did.")
        {
            seconds, rate, port, burst, noGcRegion, allocating, log,
        };
        root.SetAction(parse => SampleCommand.Guarded("FixLoad", () => run(new LoadOptions
        {
            Seconds = parse.GetValue(seconds),
            Rate = parse.GetValue(rate),
            Port = parse.GetValue(port),
            WarmUpBurst = parse.GetValue(burst),
            NoGcRegionBytes = parse.GetValue(noGcRegion),
            AllocatingHandler = parse.GetValue(allocating),
            LogPath = parse.GetValue(log),
        })));
        return root;
    }
}
