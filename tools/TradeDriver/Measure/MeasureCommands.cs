using System.CommandLine;
using System.Globalization;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using RapidFix.TradeDriver.Report;

namespace RapidFix.TradeDriver.Measure;

/// <summary>
/// The measuring subcommands of the trade driver (docs/measurement.md): <c>run</c> (the one-minute whole thing),
/// <c>table</c> (the 4-day table), <c>mst</c> (maximum sustainable throughput), <c>curve</c> (throughput vs
/// latency), <c>oa</c> (operational analysis) and <c>soak</c>. Exit codes: 0 the run was sustainable and the
/// service's continuous phase collected nothing, 1 it was not or it did, 2 a usage or environment error.
/// </summary>
internal static class MeasureCommands
{
    private static readonly CultureInfo Inv = CultureInfo.InvariantCulture;

    /// <summary>
    /// Seconds of the MST's confirmation step (<c>mst --confirm-seconds</c>): paper 001's overload experiment ran 120 s
    /// and its queue grew linearly for 100 s before the system turned erratic; a step's queue growth is judged against
    /// a tenth of a second's messages over the window, so 300 s sees a growth of 0.033 % of the rate a second (6
    /// inputs/s at 19,200/s; a 10-s step needs 1 %, 192/s, and missed the 44 inputs/s the 10-minute soak found).
    /// </summary>
    public const double DefaultConfirmSeconds = 300;

    /// <summary>Adds the subcommands to the driver's root command.</summary>
    public static void Register(RootCommand root)
    {
        root.Subcommands.Add(RunCommand("run", "the one-minute version of everything (the README's main command): the service with its journal in its own process, PostgreSQL and the persister when present, the driver, the sink, the report, the zero-GC verdict", 60, RunDefaultRate, Kind.Run));
        root.Subcommands.Add(RunCommand("table", "the 4-day table (paper 002): count, run time, min, mean, std, median, p90 ... p99.999, max for send, receive and end to end, and the GC count", 60, 10_000, Kind.Table));
        root.Subcommands.Add(RunCommand("oa", "operational analysis (paper 000): every queue sampled at a fixed interval; X, U, S, R = N/X per component; the bottleneck", 30, 10_000, Kind.Oa));
        root.Subcommands.Add(RunCommand("soak", "a long run: interval histograms (.hlog), resident memory, GC counts, sustainability, a live progress line; stops cleanly on Ctrl+C, SIGTERM or the deadline", 600, 2_000, Kind.Soak));
        root.Subcommands.Add(SweepCommand("curve", "sweep the offered rate: p50, p99, p99.99 against achieved throughput (paper 004)", mst: false));
        root.Subcommands.Add(EchoCommands.SideBySide());
        root.Subcommands.Add(EchoCommands.Acceptor());
        root.Subcommands.Add(PersisterLag.Command());
        root.Subcommands.Add(ChildOutputCheck.Command());
        root.Subcommands.Add(QuietTimers.Command());
        root.Subcommands.Add(PersisterRun.SetupCommand());
        root.Subcommands.Add(ReportComparison.Command());
        root.Subcommands.Add(SweepCommand("mst", "search the maximum sustainable throughput (paper 001): the highest offered rate that achieved keeps up with, queues bounded", mst: true));
    }

    /// <summary>
    /// The main command's default rate: sustainable on a 2-core machine with the service's durable stores (fsync before
    /// send) and the persister beside it, with room to spare; docs/performance.md has the measured MST.
    /// </summary>
    public const int RunDefaultRate = 1_000;

    private enum Kind
    {
        Run,
        Table,
        Oa,
        Soak,
    }

