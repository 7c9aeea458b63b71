using System.Net;
using RapidFix.Engine.Configuration;
using RapidFix.Engine.Diagnostics;
using RapidFix.Engine.Sessions;
using RapidFix.Engine.Store;
using RapidFix.Engine.Transport;

namespace RapidFix.Engine.Hosting;

/// <summary>
/// The sessions of a QuickFIX-style settings file, with their stores and transports: acceptors grouped by listening
/// endpoint, one initiator per initiating session. Everything is created in <see cref="Create"/> (startup);
/// <see cref="Start"/> opens the sockets; <see cref="Dispose"/> logs out, closes and releases.
/// </summary>
public sealed partial class FixEngine : IDisposable
{
    private readonly List<FixSession> _sessions = [];
    private readonly List<IMessageStore> _stores = [];
    private readonly List<(IPEndPoint Endpoint, List<FixSession> Sessions, List<SessionSettings> Settings)> _acceptorPlans = [];
    private readonly List<FixAcceptor> _acceptors = [];
    private readonly List<FixAcceptorOptions> _acceptorOptions = [];
    private readonly List<FixInitiator> _initiators = [];
    private readonly EngineLog _log;
    private bool _started;

    private FixEngine(EngineLog log)
    {
        _log = log;
    }

    /// <summary>The sessions of the settings file, in their order.</summary>
    public IReadOnlyList<FixSession> Sessions => _sessions;

    /// <summary>One acceptor per listening endpoint.</summary>
    public IReadOnlyList<FixAcceptor> Acceptors => _acceptors;

    /// <summary>One initiator per initiating session.</summary>
    public IReadOnlyList<FixInitiator> Initiators => _initiators;

    /// <summary>The log the sessions write to.</summary>
    public EngineLog Log => _log;

    /// <summary>
    /// Builds every session of <paramref name="settings"/>: options, dictionary, store (journal or express, as
    /// configured) and the application <paramref name="applications"/> returns for it.
    /// </summary>
    public static FixEngine Create(SettingsFile settings, Func<SessionSettings, IFixApplication> applications, EngineLog? log = null,
        Func<string?, string, Dictionary.DataDictionary>? dictionaries = null)
    {
        ArgumentNullException.ThrowIfNull(settings);
        ArgumentNullException.ThrowIfNull(applications);
        var engine = new FixEngine(log ?? EngineLog.Null);
        try
        {
            foreach (var sessionSettings in settings.Sessions)
            {
                if (engine.TryAddTemplate(sessionSettings, applications, dictionaries))
                {
                    continue;
                }

                var options = FixSessionOptions.FromSettings(sessionSettings, dictionaries);
                var store = MessageStoreFactory.Open(sessionSettings, DateTime.UtcNow);
                engine._stores.Add(store);
                var session = new FixSession(options, store, applications(sessionSettings), engine._log);
                engine._sessions.Add(session);
                engine.OpenMessageLog(session, sessionSettings);
                if (options.IsInitiator)
                {
                    engine._initiators.Add(engine.NewInitiator(session, sessionSettings));
                }
                else
                {
                    var endpoint = AcceptEndpoint(sessionSettings);
                    int port = endpoint.Port;
                    var plan = engine._acceptorPlans.Find(p => p.Endpoint.Equals(endpoint));
                    if (plan.Sessions is null)
                    {
                        plan = (endpoint, [], []);
                        engine._acceptorPlans.Add(plan);
                    }

                    if (plan.Sessions.Count > 0 && plan.Sessions[0].Options.SocketTransport != options.SocketTransport)
                    {
                        sessionSettings.TryGetValue(SettingKeys.SocketTransport, out var value);
                        throw sessionSettings.Error(SettingKeys.SocketTransport, value,
                            $"the sessions on port {port} must use the same SocketTransport ({plan.Sessions[0].Id} uses {plan.Sessions[0].Options.SocketTransport})");
                    }

                    if (plan.Sessions.Count > 0 && (plan.Sessions[0].Options.Tls is { } tls ? !tls.SameListener(options.Tls) : options.Tls is not null))
                    {
                        sessionSettings.TryGetValue(SettingKeys.SslEnable, out var value);
                        throw sessionSettings.Error(SettingKeys.SslEnable, value,
                            $"the sessions on port {port} must use the same SSL settings (see {plan.Sessions[0].Id})");
                    }

                    plan.Sessions.Add(session);
                    plan.Settings.Add(sessionSettings);
                }
            }

            // The limits on connections awaiting their Logon are the port's: checked (the sessions must agree) now.
            foreach (var plan in engine._acceptorPlans)
            {
                engine._acceptorOptions.Add(FixAcceptorOptions.FromSettings(plan.Settings));
            }
        }
        catch
        {
            engine.Dispose();
            throw;
        }

        return engine;
    }

    /// <summary>Opens the listening sockets and starts the initiators.</summary>
    public void Start()
    {
        if (_started)
        {
            return;
        }

        _started = true;
        for (int i = 0; i < _acceptorPlans.Count; i++)
        {
            var (endpoint, sessions, _) = _acceptorPlans[i];
            _acceptors.Add(CreateAcceptor(endpoint, sessions, _acceptorOptions[i]));
        }

        foreach (var initiator in _initiators)
        {
            initiator.Start();
        }
    }

    /// <summary>The session with this identity, or null.</summary>
    public FixSession? Find(SessionId id)
    {
        lock (_sessions) // sessions come and go at run time (FixEngine.Dynamic.cs)
        {
            return _sessions.Find(s => s.Id == id);
        }
    }

    /// <summary>Logs out and stops the initiators, closes the acceptors and their connections, closes the stores and flushes the log.</summary>
    public void Dispose()
    {
        foreach (var initiator in _initiators)
        {
            initiator.Dispose();
        }

        foreach (var acceptor in _acceptors)
        {
            acceptor.Dispose();
        }

        foreach (var store in _stores)
        {
            store.Dispose();
        }

        CloseMessageLogs();
        _log.Flush();
    }
}
