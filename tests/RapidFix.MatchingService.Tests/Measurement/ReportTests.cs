using System.Diagnostics;
using RapidFix.TradeDriver.Measure;
using RapidFix.TradeDriver.Report;

namespace RapidFix.MatchingService.Tests.Measurement;

/// <summary>The report: one self-contained HTML page with its header and plots, JSON and text; and, where Debian's chromium is installed, a real browser's screenshot of it.</summary>
public sealed class ReportTests : IDisposable
{
    private readonly string _work = Path.Combine(Path.GetTempPath(), "rapidfix-report-" + Guid.NewGuid().ToString("N"));

    public void Dispose()
    {
        if (Directory.Exists(_work))
        {
            Directory.Delete(_work, recursive: true);
        }
    }

    /// <summary>A run as the driver would report it, from synthetic figures.</summary>
    internal static RunResult SyntheticRun(string directory)
    {
        const long frequency = 1_000_000;
        var schedule = new OpenLoopSchedule(2000, 1, 1, 4, 0, frequency);
        var latency = new LatencyRecorder(frequency);
        var random = new Random(3);
        for (long i = 0; i < schedule.Total; i++)
        {
            long intended = schedule.IntendedTime(i);
            var phase = schedule.PhaseOf(i);
            latency.Record(LatencyChannel.Send, phase, 5 + random.Next(20));
            latency.Record(LatencyChannel.Ack, phase, 80 + random.Next(400) + (i % 997 == 0 ? 5000 : 0));
            if (i % 7 == 6)
            {
                latency.Record(LatencyChannel.Cls, phase, 150 + random.Next(600));
            }

            _ = intended;
        }

        var samples = new QueueSample[141];
        for (int k = 0; k < samples.Length; k++)
        {
            long sent = k * 100;
            samples[k] = new QueueSample
            {
                Tick = k * 50_000, DriverSent = sent + 3, ServiceReceived = sent + 2, Journalled = sent + 2, Matched = sent - (k % 3), AnswersSent = sent - 3,
                SinkReceived = sent - 4, ResidentBytes = 300 << 20,
            };
        }

        var intervals = Enumerable.Range(1, 8).Select(s => new IntervalPoint(s, schedule.PhaseAt(s * frequency), 2000, 1990, 2000, 150, 420 + s, 900 + (10 * s), 1000, 0, 300 << 20)).ToList();
        var steady = new ArraySegment<QueueSample>(samples, 40, 81);
        return new RunResult
        {
            Options = new RunOptions { OutputDirectory = directory, Rate = 2000, SteadySeconds = 4 },
            Schedule = schedule,
            Latency = latency,
            Intervals = intervals,
            Samples = samples,
            SteadySamples = steady,
            Analysis = OperationalAnalysis.Analyze(steady, frequency),
            AchievedPerSecond = 1995,
            SentPerSecond = 2000,
            Bounded = true,
            GrowthPerSecond = 0.5,
            Sent = schedule.Total,
            Refused = 0,
            Acks = 10_000,
            Rejected = 0,
            Cls = 1_000,
            Notices = 0,
            Untraced = 0,
            ExpectedAcks = 10_000,
            DrainSeconds = 0.2,
            ServiceContinuous = (0, 0),
            Notes = ["a synthetic run"],
        };
    }

    private MeasureReport SyntheticReport() => new()
    {
        Title = "synthetic <run> & report",
        Command = "dotnet run -c Release --project tools/TradeDriver -f net10.0 -- run --duration 4",
        Run = SyntheticRun(_work),
        Steps = [new StepResult(1000, 1000, true, 0, 100, 300, 900, 0), new StepResult(2000, 1995, true, 0, 120, 420, 1000, 0), new StepResult(4000, 2600, false, 1400, 900, 90_000, 400_000, 0)],
    };

