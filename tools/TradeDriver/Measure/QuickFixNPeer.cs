using System.Diagnostics;

namespace RapidFix.TradeDriver.Measure;

/// <summary>
/// QuickFIX/n side by side (<c>--quickfixn PATH</c>): QuickFIX/n is not on the NuGet copy here, so it is built from
/// a source checkout the user points at (its core project, <c>QuickFIXn/QuickFix.csproj</c>, whose one dependency,
/// Microsoft.Extensions.Logging.Abstractions, the feed serves), together with the echo acceptor that runs on it
/// (<see cref="QuickFixNEcho"/>: RapidFix's program text, written here and compiled against the checkout). Every
/// outcome that does not give a peer is one line and the run goes on without it: no option, a path that is not a
/// checkout, a build that fails.
/// </summary>
internal static class QuickFixNPeer
{
    /// <summary>The core project inside a QuickFIX/n checkout.</summary>
    public const string CoreProject = "QuickFIXn/QuickFix.csproj";

    /// <summary>The checkout's FIX 4.4 dictionary, copied beside the echo acceptor (it validates and reads groups with it).</summary>
    public const string Dictionary = "spec/fix/FIX44.xml";

    /// <summary>
    /// Builds QuickFIX/n from <paramref name="checkout"/> and the echo acceptor on it into
    /// <c><paramref name="outputDirectory"/>/quickfixn</c>; writes one line saying what happened; returns the echo
    /// acceptor's assembly, or null when skipped.
    /// </summary>
    public static string? Prepare(string? checkout, string outputDirectory, TextWriter output, TimeSpan buildTimeout) =>
        Prepare(checkout, outputDirectory, output, buildTimeout, out _);

    /// <summary>As <see cref="Prepare(string?, string, TextWriter, TimeSpan)"/>; <paramref name="skipped"/> says why there is no peer (null when there is).</summary>
    public static string? Prepare(string? checkout, string outputDirectory, TextWriter output, TimeSpan buildTimeout, out string? skipped)
    {
        string? Skip(string why)
        {
            output.WriteLine($"QuickFIX/n side by side: skipped ({why})");
            return null;
        }

        skipped = Describe(checkout);
        if (skipped is not null)
        {
            return Skip(skipped);
        }

        string? dll = Build(checkout!, outputDirectory, buildTimeout, out skipped);
        if (dll is null)
        {
            return Skip(skipped!);
        }

        output.WriteLine($"QuickFIX/n side by side: built {Path.Combine(Path.GetDirectoryName(dll)!, "QuickFix.dll")} and its echo acceptor {dll}; the echo run follows the measured run");
        return dll;
    }

    // Why a checkout cannot be built, or null when it can be tried.
    private static string? Describe(string? checkout) =>
        checkout is null ? "no --quickfixn <path to a QuickFIX/n source checkout> given"
        : !File.Exists(Path.Combine(checkout, CoreProject)) ? $"{checkout} is not a QuickFIX/n source checkout: no {CoreProject}"
        : null;

    private static string? Build(string checkout, string outputDirectory, TimeSpan buildTimeout, out string? skipped)
    {
        skipped = null;
        string project = Path.Combine(checkout, CoreProject);
        string bin = Path.Combine(outputDirectory, "quickfixn");
        string echo = Path.Combine(bin, "echo");
        Directory.CreateDirectory(echo);
        string echoProject = Path.Combine(echo, QuickFixNEcho.AssemblyName + ".csproj");
        File.WriteAllText(echoProject, QuickFixNEcho.Project(Path.GetFullPath(project)));
        File.WriteAllText(Path.Combine(echo, "Program.cs"), QuickFixNEcho.Program);
        var start = new ProcessStartInfo(ServiceProcess.DotNetHost)
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        foreach (var argument in new[] { "build", echoProject, "-c", "Release", "-o", bin, "-v", "q", "-nologo", "-clp:ErrorsOnly", "-nodeReuse:false" })
        {
            start.ArgumentList.Add(argument);
        }

        using var build = Process.Start(start)!;
        var errors = build.StandardError.ReadToEndAsync();
        var text = build.StandardOutput.ReadToEndAsync();
        if (!build.WaitForExit(buildTimeout))
        {
            build.Kill(entireProcessTree: true);
            build.WaitForExit();
            skipped = $"the build of {project} took more than {buildTimeout.TotalSeconds:F0} s";
            return null;
        }

        string dll = Path.Combine(bin, QuickFixNEcho.AssemblyName + ".dll");
        if (build.ExitCode != 0 || !File.Exists(dll) || !File.Exists(Path.Combine(bin, "QuickFix.dll")))
        {
            string log = text.Result + errors.Result;
            File.WriteAllText(Path.Combine(bin, "build.log"), log);
            string first = log.Split('\n').FirstOrDefault(l => l.Contains("error", StringComparison.OrdinalIgnoreCase))?.Trim() ?? $"exit {build.ExitCode}";
            skipped = $"the build of {project} failed: {first}; the whole log is in {Path.Combine(bin, "build.log")}";
            return null;
        }

        if (!File.Exists(Path.Combine(checkout, Dictionary)))
        {
            skipped = $"{checkout} has no FIX 4.4 dictionary for the echo acceptor: no {Dictionary}";
            return null;
        }

        File.Copy(Path.Combine(checkout, Dictionary), Path.Combine(bin, "FIX44.xml"), overwrite: true);
        return dll;
    }
}
