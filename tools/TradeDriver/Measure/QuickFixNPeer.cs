using System.Diagnostics;

namespace RapidFix.TradeDriver.Measure;

/// <summary>
/// QuickFIX/n side by side (<c>--quickfixn PATH</c>): QuickFIX/n is not on the NuGet copy here, so it is built from
/// a source checkout the user points at (its core project, <c>QuickFIXn/QuickFix.csproj</c>, whose one dependency,
/// Microsoft.Extensions.Logging.Abstractions, the feed serves). Every outcome that does not give a peer is one line
/// and the run goes on without it: no option, a path that is not a checkout, a build that fails. The echo acceptor
/// that would run on the built library is not written yet (docs/measurement.md), so a successful build says that
/// too and the peer is skipped.
/// </summary>
internal static class QuickFixNPeer
{
    /// <summary>The core project inside a QuickFIX/n checkout.</summary>
    public const string CoreProject = "QuickFIXn/QuickFix.csproj";

    /// <summary>
    /// Builds QuickFIX/n from <paramref name="checkout"/> into <paramref name="outputDirectory"/>; writes one line
    /// saying what happened; returns the built QuickFix.dll, or null when skipped.
    /// </summary>
    public static string? Prepare(string? checkout, string outputDirectory, TextWriter output, TimeSpan buildTimeout)
    {
        if (checkout is null)
        {
            output.WriteLine("QuickFIX/n side by side: skipped (no --quickfixn <path to a QuickFIX/n source checkout> given)");
            return null;
        }

        string project = Path.Combine(checkout, CoreProject);
        if (!File.Exists(project))
        {
            output.WriteLine($"QuickFIX/n side by side: skipped ({checkout} is not a QuickFIX/n source checkout: no {CoreProject})");
            return null;
        }

        string bin = Path.Combine(outputDirectory, "quickfixn");
        Directory.CreateDirectory(bin);
        var start = new ProcessStartInfo(ServiceProcess.DotNetHost)
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        foreach (var argument in new[] { "build", project, "-c", "Release", "-o", bin, "-v", "q", "-nologo", "-clp:ErrorsOnly", "-nodeReuse:false" })
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
            output.WriteLine($"QuickFIX/n side by side: skipped (the build of {project} took more than {buildTimeout.TotalSeconds:F0} s)");
            return null;
        }

        string dll = Path.Combine(bin, "QuickFix.dll");
        if (build.ExitCode != 0 || !File.Exists(dll))
        {
            string log = text.Result + errors.Result;
            File.WriteAllText(Path.Combine(bin, "build.log"), log);
            string first = log.Split('\n').FirstOrDefault(l => l.Contains("error", StringComparison.OrdinalIgnoreCase))?.Trim() ?? $"exit {build.ExitCode}";
            output.WriteLine($"QuickFIX/n side by side: skipped (the build of {project} failed: {first}; the whole log is in {Path.Combine(bin, "build.log")})");
            return null;
        }

        output.WriteLine($"QuickFIX/n side by side: skipped (built {dll}, but the echo acceptor to run on it is not written yet: docs/measurement.md)");
        return dll;
    }
}
