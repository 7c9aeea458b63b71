using RapidFix.Engine.Configuration;

namespace RapidFix.AcceptanceRunner.Hosting;

/// <summary>An acceptor the runner started in its own process; disposing it stops it.</summary>
public interface IInProcessAcceptor : IDisposable
{
    /// <summary>Address to connect to (loopback).</summary>
    string Host { get; }

    /// <summary>The port it listens on (the OS-chosen one when the settings say SocketAcceptPort=0).</summary>
    int Port { get; }
}

/// <summary>
/// The seam between the runner and the engine: starts an acceptor from a settings file. The runner starts a fresh
/// one for each script and disposes it afterwards.
/// </summary>
public interface IInProcessAcceptorFactory
{
    /// <summary>Null when acceptors can be started; otherwise why not, for the user.</summary>
    string? UnavailableReason { get; }

    /// <summary>Starts an acceptor for the sessions of <paramref name="settings"/> and returns once it listens.</summary>
    IInProcessAcceptor Start(SettingsFile settings);
}

/// <summary>Where the runner finds the engine's acceptor.</summary>
public static class InProcessAcceptors
{
    /// <summary>The factory the command line uses: a RapidFix engine with the acceptance application behind it.</summary>
    public static IInProcessAcceptorFactory Default { get; } = new EngineAcceptorFactory(
        Environment.GetEnvironmentVariable("RAPIDFIX_ACCEPTANCE_LOG") is { Length: > 0 } path ? File.Create(path) : null);
}

/// <summary>A factory that cannot start anything and says why.</summary>
public sealed class UnavailableAcceptorFactory(string reason) : IInProcessAcceptorFactory
{
    public string? UnavailableReason { get; } = reason;

    public IInProcessAcceptor Start(SettingsFile settings) => throw new InvalidOperationException(UnavailableReason);
}
