using BenchmarkDotNet.Running;

namespace RapidFix.Benchmarks;

/// <summary>Entry point: BenchmarkDotNet's switcher, so any subset runs with --filter.</summary>
public static class Program
{
    public static int Main(string[] args)
    {
        var summaries = BenchmarkSwitcher.FromAssembly(typeof(Program).Assembly).Run(args, BenchmarkConfig.Create());
        return summaries.Any(s => s.HasCriticalValidationErrors) ? 1 : 0;
    }
}
