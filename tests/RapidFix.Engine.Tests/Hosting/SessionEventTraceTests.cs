using System.Collections.Concurrent;
using System.Diagnostics.Tracing;
using RapidFix.Engine.Hosting;
using RapidFix.Engine.Tests.Store;
using RapidFix.Pools.Diagnostics;

namespace RapidFix.Engine.Tests.Hosting;

[Collection(AllocationTestCollection.Name)]
public sealed class SessionEventTraceTests
{
    private sealed class SessionListener : EventListener
    {
        public ConcurrentQueue<(string Name, string Session, int Value, long A)> Events { get; } = new();

        public void Enable() => EnableEvents(RapidFixEventSource.Log, EventLevel.Verbose, RapidFixEventSource.Keywords.Sessions | RapidFixEventSource.Keywords.Latency | RapidFixEventSource.Keywords.Counters);

        protected override void OnEventWritten(EventWrittenEventArgs e)
        {
            if (e.EventName is { } name && name.StartsWith("Session", StringComparison.Ordinal))
            {
                Events.Enqueue((name, (string)e.Payload![0]!, Convert.ToInt32(e.Payload[1], System.Globalization.CultureInfo.InvariantCulture),
                    e.Payload.Count > 2 ? Convert.ToInt64(e.Payload[2], System.Globalization.CultureInfo.InvariantCulture) : 0));
            }
            else if (e.EventName is "LatencySummary" or "EngineCounters")
            {
                Events.Enqueue((e.EventName, "", 0, 0));
            }
        }
    }

    [Fact]
    public void Logons_logouts_and_disconnections_are_traced_with_the_session_names()
    {
        using var listener = new SessionListener();
        listener.Enable();
        var engine = new LoopbackEngine(new EngineHostOptions { Name = "session-events" });
        engine.Exchange(10);
        engine.Host.Monitor.Flush();
        engine.Dispose();

        var events = listener.Events.Where(e => e.Session.Contains("BUY", StringComparison.Ordinal) || e.Session.Length == 0).ToList();
        const int received = (int)RapidFixEventSource.Direction.Received;
        const int sent = (int)RapidFixEventSource.Direction.Sent;
        Assert.Contains(("SessionLogon", "FIX.4.4:BUY->SELL", sent, 1L), events);
        Assert.Contains(("SessionLogon", "FIX.4.4:SELL->BUY", received, 1L), events);
        Assert.Contains(("SessionLogon", "FIX.4.4:SELL->BUY", sent, 1L), events);
        Assert.Contains(events, e => e.Name == "SessionLogout" && e.Session == "FIX.4.4:BUY->SELL" && e.Value == sent);
        Assert.Contains(events, e => e.Name == "SessionLogout" && e.Session == "FIX.4.4:SELL->BUY" && e.Value == received);
        Assert.Contains(events, e => e.Name == "SessionDisconnected");
        Assert.Contains(events, e => e.Name == "LatencySummary");
        Assert.Contains(events, e => e.Name == "EngineCounters");
    }
}
