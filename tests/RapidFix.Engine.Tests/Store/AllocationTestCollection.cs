namespace RapidFix.Engine.Tests.Store;

/// <summary>
/// Allocation measurements run alone, after the parallel tests: while other tests JIT new code, the runtime keeps
/// postponing tier-up, and their garbage collections can charge the measuring thread bytes it did not allocate
/// (see tests/Shared/Allocations.cs). Neither happens to production code, warmed up at startup and free of
/// collections in the continuous phase.
/// </summary>
[CollectionDefinition(Name, DisableParallelization = true)]
public sealed class AllocationTestCollection
{
    public const string Name = "Allocation measurements";
}
