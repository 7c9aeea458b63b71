namespace RapidFix.Pools.Phases;

/// <summary>
/// Thrown when code that is only allowed to run during startup (creating a pool, loading a dictionary, registering
/// an observer) runs in another phase. It signals a programming error, never a condition caused by input.
/// </summary>
public sealed class PhaseViolationException : InvalidOperationException
{
    /// <summary>Something was asked that the current phase forbids; <paramref name="message"/> says what.</summary>
    public PhaseViolationException(string message) : base(message)
    {
    }
}
