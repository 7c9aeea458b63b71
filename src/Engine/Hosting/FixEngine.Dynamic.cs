using System.Net;
using RapidFix.Engine.Codec;
using RapidFix.Engine.Configuration;
using RapidFix.Engine.Diagnostics;
using RapidFix.Engine.Fields;
using RapidFix.Engine.Sessions;
using RapidFix.Engine.Store;
using RapidFix.Engine.Transport;

namespace RapidFix.Engine.Hosting;

/// <summary>
/// Sessions added and removed while the engine runs, and acceptor templates (QuickFIX/J's and QuickFIX/n's dynamic
/// sessions): a section with AcceptorTemplate=Y and a * in its CompIDs, SubIDs or LocationIDs creates a session when
/// a Logon on its port names an identity that matches it and no configured session. The session is created at the
/// Logon (settings of the template, identity of the Logon, its own store and message log), and its application's
/// <see cref="IFixApplication.OnLogonRequest"/> decides: accepted, it joins the engine's sessions; refused, the
/// counterparty gets a Logout with the reason, the refusal is logged with its address, and the session is discarded.
/// Everything here allocates: it is connection set-up and management, never the message flow. The largest part, the
/// connection buffers of a template's sessions (OutboundQueueDepth and the receive buffers), is made at startup:
/// DynamicSessionCapacity slots per template, each taken by a session at its creation and given back when it is
/// removed or its Logon refused; a Logon when none is free is refused with a Logout naming the limit.
/// </summary>
public sealed partial class FixEngine
{
    private readonly List<AcceptorTemplate> _templates = [];
    private readonly List<FixSession> _pending = []; // created from a template, not yet accepted by OnLogonRequest
    private Func<SessionSettings, IFixApplication>? _applications;
    private Func<string?, string, Dictionary.DataDictionary>? _dictionaries;

    /// <summary>The sessions now (a copy: allocates; for metrics collection and management, not per message).</summary>
    public FixSession[] SessionsSnapshot()
    {
        lock (_sessions)
        {
            return [.. _sessions];
        }
    }

    /// <summary>The acceptor templates' identities (with their wildcards).</summary>
    public IReadOnlyList<SessionId> Templates => _templates.ConvertAll(t => t.Options.Id);

    /// <summary>
    /// Adds a session while the engine runs: its store, its message log, and for an acceptor its place on the port
    /// (a new listener when none serves the port), for an initiator its connection attempts.
    /// </summary>
    /// <exception cref="ArgumentException">The engine already has a session with this identity.</exception>
    public FixSession AddSession(SessionSettings settings, IFixApplication application)
    {
        ArgumentNullException.ThrowIfNull(settings);
        ArgumentNullException.ThrowIfNull(application);
        var options = FixSessionOptions.FromSettings(settings, _dictionaries);
        lock (_sessions)
        {
            if (_sessions.Exists(s => s.Id == options.Id))
            {
                throw new ArgumentException($"The engine already has session {options.Id}.", nameof(settings));
            }
        }

        var session = CreateSession(settings, options, application);
        if (options.IsInitiator)
        {
            var initiator = NewInitiator(session, settings);
            lock (_initiators)
            {
                _initiators.Add(initiator);
            }

            initiator.Start();
        }
        else
        {
            var endpoint = AcceptEndpoint(settings);
            FixAcceptor? acceptor;
            lock (_acceptors)
            {
                acceptor = _acceptors.Find(a => endpoint.Port != 0 && a.LocalEndPoint.Port == endpoint.Port);
                if (acceptor is null)
                {
                    _acceptors.Add(new FixAcceptor([session], endpoint, _log, options: FixAcceptorOptions.FromSettings([settings])));
                }
            }

            acceptor?.AddSession(session);
        }

        lock (_sessions)
        {
            _sessions.Add(session);
        }

        return session;
    }

