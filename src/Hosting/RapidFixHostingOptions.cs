using RapidFix.Engine.Configuration;
using RapidFix.Engine.Hosting;
using RapidFix.Engine.Sessions;

namespace RapidFix.Hosting;

/// <summary>What <see cref="RapidFixHostedService"/> runs and how.</summary>
public sealed class RapidFixHostingOptions
{
    /// <summary>The QuickFIX-style settings file of the sessions.</summary>
    public string SettingsPath { get; set; } = "";

    /// <summary>The application of each session (called once per session at startup, and for each dynamic session).</summary>
    public Func<SessionSettings, IFixApplication>? Applications { get; set; }

    /// <summary>How the engine host runs its phases (name, warm-up limits, no-GC region).</summary>
    public EngineHostOptions Engine { get; set; } = new();

    /// <summary>
    /// The warm-up round (see <see cref="EngineHost.WarmUp"/>): it must drive every hot path the continuous phase will
    /// use. Null: no warm-up, the continuous phase starts right after startup.
    /// </summary>
    public Action<EngineHost, int>? WarmUp { get; set; }

    /// <summary>Wait for every session to log on before the warm-up (initiators and acceptors whose counterparty is up).</summary>
    public TimeSpan WaitForLogons { get; set; }

    /// <summary>Longest the stop waits for the counterparties to answer our Logouts before the connections are closed.</summary>
    public TimeSpan LogoutTimeout { get; set; } = TimeSpan.FromSeconds(5);

    /// <summary>
    /// Send the engine log's lines to Microsoft.Extensions.Logging (category "RapidFix.Engine"). The engine's threads
    /// still never allocate; the log's own writer thread builds a string per line for the logger, so the process
    /// allocates while it logs: set false (and log to a file) where the zero-GC proof must hold (docs/hosting.md).
    /// </summary>
    public bool BridgeEngineLog { get; set; } = true;

    /// <summary>Entries the engine log's ring holds for its writer (a full ring drops and counts).</summary>
    public int EngineLogCapacity { get; set; } = 8192;

    /// <summary>Publish the engine's counters on the "RapidFix" meter (dotnet-counters, OpenTelemetry).</summary>
    public bool EnableMetrics { get; set; } = true;
}