    private static Command RunCommand(string name, string description, int seconds, int rate, Kind kind)
    {
        var duration = new Option<double>("--duration") { Description = "seconds of the measured (steady) part", DefaultValueFactory = _ => seconds };
        var rateOption = new Option<double>("--rate") { Description = "messages per second offered (open loop)", DefaultValueFactory = _ => rate };
        var common = new CommonOptions(kind == Kind.Soak ? 10 : 1);
        var command = new Command(name, description) { duration, rateOption };
        common.AddTo(command);
        command.Validators.Add(r =>
        {
            if (Given(r, duration) <= 0)
            {
                r.AddError("--duration must be positive");
            }

            if (Given(r, rateOption) < 7)
            {
                r.AddError("--rate must be at least 7 messages/s (one trade a second)");
            }

            common.Validate(r);
        });
        command.SetAction(parse => Guarded(() =>
        {
            var options = common.Options(parse, parse.GetValue(rateOption), parse.GetValue(duration), name, kind == Kind.Soak);
            var peer = common.QuickFixN(parse, options.OutputDirectory, Console.Out);

            using var stop = StopSignal.Install();
            var run = MeasuredRun.Execute(options, Console.Out, stop.Requested);
            // With --quickfixn, the same schedule against the two echo acceptors, after the measured run (docs/measurement.md).
            var sideBySide = peer.Given && !stop.Requested() ? SideBySideResult.Execute(options, peer.Echo, peer.Skipped, Console.Out, stop.Requested) : null;
            var report = new MeasureReport
            {
                Title = $"RapidFix matching service: {name} at {options.Rate:N0} messages/s",
                Command = CommandLine(),
                Run = run,
                Soak = kind == Kind.Soak,
                SideBySide = sideBySide,
            };
            report.WriteFiles(options.OutputDirectory);
            // A 600-s soak at 14,400/s leaves 6.3 GB of journal and stores: two soaks and a search filled the disk.
            common.DeleteServiceData(parse, options.OutputDirectory);
            if (kind == Kind.Table)
            {
                Console.WriteLine(LatencyRow.Format(run.Rows(RunPhase.Steady)));
                Console.WriteLine($"GC of the service's continuous phase: {MeasureReport.GcLine(run)}");
            }
            else
            {
                Console.WriteLine(report.Text());
            }

            Console.WriteLine($"report: {Path.Combine(options.OutputDirectory, "report.html")}");
            if (stop.Requested())
            {
                Console.WriteLine("stopped early on a signal: the figures cover the part that ran");
            }

            if (!run.Step.Sustainable(0))
            {
                // The queue that grew (the service's or the persister's lag), just above the figures line.
                Console.WriteLine(string.Create(Inv, $"UNSUSTAINABLE at {options.Rate:N0}/s ({run.Step.Path}): {run.Step.Why(0)}"));
            }

            Console.WriteLine(LastLine(run));
            bool soakMet = kind != Kind.Soak || SoakVerdict.Of(run.Intervals, MeasureReport.GcCount(run)) is { Met: true };
            return MeasureReport.GcCount(run) == 0 && run.Step.Sustainable(0) && soakMet ? 0 : 1;
        }));
        return command;
    }

