using RapidFix.TradeDriver.Measure;

namespace RapidFix.MatchingService.Tests.Measurement;

/// <summary>
/// The soak's input journal window and disk need, checked against the machine (<see cref="JournalSizing"/>),
/// and the soak bar's verdict over interval figures (<see cref="SoakVerdict"/>).
/// </summary>
public sealed class SoakAndSizingTests
{
    private const long GiB = 1L << 30;

    [Fact]
    public void A_run_of_any_length_gets_the_services_default_window()
    {
        var short_ = JournalSizing.For(100_000, 4, requestedJournalBytes: 0);
        var long_ = JournalSizing.For(10_000L * 3600 * 24, 4, requestedJournalBytes: 0); // a day at 10,000/s

        Assert.Equal(64L << 20, short_.JournalBytes);
        Assert.Equal(64L << 20, long_.JournalBytes);
        Assert.Null(short_.Refusal(freeDisk: 100 * GiB, availableMemory: 64 * GiB));
    }

    [Fact]
    public void The_open_trade_table_holds_the_trades_refusals_leave_open_and_counts_in_memory()
    {
        // A 60-s step at 184,000/s (and its warm-up): 12.4 million inputs, 1.77 million trades. The service's default
        // table (65,536) filled after a stall of a few seconds (nearly every trade of the refusals' time left open).
        var step = JournalSizing.For(12_364_800, 4, requestedJournalBytes: 0, rate: 184_000);
        Assert.Equal(12_364_800 / 7 / 4, step.OpenTrades);
        Assert.True(step.OpenTrades >= 15 * 184_000 / 7, "room for the trades of 15 s of refusals");
        Assert.Equal(step.OpenTrades * JournalSizing.MatcherBytesPerOpenTrade, step.MatcherBytes);
        Assert.Contains("the matcher's tables", step.Refusal(freeDisk: 100 * GiB, availableMemory: step.MemoryBytes - 1), StringComparison.Ordinal);
        Assert.Null(step.Refusal(freeDisk: 100 * GiB, availableMemory: step.MemoryBytes));

        // A short run keeps the service's default; a day-long one is capped.
        Assert.Equal(ServiceOptions.DefaultOpenTrades, JournalSizing.For(100_000, 4, requestedJournalBytes: 0).OpenTrades);
        Assert.Equal(JournalSizing.MaxOpenTrades, JournalSizing.For(10_000L * 3600 * 24, 4, requestedJournalBytes: 0).OpenTrades);
    }

    [Fact]
    public void The_persister_s_database_is_counted_on_its_own_disk_and_with_the_run_s_files_when_they_share_it()
    {
        // 80 % of a 40,000/s MST for 10 minutes: 19.2 million inputs; measured 360 + 401 bytes an input of journal and
        // stores and 930 of PostgreSQL, 33 GB on a disk that had 27 GB free.
        long inputs = 32_000L * 600;
        var sizing = JournalSizing.For(inputs, 4, requestedJournalBytes: 0, rate: 32_000);
        Assert.True(sizing.DatabaseDiskBytes >= inputs * 930);
        Assert.Null(sizing.Refusal(freeDisk: 27 * GiB, availableMemory: 20 * GiB)); // the journal and stores alone fit
        string? why = sizing.DatabaseRefusal(freeDisk: 27 * GiB, sameDiskAsRun: true, where: "/tmp/");
        Assert.NotNull(why);
        Assert.Contains("PostgreSQL's database", why, StringComparison.Ordinal);
        Assert.Contains("the input journal and session stores", why, StringComparison.Ordinal);
        Assert.Null(sizing.DatabaseRefusal(freeDisk: 27 * GiB, sameDiskAsRun: false, where: "/tmp/")); // its own disk: room
        Assert.Null(sizing.DatabaseRefusal(freeDisk: sizing.DatabaseDiskBytes + sizing.DiskBytes, sameDiskAsRun: true, where: "/tmp/"));
        Assert.NotNull(sizing.DatabaseRefusal(freeDisk: sizing.DatabaseDiskBytes + sizing.DiskBytes - 1, sameDiskAsRun: true, where: "/tmp/"));
    }

