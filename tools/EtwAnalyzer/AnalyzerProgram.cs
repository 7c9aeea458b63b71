using RapidFix.EtwAnalyzer.Analysis;
using RapidFix.EtwAnalyzer.Collecting;
using RapidFix.EtwAnalyzer.Reading;
using RapidFix.EtwAnalyzer.Reporting;

namespace RapidFix.EtwAnalyzer;

/// <summary>The analyzer's entry point, callable in-process (tests) with its own writers.</summary>
public static class AnalyzerProgram
{
    /// <summary>Exit code of a usage mistake or an unusable trace (the same as an inconclusive verdict).</summary>
    public const int BadInput = (int)Verdict.Inconclusive;

    public static int Run(string[] args, TextWriter output, TextWriter error)
    {
        ArgumentNullException.ThrowIfNull(args);
        var command = AnalyzerCommandLine.Parse(args, out string? problem);
        if (command is null)
        {
            error.WriteLine($"EtwAnalyzer: {problem}");
            error.WriteLine(AnalyzerCommandLine.Usage);
            return BadInput;
        }

        try
        {
            switch (command)
            {
                case HelpCommand:
                    output.WriteLine(AnalyzerCommandLine.Usage);
                    return 0;
                case ProvidersCommand p:
                    if (p.AsEnvironment)
                    {
                        foreach (var (key, value) in TraceProviders.Environment(p.Output))
                        {
                            output.WriteLine($"{key}={value}");
                        }
                    }
                    else
                    {
                        output.WriteLine(TraceProviders.Configuration);
                    }

                    return 0;
                case LaunchCommand l:
                    return TraceCollector.Launch(l.Program, l.Arguments, l.Output, error);
                case AttachCommand a:
                    TraceCollector.Attach(a.ProcessId, a.Output, a.Duration, error);
                    return 0;
                case AnalyzeCommand a:
                    return Analyze(a, output);
                default:
                    error.WriteLine("EtwAnalyzer: unknown command");
                    return BadInput;
            }
        }
        catch (Exception ex) when (ex is TraceReadException or CollectException)
        {
            error.WriteLine($"EtwAnalyzer: {ex.Message}");
            return BadInput;
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            error.WriteLine($"EtwAnalyzer: {ex.Message}");
            return BadInput;
        }
    }

    private static int Analyze(AnalyzeCommand command, TextWriter output)
    {
        var model = TraceReader.Read(command.TracePath);
        var analysis = TraceAnalysis.Analyze(model);
        var written = new List<string>();
        if (command.WriteFiles)
        {
            Directory.CreateDirectory(command.OutputDirectory);
            foreach (var phase in analysis.Phases)
            {
                foreach (var channel in new[] { Pools.Diagnostics.LatencyChannel.Receive, Pools.Diagnostics.LatencyChannel.Send })
                {
                    var h = phase.Histogram(channel);
                    if (h.TotalCount == 0)
                    {
                        continue;
                    }

                    string path = Path.Combine(command.OutputDirectory, $"{phase.Name}-{channel.ToString().ToLowerInvariant()}.hgrm");
                    File.WriteAllText(path, HgrmWriter.Format(h));
                    written.Add(path);
                }
            }

            written.Add(Path.Combine(command.OutputDirectory, "report.html"));
            written.Add(Path.Combine(command.OutputDirectory, "report.txt"));
        }

        string report = TextReport.Format(analysis, written);
        if (command.WriteFiles)
        {
            File.WriteAllText(written[^2], HtmlReport.Format(analysis, report));
            File.WriteAllText(written[^1], report + "\n");
        }

        output.WriteLine(report);
        return (int)analysis.Verdict;
    }
}