    private static Command SweepCommand(string name, string description, bool mst)
    {
        var rates = new Option<string>("--rates") { Description = "offered rates, comma-separated (curve)", DefaultValueFactory = _ => "1000,2000,4000,8000,12000" };
        var start = new Option<double>("--start") { Description = "the first rate tried (mst)", DefaultValueFactory = _ => 2000 };
        var ceiling = new Option<double>("--ceiling") { Description = "the highest rate tried (mst)", DefaultValueFactory = _ => 64_000 };
        var precision = new Option<double>("--precision") { Description = "stop when the bracket is narrower than this fraction (mst)", DefaultValueFactory = _ => 0.05 };
        var maxSteps = new Option<int>("--max-steps") { Description = "steps at most (mst)", DefaultValueFactory = _ => 10 };
        var p99 = new Option<double>("--p99-limit") { Description = "a step whose p99 input-to-ack exceeds this many µs is unsustainable (mst; 0: no limit)" };
        var step = new Option<double>("--step-seconds") { Description = "seconds of each step's measured part", DefaultValueFactory = _ => 15 };
        var confirmSeconds = new Option<double>("--confirm-seconds")
        {
            Description = "mst: run the rate found again for this many seconds (paper 001: a slow build-up shows only over a long window); 0: no confirmation",
            DefaultValueFactory = _ => DefaultConfirmSeconds,
        };
        var confirmations = new Option<int>("--confirmations") { Description = "mst: confirmations at most (each failed one tries 10 % lower)", DefaultValueFactory = _ => 3 };
        var common = new CommonOptions(1);
        var command = new Command(name, description) { step };
        if (mst)
        {
            command.Options.Add(start);
            command.Options.Add(ceiling);
            command.Options.Add(precision);
            command.Options.Add(maxSteps);
            command.Options.Add(p99);
            command.Options.Add(confirmSeconds);
            command.Options.Add(confirmations);
        }
        else
        {
            command.Options.Add(rates);
        }

        common.AddTo(command);
        command.Validators.Add(r =>
        {
            if (Given(r, step) <= 0)
            {
                r.AddError("--step-seconds must be positive");
            }

            if (!mst && r.GetResult(rates) is { Implicit: false } && ParseRates(r.GetValue(rates)) is null)
            {
                r.AddError("--rates must be positive numbers separated by commas");
            }

            if (mst && (Given(r, start) < 7 || Given(r, ceiling) < (Given(r, start) ?? 2000) || Given(r, precision) <= 0 || Given(r, maxSteps) < 1))
            {
                r.AddError("--start must be at least 7, --ceiling at least --start, --precision and --max-steps positive");
            }

            if (mst && (Given(r, confirmSeconds) < 0 || Given(r, confirmations) < 1))
            {
                r.AddError("--confirm-seconds must be 0 (none) or positive, --confirmations positive");
            }

            common.Validate(r);
        });
        command.SetAction(parse => Guarded(() =>
        {
            using var stop = StopSignal.Install();
            var baseOptions = common.Options(parse, 1, parse.GetValue(step), name, soak: false);
            common.QuickFixN(parse, baseOptions.OutputDirectory, Console.Out);
            RunResult? last = null;
            StepResult Step(double rate) => Measured(rate, baseOptions.SteadySeconds, confirmation: false);
            StepResult Confirm(double rate) => Measured(rate, parse.GetValue(confirmSeconds), confirmation: true);
            StepResult Measured(double rate, double seconds, bool confirmation)
            {
                if (stop.Requested())
                {
                    throw new OperationCanceledException();
                }

                Console.WriteLine(string.Create(Inv, $"== {(confirmation ? "confirmation" : "step")}: {rate:N0} messages/s for {seconds:F0} s =="));
                var o = baseOptions with
                {
                    Rate = rate,
                    SteadySeconds = seconds,
                    OutputDirectory = Path.Combine(baseOptions.OutputDirectory, string.Create(Inv, $"{(confirmation ? "confirm" : "rate")}-{rate:F0}")),
                    Progress = false,
                };
                last = MeasuredRun.Execute(o, Console.Out, stop.Requested);
                // A 300-s confirmation at 40,000/s leaves 9 GB of journal and stores: a search's steps would add up
                // to the disk (the next step's database then filled it). The step's figures are measured.
                common.DeleteServiceData(parse, o.OutputDirectory);

                var result = last.Step;
                double limit = parse.GetValue(p99);
                Console.WriteLine(string.Create(Inv, $"offered {result.Offered:N0}/s achieved {result.Achieved:N0}/s bounded {(result.Bounded ? "yes" : "no")}{(result.Persister is { } pv ? $" persister lag {(pv.Bounded ? "bounded" : "NOT bounded")} ({pv.GrowthPerSecond:F0} inputs/s)" : " (no persister)")} refused {result.Refused:N0} p99 {result.P99Micros:F1} us: {(result.Sustainable(limit) ? "sustainable" : "unsustainable: " + result.Why(limit))}"));
                return result;
            }

            var steps = new List<StepResult>();
            MstResult? found = null;
            try
            {
                if (mst)
                {
                    double confirmFor = parse.GetValue(confirmSeconds);
                    found = MstSearch.Run(Step, parse.GetValue(start), parse.GetValue(ceiling), parse.GetValue(precision), parse.GetValue(maxSteps), parse.GetValue(p99),
                        confirmFor > 0 ? Confirm : null, parse.GetValue(confirmations)) with { ConfirmSeconds = confirmFor };
                    steps.AddRange(found.Steps);
                }
                else
                {
                    foreach (double rate in ParseRates(parse.GetValue(rates))!)
                    {
                        steps.Add(Step(rate));
                    }
                }
            }
            catch (OperationCanceledException)
            {
                Console.WriteLine("stopped early on a signal: the report covers the steps that ran");
            }

            var report = new MeasureReport
            {
                Title = mst ? "RapidFix matching service: maximum sustainable throughput" : "RapidFix matching service: throughput vs latency",
                Command = CommandLine(),
                Run = last,
                Steps = steps,
                Mst = found,
            };
            report.WriteFiles(baseOptions.OutputDirectory);
            Console.WriteLine(report.Text());
            Console.WriteLine($"report: {Path.Combine(baseOptions.OutputDirectory, "report.html")}");
            if (found is not null)
            {
                Console.WriteLine(MeasureReport.MstLine(found));
            }

            return found is null || found.Mst > 0 ? 0 : 1;
        }));
        return command;
    }

    /// <summary>The main command's last line: messages, achieved rate, p99.99 end to end, GC count.</summary>
    public static string LastLine(RunResult run)
    {
        var ack = run.Latency.Of(LatencyChannel.Ack, RunPhase.Steady);
        double p9999 = ack.TotalCount == 0 ? 0 : ack.GetValueAtPercentile(99.99) / 1000.0;
        return string.Create(Inv, $"processed {run.Sent} messages at {run.AchievedPerSecond:F0}/s, p99.99 {p9999:F1} us, GC {MeasureReport.GcCount(run)}");
    }

