using System.Globalization;
using System.Text;

namespace RapidFix.TradeDriver.Measure;

/// <summary>
/// RapidFix and QuickFIX/n side by side (docs/measurement.md): the same driver, set and schedule against a RapidFix
/// echo acceptor and then a QuickFIX/n one, each in its own process doing the same echo work, one after the other in
/// the same run; the ratio of their figures. Without a QuickFIX/n build the RapidFix row stands alone and the report
/// says why.
/// </summary>
internal sealed record SideBySideResult(EchoResult RapidFix, EchoResult? QuickFixN, string? QuickFixNSkipped)
{
    /// <summary>QuickFIX/n's steady input-to-ack percentile over RapidFix's (above 1: RapidFix is faster), or null.</summary>
    public double? LatencyRatio(double percentile) =>
        QuickFixN is { } q && RapidFix.Percentile(percentile) > 0 ? q.Percentile(percentile) / RapidFix.Percentile(percentile) : null;

    /// <summary>RapidFix's achieved acks per second over QuickFIX/n's, or null.</summary>
    public double? ThroughputRatio => QuickFixN is { Achieved: > 0 } q ? RapidFix.Achieved / q.Achieved : null;

    /// <summary>The ratio line, or why there is none.</summary>
    public string RatioLine => QuickFixN is null
        ? $"ratio: none (QuickFIX/n skipped: {QuickFixNSkipped})"
        : string.Create(CultureInfo.InvariantCulture,
            $"ratio QuickFIX/n / RapidFix, input to ack: p50 {LatencyRatio(50):F2}x, p99 {LatencyRatio(99):F2}x, p99.99 {LatencyRatio(99.99):F2}x; achieved RapidFix / QuickFIX/n {ThroughputRatio:F2}x");

    /// <summary>Every row of both peers.</summary>
    public IReadOnlyList<LatencyRow> Rows => [.. RapidFix.Rows(), .. QuickFixN?.Rows() ?? []];

    /// <summary>The section as text: both lines, the table, the ratio.</summary>
    public string Text()
    {
        var text = new StringBuilder();
        text.AppendLine("== side by side: the same echo work on RapidFix and QuickFIX/n (steady part) ==");
        text.AppendLine(RapidFix.Line);
        text.AppendLine(QuickFixN?.Line ?? $"QuickFIX/n: skipped ({QuickFixNSkipped})");
        text.AppendLine(LatencyRow.Format(Rows));
        text.AppendLine(RatioLine);
        foreach (var note in RapidFix.Notes.Concat(QuickFixN?.Notes ?? []))
        {
            text.AppendLine("note: " + note);
        }

        return text.ToString();
    }

    /// <summary>
    /// Runs the echo schedule of <paramref name="o"/> against RapidFix, then against QuickFIX/n when
    /// <paramref name="quickFixNEcho"/> names its built echo acceptor (else <paramref name="skipped"/> says why not).
    /// </summary>
    public static SideBySideResult Execute(RunOptions o, string? quickFixNEcho, string? skipped, TextWriter output, Func<bool> stop)
    {
        long messages = new OpenLoopSchedule(o.Rate, o.WarmUpSeconds, o.RampSeconds, o.SteadySeconds, 0, 1_000_000).Total;
        var rapidFix = Run(EchoPeer.StartRapidFix(messages), o, output, stop);
        output.WriteLine(rapidFix.Line);
        EchoResult? quickFixN = null;
        if (quickFixNEcho is not null && !stop())
        {
            quickFixN = Run(EchoPeer.StartQuickFixN(quickFixNEcho), o, output, stop);
            output.WriteLine(quickFixN.Line);
        }

        return new SideBySideResult(rapidFix, quickFixN, quickFixN is null ? skipped ?? "stopped early" : null);
    }

    private static EchoResult Run(EchoPeer peer, RunOptions o, TextWriter output, Func<bool> stop)
    {
        using (peer)
        {
            if (!peer.WaitListening(TimeSpan.FromSeconds(120)))
            {
                throw new InvalidDataException($"the {peer.Name} echo acceptor did not start: {string.Join(" | ", peer.Lines.TakeLast(5))}");
            }

            return EchoRun.Execute(peer, o, output, stop);
        }
    }
}
