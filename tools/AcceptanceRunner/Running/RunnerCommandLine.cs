using System.CommandLine;
using System.CommandLine.Help;
using System.Globalization;
using RapidFix.AcceptanceRunner.Hosting;
using RapidFix.AcceptanceRunner.Scripts;
using RapidFix.Engine.Configuration;

namespace RapidFix.AcceptanceRunner.Running;

/// <summary>
/// The command line: runs every script of a folder (or one script) one at a time, each on fresh connections,
/// prints a line per script and a closing "N passed, M failed"; exit code 0 when all pass, 1 when some fail (a
/// script that cannot be parsed fails alone, with its line and reason), 2 for a usage or settings error, always
/// reported as one line.
/// </summary>
public static class RunnerCommandLine
{
    public const int ExitPassed = 0;
    public const int ExitFailed = 1;
    public const int ExitError = 2;

    public const string Usage = """
        usage: AcceptanceRunner <scripts-dir | script.def> [options]
          --host H --port P     run against an engine already listening at H:P
          --config FILE         start an in-process RapidFix acceptor from this settings file (per script)
          (neither)             start an in-process acceptor configured for the FIX version the scripts use
          --timeout SECONDS     how long to wait for an expected message or disconnection (default 10)
          --filter TEXT         run only scripts whose name contains TEXT
          --pause-ms N          pause between scripts against an external engine (default 200)
        """;

    public static int Run(string[] args, TextWriter output, TextWriter error, IInProcessAcceptorFactory acceptors)
    {
        if (RunnerOptions.IsHelp(args))
        {
            return RunnerOptions.Command().Parse(args).Invoke(new InvocationConfiguration { Output = output, Error = error });
        }

        RunnerOptions options;
        try
        {
            options = RunnerOptions.Parse(args);
        }
        catch (ArgumentException e)
        {
            error.WriteLine(e.Message);
            error.WriteLine(Usage);
            return ExitError;
        }

        List<LoadedScript> loaded;
        try
        {
            loaded = LoadScripts(options);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException or InvalidOperationException)
        {
            error.WriteLine(e.Message);
            return ExitError;
        }

        var scripts = loaded.Where(l => l.Script is not null).Select(l => l.Script!).ToList();
        bool external = options.Host is not null;
        SettingsFile? settings = null;
        if (!external && scripts.Count > 0)
        {
            if (acceptors.UnavailableReason is { } reason)
            {
                error.WriteLine("Cannot run: " + reason + ".");
                return ExitError;
            }

            try
            {
                settings = options.ConfigPath is not null
                    ? SettingsFile.Load(options.ConfigPath)
                    : SettingsFile.Parse(AcceptorSettings.For(AcceptorSettings.InferBeginString(scripts), FindSpecDirectory(options.ScriptsPath)), "<inferred acceptor settings>");
            }
            catch (Exception e) when (e is ConfigurationException or InvalidOperationException)
            {
                error.WriteLine(e.Message);
                return ExitError;
            }

            foreach (var warning in settings.Warnings)
            {
                error.WriteLine(warning.ToString());
            }
        }

        int passed = 0, failed = 0, ran = 0;
        foreach (var entry in loaded)
        {
            ScriptResult result;
            if (entry.Script is not { } script)
            {
                // A script that cannot be read fails alone: the others still run.
                result = new ScriptResult(entry.Name, entry.ParseFailure, TimeSpan.Zero);
            }
            else if (external)
            {
                if (ran++ > 0)
                {
                    Thread.Sleep(options.Pause);
                }

                result = new ScriptRunner(options.Host!, options.Port, options.Timeout).Run(script);
            }
            else
            {
                IInProcessAcceptor acceptor;
                try
                {
                    acceptor = acceptors.Start(settings!);
                }
                catch (Exception e) when (IsSettingsMistake(e))
                {
                    // Settings the engine refuses (found when it starts): one line, as for any other settings error.
                    error.WriteLine("Cannot start the acceptor: " + e.Message);
                    return ExitError;
                }

                using (acceptor)
                {
                    result = new ScriptRunner(acceptor.Host, acceptor.Port, options.Timeout).Run(script);
                }
            }

            output.WriteLine(Format(result));
            if (result.Passed)
            {
                passed++;
            }
            else
            {
                failed++;
            }
        }

        output.WriteLine($"{passed} passed, {failed} failed");
        return failed == 0 ? ExitPassed : ExitFailed;
    }

