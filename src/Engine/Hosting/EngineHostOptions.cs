namespace RapidFix.Engine.Hosting;

/// <summary>How an <see cref="EngineHost"/> runs its phases.</summary>
public sealed class EngineHostOptions
{
    /// <summary>The engine's name in traces and reports.</summary>
    public string Name { get; init; } = "rapidfix";

    /// <summary>Longest the warm-up may take before the host gives up waiting for compilation to settle.</summary>
    public TimeSpan MaxWarmUp { get; init; } = TimeSpan.FromSeconds(30);

    /// <summary>
    /// The pause after each warm-up round. Longer than the runtime's tiering delay (100 ms without new tier-0 code)
    /// so that call counting starts and the background compiler catches up before the next round.
    /// </summary>
    public TimeSpan WarmUpPause { get; init; } = TimeSpan.FromMilliseconds(250);

    /// <summary>Consecutive warm-up rounds in which the JIT compiled nothing that mean compilation has settled.</summary>
    public int SettledRounds { get; init; } = 3;

    /// <summary>Fewest warm-up rounds, settled or not (the first rounds compile tier 0, PGO needs later ones).</summary>
    public int MinWarmUpRounds { get; init; } = 5;

    /// <summary>0: no tripwire; otherwise the continuous phase runs in a no-GC region of this many bytes.</summary>
    public long NoGcRegionBytes { get; init; }

    /// <summary>Time between latency and counter summaries.</summary>
    public TimeSpan SummaryInterval { get; init; } = TimeSpan.FromSeconds(1);

    /// <summary>Record latency even when no trace listens (the host's own report then has percentiles).</summary>
    public bool RecordLatencyWithoutListener { get; init; }
}
