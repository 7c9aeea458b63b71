namespace RapidFix.Pools.Phases;

/// <summary>What happened to the process-wide GC between the start and the end of the continuous phase.</summary>
/// <param name="Duration">Wall time spent in the continuous phase.</param>
/// <param name="Gen0Collections">Generation 0 collections during the phase (includes gen 1 and gen 2 ones, as the runtime counts them).</param>
/// <param name="Gen1Collections">Generation 1 collections during the phase.</param>
/// <param name="Gen2Collections">Generation 2 collections during the phase.</param>
/// <param name="AllocatedBytes">Bytes allocated by the whole process during the phase (precise count).</param>
/// <param name="NoGcRegionRequested">Whether the phase ran inside a no-GC region (the tripwire).</param>
/// <param name="NoGcRegionHeld">Whether that region was still in force when the phase ended.</param>
public readonly record struct ContinuousPhaseReport(
    TimeSpan Duration,
    int Gen0Collections,
    int Gen1Collections,
    int Gen2Collections,
    long AllocatedBytes,
    bool NoGcRegionRequested,
    bool NoGcRegionHeld)
{
    /// <summary>
    /// Bytes allocated during the phase by the registered engine threads (<see cref="Diagnostics.EngineThreads"/>),
    /// from their counters at the phase boundaries (each thread refreshes its counter once per turn of its loop).
    /// </summary>
    public long EngineThreadsAllocatedBytes { get; init; }

    /// <summary>True when the process collected no garbage during the continuous phase.</summary>
    public bool NoGarbageCollections => Gen0Collections == 0 && Gen1Collections == 0 && Gen2Collections == 0;
}
