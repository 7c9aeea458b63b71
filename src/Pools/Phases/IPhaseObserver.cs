namespace RapidFix.Pools.Phases;

/// <summary>
/// Receives phase transitions. Observers are registered during startup and called on the thread that makes the
/// transition, before the transition returns.
/// </summary>
public interface IPhaseObserver
{
    /// <summary>Called on the thread that changes the phase, from <paramref name="from"/> to <paramref name="to"/>.</summary>
    void OnPhaseChanged(EnginePhase from, EnginePhase to);
}
