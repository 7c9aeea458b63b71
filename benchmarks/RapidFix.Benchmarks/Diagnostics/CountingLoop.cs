using System.Diagnostics;

namespace RapidFix.Benchmarks.Diagnostics;

/// <summary>
/// The plain loops that benchmarks/count-instructions.sh counts with <c>perf stat</c>: a warm-up to the final tier,
/// then the asked number of passes, timed. Not a BenchmarkDotNet run.
/// </summary>
internal static class CountingLoop
{
    /// <summary>Runs <paramref name="pass"/> (which returns its failures) after the warm-up; returns the failures of every pass, warm-up included.</summary>
    public static long Run(int passes, int messagesPerPass, Func<int> pass, out double nanosecondsPerMessage)
    {
        // Tiered compilation promotes a method after 30 calls once no new method has been compiled for 100 ms,
        // then compiles in the background: two rounds of half a second, each followed by a pause.
        long failures = 0;
        for (int round = 0; round < 2; round++)
        {
            var warm = Stopwatch.StartNew();
            while (warm.ElapsedMilliseconds < 500)
            {
                failures += pass();
            }

            Thread.Sleep(500);
        }

        var time = Stopwatch.StartNew();
        for (int i = 0; i < passes; i++)
        {
            failures += pass();
        }

        time.Stop();
        nanosecondsPerMessage = passes == 0 ? 0 : time.Elapsed.TotalNanoseconds / passes / messagesPerPass;
        return failures;
    }
}