    [Fact]
    public void An_hours_long_soak_needs_its_journal_file_on_disk_not_in_memory()
    {
        // 300 messages/s for two hours: 2.16 million inputs, more than the old 2 GiB in-memory journal could hold.
        long inputs = 300L * 7200;
        var sizing = JournalSizing.For(inputs, 4, requestedJournalBytes: 0);

        Assert.Equal((inputs + 1000) * JournalSizing.BytesPerInput, sizing.JournalFileBytes);
        // What the stores write (measured 401 bytes an input for all four), not the sum of their files' caps.
        Assert.Equal(sizing.JournalFileBytes + ((inputs + 1000) * JournalSizing.StoreBytesPerInput), sizing.DiskBytes);
        Assert.True(sizing.DiskBytes >= (inputs + 1000) * (360 + 401));
        Assert.True(sizing.SessionStoreBytes >= inputs * JournalSizing.BytesPerAnswer); // each store's cap: every input
        // The journal files are not in memory: only their write windows, beside the driver.
        Assert.Equal(sizing.JournalBytes + (4 * JournalSizing.SessionStoreMemoryBytes) + sizing.MatcherBytes + sizing.DriverBytes, sizing.MemoryBytes);
        Assert.True(sizing.JournalFileBytes > 20 * sizing.JournalBytes);
        Assert.Null(sizing.Refusal(freeDisk: 100 * GiB, availableMemory: 64 * GiB));
        Assert.Contains("on disk", sizing.Refusal(freeDisk: sizing.JournalFileBytes - 1, availableMemory: 64 * GiB), StringComparison.Ordinal);
    }

    [Fact]
    public void A_window_larger_than_one_array_is_refused_with_what_to_change()
    {
        var sizing = JournalSizing.For(1_000_000, 4, requestedJournalBytes: 4L << 30);

        string? why = sizing.Refusal(freeDisk: 10_000 * GiB, availableMemory: 10_000 * GiB);

        Assert.NotNull(why);
        Assert.Contains("--journal-bytes 4294967296 is outside", why, StringComparison.Ordinal);
    }

    [Fact]
    public void A_long_run_s_session_stores_go_to_disk_and_their_memory_does_not_grow()
    {
        // 12,000/s for 10 minutes, and 14,400/s for a day: the session stores used to hold every answer in one array
        // (at most 2 GiB, the run refused past it); they keep a write window now, and the answers go to their files.
        var tenMinutes = JournalSizing.For(7_286_400, 4, requestedJournalBytes: 0);
        var day = JournalSizing.For(14_400L * 3600 * 24, 4, requestedJournalBytes: 0);

        Assert.True(tenMinutes.SessionStoreBytes > Array.MaxLength);
        // The windows' memory is the same; the matcher's table grows with the run's trades up to its cap.
        Assert.Equal(tenMinutes.MemoryBytes - tenMinutes.DriverBytes - tenMinutes.MatcherBytes, day.MemoryBytes - day.DriverBytes - day.MatcherBytes);
        Assert.Equal(JournalSizing.MaxOpenTrades * JournalSizing.MatcherBytesPerOpenTrade, day.MatcherBytes);
        Assert.Null(day.Refusal(freeDisk: 10_000 * GiB, availableMemory: 4 * GiB));
    }

    [Fact]
    public void More_inputs_than_the_service_counts_are_refused()
    {
        var sizing = JournalSizing.For(int.MaxValue, 4, requestedJournalBytes: 0);

        Assert.Contains("lower --rate or the duration", sizing.Refusal(-1, -1), StringComparison.Ordinal);
    }

    [Fact]
    public void A_disk_or_memory_that_cannot_hold_the_run_is_refused_by_name()
    {
        var sizing = JournalSizing.For(2_000_000, 4, requestedJournalBytes: 0);

        Assert.Contains("on disk", sizing.Refusal(freeDisk: sizing.DiskBytes - 1, availableMemory: 64 * GiB), StringComparison.Ordinal);
        Assert.Contains("of memory", sizing.Refusal(freeDisk: 100 * GiB, availableMemory: sizing.MemoryBytes - 1), StringComparison.Ordinal);
        Assert.Null(sizing.Refusal(freeDisk: sizing.DiskBytes, availableMemory: sizing.MemoryBytes));
    }

