using System.Globalization;
using RapidFix.AcceptanceRunner.Hosting;
using RapidFix.AcceptanceRunner.Scripts;
using RapidFix.Engine.Configuration;

namespace RapidFix.AcceptanceRunner.Running;

/// <summary>
/// The command line: runs every script of a folder (or one script) one at a time, each on fresh connections,
/// prints a line per script and a closing "N passed, M failed"; exit code 0 when all pass, 1 when some fail,
/// 2 for a usage, script or settings error.
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

        List<AcceptanceScript> scripts;
        try
        {
            scripts = LoadScripts(options);
        }
        catch (Exception e) when (e is ScriptParseException or IOException or InvalidOperationException)
        {
            error.WriteLine(e.Message);
            return ExitError;
        }

        bool external = options.Host is not null;
        SettingsFile? settings = null;
        if (!external)
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

        int passed = 0, failed = 0;
        for (int i = 0; i < scripts.Count; i++)
        {
            var script = scripts[i];
            ScriptResult result;
            if (external)
            {
                if (i > 0)
                {
                    Thread.Sleep(options.Pause);
                }

                result = new ScriptRunner(options.Host!, options.Port, options.Timeout).Run(script);
            }
            else
            {
                using var acceptor = acceptors.Start(settings!);
                result = new ScriptRunner(acceptor.Host, acceptor.Port, options.Timeout).Run(script);
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

    private static List<AcceptanceScript> LoadScripts(RunnerOptions options)
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

        var scripts = files.Select(ScriptParser.Load)
            .Where(s => options.Filter is null || s.Name.Contains(options.Filter, StringComparison.OrdinalIgnoreCase))
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
    public static RunnerOptions Parse(string[] args)
    {
        string? scripts = null, host = null, config = null, filter = null;
        int? port = null;
        var timeout = TimeSpan.FromSeconds(10);
        var pause = TimeSpan.FromMilliseconds(200);
        for (int i = 0; i < args.Length; i++)
        {
            string arg = args[i];
            string Value() => i + 1 < args.Length ? args[++i] : throw new ArgumentException($"{arg} needs a value");
            switch (arg)
            {
                case "--host": host = Value(); break;
                case "--port": port = ParseInt(arg, Value(), 1, 65535); break;
                case "--config": config = Value(); break;
                case "--filter": filter = Value(); break;
                case "--timeout":
                    string seconds = Value();
                    timeout = double.TryParse(seconds, NumberStyles.Float, CultureInfo.InvariantCulture, out double s) && s > 0
                        ? TimeSpan.FromSeconds(s)
                        : throw new ArgumentException($"--timeout: '{seconds}' is not a positive number of seconds");
                    break;
                case "--pause-ms": pause = TimeSpan.FromMilliseconds(ParseInt(arg, Value(), 0, 600_000)); break;
                default:
                    if (arg.StartsWith("--", StringComparison.Ordinal))
                    {
                        throw new ArgumentException($"unknown option {arg}");
                    }

                    if (scripts is not null)
                    {
                        throw new ArgumentException($"more than one scripts path: {scripts} and {arg}");
                    }

                    scripts = arg;
                    break;
            }
        }

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