    /// <summary>
    /// Removes a session while the engine runs: a logged-on counterparty is sent a Logout with
    /// <paramref name="reason"/> and given the session's LogoutTimeout to answer; then the connection closes, Logons
    /// for the identity are no longer routed to it, its store and message log are closed. False when there is no
    /// such session.
    /// </summary>
    public bool RemoveSession(SessionId id, string reason = "Session removed")
    {
        FixSession? session;
        lock (_sessions)
        {
            session = _sessions.Find(s => s.Id == id);
            if (session is null)
            {
                return false;
            }

            _sessions.Remove(session);
        }

        foreach (var acceptor in _acceptors.ToArray())
        {
            acceptor.RemoveSession(session);
        }

        session.Logout(reason);
        var deadline = DateTime.UtcNow + session.Options.LogoutTimeout;
        while (session.IsLoggedOn && DateTime.UtcNow < deadline)
        {
            Thread.Sleep(5);
        }

        session.Disconnect(DisconnectReason.Application);
        FixInitiator? initiator;
        lock (_initiators)
        {
            initiator = _initiators.Find(i => ReferenceEquals(i.Session, session));
            if (initiator is not null)
            {
                _initiators.Remove(initiator);
            }
        }

        initiator?.Dispose();
        Release(session);
        lock (_templates)
        {
            foreach (var template in _templates)
            {
                template.Forget(session);
            }
        }

        return true;
    }

    /// <summary>A template section (AcceptorTemplate=Y): checked now, kept for the Logons that match it. False for other sections.</summary>
    private bool TryAddTemplate(SessionSettings settings, Func<SessionSettings, IFixApplication> applications, Func<string?, string, Dictionary.DataDictionary>? dictionaries)
    {
        _applications = applications;
        _dictionaries = dictionaries;
        if (!settings.GetBool(SettingKeys.AcceptorTemplate))
        {
            return false;
        }

        if (!settings.IsAcceptor)
        {
            settings.TryGetValue(SettingKeys.AcceptorTemplate, out var value);
            throw settings.Error(SettingKeys.AcceptorTemplate, value, "only an acceptor section can be a template (ConnectionType=acceptor)");
        }

        // Everything but the identity is checked at startup (dictionary, store settings, limits).
        var options = FixSessionOptions.FromSettings(settings, dictionaries);
        var endpoint = AcceptEndpoint(settings);
        _templates.Add(new AcceptorTemplate(settings, options, endpoint, settings.GetInt(SettingKeys.MaxDynamicSessions),
            settings.GetInt(SettingKeys.DynamicSessionCapacity)));
        var plan = _acceptorPlans.Find(p => p.Endpoint.Equals(endpoint));
        if (plan.Sessions is null)
        {
            plan = (endpoint, [], []);
            _acceptorPlans.Add(plan);
        }

        plan.Settings.Add(settings);
        return true;
    }

    /// <summary>The listener of one port: its sessions and, when the port has templates, the route to them.</summary>
    private FixAcceptor CreateAcceptor(IPEndPoint endpoint, List<FixSession> sessions, FixAcceptorOptions options)
    {
        var templates = _templates.FindAll(t => t.Endpoint.Equals(endpoint));
        var acceptor = new FixAcceptor(sessions, endpoint, _log, options: options, templates: templates.ConvertAll(t => t.Options));
        if (templates.Count > 0)
        {
            // The templates' run-time session slots: their connection buffers, made now (startup).
            foreach (var template in templates)
            {
                for (int i = 0; i < template.Capacity; i++)
                {
                    template.Free.Push(acceptor.NewConnectionBuffers(template.Options));
                }
            }

            acceptor.DynamicRoute = logon => FromTemplate(acceptor, templates, logon);
        }

        return acceptor;
    }

    /// <summary>
    /// A Logon no configured session matched: a new session from the first template it matches (on the connection's
    /// thread, at set-up), or null (the connection is then closed as an unknown session, logged with its address).
    /// </summary>
    private FixSession? FromTemplate(FixAcceptor acceptor, List<AcceptorTemplate> templates, FixMessage logon)
    {
        lock (_templates)
        {
            DiscardRefused();
            foreach (var template in templates)
            {
                if (!TryIdentity(template.Options.Id, logon, out var id))
                {
                    continue;
                }

                if (template.Created >= template.Max)
                {
                    _log.WriteDetail(LogLevel.Warning, LogEvent.UnknownSession, -1,
                        $"logon for {id} refused: template {template.Options.Id} has created MaxDynamicSessions ({template.Max}) sessions");
                    return null;
                }

                // No slot free: the session is made only to answer its Logon with a Logout naming the limit (its
                // refusal logged with the peer's address), with buffers for that alone; it is discarded after.
                string? refusal = template.Free.Count > 0 ? null
                    : $"DynamicSessionCapacity ({template.Capacity}) sessions of template {template.Options.Id} already in use";
                var settings = template.Settings.For(id);
                var options = FixSessionOptions.FromSettings(settings, _dictionaries);
                var session = CreateSession(settings, options, new ApprovalGate(this, _applications!(settings), refusal));
                if (refusal is null)
                {
                    var slot = template.Free.Pop();
                    session.ExchangeConnectionBuffers(null, slot);
                    template.Slots.Add(session, slot);
                }
                else
                {
                    session.ExchangeConnectionBuffers(null, acceptor.NewRefusalBuffers(options));
                }

                template.Created++;
                template.Sessions.Add(session);
                _pending.Add(session);
                if (refusal is null)
                {
                    acceptor.AddSession(session);
                }

                // A refusal is bound to this connection only, never routed to again: the identity's next Logon comes
                // back here, and takes a slot if one has come free.
                return session;
            }

            return null;
        }
    }