    /// <summary>One report line: PASS name, or FAIL name, the step's line, the difference, expected and received.</summary>
    public static string Format(ScriptResult result)
    {
        if (result.Failure is not { } failure)
        {
            return $"PASS {result.Name}";
        }

        string line = $"FAIL {result.Name}: line {failure.Line}: {failure.Reason}";
        if (failure.Expected is not null)
        {
            line += $"; expected {FixTemplate.Printable(failure.Expected)}";
        }

        if (failure.Received is not null)
        {
            line += $"; received {FixTemplate.Printable(failure.Received)}";
        }

        return line;
    }

    /// <summary>What an engine refuses at start-up because of its settings (not a bug of the runner or the engine).</summary>
    private static bool IsSettingsMistake(Exception e) =>
        e is ConfigurationException or RapidFix.Engine.Dictionary.DictionaryLoadException or IOException or UnauthorizedAccessException
            or ArgumentException or System.Net.Sockets.SocketException;

    /// <summary>A script file: parsed, or the line and reason it could not be.</summary>
    private sealed record LoadedScript(string Name, AcceptanceScript? Script, StepFailure? ParseFailure);

    private static LoadedScript Load(string file)
    {
        string name = Path.GetFileNameWithoutExtension(file);
        try
        {
            return new LoadedScript(name, ScriptParser.Load(file), null);
        }
        catch (ScriptParseException e)
        {
            return new LoadedScript(name, null, new StepFailure(e.Line, "cannot parse the script: " + e.Reason));
        }
    }

    private static List<LoadedScript> LoadScripts(RunnerOptions options)
    {
        string path = options.ScriptsPath;
        List<string> files;
        if (File.Exists(path))
        {
            files = [path];
        }
        else if (Directory.Exists(path))
        {
            files = Directory.GetFiles(path, "*.def").Order(StringComparer.Ordinal).ToList();
            if (files.Count == 0)
            {
                var withScripts = Directory.GetDirectories(path).Where(d => Directory.EnumerateFiles(d, "*.def").Any()).Select(Path.GetFileName).Order(StringComparer.Ordinal).ToList();
                throw new InvalidOperationException(withScripts.Count > 0
                    ? $"no .def scripts in {path}; its folders {string.Join(", ", withScripts)} hold scripts: pass one of them"
                    : $"no .def scripts in {path}");
            }
        }
        else
        {
            throw new InvalidOperationException($"{path} is neither a script nor a folder of scripts");
        }

        var scripts = files
            .Where(f => options.Filter is null || Path.GetFileNameWithoutExtension(f).Contains(options.Filter, StringComparison.OrdinalIgnoreCase))
            .Select(Load)
            .ToList();
        if (scripts.Count == 0)
        {
            throw new InvalidOperationException($"no script in {path} matches the filter '{options.Filter}'");
        }

        return scripts;
    }

    /// <summary>shared/fix/spec, found from a scripts folder under shared/fix/acceptance.</summary>
    private static string? FindSpecDirectory(string scriptsPath)
    {
        for (var dir = Path.GetFullPath(File.Exists(scriptsPath) ? Path.GetDirectoryName(scriptsPath)! : scriptsPath); dir is not null; dir = Path.GetDirectoryName(dir))
        {
            string candidate = Path.Combine(dir, "spec");
            if (Directory.Exists(candidate))
            {
                return candidate;
            }
        }

        return null;
    }
}

