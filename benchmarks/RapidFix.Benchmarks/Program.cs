using BenchmarkDotNet.Running;

namespace RapidFix.Benchmarks;

/// <summary>Entry point: BenchmarkDotNet's switcher, so any subset runs with --filter.</summary>
public static class Program
{
    public static int Main(string[] args)
    {
        if (args.Length > 0 && args[0] == "--roundtrip")
        {
            // Round-trip latency percentiles (not a BenchmarkDotNet run): see docs/performance.md.
            return Sessions.RoundTripLatency.Run(args.Length > 1 ? int.Parse(args[1], System.Globalization.CultureInfo.InvariantCulture) : 100_000, Console.Out);
        }

        if (args.Length > 0 && args[0] == "--fast-loop")
        {
            // FAST decode in a plain loop, for instruction counts (benchmarks/count-instructions.sh).
            int passes = args.Length > 1 ? int.Parse(args[1], System.Globalization.CultureInfo.InvariantCulture) : 100;
            return Fast.FastDecodeLoop.Run(passes, args.Length > 2 ? args[2] : "corpus", Console.Out);
        }

        if (args.Length > 0 && args[0] == "--fix-loop")
        {
            // FIX frame+parse+validate in a plain loop, for instruction counts (benchmarks/count-instructions.sh).
            int passes = args.Length > 1 ? int.Parse(args[1], System.Globalization.CultureInfo.InvariantCulture) : 100;
            return Fix.FixParseLoop.Run(passes, args.Length > 2 ? args[2] : "NewOrderSingle", Console.Out);
        }

        if (args.Length > 0 && args[0] == "--match-loop")
        {
            // The matcher benchmarks' stream in a plain loop, thread CPU time per message (docs/matching.md).
            int resident = args.Length > 1 ? int.Parse(args[1], System.Globalization.CultureInfo.InvariantCulture) : 1_000_000;
            int rounds = args.Length > 2 ? int.Parse(args[2], System.Globalization.CultureInfo.InvariantCulture) : 101;
            // Options after the rounds: nohuge (tables on 4 KB pages), hotinputs (the inputs prefetched ahead),
            // tight (the benchmark's tight sizes, not the service's), cleared=N (tight, N cleared trades kept),
            // cycled (IDs repeated each pass), index=N (ID index entries a row, Matcher.IdIndexEntriesPerRow); after
            // "vs", a second configuration measured in the same process, rounds alternated with the first: MatchLoop.
            var options = args.Skip(3).ToArray();
            int vs = Array.IndexOf(options, "vs");
            var first = Matching.MatchLoop.Config.Parse(vs < 0 ? options : options[..vs]);
            return vs < 0
                ? Matching.MatchLoop.Run(resident, rounds, first, Console.Out)
                : Matching.MatchLoop.Compare(resident, rounds, first, Matching.MatchLoop.Config.Parse(options[(vs + 1)..]), Console.Out);
        }

        var summaries = BenchmarkSwitcher.FromAssembly(typeof(Program).Assembly).Run(args, BenchmarkConfig.Create());
        return summaries.Any(s => s.HasCriticalValidationErrors) ? 1 : 0;
    }
}
