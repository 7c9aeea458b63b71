using System.Diagnostics;
using System.Text;
using RapidFix.Tests.Shared;

namespace RapidFix.Samples.Tests;

/// <summary>Runs a program of the repository (or the dotnet CLI) as a child process and collects its output.</summary>
internal sealed class ChildProcess : IDisposable
{
    private readonly Process _process;
    private readonly StringBuilder _output = new();
    private readonly StringBuilder _error = new();

    private ChildProcess(string fileName, IEnumerable<string> arguments, string? workingDirectory, IDictionary<string, string>? environment)
    {
        var start = new ProcessStartInfo(fileName)
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            RedirectStandardInput = true,
            UseShellExecute = false,
            WorkingDirectory = workingDirectory ?? Directory.GetCurrentDirectory(),
        };
        foreach (var argument in arguments)
        {
            start.ArgumentList.Add(argument);
        }

        // The child is a user's program: no test-host or MSBuild state leaks into it.
        start.Environment.Remove("MSBuildExtensionsPath");
        start.Environment.Remove("MSBuildSDKsPath");
        start.Environment.Remove("MSBUILD_EXE_PATH");
        start.Environment["DOTNET_CLI_TELEMETRY_OPTOUT"] = "1";
        start.Environment["DOTNET_NOLOGO"] = "1";
        start.Environment["DOTNET_SKIP_FIRST_TIME_EXPERIENCE"] = "1";
        if (environment is not null)
        {
            foreach (var (key, value) in environment)
            {
                start.Environment[key] = value;
            }
        }

        _process = new Process { StartInfo = start };
        _process.OutputDataReceived += (_, e) => Append(_output, e.Data);
        _process.ErrorDataReceived += (_, e) => Append(_error, e.Data);
        _process.Start();
        _process.BeginOutputReadLine();
        _process.BeginErrorReadLine();
    }

    /// <summary>What the child wrote to standard output so far.</summary>
    public string Output
    {
        get
        {
            lock (_output)
            {
                return _output.ToString();
            }
        }
    }

    /// <summary>What the child wrote to standard error so far.</summary>
    public string Error
    {
        get
        {
            lock (_error)
            {
                return _error.ToString();
            }
        }
    }

    /// <summary>Starts a program built in this repository (its .dll, run under dotnet).</summary>
    public static ChildProcess StartProgram(string dll, params string[] arguments) =>
        new(DotNet, [dll, .. arguments], Path.GetDirectoryName(dll), null);

    /// <summary>Starts the dotnet CLI.</summary>
    public static ChildProcess StartDotNet(string workingDirectory, IDictionary<string, string>? environment, params string[] arguments) =>
        new(DotNet, arguments, workingDirectory, environment);

    /// <summary>Runs a program to its end (failing the test if it outlives <paramref name="timeout"/>).</summary>
    public static (int Exit, string Output, string Error) Run(string dll, TimeSpan timeout, params string[] arguments)
    {
        using var child = StartProgram(dll, arguments);
        int exit = child.WaitForExit(timeout);
        return (exit, child.Output, child.Error);
    }

    /// <summary>Waits for the end; kills the child and fails when it takes longer than <paramref name="timeout"/>.</summary>
    public int WaitForExit(TimeSpan timeout)
    {
        if (!_process.WaitForExit(timeout))
        {
            Kill();
            Assert.Fail($"{_process.StartInfo.FileName} {string.Join(' ', _process.StartInfo.ArgumentList)} did not end within {timeout}\nstdout:\n{Output}\nstderr:\n{Error}");
        }

        _process.WaitForExit(); // drains the output readers
        return _process.ExitCode;
    }

    /// <summary>Waits until the standard output contains <paramref name="text"/>; false on timeout or exit.</summary>
    public bool WaitForOutput(string text, TimeSpan timeout)
    {
        var deadline = Stopwatch.StartNew();
        while (deadline.Elapsed < timeout)
        {
            if (Output.Contains(text, StringComparison.Ordinal))
            {
                return true;
            }

            if (_process.HasExited)
            {
                _process.WaitForExit();
                return Output.Contains(text, StringComparison.Ordinal);
            }

            Thread.Sleep(50);
        }

        return false;
    }

    public void Kill()
    {
        try
        {
            if (!_process.HasExited)
            {
                _process.Kill(entireProcessTree: true);
                _process.WaitForExit(10_000);
            }
        }
        catch (InvalidOperationException)
        {
            // already gone
        }
    }

    public void Dispose()
    {
        Kill();
        _process.Dispose();
    }

    /// <summary>The dotnet host running this test (the same SDK and runtimes for the child).</summary>
    private static string DotNet => Environment.ProcessPath is { } path && Path.GetFileNameWithoutExtension(path) == "dotnet" ? path : "dotnet";

    private static void Append(StringBuilder builder, string? line)
    {
        if (line is null)
        {
            return;
        }

        lock (builder)
        {
            builder.AppendLine(line);
        }
    }
}

/// <summary>Where the repository's programs are built.</summary>
internal static class Programs
{
    /// <summary>The build configuration of these tests (the programs are built with the same one).</summary>
    public static string Configuration { get; } = AppContext.BaseDirectory.Contains($"{Path.DirectorySeparatorChar}Debug{Path.DirectorySeparatorChar}", StringComparison.Ordinal) ? "Debug" : "Release";

    public static string Root { get; } = SharedData.RepositoryRoot() ?? throw new InvalidOperationException("repository root (RapidFix.sln) not found");

    /// <summary>The .dll of a program: <paramref name="folder"/> under the repository, its assembly name.</summary>
    public static string Dll(string folder, string assembly)
    {
        string path = Path.Combine(Root, folder, "bin", Configuration, "net10.0", assembly + ".dll");
        Assert.True(File.Exists(path), $"{path} is not built (the test project's references build it)");
        return path;
    }
}
