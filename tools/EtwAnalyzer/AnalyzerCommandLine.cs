using System.CommandLine;
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

    /// <summary>
    /// Parses <paramref name="args"/> with System.CommandLine (the commands analyze, collect, providers and help);
    /// on a mistake returns null and says what is wrong in <paramref name="error"/>.
    /// </summary>
    public static AnalyzerCommand? Parse(IReadOnlyList<string> args, out string? error)
    {
        error = null;
        if (args.Count == 0)
        {
            error = "no trace file given";
            return null;
        }

        // What follows "--" is the program to launch and its own arguments: kept out of the parse.
        int dashDash = -1;
        for (int i = 0; i < args.Count; i++)
        {
            if (args[i] == "--")
            {
                dashDash = i;
                break;
            }
        }

        string[] ours = dashDash < 0 ? [.. args] : [.. args.Take(dashDash)];
        var messages = new Dictionary<Symbol, string>();
        var trace = new Argument<string[]>("trace") { Arity = ArgumentArity.ZeroOrMore, Description = "the trace: .nettrace, or .etl/.etlx (ETW)" };
        var outDir = Described(new Option<string>("--out") { Description = "folder for the .hgrm files and the HTML plot (default: TRACE's name with '-analysis')" }, "--out needs a directory", messages);
        var noFiles = new Option<bool>("--no-files") { Description = "print the report only" };
        var analyze = new Command("analyze", "report each phase of a trace and the verdict (the default command)") { trace, outDir, noFiles };

        var output = Described(new Option<string>("--output") { Description = "the trace file to write", DefaultValueFactory = _ => "trace.nettrace" }, "--output needs a file name", messages);
        // Numbers are read here rather than by System.CommandLine, so that a bad one gets this tool's message.
        var pid = Described(new Option<string>("--pid") { Description = "attach to this running .NET process (its id)" }, "--pid needs a process id", messages);
        pid.Validators.Add(r =>
        {
            if (!int.TryParse(r.GetValueOrDefault<string>(), NumberStyles.None, CultureInfo.InvariantCulture, out int p) || p <= 0)
            {
                r.AddError("--pid needs a process id");
            }
        });
        var duration = Described(new Option<string>("--duration") { Description = "seconds to trace an attached process" }, "--duration needs a positive number of seconds", messages);
        duration.Validators.Add(r =>
        {
            if (Seconds(r.GetValueOrDefault<string>()) is null)
            {
                r.AddError("--duration needs a positive number of seconds");
            }
        });
        var collect = new Command("collect", "run a program, or attach to a process, with tracing on: collect [--output FILE] -- PROGRAM [ARGS...] | collect --pid PID") { output, pid, duration };

        var env = new Option<string?>("--env") { Description = "print the EventPipe environment variables instead (output FILE)", Arity = ArgumentArity.ZeroOrOne };
        var providers = new Command("providers", "print the providers (for dotnet-trace --providers)") { env };
        var help = new Command("help", "print the usage");

        var rootTrace = new Argument<string[]>("trace") { Arity = ArgumentArity.ZeroOrMore };
        var rootOut = Described(new Option<string>("--out"), "--out needs a directory", messages);
        var rootNoFiles = new Option<bool>("--no-files");
        var root = new RootCommand("RapidFix EtwAnalyzer") { analyze, collect, providers, help, rootTrace, rootOut, rootNoFiles };

        // The root analyzes a trace too (no "analyze" needed): an action of its own, so no subcommand is required.
        root.SetAction(_ => AnalyzerProgram.BadInput);
        foreach (var command in new Command[] { root, analyze, collect, providers, help })
        {
            // Unknown options get this tool's wording below.
            command.TreatUnmatchedTokensAsErrors = false;
        }

        ParseResult parse = root.Parse(ours);
        if (parse.Action is System.CommandLine.Help.HelpAction || parse.CommandResult.Command == help)
        {
            return new HelpCommand();
        }

        var chosen = parse.CommandResult.Command;
        if (chosen == providers)
        {
            if (parse.UnmatchedTokens.Count > 0 || parse.Errors.Count > 0 || dashDash >= 0)
            {
                error = $"providers takes only --env [FILE] (got '{string.Join(' ', args.Skip(1))}')";
                return null;
            }

            bool asEnvironment = parse.GetResult(env) is not null;
            return new ProvidersCommand(asEnvironment, parse.GetValue(env) ?? "trace.nettrace");
        }

        if (parse.Errors.Count > 0)
        {
            var first = parse.Errors[0];
            var option = first.SymbolResult switch
            {
                System.CommandLine.Parsing.OptionResult o => o.Option,
                System.CommandLine.Parsing.ArgumentResult { Parent: System.CommandLine.Parsing.OptionResult o } => o.Option,
                _ => null,
            };
            error = option is not null && messages.TryGetValue(option, out string? message) ? message : first.Message;
            return null;
        }

        if (chosen == collect)
        {
            if (parse.UnmatchedTokens.Count > 0)
            {
                error = $"unknown collect option '{parse.UnmatchedTokens[0]}' (a program to launch goes after --)";
                return null;
            }

            bool attach = parse.GetResult(pid) is not null;
            if (dashDash >= 0)
            {
                if (attach)
                {
                    error = "collect takes either --pid or a program after --, not both";
                    return null;
                }

                if (dashDash + 1 >= args.Count)
                {
                    error = "no program after --";
                    return null;
                }

                return new LaunchCommand(parse.GetValue(output)!, args[dashDash + 1], args.Skip(dashDash + 2).ToList());
            }

            if (!attach)
            {
                error = "collect needs --pid PID, or -- PROGRAM [ARGS...]";
                return null;
            }

            int processId = int.Parse(parse.GetValue(pid)!, NumberStyles.None, CultureInfo.InvariantCulture);
            return new AttachCommand(parse.GetValue(output)!, processId, Seconds(parse.GetValue(duration)));
        }

        bool isRoot = chosen == root;
        string[] traces = [.. parse.GetValue(isRoot ? rootTrace : trace) ?? [], .. parse.UnmatchedTokens];

        // An option this tool does not know arrives as a trace path: name it as what it is.
        if (traces.FirstOrDefault(t => t.StartsWith("--", StringComparison.Ordinal)) is { } unknown)
        {
            error = $"unknown option '{unknown}'";
            return null;
        }

        if (dashDash >= 0)
        {
            error = "unknown option '--' (a program to trace goes after collect ... --)";
            return null;
        }

        if (traces.Length == 0)
        {
            error = "no trace file given";
            return null;
        }

        if (traces.Length > 1)
        {
            error = $"one trace at a time ('{traces[0]}' and '{traces[1]}' given)";
            return null;
        }

        string path = traces[0];
        string outputDirectory = parse.GetValue(isRoot ? rootOut : outDir)
            ?? Path.Combine(Path.GetDirectoryName(Path.GetFullPath(path)) ?? ".", Path.GetFileNameWithoutExtension(path) + "-analysis");
        return new AnalyzeCommand(path, outputDirectory, !parse.GetValue(isRoot ? rootNoFiles : noFiles));
    }

    /// <summary>A positive number of seconds, or null when <paramref name="text"/> is not one.</summary>
    private static TimeSpan? Seconds(string? text) =>
        double.TryParse(text, NumberStyles.Float, CultureInfo.InvariantCulture, out double s) && s > 0 ? TimeSpan.FromSeconds(s) : null;

    /// <summary>Records the message a mistake in <paramref name="option"/>'s value gets.</summary>
    private static Option<T> Described<T>(Option<T> option, string message, Dictionary<Symbol, string> messages)
    {
        messages[option] = message;
        return option;
    }
}
