using System.Diagnostics.Metrics;
using RapidFix.Engine.Hosting;
using RapidFix.Engine.Sessions;
using RapidFix.Pools.Diagnostics;

namespace RapidFix.Engine.Diagnostics;

/// <summary>
/// The engine's counters through <see cref="System.Diagnostics.Metrics"/>: a <see cref="Meter"/> named "RapidFix"
/// (<see cref="MeterName"/>) whose instruments are all observable, read from the counters the engine keeps anyway
/// when a listener collects (dotnet-counters, OpenTelemetry's metrics exporter, a <see cref="MeterListener"/>).
/// </summary>
/// <remarks>
/// Nothing is recorded per message: the hot paths only increment their own counters, as without metrics. A
/// collection reads them on the listener's thread, and the runtime's observable instruments allocate there (their
/// measurements and tag arrays): a few kilobytes per collection interval. Only a process with a metrics listener
/// attached does that; the zero-GC check runs without one (docs/hosting.md).
/// Per-session instruments carry the tag <c>session</c> (the session's identity, as <see cref="Configuration.SessionId.ToString"/>).
/// </remarks>
public sealed class EngineMetrics : IDisposable
{
    /// <summary>The meter's name, for <c>dotnet-counters monitor --counters RapidFix</c> and OpenTelemetry's <c>AddMeter</c>.</summary>
    public const string MeterName = "RapidFix";

    private readonly FixEngine _engine;
    private readonly IEngineCounterSource? _host;
    private readonly Dictionary<FixSession, KeyValuePair<string, object?>[]> _tags = [];

    /// <param name="engine">The sessions, acceptors and logs to read.</param>
    /// <param name="host">The engine host, for its pools (null: no pool instruments' values).</param>
    public EngineMetrics(FixEngine engine, IEngineCounterSource? host = null)
    {
        ArgumentNullException.ThrowIfNull(engine);
        _engine = engine;
        _host = host;
        Meter = new Meter(MeterName, typeof(EngineMetrics).Assembly.GetName().Version?.ToString());
        PerSession("rapidfix.messages.received", "{message}", "Messages received (all types).", c => c.MessagesReceived);
        PerSession("rapidfix.messages.sent", "{message}", "Messages sent (all types, resends included).", c => c.MessagesSent);
        PerSession("rapidfix.app_messages.received", "{message}", "Application messages received.", c => c.ApplicationMessagesReceived);
        PerSession("rapidfix.app_messages.sent", "{message}", "Application messages sent.", c => c.ApplicationMessagesSent);
        PerSession("rapidfix.rejects.sent", "{message}", "Session-level Rejects sent.", c => c.RejectsSent);
        PerSession("rapidfix.resends", "{message}", "Messages resent for ResendRequests.", c => c.MessagesResent);
        PerSession("rapidfix.resend_requests.received", "{message}", "ResendRequests received.", c => c.ResendRequestsReceived);
        PerSession("rapidfix.resend_requests.sent", "{message}", "ResendRequests sent.", c => c.ResendRequestsSent);
        PerSession("rapidfix.gap_fills.sent", "{message}", "SequenceReset-GapFills sent.", c => c.GapFillsSent);
        PerSession("rapidfix.logons", "{logon}", "Logons completed.", c => c.Logons);
        PerSession("rapidfix.logons.refused", "{logon}", "Logons refused (credentials, address, hook).", c => c.LogonsRefused);
        PerSession("rapidfix.disconnects", "{connection}", "Connections ended.", c => c.Disconnects);
        PerSession("rapidfix.send_failures", "{message}", "Sends the connection refused.", c => c.SendFailures);
        PerSession("rapidfix.store_failures", "{message}", "Writes the message store refused.", c => c.StoreFailures);
        PerSession("rapidfix.inbound_queue.overflows", "{message}", "Messages dropped from a full queue ahead of a gap.", c => c.InboundQueueOverflows);
        Meter.CreateObservableCounter("rapidfix.store.flushes", () => SessionValues(static s => s.Store.Counters.Flushes), "{flush}", "Disk writes of the message stores.");
        Meter.CreateObservableCounter("rapidfix.messages.vetoed", () => SessionValues(static s => s.MessagesVetoed), "{message}", "Application messages the ToApp hook vetoed.");
        Meter.CreateObservableCounter("rapidfix.message_log.dropped", () => SessionValues(static s => s.MessageLog?.Dropped ?? 0), "{message}", "Messages the message log dropped (its ring was full).");
        Meter.CreateObservableUpDownCounter("rapidfix.inbound_queue.depth", () => SessionValues(static s => s.InboundQueueDepth), "{message}", "Messages held ahead of a sequence gap.");
        Meter.CreateObservableUpDownCounter("rapidfix.outbound.pending_bytes", () => SessionValues(static s => s.Transport is Transport.FixSocketConnection c ? c.PendingBytes : 0), "By",
            "Bytes waiting to be sent.");
        Meter.CreateObservableUpDownCounter("rapidfix.message_log.pending_bytes", () => SessionValues(static s => s.MessageLog?.Pending ?? 0), "By", "Bytes waiting for the message log's writer.");
        Meter.CreateObservableCounter("rapidfix.connections.refused", RefusedConnections, "{connection}", "Connections closed at once by an acceptor's limits.");
        Meter.CreateObservableCounter("rapidfix.engine_log.dropped", () => _engine.Log.Dropped, "{entry}", "Engine log entries dropped (its ring was full).");
        Meter.CreateObservableCounter("rapidfix.pool.rent_failures", () => Host().PoolRentFailures, "{rent}", "Pool rents refused (a pool exhausted).");
        Meter.CreateObservableUpDownCounter("rapidfix.pool.in_use", () => (long)Host().PoolsInUse, "{item}", "Pooled items rented.");
        Meter.CreateObservableUpDownCounter("rapidfix.pool.capacity", () => (long)Host().PoolsCapacity, "{item}", "Pooled items in all.");
    }

    /// <summary>The "RapidFix" meter (disposed with this object).</summary>
    public Meter Meter { get; }

    /// <summary>Disposes the meter: its instruments stop being observed.</summary>
    public void Dispose() => Meter.Dispose();

    private void PerSession(string name, string unit, string description, Func<SessionCounters, long> read) =>
        Meter.CreateObservableCounter(name, () => SessionValues(s => read(s.Counters)), unit, description);

    private List<Measurement<long>> SessionValues(Func<FixSession, long> read)
    {
        var sessions = _engine.SessionsSnapshot();
        var values = new List<Measurement<long>>(sessions.Length);
        lock (_tags)
        {
            foreach (var session in sessions)
            {
                if (!_tags.TryGetValue(session, out var tags))
                {
                    tags = [new("session", session.Id.ToString())];
                    _tags.Add(session, tags);
                }

                values.Add(new Measurement<long>(read(session), tags));
            }
        }

        return values;
    }

    private long RefusedConnections()
    {
        long refused = 0;
        foreach (var acceptor in _engine.Acceptors)
        {
            refused += acceptor.RefusedConnections;
        }

        return refused;
    }

    private EngineCountersData Host()
    {
        var data = default(EngineCountersData);
        _host?.ReadCounters(out data);
        return data;
    }
}