    [Fact]
    public void The_html_report_is_one_self_contained_page_with_its_header_tables_and_plots()
    {
        var report = SyntheticReport();
        var files = report.WriteFiles(_work);
        string html = File.ReadAllText(Path.Combine(_work, "report.html"));
        Assert.StartsWith("<!DOCTYPE html>", html, StringComparison.Ordinal);
        Assert.EndsWith("</html>", html, StringComparison.Ordinal);
        // Nothing to load: no scripts, no external images or style sheets.
        Assert.DoesNotContain("<script", html, StringComparison.OrdinalIgnoreCase);
        Assert.DoesNotContain("src=", html, StringComparison.OrdinalIgnoreCase);
        Assert.DoesNotContain("<link", html, StringComparison.OrdinalIgnoreCase);
        // The header, escaped.
        foreach (var name in new[] { "machine", "runtime", "GC mode", "commit", "transport", "store", "rates", "command" })
        {
            Assert.Contains($"<th>{name}</th>", html, StringComparison.Ordinal);
        }

        Assert.Contains("synthetic &lt;run&gt; &amp; report", html, StringComparison.Ordinal);
        // The plots: percentile distribution, latency and throughput over time, throughput vs latency, offered vs achieved, execution graph.
        foreach (var plot in new[] { "Latency by percentile", "Input to ack per interval", "Throughput over time", "End-to-end latency against achieved throughput",
                     "Offered against achieved throughput", "execution graph" })
        {
            Assert.Contains(plot, html, StringComparison.Ordinal);
        }

        Assert.True(html.Split("<svg").Length - 1 >= 6, "six plots expected");
        Assert.Contains("<polyline", html, StringComparison.Ordinal);
        Assert.Contains("Bottleneck: <b>matcher ring + thread</b>", html, StringComparison.Ordinal);
        Assert.Contains("p99.999", html, StringComparison.Ordinal);
        Assert.Contains("warm-up", html, StringComparison.Ordinal);

        // The other files: text, JSON, the steady part's percentile distributions.
        Assert.Contains(files, f => f.EndsWith("report.json", StringComparison.Ordinal));
        using var json = System.Text.Json.JsonDocument.Parse(File.ReadAllText(Path.Combine(_work, "report.json")));
        Assert.Equal(2000, json.RootElement.GetProperty("run").GetProperty("rate").GetDouble());
        Assert.Equal("matcher ring + thread", json.RootElement.GetProperty("run").GetProperty("operationalAnalysis").GetProperty("bottleneck").GetString());
        Assert.Equal(3, json.RootElement.GetProperty("steps").GetArrayLength());
        string hgrm = File.ReadAllText(Path.Combine(_work, "steady-ack.hgrm"));
        Assert.Contains("Percentile", hgrm, StringComparison.Ordinal);
        Assert.Contains("#[Mean", hgrm, StringComparison.Ordinal);
        string text = report.Text();
        Assert.Contains("sustainable", text, StringComparison.Ordinal);
        Assert.Contains("bottleneck: matcher ring + thread", text, StringComparison.Ordinal);
    }

    [ChromiumFact]
    public void A_headless_browser_renders_the_report()
    {
        SyntheticReport().WriteFiles(_work);
        string page = Path.Combine(_work, "report.html");
        string png = Path.Combine(_work, "report.png");
        var start = new ProcessStartInfo(ChromiumFactAttribute.Browser!)
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        foreach (var a in new[] { "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", $"--screenshot={png}", "--window-size=1200,2600", "file://" + page })
        {
            start.ArgumentList.Add(a);
        }

        using var browser = Process.Start(start)!;
        var output = browser.StandardError.ReadToEndAsync();
        _ = browser.StandardOutput.ReadToEndAsync();
        Assert.True(browser.WaitForExit(120_000), "the browser did not finish within two minutes");
        Assert.True(File.Exists(png), "no screenshot: " + output.Result);
        byte[] bytes = File.ReadAllBytes(png);
        Assert.True(bytes.Length > 20_000, $"a {bytes.Length}-byte screenshot is too small to show the plots");
        Assert.Equal([0x89, (byte)'P', (byte)'N', (byte)'G'], bytes.Take(4));
        // Kept for a person to look at (artifacts/ is not committed).
        string keep = Path.Combine(AppContext.BaseDirectory, "report-screenshot.png");
        File.Copy(png, keep, overwrite: true);
    }
}

/// <summary>A fact that needs Debian's chromium (apt-get install -y chromium); skipped, saying so, when it is absent.</summary>
public sealed class ChromiumFactAttribute : FactAttribute
{
    public ChromiumFactAttribute()
    {
        if (Browser is null)
        {
            Skip = "chromium is not installed (apt-get install -y chromium): the report's browser check is skipped";
        }
    }

    /// <summary>The browser's path, or null.</summary>
    public static string? Browser =>
        new[] { "/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome" }.FirstOrDefault(File.Exists);
}
