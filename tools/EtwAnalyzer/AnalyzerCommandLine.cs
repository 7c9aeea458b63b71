using System.Globalization;

namespace RapidFix.EtwAnalyzer;

/// <summary>What the command line asks for.</summary>
public abstract record AnalyzerCommand;

/// <summary>Analyze a trace; files go to <see cref="OutputDirectory"/> unless <see cref="WriteFiles"/> is false.</summary>
public sealed record AnalyzeCommand(string TracePath, string OutputDirectory, bool WriteFiles) : AnalyzerCommand;

/// <summary>Launch a program with tracing on.</summary>
public sealed record LaunchCommand(string Output, string Program, IReadOnlyList<string> Arguments) : AnalyzerCommand;

/// <summary>Attach to a running process.</summary>
public sealed record AttachCommand(string Output, int ProcessId, TimeSpan? Duration) : AnalyzerCommand;

/// <summary>Print the provider configuration.</summary>
public sealed record ProvidersCommand(bool AsEnvironment, string Output) : AnalyzerCommand;

/// <summary>Print the usage.</summary>
public sealed record HelpCommand : AnalyzerCommand;

/// <summary>Parses the analyzer's arguments; every mistake becomes a message, never an exception.</summary>
public static class AnalyzerCommandLine
{
    public const string Usage = """
        usage:
          EtwAnalyzer [analyze] TRACE [--out DIR] [--no-files]
              Reports startup, continuous and shutdown separately (GCs, pauses, suspensions, allocation ticks, JIT,
              exceptions, latency percentiles), writes .hgrm files and an HTML plot to DIR (default: TRACE's name
              with '-analysis'), prints the verdict last. TRACE: .nettrace, or .etl/.etlx (ETW).
              Exit code: 0 clean, 1 GC or allocation in the continuous phase, 2 the trace cannot tell (or bad input).
          EtwAnalyzer collect [--output FILE] -- PROGRAM [ARGS...]
              Runs PROGRAM (a .dll runs under dotnet) with the runtime's EventPipe session streaming to FILE
              (default trace.nettrace); exits with PROGRAM's exit code.
          EtwAnalyzer collect --pid PID [--output FILE] [--duration SECONDS]
              Attaches to a running .NET process with the diagnostics client (attach before its continuous phase).
          EtwAnalyzer providers [--env [FILE]]
              Prints the providers (for dotnet-trace --providers), or with --env the EventPipe environment variables.
        """;

    public static AnalyzerCommand? Parse(IReadOnlyList<string> args, out string? error)
    {
        error = null;
        if (args.Count == 0)
        {
            error = "no trace file given";
            return null;
        }

        switch (args[0])
        {
            case "-h" or "--help" or "help":
                return new HelpCommand();
            case "collect":
                return ParseCollect(args.Skip(1).ToList(), out error);
            case "providers":
                return ParseProviders(args.Skip(1).ToList(), out error);
            case "analyze":
                return ParseAnalyze(args.Skip(1).ToList(), out error);
            default:
                return ParseAnalyze(args, out error);
        }
    }

    private static AnalyzerCommand? ParseAnalyze(IReadOnlyList<string> args, out string? error)
    {
        error = null;
        string? trace = null;
        string? output = null;
        bool files = true;
        for (int i = 0; i < args.Count; i++)
        {
            switch (args[i])
            {
                case "--out":
                    if (i + 1 >= args.Count || args[i + 1].StartsWith("--", StringComparison.Ordinal))
                    {
                        error = "--out needs a directory";
                        return null;
                    }

                    output = args[++i];
                    break;
                case "--no-files":
                    files = false;
                    break;
                default:
                    if (args[i].StartsWith("--", StringComparison.Ordinal))
                    {
                        error = $"unknown option '{args[i]}'";
                        return null;
                    }

                    if (trace is not null)
                    {
                        error = $"one trace at a time ('{trace}' and '{args[i]}' given)";
                        return null;
                    }

                    trace = args[i];
                    break;
            }
        }

        if (trace is null)
        {
            error = "no trace file given";
            return null;
        }

        output ??= Path.Combine(Path.GetDirectoryName(Path.GetFullPath(trace)) ?? ".", Path.GetFileNameWithoutExtension(trace) + "-analysis");
        return new AnalyzeCommand(trace, output, files);
    }

    private static AnalyzerCommand? ParseCollect(IReadOnlyList<string> args, out string? error)
    {
        error = null;
        string output = "trace.nettrace";
        int? pid = null;
        TimeSpan? duration = null;
        for (int i = 0; i < args.Count; i++)
        {
            switch (args[i])
            {
                case "--":
                    if (pid is not null)
                    {
                        error = "collect takes either --pid or a program after --, not both";
                        return null;
                    }

                    if (i + 1 >= args.Count)
                    {
                        error = "no program after --";
                        return null;
                    }

                    return new LaunchCommand(output, args[i + 1], args.Skip(i + 2).ToList());
                case "--output":
                    if (i + 1 >= args.Count)
                    {
                        error = "--output needs a file name";
                        return null;
                    }

                    output = args[++i];
                    break;
                case "--pid":
                    if (i + 1 >= args.Count || !int.TryParse(args[i + 1], NumberStyles.None, CultureInfo.InvariantCulture, out int p) || p <= 0)
                    {
                        error = "--pid needs a process id";
                        return null;
                    }

                    pid = p;
                    i++;
                    break;
                case "--duration":
                    if (i + 1 >= args.Count || !double.TryParse(args[i + 1], NumberStyles.Float, CultureInfo.InvariantCulture, out double s) || s <= 0)
                    {
                        error = "--duration needs a positive number of seconds";
                        return null;
                    }

                    duration = TimeSpan.FromSeconds(s);
                    i++;
                    break;
                default:
                    error = $"unknown collect option '{args[i]}' (a program to launch goes after --)";
                    return null;
            }
        }

        if (pid is null)
        {
            error = "collect needs --pid PID, or -- PROGRAM [ARGS...]";
            return null;
        }

        return new AttachCommand(output, pid.Value, duration);
    }

    private static AnalyzerCommand? ParseProviders(IReadOnlyList<string> args, out string? error)
    {
        error = null;
        if (args.Count == 0)
        {
            return new ProvidersCommand(false, "trace.nettrace");
        }

        if (args[0] == "--env" && args.Count <= 2)
        {
            return new ProvidersCommand(true, args.Count == 2 ? args[1] : "trace.nettrace");
        }

        error = $"providers takes only --env [FILE] (got '{string.Join(' ', args)}')";
        return null;
    }
}
