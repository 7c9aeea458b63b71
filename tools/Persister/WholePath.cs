using System.Diagnostics;
using System.Globalization;
using System.Text;
using RapidFix.Persistence;

namespace RapidFix.Persister;

/// <summary>
/// The whole path, FIX in to PostgreSQL (issue 11's figures): a generated set sent by <c>TradeDriver verify</c> over
/// FIX sessions to the matching service's own executable, the service journalling and answering, and the persister
/// writing its journals into one or more throwaway PostgreSQL clusters (durable, the figures' settings), all at once.
/// Every second it samples what the journals hold and what the persister has committed: the journal backlog (records
/// journalled, not yet in the database) must stay bounded at a sustainable rate. Unpaced (<c>--rate 0</c>) the same
/// run gives the degradation curve: sustained throughput against rows already stored, written as an SVG plot.
/// </summary>
internal static class WholePath
{
    /// <summary>One second of the run: records journalled and persisted so far, rows stored, and whether the driver was still sending.</summary>
    internal readonly record struct Sample(double Seconds, long Journalled, long Persisted, long Rows, bool Sending);

    public static int Run(int trades, int rate, int databases, int streams, string? plot, string? csv, TextWriter output)
    {
        string work = Path.Combine(Path.GetTempPath(), "rapidfix-persister-path-" + Guid.NewGuid().ToString("N")[..8]);
        try
        {
            using var scenario = ServiceScenario.Generate(work, trades, seed: 23, output);
            using var rig = Rig.Create(databases, durable: true);
            int port = scenario.StartService(output);
            using var persister = new Persistence.Persister(new PersisterOptions
            {
                DataDirectory = scenario.DataDirectory,
                Servers = rig.Writers,
                Streams = streams,
                Log = output,
            });
            // The CPU budget (issue 11): each process's CPU over the run, from /proc. The driver (TradeDriver verify, a
            // child process) is counted once it has exited and been waited for; the service while it still runs, before
            // its shutdown; the persister is this process less the thread that samples the journals below (it reads every
            // record again to count the backlog: the tool's, not the persister's); PostgreSQL its postmaster and backends.
            double? childrenBefore = ProcessCpu.ReapedChildren();
            double serviceBefore = scenario.ServiceProcessId is { } servicePid ? ProcessCpu.Of(servicePid) ?? 0 : 0; // its startup and warm-up
            var self = Process.GetCurrentProcess();
            var selfBefore = self.TotalProcessorTime;
            double jitBefore = ProcessCpu.JitSeconds();
            var serversBefore = rig.Clusters.Select(c => c.CpuTime()).ToList();
            persister.Start();
            double? samplerBefore = ProcessCpu.ThisThread();
            output.WriteLine($"whole path: {trades} trades, {scenario.Messages} messages, offered at {(rate > 0 ? rate.ToString("N0", CultureInfo.InvariantCulture) + " messages/s" : "the driver's full speed")}, {databases} database(s), {streams} stream(s) each");
            var clock = Stopwatch.StartNew();
            var drive = Task.Run(() => scenario.Drive(port, output, rate));
            var samples = new List<Sample>();
            var counter = new JournalCounter(scenario.DataDirectory);
            // The samples go to the CSV (and every minute to the plot) as they are taken: a long run stopped before its
            // end (a deadline, a machine needed back) still leaves its curve up to that point.
            using var csvFile = csv is null ? null : new StreamWriter(csv) { AutoFlush = true };
            csvFile?.WriteLine("seconds,journalled,persisted,rows");
            while (true)
            {
                bool sent = drive.IsCompleted;
                Thread.Sleep(1000);
                long journalled = counter.Count();
                long persisted = persister.Counters.Sum(c => Interlocked.Read(ref c.Records));
                long rows = persister.Counters.Sum(c => Interlocked.Read(ref c.Rows));
                var sample = new Sample(clock.Elapsed.TotalSeconds, journalled, persisted, rows, !sent);
                samples.Add(sample);
                csvFile?.WriteLine(Csv(sample));
                if (plot is not null && samples.Count % 60 == 0)
                {
                    WritePlot(plot, samples, trades, databases);
                }

                output.WriteLine($"  {clock.Elapsed.TotalSeconds,6:F0} s: journalled {journalled,10:N0}  persisted {persisted,10:N0}  backlog {journalled - persisted,9:N0}  rows {rows,11:N0}" +
                                 $"  days {persister.Counters.Sum(c => Interlocked.Read(ref c.Partitions)),7:N0}");
                if (sent && persisted >= journalled)
                {
                    break;
                }
            }

            drive.GetAwaiter().GetResult(); // the driver's own check of every answer
            double? sampler = ProcessCpu.ThisThread() - samplerBefore;
            self.Refresh();
            var budget = new Budget(
                Messages: scenario.Messages, Records: samples[^1].Persisted, Rows: samples[^1].Rows,
                Service: scenario.ServiceProcessId is { } pid ? ProcessCpu.Of(pid) - serviceBefore : null,
                Driver: ProcessCpu.ReapedChildren() - childrenBefore,
                Persister: (self.TotalProcessorTime - selfBefore).TotalSeconds - (sampler ?? 0),
                Jit: ProcessCpu.JitSeconds() - jitBefore,
                Sampler: sampler,
                PostgreSql: rig.Clusters.Select((c, i) => c.CpuTime() - serversBefore[i]).Aggregate((TimeSpan?)TimeSpan.Zero, (a, b) => a + b)?.TotalSeconds,
                Seconds: samples[^1].Seconds);
            scenario.StopService();
            persister.Drain();
            var check = Checker.Check(rig.Admins, scenario.DataDirectory, scenario.Expected, scenario.Messages);
            output.WriteLine($"database check: {check}");
            Report(samples, rate, output);
            Split(persister.Counters, output);
            budget.Write(output);
            if (plot is not null)
            {
                WritePlot(plot, samples, trades, databases);
                output.WriteLine($"plot: {plot}");
            }

            return check.Ok ? 0 : 1;
        }
        finally
        {
            if (Directory.Exists(work))
            {
                Directory.Delete(work, recursive: true);
            }
        }
    }

    /// <summary>CPU seconds of each process of the whole path over a run, and what they come to a message, a record, a row.</summary>
    internal readonly record struct Budget(long Messages, long Records, long Rows, double? Service, double? Driver, double Persister, double Jit, double? Sampler,
        double? PostgreSql, double Seconds)
    {
        public void Write(TextWriter output)
        {
            long messages = Math.Max(1, Messages), records = Math.Max(1, Records), rows = Math.Max(1, Rows);
            string Line(string name, double? seconds) => seconds is { } s
                ? string.Create(CultureInfo.InvariantCulture, $"  {name,-34} {s,8:F2} s  {s / messages * 1e6,8:F2} us a message  {s / records * 1e6,7:F2} us a record  {s / rows * 1e6,7:F2} us a row")
                : $"  {name,-34} (no /proc)";
            output.WriteLine(string.Create(CultureInfo.InvariantCulture,
                $"CPU budget over {Seconds:F0} s: {Messages:N0} input messages, {Records:N0} journal records ({(double)Records / messages:F2} a message), {Rows:N0} rows ({(double)Rows / messages:F2} a message)"));
            output.WriteLine(Line("matching service", Service));
            output.WriteLine(Line("driver (TradeDriver verify)", Driver));
            output.WriteLine(Line("persister", Persister));
            output.WriteLine(Line("  of it the runtime's JIT thread", Jit));
            output.WriteLine(Line("PostgreSQL (all servers)", PostgreSql));
            double? database = PostgreSql + Persister, all = Service + Driver + database;
            output.WriteLine(Line("database side (persister + PG)", database));
            output.WriteLine(Line("in all", all));
            if (database is { } d && all is { } a)
            {
                output.WriteLine(string.Create(CultureInfo.InvariantCulture,
                    $"  at 100,000 messages/s: the database side needs {d / messages * 1e5:F2} cores, the whole path {a / messages * 1e5:F2} cores " +
                    $"(this machine: {Environment.ProcessorCount}); the budget's own sampling thread (not counted above): {Sampler ?? 0:F2} s"));
            }
        }
    }

    internal static string Csv(Sample s) => string.Create(CultureInfo.InvariantCulture, $"{s.Seconds:F1},{s.Journalled},{s.Persisted},{s.Rows}");

    private static void WritePlot(string plot, IReadOnlyList<Sample> samples, int trades, int databases) =>
        File.WriteAllText(plot, Svg.Curve(Curve(samples), "rows already stored", "records persisted per second",
            $"Persister throughput against stored volume ({trades:N0} trades, {databases} database(s))"));

    /// <summary>Where the persister's workers spent their busy time: waiting on the server, and of that making day partitions.</summary>
    private static void Split(IReadOnlyList<ServerCounters> counters, TextWriter output)
    {
        long busy = counters.Sum(c => Interlocked.Read(ref c.BusyTicks)), server = counters.Sum(c => Interlocked.Read(ref c.ServerTicks));
        long partitions = counters.Sum(c => Interlocked.Read(ref c.PartitionTicks));
        double Share(long part) => busy == 0 ? 0 : 100.0 * part / busy;
        output.WriteLine($"persister workers: {TimeSpan.FromTicks(busy).TotalSeconds:F1} s busy (all streams), {Share(server):F0} % of it waiting on the server, " +
                         $"{Share(partitions):F0} % making day partitions ({counters.Sum(c => Interlocked.Read(ref c.Partitions)):N0} ensure_day calls), " +
                         $"{counters.Sum(c => Interlocked.Read(ref c.Batches)):N0} transactions");
    }

    /// <summary>
    /// Whether the backlog stayed bounded: over the second half of the offered traffic (while the driver sends; the
    /// drain after it says nothing about the rate), its least-squares slope in records per second (a backlog that
    /// grows by more than 1 % of the record rate is not sustained).
    /// </summary>
    internal static (double Slope, bool Bounded) Backlog(IReadOnlyList<Sample> samples)
    {
        var sending = samples.Where(s => s.Sending).ToList();
        var half = sending.Skip(sending.Count / 2).ToList();
        if (half.Count < 2)
        {
            return (0, true);
        }

        double mx = half.Average(s => s.Seconds), my = half.Average(s => (double)(s.Journalled - s.Persisted));
        double sxy = half.Sum(s => (s.Seconds - mx) * (s.Journalled - s.Persisted - my)), sxx = half.Sum(s => (s.Seconds - mx) * (s.Seconds - mx));
        double slope = sxx == 0 ? 0 : sxy / sxx;
        double recordRate = (half[^1].Journalled - half[0].Journalled) / Math.Max(1e-9, half[^1].Seconds - half[0].Seconds);
        return (slope, slope <= 0.01 * Math.Max(recordRate, 1));
    }

    /// <summary>Throughput (records persisted a second, over 5-second windows) against rows stored at the window's start.</summary>
    internal static List<(double Rows, double PerSecond)> Curve(IReadOnlyList<Sample> samples)
    {
        var points = new List<(double, double)>();
        for (int i = 0; i + 5 < samples.Count; i += 5)
        {
            var (a, b) = (samples[i], samples[i + 5]);
            if (b.Persisted > a.Persisted)
            {
                points.Add((a.Rows, (b.Persisted - a.Persisted) / (b.Seconds - a.Seconds)));
            }
        }

        return points;
    }

    private static void Report(List<Sample> samples, int rate, TextWriter output)
    {
        var (slope, bounded) = Backlog(samples);
        var last = samples[^1];
        long maxBacklog = samples.Max(s => s.Journalled - s.Persisted);
        output.WriteLine($"whole path: {last.Journalled:N0} records journalled and persisted in {last.Seconds:F0} s " +
                         $"({last.Persisted / last.Seconds:N0} records/s, {last.Rows / last.Seconds:N0} rows/s); largest backlog {maxBacklog:N0} records; " +
                         $"backlog slope over the second half of the sending {slope:N0} records/s: {(bounded ? "BOUNDED" : "GROWING")}" +
                         (rate > 0 ? $" at {rate:N0} messages/s offered" : ""));
    }

    /// <summary>Counts the records of every journal of a data directory as they grow (a tail per journal).</summary>
    private sealed class JournalCounter(string dataDirectory)
    {
        private readonly Dictionary<string, JournalTail> _tails = new();
        private readonly List<JournalRecord> _scratch = new();
        private long _count;

        public long Count()
        {
            foreach (var source in JournalSource.Discover(dataDirectory))
            {
                if (!_tails.TryGetValue(source.Name, out var tail))
                {
                    _tails[source.Name] = tail = new JournalTail(source.Path);
                }

                do
                {
                    _scratch.Clear();
                    _count += tail.Poll(_scratch, 100_000);
                }
                while (_scratch.Count > 0);
            }

            return _count;
        }
    }
}

/// <summary>A line plot as a self-contained SVG (no plotting package: a few lines of markup).</summary>
internal static class Svg
{
    public static string Curve(IReadOnlyList<(double X, double Y)> points, string xLabel, string yLabel, string title)
    {
        const int width = 720, height = 420, left = 80, right = 50, top = 40, bottom = 60; // right: room for the last tick label
        double maxX = Math.Max(1, points.Count == 0 ? 1 : points.Max(p => p.X)), maxY = Math.Max(1, points.Count == 0 ? 1 : points.Max(p => p.Y)) * 1.1;
        double X(double x) => left + x / maxX * (width - left - right);
        double Y(double y) => height - bottom - y / maxY * (height - top - bottom);
        var svg = new StringBuilder();
        var c = CultureInfo.InvariantCulture;
        svg.Append(c, $"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" font-family=\"sans-serif\" font-size=\"12\">\n");
        svg.Append(c, $"<rect width=\"{width}\" height=\"{height}\" fill=\"white\"/>\n");
        svg.Append(c, $"<text x=\"{width / 2}\" y=\"22\" text-anchor=\"middle\" font-size=\"14\">{Escape(title)}</text>\n");
        for (int i = 0; i <= 5; i++)
        {
            double gx = maxX * i / 5, gy = maxY * i / 5;
            svg.Append(c, $"<line x1=\"{X(0):F1}\" y1=\"{Y(gy):F1}\" x2=\"{X(maxX):F1}\" y2=\"{Y(gy):F1}\" stroke=\"#ddd\"/>\n");
            svg.Append(c, $"<text x=\"{left - 6}\" y=\"{Y(gy) + 4:F1}\" text-anchor=\"end\">{gy:N0}</text>\n");
            svg.Append(c, $"<text x=\"{X(gx):F1}\" y=\"{height - bottom + 18}\" text-anchor=\"middle\">{gx:N0}</text>\n");
        }

        svg.Append(c, $"<line x1=\"{left}\" y1=\"{height - bottom}\" x2=\"{width - right}\" y2=\"{height - bottom}\" stroke=\"black\"/>\n");
        svg.Append(c, $"<line x1=\"{left}\" y1=\"{top}\" x2=\"{left}\" y2=\"{height - bottom}\" stroke=\"black\"/>\n");
        svg.Append(c, $"<text x=\"{(left + width - right) / 2}\" y=\"{height - 20}\" text-anchor=\"middle\">{Escape(xLabel)}</text>\n");
        svg.Append(c, $"<text x=\"18\" y=\"{(top + height - bottom) / 2}\" text-anchor=\"middle\" transform=\"rotate(-90 18 {(top + height - bottom) / 2})\">{Escape(yLabel)}</text>\n");
        svg.Append("<polyline fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"2\" points=\"");
        foreach (var (x, y) in points)
        {
            svg.Append(c, $"{X(x):F1},{Y(y):F1} ");
        }

        svg.Append("\"/>\n</svg>\n");
        return svg.ToString();
    }

    private static string Escape(string text) => text.Replace("&", "&amp;", StringComparison.Ordinal).Replace("<", "&lt;", StringComparison.Ordinal);
}