    /// <summary>The application accepted the Logon of a session created from a template: it joins the engine's sessions.</summary>
    private void Approve(FixSession session)
    {
        lock (_templates)
        {
            if (!_pending.Remove(session))
            {
                return;
            }
        }

        lock (_sessions)
        {
            _sessions.Add(session);
        }
    }

    /// <summary>Drops the template sessions whose Logon was refused or never completed (their connection is gone).</summary>
    private void DiscardRefused()
    {
        for (int i = _pending.Count - 1; i >= 0; i--)
        {
            var session = _pending[i];
            if (session.IsConnected)
            {
                continue;
            }

            _pending.RemoveAt(i);
            foreach (var acceptor in _acceptors.ToArray())
            {
                acceptor.RemoveSession(session);
            }

            foreach (var template in _templates)
            {
                template.Forget(session);
            }

            Release(session);
        }
    }

    /// <summary>
    /// The identity a Logon asks for, seen from our side, when it matches <paramref name="template"/>: a * takes the
    /// Logon's value (a CompID must be present), any other value must be equal.
    /// </summary>
    private static bool TryIdentity(SessionId template, FixMessage logon, out SessionId id)
    {
        id = template;
        if (!logon.BeginString.SequenceEqual(System.Text.Encoding.ASCII.GetBytes(template.BeginString)))
        {
            return false;
        }

        string? sender = Part(template.SenderCompId, logon, Tags.TargetCompID, required: true);
        string? target = Part(template.TargetCompId, logon, Tags.SenderCompID, required: true);
        string? senderSub = Part(template.SenderSubId, logon, Tags.TargetSubID, required: false);
        string? senderLocation = Part(template.SenderLocationId, logon, Tags.TargetLocationID, required: false);
        string? targetSub = Part(template.TargetSubId, logon, Tags.SenderSubID, required: false);
        string? targetLocation = Part(template.TargetLocationId, logon, Tags.SenderLocationID, required: false);
        if (sender is null || target is null || senderSub is null || senderLocation is null || targetSub is null || targetLocation is null)
        {
            return false;
        }

        id = template with
        {
            SenderCompId = sender, TargetCompId = target, SenderSubId = senderSub, SenderLocationId = senderLocation,
            TargetSubId = targetSub, TargetLocationId = targetLocation,
        };
        return true;

        static string? Part(string pattern, FixMessage logon, int tag, bool required)
        {
            var value = logon.GetValue(tag);
            if (pattern == "*")
            {
                return required && value.IsEmpty ? null : System.Text.Encoding.ASCII.GetString(value);
            }

            return pattern.Length == 0 || value.SequenceEqual(System.Text.Encoding.ASCII.GetBytes(pattern)) ? pattern : null;
        }
    }

    /// <summary>A session with its store and message log (startup, or set-up at run time).</summary>
    private FixSession CreateSession(SessionSettings settings, FixSessionOptions options, IFixApplication application)
    {
        var store = MessageStoreFactory.Open(settings, DateTime.UtcNow);
        try
        {
            var session = new FixSession(options, store, application, _log);
            lock (_stores)
            {
                _stores.Add(store);
            }

            OpenMessageLog(session, settings);
            return session;
        }
        catch
        {
            store.Dispose();
            throw;
        }
    }

