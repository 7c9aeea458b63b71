namespace RapidFix.Engine.Tests.Store;

/// <summary>
/// Allocation measurements run alone, after the parallel tests: while other tests JIT new code, the runtime keeps
/// postponing tier-up and may compile (and run type initialisers) on the measuring thread mid-measurement, which
/// shows up as allocation that production code, warmed up at startup, does not have.
/// </summary>
[CollectionDefinition(Name, DisableParallelization = true)]
public sealed class AllocationTestCollection
{
    public const string Name = "Allocation measurements";
}
