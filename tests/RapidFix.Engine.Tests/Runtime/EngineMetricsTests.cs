using System.Diagnostics.Metrics;
using RapidFix.Engine.Diagnostics;
using RapidFix.Engine.Sessions;
using RapidFix.Engine.Tests.Sessions;

namespace RapidFix.Engine.Tests.Runtime;

/// <summary>The "RapidFix" meter: what a <see cref="MeterListener"/> (dotnet-counters, OpenTelemetry) reads.</summary>
public sealed class EngineMetricsTests
{
    [Fact]
    public void A_MeterListener_reads_the_sessions_counters_tagged_by_session()
    {
        var executor = new ExecutingApplication();
        var client = new OrderingApplication();
        using var acceptor = SessionHarness.Acceptor(executor);
        using var initiator = SessionHarness.Initiator(client, SessionHarness.Endpoint(acceptor.Acceptors[0].LocalEndPoint.Port));
        var session = initiator.Sessions[0];
        SessionHarness.WaitUntil(() => session.IsLoggedOn && acceptor.Sessions[0].IsLoggedOn, "logon");
        for (int i = 1; i <= 20; i++)
        {
            Assert.Equal(SendResult.Sent, client.SendOrder(session, i));
        }

        SessionHarness.WaitUntil(() => client.Executions == 20, "20 executions");
        using var metrics = new EngineMetrics(acceptor);
        Assert.Equal("RapidFix", metrics.Meter.Name);

        var seen = new Dictionary<string, (long Value, string? Session)>();
        using var listener = new MeterListener();
        listener.InstrumentPublished = (instrument, l) =>
        {
            if (ReferenceEquals(instrument.Meter, metrics.Meter))
            {
                l.EnableMeasurementEvents(instrument);
            }
        };
        listener.SetMeasurementEventCallback<long>((instrument, value, tags, _) =>
        {
            string? name = null;
            foreach (var tag in tags)
            {
                if (tag.Key == "session")
                {
                    name = tag.Value as string;
                }
            }

            lock (seen)
            {
                seen[instrument.Name] = (value, name);
            }
        });
        listener.Start();
        listener.RecordObservableInstruments();

        var counters = acceptor.Sessions[0].Counters;
        Assert.Equal((counters.MessagesReceived, "FIX.4.4:EXEC->CLIENT"), seen["rapidfix.messages.received"]);
        Assert.Equal(counters.MessagesSent, seen["rapidfix.messages.sent"].Value);
        Assert.Equal(20, seen["rapidfix.app_messages.received"].Value);
        Assert.Equal(20, seen["rapidfix.app_messages.sent"].Value);
        Assert.Equal(1, seen["rapidfix.logons"].Value);
        Assert.Equal(0, seen["rapidfix.rejects.sent"].Value);
        Assert.Equal(0, seen["rapidfix.inbound_queue.depth"].Value);
        Assert.True(seen.ContainsKey("rapidfix.store.flushes"));
        Assert.True(seen.ContainsKey("rapidfix.connections.refused"));
        Assert.True(seen.ContainsKey("rapidfix.pool.rent_failures"));
        Assert.True(seen.ContainsKey("rapidfix.resends"));
        Assert.True(seen.ContainsKey("rapidfix.logons.refused"));
        Assert.True(seen.ContainsKey("rapidfix.outbound.pending_bytes"));
    }
}
