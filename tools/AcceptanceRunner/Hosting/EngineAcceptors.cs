using RapidFix.Engine.Configuration;
using RapidFix.Engine.Diagnostics;
using RapidFix.Engine.Hosting;

namespace RapidFix.AcceptanceRunner.Hosting;

/// <summary>Starts a RapidFix engine as the acceptor under test, with <see cref="AcceptanceApplication"/> behind every session.</summary>
public sealed class EngineAcceptorFactory : IInProcessAcceptorFactory
{
    private readonly Stream? _log;

    /// <param name="log">Where the engine's log goes (null: nowhere).</param>
    public EngineAcceptorFactory(Stream? log = null)
    {
        _log = log;
    }

    public string? UnavailableReason => null;

    public IInProcessAcceptor Start(SettingsFile settings)
    {
        var log = _log is null ? EngineLog.Null : new EngineLog(_log, 4096, LogLevel.Debug);
        var engine = FixEngine.Create(settings, _ => new AcceptanceApplication(), log);
        try
        {
            engine.Start();
            var endpoint = engine.Acceptors[0].LocalEndPoint;
            return new EngineAcceptor(engine, log, endpoint.Port);
        }
        catch
        {
            engine.Dispose();
            throw;
        }
    }

    private sealed class EngineAcceptor(FixEngine engine, EngineLog log, int port) : IInProcessAcceptor
    {
        public string Host => "127.0.0.1";

        public int Port { get; } = port;

        public void Dispose()
        {
            engine.Dispose();
            if (!ReferenceEquals(log, EngineLog.Null))
            {
                log.Dispose();
            }
        }
    }
}
