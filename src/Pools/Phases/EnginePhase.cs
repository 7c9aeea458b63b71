namespace RapidFix.Pools.Phases;

/// <summary>The three phases every RapidFix process goes through, in this order.</summary>
public enum EnginePhase
{
    /// <summary>Allocation allowed: pools are sized, dictionaries loaded, the JIT warmed. Ends with a full blocking GC.</summary>
    Startup = 0,

    /// <summary>No allocation anywhere in the process, so no GC: the engine runs on pooled resources only.</summary>
    Continuous = 1,

    /// <summary>Pools are released and the GC is allowed again.</summary>
    Shutdown = 2,
}
