namespace RapidFix.AcceptanceRunner.Running;

/// <summary>The first step of a script that did not go as expected.</summary>
/// <param name="Line">The script line.</param>
/// <param name="Reason">What went wrong.</param>
/// <param name="Expected">The expected message (completed and resolved), when the step expected one.</param>
/// <param name="Received">What arrived instead, when something did.</param>
public sealed record StepFailure(int Line, string Reason, string? Expected = null, string? Received = null);

/// <summary>How one script went.</summary>
public sealed record ScriptResult(string Name, StepFailure? Failure, TimeSpan Duration)
{
    public bool Passed => Failure is null;
}