    /// <summary>Comma-separated positive rates, or null.</summary>
    public static double[]? ParseRates(string? text)
    {
        if (string.IsNullOrWhiteSpace(text))
        {
            return null;
        }

        var list = new List<double>();
        foreach (var part in text.Split(',', StringSplitOptions.TrimEntries | StringSplitOptions.RemoveEmptyEntries))
        {
            if (!double.TryParse(part, NumberStyles.Float, Inv, out double r) || r < 7)
            {
                return null;
            }

            list.Add(r);
        }

        return list.Count > 0 ? [.. list] : null;
    }

    // The value of an option the command line gives, or null when it is absent (validators see no default values).
    private static T? Given<T>(System.CommandLine.Parsing.CommandResult result, Option<T> option)
        where T : struct =>
        result.GetResult(option) is { Implicit: false } ? result.GetValue(option) : null;

    internal static string CommandLine() =>
        "dotnet run -c Release --project tools/TradeDriver -f net10.0 -- " + string.Join(' ', Environment.GetCommandLineArgs().Skip(1));

    internal static int Guarded(Func<int> run)
    {
        try
        {
            return run();
        }
        catch (Exception ex) when (ex is InvalidDataException or IOException or UnauthorizedAccessException or FileNotFoundException
                                       or System.Net.Sockets.SocketException or RapidFix.Engine.Configuration.ConfigurationException)
        {
            Console.Error.WriteLine($"trade driver: {ex.Message}");
            return 2;
        }
    }

    /// <summary>The options every measuring command shares.</summary>
    private sealed class CommonOptions(double intervalSeconds)
    {
        private readonly Option<DirectoryInfo?> _out = new("--out") { Description = "directory for the report and its files (default artifacts/measure/<command>)" };
        private readonly Option<double> _warmUp = new("--warm-up") { Description = "seconds of warm-up at the full rate (excluded, reported on its own)", DefaultValueFactory = _ => 5 };
        private readonly Option<double> _ramp = new("--ramp") { Description = "seconds of each ramp (excluded, reported on their own)", DefaultValueFactory = _ => 2 };
        private readonly Option<double> _interval = new("--interval") { Description = "seconds between interval histograms, progress lines and .hlog entries", DefaultValueFactory = _ => intervalSeconds };
        private readonly Option<double> _sample = new("--sample-ms") { Description = "milliseconds between queue samples (operational analysis)", DefaultValueFactory = _ => 50 };
        private readonly Option<bool> _noTrace = new("--no-trace") { Description = "do not trace the service (no EventPipe verdict: the GC count comes from the service's own report)" };
        private readonly Option<string> _flush = new("--flush") { Description = "the service's store flush policy: GroupCommit (durable) or OsOnly", DefaultValueFactory = _ => "GroupCommit" };
        private readonly Option<DirectoryInfo?> _quickfixn = new("--quickfixn") { Description = "a QuickFIX/n source checkout: built here; run/table/oa/soak then run the same schedule against a RapidFix and a QuickFIX/n echo acceptor and report the ratio (docs/measurement.md)" };
        private readonly Option<long> _journalBytes = new("--journal-bytes")
        {
            Description = "bytes of the service's input journal write window in memory (the file grows on disk); 0: the service's 64 MiB, for a run of any length",
        };

        private readonly Option<bool> _noPersister = new("--no-persister") { Description = "no PostgreSQL persister even when PostgreSQL's server binaries are present" };
        private readonly Option<int> _sendTick = new("--send-tick-us")
        {
            Description = "microseconds the driver sleeps at least between two turns, each sending every message due (Linux; its send lag is up to a tick more); 0: yield until the next message (a busy core)",
            DefaultValueFactory = _ => 100,
        };

        private readonly Option<string> _driverPriority = new("--driver-priority")
        {
            Description = "how the driver's timing threads (sending, receiving) are scheduled: realtime (SCHED_FIFO 1 where the kernel allows it, so other processes cannot hold them off the CPU; the report says when refused) or normal",
            DefaultValueFactory = _ => "realtime",
        };

        private readonly Option<bool> _keepData = new("--keep-data")
        {
            Description = "keep the service's data (its journal and session stores: about 770 bytes an input) in <out>/service/data instead of deleting it once the run (or step) is measured",
        };

