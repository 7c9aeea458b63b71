using System.CommandLine;
using RapidFix.TradeDriver.Report;

namespace RapidFix.TradeDriver.Measure;

/// <summary>
/// The side-by-side subcommands (docs/measurement.md "QuickFIX/n side by side"): <c>echo</c>, the same driver and
/// schedule against a RapidFix and a QuickFIX/n echo acceptor with the ratio in one report; <c>echo-acceptor</c>, the
/// RapidFix echo acceptor the run starts as its own process. Exit codes: 0 every peer that ran kept up and RapidFix's
/// echo process collected nothing, 1 not, 2 a usage or environment error.
/// </summary>
internal static class EchoCommands
{
    /// <summary><c>echo</c>: RapidFix and QuickFIX/n doing the same echo work, side by side.</summary>
    public static Command SideBySide()
    {
        var duration = new Option<double>("--duration") { Description = "seconds of the measured (steady) part of each peer's run", DefaultValueFactory = _ => 20 };
        var rate = new Option<double>("--rate") { Description = "messages per second offered (open loop)", DefaultValueFactory = _ => MeasureCommands.RunDefaultRate };
        var warmUp = new Option<double>("--warm-up") { Description = "seconds of warm-up at the full rate (excluded)", DefaultValueFactory = _ => 5 };
        var ramp = new Option<double>("--ramp") { Description = "seconds of each ramp (excluded)", DefaultValueFactory = _ => 2 };
        var output = new Option<DirectoryInfo?>("--out") { Description = "directory for the report (default artifacts/measure/echo)" };
        var quickfixn = new Option<DirectoryInfo?>("--quickfixn") { Description = "a QuickFIX/n source checkout, built here (without it the RapidFix row stands alone)" };
        var command = new Command("echo", "RapidFix and QuickFIX/n side by side: the same driver, set and schedule against an echo acceptor of each, in its own process; both latency tables and the ratio")
        {
            duration, rate, warmUp, ramp, output, quickfixn,
        };
        command.Validators.Add(r =>
        {
            if (r.GetValue(duration) <= 0 || r.GetValue(rate) < 7 || r.GetValue(warmUp) < 0 || r.GetValue(ramp) < 0)
            {
                r.AddError("--duration must be positive, --rate at least 7 messages/s, --warm-up and --ramp not negative");
            }
        });
        command.SetAction(parse => MeasureCommands.Guarded(() =>
        {
            var options = new RunOptions
            {
                Rate = parse.GetValue(rate),
                SteadySeconds = parse.GetValue(duration),
                WarmUpSeconds = parse.GetValue(warmUp),
                RampSeconds = parse.GetValue(ramp),
                OutputDirectory = parse.GetValue(output)?.FullName ?? Path.GetFullPath(Path.Combine("artifacts", "measure", "echo")),
                Progress = false,
                WriteHlog = false,
            };
            Directory.CreateDirectory(options.OutputDirectory);
            string? echo = QuickFixNPeer.Prepare(parse.GetValue(quickfixn)?.FullName, options.OutputDirectory, Console.Out, TimeSpan.FromMinutes(10), out string? skipped);
            using var stop = MeasureCommands.StopSignal.Install();
            var result = SideBySideResult.Execute(options, echo, skipped, Console.Out, stop.Requested);
            var report = new MeasureReport
            {
                Title = $"RapidFix and QuickFIX/n side by side: echo at {options.Rate:N0} messages/s",
                Command = MeasureCommands.CommandLine(),
                SideBySide = result,
            };
            report.WriteFiles(options.OutputDirectory);
            Console.WriteLine(report.Text());
            Console.WriteLine($"report: {Path.Combine(options.OutputDirectory, "report.html")}");
            bool kept = result.RapidFix.Sustainable && result.QuickFixN is not { Sustainable: false };
            return kept && result.RapidFix.PeerGc is { Collections: 0 } ? 0 : 1;
        }));
        return command;
    }

    /// <summary><c>echo-acceptor</c>: the RapidFix echo acceptor as its own process (started by <c>echo</c>).</summary>
    public static Command Acceptor()
    {
        var port = new Option<int>("--port") { Description = "the port to accept on", Required = true };
        var messages = new Option<long>("--messages") { Description = "messages the run sends (sizes the session stores)", DefaultValueFactory = _ => 100_000 };
        var command = new Command("echo-acceptor", "the RapidFix echo acceptor of the side-by-side run (started by echo; protocol on its standard streams)")
        {
            port, messages,
        };
        command.Hidden = true;
        command.SetAction(parse => MeasureCommands.Guarded(() => EchoAcceptor.Run(parse.GetValue(port), parse.GetValue(messages), Console.In, Console.Out)));
        return command;
    }
}