/// <summary>The parsed command line.</summary>
public sealed record RunnerOptions(string ScriptsPath, string? Host, int Port, string? ConfigPath, TimeSpan Timeout, string? Filter, TimeSpan Pause)
{
    /// <summary>
    /// The command line as System.CommandLine sees it (its <c>--help</c> text); the rules between options are
    /// <see cref="Parse"/>'s.
    /// </summary>
    public static RootCommand Command()
    {
        var root = new RootCommand("Runs the QuickFIX acceptance scripts against a FIX acceptor (docs/conformance-runner.md). Exit code: 0 all pass, 1 some fail, 2 a usage or settings error.")
        {
            new Argument<string>("scripts") { Description = "a folder of .def scripts, or one script", Arity = ArgumentArity.ZeroOrOne },
            new Option<string>("--host") { Description = "run against an engine already listening at this host (with --port)" },
            new Option<string>("--port") { Description = "the listening engine's port (with --host)" },
            new Option<string>("--config") { Description = "start an in-process RapidFix acceptor from this settings file (per script); with neither, one configured for the scripts' FIX version" },
            new Option<string>("--timeout") { Description = "seconds to wait for an expected message or disconnection (default 10)" },
            new Option<string>("--filter") { Description = "run only scripts whose name contains this text" },
            new Option<string>("--pause-ms") { Description = "pause between scripts against an external engine, in milliseconds (default 200)" },
        };

        // Unknown options and extra paths get this runner's own wording (Parse).
        root.TreatUnmatchedTokensAsErrors = false;
        return root;
    }

    /// <summary>True when the arguments ask for the help text.</summary>
    public static bool IsHelp(string[] args) => Command().Parse(args).Action is HelpAction;

    /// <summary>Parses the command line; a mistake is an <see cref="ArgumentException"/> whose message says what is wrong.</summary>
    public static RunnerOptions Parse(string[] args)
    {
        var root = Command();
        ParseResult parse = root.Parse(args);
        if (parse.GetValue<string>("scripts") is { } first && first.StartsWith('-'))
        {
            throw new ArgumentException($"unknown option {first}");
        }

        foreach (string token in parse.UnmatchedTokens)
        {
            throw new ArgumentException(token.StartsWith('-')
                ? $"unknown option {token}"
                : $"more than one scripts path: {parse.GetValue<string>("scripts")} and {token}");
        }

        if (parse.Errors.Count > 0)
        {
            throw new ArgumentException(parse.Errors[0].Message);
        }

        string? scripts = parse.GetValue<string>("scripts");
        string? host = parse.GetValue<string>("--host");
        string? config = parse.GetValue<string>("--config");
        string? filter = parse.GetValue<string>("--filter");
        int? port = parse.GetValue<string>("--port") is { } portText ? ParseInt("--port", portText, 1, 65535) : null;
        var timeout = TimeSpan.FromSeconds(10);
        if (parse.GetValue<string>("--timeout") is { } seconds)
        {
            timeout = double.TryParse(seconds, NumberStyles.Float, CultureInfo.InvariantCulture, out double s) && s > 0
                ? TimeSpan.FromSeconds(s)
                : throw new ArgumentException($"--timeout: '{seconds}' is not a positive number of seconds");
        }

        var pause = parse.GetValue<string>("--pause-ms") is { } pauseText
            ? TimeSpan.FromMilliseconds(ParseInt("--pause-ms", pauseText, 0, 600_000))
            : TimeSpan.FromMilliseconds(200);

        if (scripts is null)
        {
            throw new ArgumentException("no scripts folder given");
        }

        if ((host is null) != (port is null))
        {
            throw new ArgumentException("--host and --port go together");
        }

        if (host is not null && config is not null)
        {
            throw new ArgumentException("--config starts an in-process acceptor; it cannot be combined with --host/--port");
        }

        return new RunnerOptions(scripts, host, port ?? 0, config, timeout, filter, pause);
    }

    private static int ParseInt(string option, string text, int min, int max) =>
        int.TryParse(text, NumberStyles.None, CultureInfo.InvariantCulture, out int value) && value >= min && value <= max
            ? value
            : throw new ArgumentException($"{option}: '{text}' is not a whole number from {min} to {max}");
}