        /// <summary>Deletes a measured run's <c>service/data</c> unless <c>--keep-data</c> was given (its logs, trace and stats stay).</summary>
        public void DeleteServiceData(ParseResult parse, string outputDirectory)
        {
            string data = Path.Combine(outputDirectory, "service", "data");
            if (parse.GetValue(_keepData) || !Directory.Exists(data))
            {
                return;
            }

            try
            {
                Directory.Delete(data, recursive: true);
            }
            catch (Exception e) when (e is IOException or UnauthorizedAccessException)
            {
                Console.WriteLine($"note: the service's data at {data} could not be deleted ({e.Message})");
            }
        }

        public void AddTo(Command command)
        {
            foreach (var o in new Option[] { _out, _warmUp, _ramp, _interval, _sample, _noTrace, _flush, _quickfixn, _journalBytes, _noPersister, _sendTick, _driverPriority, _keepData })
            {
                command.Options.Add(o);
            }
        }

        public void Validate(System.CommandLine.Parsing.CommandResult r)
        {
            if (Given(r, _warmUp) < 0 || Given(r, _ramp) < 0)
            {
                r.AddError("--warm-up and --ramp must not be negative");
            }

            if (Given(r, _interval) < 0.1 || Given(r, _sample) < 1)
            {
                r.AddError("--interval must be at least 0.1 s and --sample-ms at least 1");
            }

            if (Given(r, _journalBytes) is < 0 or (> 0 and < 1 << 20))
            {
                r.AddError("--journal-bytes must be 0 (the service's default window) or at least 1048576 (1 MiB)");
            }

            if (Given(r, _sendTick) is < 0 or > 100_000)
            {
                r.AddError("--send-tick-us must be 0 to 100000");
            }

            if (r.GetResult(_driverPriority) is { Implicit: false } && r.GetValue(_driverPriority) is not ("realtime" or "normal"))
            {
                r.AddError("--driver-priority must be realtime or normal");
            }

            if (r.GetResult(_flush) is { Implicit: false } && r.GetValue(_flush) is not ("GroupCommit" or "OsOnly"))
            {
                r.AddError("--flush must be GroupCommit or OsOnly");
            }
        }

        public RunOptions Options(ParseResult parse, double rate, double steady, string command, bool soak) => new()
        {
            Rate = rate,
            SteadySeconds = steady,
            WarmUpSeconds = parse.GetValue(_warmUp),
            RampSeconds = parse.GetValue(_ramp),
            IntervalSeconds = parse.GetValue(_interval),
            SampleSeconds = parse.GetValue(_sample) / 1000.0,
            Trace = !parse.GetValue(_noTrace),
            FlushPolicy = parse.GetValue(_flush)!,
            OutputDirectory = parse.GetValue(_out)?.FullName ?? Path.GetFullPath(Path.Combine("artifacts", "measure", command)),
            WriteHlog = true,
            Progress = true,
            DrainSeconds = soak ? 120 : 30,
            JournalBytes = parse.GetValue(_journalBytes),
            Persist = !parse.GetValue(_noPersister),
            SendTick = TimeSpan.FromMicroseconds(parse.GetValue(_sendTick)),
            RealtimeDriver = parse.GetValue(_driverPriority) != "normal",
        };

        // QuickFIX/n side by side: built from the checkout when asked for; every outcome without a peer is one line
        // and the run goes on (QuickFixNPeer). Given: the option was there (the side-by-side run then runs, with the
        // RapidFix row alone when the peer could not be built).
        public (bool Given, string? Echo, string? Skipped) QuickFixN(ParseResult parse, string outputDirectory, TextWriter output)
        {
            string? checkout = parse.GetValue(_quickfixn)?.FullName;
            string? echo = QuickFixNPeer.Prepare(checkout, outputDirectory, output, TimeSpan.FromMinutes(10), out string? skipped);
            return (checkout is not null, echo, skipped);
        }
    }

    /// <summary>Ctrl+C and SIGTERM ask the run to stop; it then finishes cleanly and writes its report.</summary>
    internal sealed class StopSignal : IDisposable
    {
        private readonly StrongBox<bool> _stop = new();
        private readonly PosixSignalRegistration _term;
        private readonly ConsoleCancelEventHandler _cancel;

        private StopSignal()
        {
            _cancel = (_, e) =>
            {
                e.Cancel = true;
                Volatile.Write(ref _stop.Value, true);
            };
            Console.CancelKeyPress += _cancel;
            _term = PosixSignalRegistration.Create(PosixSignal.SIGTERM, c =>
            {
                c.Cancel = true;
                Volatile.Write(ref _stop.Value, true);
            });
        }

        public static StopSignal Install() => new();

        public bool Requested() => Volatile.Read(ref _stop.Value);

        public void Dispose()
        {
            Console.CancelKeyPress -= _cancel;
            _term.Dispose();
        }
    }
}
