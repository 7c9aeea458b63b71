using RapidFix.Engine.Sessions;

namespace RapidFix.Engine.Hosting;

/// <summary>Sessions added and removed while the engine runs, and acceptor templates (dynamic sessions).</summary>
public sealed partial class FixEngine
{
    /// <summary>The sessions now (a copy: allocates; for metrics collection and management, not per message).</summary>
    public FixSession[] SessionsSnapshot()
    {
        lock (_sessions)
        {
            return [.. _sessions];
        }
    }
}