    [Fact]
    public void Flat_latency_and_memory_with_no_gc_meet_the_soak_bar()
    {
        var verdict = SoakVerdict.Of(Intervals(60, p9999: _ => 400, resident: _ => 800L << 20), collections: 0);

        Assert.NotNull(verdict);
        Assert.True(verdict.Met, verdict.Line);
        Assert.StartsWith("soak bar MET: p99.99 flat", verdict.Line, StringComparison.Ordinal);
        Assert.Equal(60, verdict.Intervals);
    }

    [Fact]
    public void A_p99_99_that_climbs_over_the_run_is_not_flat()
    {
        var verdict = SoakVerdict.Of(Intervals(60, p9999: i => 400 + (i * 20), resident: _ => 800L << 20), collections: 0)!;

        Assert.False(verdict.LatencyFlat);
        Assert.True(verdict.MemoryFlat);
        Assert.False(verdict.Met);
        Assert.Contains("p99.99 NOT flat", verdict.Line, StringComparison.Ordinal);
    }

    [Fact]
    public void One_slow_interval_is_noise_not_a_trend()
    {
        var verdict = SoakVerdict.Of(Intervals(60, p9999: i => i == 55 ? 50_000 : 400, resident: _ => 800L << 20), collections: 0)!;

        Assert.True(verdict.LatencyFlat, verdict.Line);
    }

    [Fact]
    public void Memory_that_grows_as_the_journal_fills_is_not_flat()
    {
        // 1,000 inputs matched a second (Intervals), each committing 2,000 bytes of pages as a pinned journal and its
        // stores fill: the growth the soak bar allowed before the journal roll. A multi-day soak cannot afford it.
        var verdict = SoakVerdict.Of(Intervals(60, p9999: _ => 400, resident: i => (400L << 20) + (i * 1000 * 2000L)), collections: 0)!;

        Assert.False(verdict.MemoryFlat, verdict.Line);
        Assert.False(verdict.Met);
        Assert.Contains("memory NOT flat", verdict.Line, StringComparison.Ordinal);
    }

    [Fact]
    public void Memory_within_the_tolerance_is_flat()
    {
        // Up and down by a few MiB (the runtime, the kernel's accounting) around a level reached at startup.
        var verdict = SoakVerdict.Of(Intervals(60, p9999: _ => 400, resident: i => (1200L << 20) + ((i % 7) * (2L << 20))), collections: 0)!;

        Assert.True(verdict.MemoryFlat, verdict.Line);
        Assert.True(verdict.Met, verdict.Line);
    }

    [Fact]
    public void Memory_that_grows_beyond_the_stores_or_a_gc_fails_the_bar()
    {
        var growing = SoakVerdict.Of(Intervals(60, p9999: _ => 400, resident: i => (800L << 20) + (i * (8L << 20))), collections: 0)!;
        var collected = SoakVerdict.Of(Intervals(60, p9999: _ => 400, resident: _ => 800L << 20), collections: 1)!;

        Assert.False(growing.MemoryFlat);
        Assert.Contains("memory NOT flat", growing.Line, StringComparison.Ordinal);
        Assert.False(collected.Met);
        Assert.EndsWith("GC 1", collected.Line, StringComparison.Ordinal);
    }

    [Fact]
    public void Too_few_steady_intervals_are_not_judged()
    {
        Assert.Null(SoakVerdict.Of(Intervals(SoakVerdict.MinIntervals - 1, _ => 400, _ => 1L << 30), 0));
    }

    // Steady intervals after two of warm-up (which the verdict ignores, however slow).
    private static List<IntervalPoint> Intervals(int steady, Func<int, double> p9999, Func<int, long> resident)
    {
        var points = new List<IntervalPoint>
        {
            new(1, RunPhase.WarmUp, 1000, 1000, 1000, 1e6, 1e6, 1e6, 1e6, 0, 100L << 20),
            new(2, RunPhase.WarmUp, 1000, 1000, 1000, 1e6, 1e6, 1e6, 1e6, 0, 100L << 20),
        };
        for (int i = 0; i < steady; i++)
        {
            points.Add(new(3 + i, RunPhase.Steady, 1000, 1000, 1000, 50, 200, p9999(i), p9999(i), 0, resident(i)));
        }

        return points;
    }
}