    /// <summary>Closes what a removed session held: its message log and its store.</summary>
    private void Release(FixSession session)
    {
        CloseMessageLog(session);
        lock (_stores)
        {
            _stores.Remove(session.Store);
        }

        session.Store.Dispose();
    }

    private FixInitiator NewInitiator(FixSession session, SessionSettings settings) =>
        new(session, settings.GetConnectEndpoints(), settings.GetTimeSpan(SettingKeys.ReconnectInterval), _log,
            settings.GetInt(SettingKeys.SocketSendBufferSize), settings.GetInt(SettingKeys.SocketReceiveBufferSize));

    /// <summary>Where an acceptor section listens: SocketAcceptHost (all addresses when absent or *) and SocketAcceptPort.</summary>
    private static IPEndPoint AcceptEndpoint(SessionSettings settings)
    {
        string host = settings.GetStringOrNull(SettingKeys.SocketAcceptHost) ?? "0.0.0.0";
        int port = settings.GetInt(SettingKeys.SocketAcceptPort);
        var address = host is "0.0.0.0" or "*" ? IPAddress.Any : IPAddress.TryParse(host, out var a) ? a : Dns.GetHostAddresses(host)[0];
        return new IPEndPoint(address, port);
    }

    private sealed class AcceptorTemplate(SessionSettings settings, FixSessionOptions options, IPEndPoint endpoint, int max, int capacity)
    {
        /// <summary>DynamicSessionCapacity: the slots made at startup.</summary>
        public int Capacity { get; } = capacity;

        /// <summary>Slots no session holds. A slot given back may still be lent to its last connection: the next
        /// connection to take it waits for that one to end (<see cref="ConnectionBuffers.TryTake"/>).</summary>
        public Stack<ConnectionBuffers> Free { get; } = new(capacity);

        /// <summary>The slot of each session that holds one.</summary>
        public Dictionary<FixSession, ConnectionBuffers> Slots { get; } = [];

        /// <summary>A session of this template is removed or discarded: it is no longer counted, its slot is free.</summary>
        public void Forget(FixSession session)
        {
            Created -= Sessions.Remove(session) ? 1 : 0;
            if (Slots.Remove(session, out var slot))
            {
                Free.Push(slot);
            }
        }

        public SessionSettings Settings { get; } = settings;

        public FixSessionOptions Options { get; } = options;

        public IPEndPoint Endpoint { get; } = endpoint;

        public int Max { get; } = max;

        public int Created { get; set; }

        public List<FixSession> Sessions { get; } = [];
    }

    /// <summary>
    /// The application of a session created from a template, seen through its Logon decision: an accepted Logon makes
    /// the session one of the engine's. Every other call goes straight through (the ToApp and read-end hooks included).
    /// </summary>
    private sealed class ApprovalGate(FixEngine engine, IFixApplication inner, string? refusal = null) : IFixApplication, IToAppHook, IReadEndHook
    {
        public void OnCreate(FixSession session) => inner.OnCreate(session);

        public LogonDecision OnLogonRequest(FixSession session, FixMessage logon)
        {
            // A session made only to refuse its Logon (no slot free): the application is not asked.
            var decision = refusal is not null ? LogonDecision.Refuse(refusal) : inner.OnLogonRequest(session, logon);
            if (decision.Accepted)
            {
                engine.Approve(session);
            }

            return decision;
        }

        public void OnLogon(FixSession session) => inner.OnLogon(session);

        public void OnLogout(FixSession session) => inner.OnLogout(session);

        public void FromAdmin(FixSession session, FixMessage message) => inner.FromAdmin(session, message);

        public MessageDisposition FromApp(FixSession session, FixMessage message) => inner.FromApp(session, message);

        public void OnSendingAdmin(FixSession session, ReadOnlySpan<byte> msgType, FixEncoder body) => inner.OnSendingAdmin(session, msgType, body);

        public bool OnResending(FixSession session, FixMessage message) => inner.OnResending(session, message);

        public ToAppDecision ToApp(FixSession session, ReadOnlySpan<byte> msgType, ReadOnlySpan<byte> body, FixEncoder message) =>
            inner is IToAppHook hook ? hook.ToApp(session, msgType, body, message) : ToAppDecision.Send;

        public void OnReadEnd(FixSession session)
        {
            if (inner is IReadEndHook hook)
            {
                hook.OnReadEnd(session);
            }
        }
    }
}
