using BenchmarkDotNet.Columns;
using BenchmarkDotNet.Configs;
using BenchmarkDotNet.Diagnosers;
using BenchmarkDotNet.Exporters;
using BenchmarkDotNet.Reports;

namespace RapidFix.Benchmarks;

/// <summary>Shared configuration: memory diagnoser always on, medians shown, markdown export for docs/performance.md.</summary>
public static class BenchmarkConfig
{
    public static IConfig Create() =>
        DefaultConfig.Instance
            .AddDiagnoser(MemoryDiagnoser.Default)
            .AddColumn(StatisticColumn.Median, StatisticColumn.P95)
            .AddExporter(MarkdownExporter.GitHub)
            .WithSummaryStyle(SummaryStyle.Default.WithRatioStyle(RatioStyle.Trend))
            .WithOptions(ConfigOptions.JoinSummary);
}
