using System.Collections.Concurrent;
using System.Diagnostics.Tracing;
using RapidFix.Pools.Diagnostics;
using RapidFix.Pools.Phases;

namespace RapidFix.Pools.Tests.Diagnostics;

/// <summary>Collects the RapidFix events of one engine name (other tests may emit events of their own meanwhile).</summary>
internal sealed class RapidFixListener : EventListener
{
    private readonly EventKeywords _keywords;
    private readonly string? _engine;

    public RapidFixListener(string? engine, EventKeywords keywords = (EventKeywords)(-1))
    {
        _engine = engine;
        _keywords = keywords;
        EnableEvents(RapidFixEventSource.Log, EventLevel.Verbose, _keywords);
    }

    public ConcurrentQueue<EventWrittenEventArgs> Events { get; } = new();

    protected override void OnEventSourceCreated(EventSource eventSource)
    {
        // Called from the base constructor, before our fields are set: enabling happens in our constructor.
    }

    protected override void OnEventWritten(EventWrittenEventArgs e)
    {
        if (_engine is null || (e.Payload is { Count: > 0 } p && p[0] is string s && s == _engine))
        {
            Events.Enqueue(e);
        }
    }

    public object? Value(EventWrittenEventArgs e, string name) => e.Payload![e.PayloadNames!.IndexOf(name)];
}

[Collection(nameof(GcSensitive))]
public sealed class RapidFixEventSourceTests
{
    [Fact]
    public void The_manifest_is_valid()
    {
        string? manifest = EventSource.GenerateManifest(typeof(RapidFixEventSource), "RapidFix.Pools.dll", EventManifestOptions.Strict);
        Assert.NotNull(manifest);
        Assert.Contains("name=\"RapidFix\"", manifest, StringComparison.Ordinal);
        Assert.Equal(RapidFixEventSource.ProviderName, RapidFixEventSource.Log.Name);
        Assert.Null(RapidFixEventSource.Log.ConstructionException);
    }

    [Fact]
    public void Phase_transitions_write_markers_in_order_with_the_engines_figures()
    {
        using var listener = new RapidFixListener("markers-test");
        var phases = new PhaseController("markers-test");
        phases.EnterContinuous();
        var keep = new byte[10_000];
        var report = phases.EnterShutdown();
        phases.CompleteShutdown();
        GC.KeepAlive(keep);

        var events = listener.Events.ToList();
        Assert.Equal(
            ["StartupBegin", "StartupEnd", "ContinuousBegin", "ContinuousEnd", "ContinuousReport", "ShutdownBegin", "ShutdownEnd"],
            events.Select(e => e.EventName));
        var continuousReport = events.Single(e => e.EventName == "ContinuousReport");
        Assert.Equal(report.AllocatedBytes, (long)listener.Value(continuousReport, "processAllocatedBytes")!);
        Assert.True((long)listener.Value(continuousReport, "processAllocatedBytes")! >= 10_000);
        Assert.Equal(report.Gen0Collections, (int)listener.Value(continuousReport, "gen0Collections")!);
        Assert.Equal(false, listener.Value(continuousReport, "noGcRegionRequested"));
        var begin = events.Single(e => e.EventName == "ContinuousBegin");
        Assert.True((long)listener.Value(begin, "processAllocatedBytes")! > 0);
    }

    [Fact]
    public void Completing_shutdown_before_it_began_is_refused()
    {
        var phases = new PhaseController("early");
        Assert.Throws<PhaseViolationException>(phases.CompleteShutdown);
    }

    [Fact]
    public void Latency_summaries_carry_their_percentiles_and_histogram_text()
    {
        using var listener = new RapidFixListener(null, RapidFixEventSource.Keywords.Latency);
        var summary = new LatencySummaryData { Channel = 1, Phase = 1, IntervalNanoseconds = 1_000_000_000, Count = 42, P50 = 1_500, P9999 = 9_000, Max = 12_000, Mean = 1_600 };
        RapidFixEventSource.Log.WriteLatencySummary(in summary, "0107ab\0");

        var e = Assert.Single(listener.Events, x => x.EventName == "LatencySummary");
        Assert.Equal(1, listener.Value(e, "channel"));
        Assert.Equal(42L, listener.Value(e, "count"));
        Assert.Equal(9_000L, listener.Value(e, "p9999Nanoseconds"));
        Assert.Equal("0107ab", listener.Value(e, "histogram"));
    }

    [Fact]
    public void Histogram_text_without_its_terminator_is_refused()
    {
        using var listener = new RapidFixListener(null, RapidFixEventSource.Keywords.Latency);
        var summary = default(LatencySummaryData);
        Assert.Throws<ArgumentException>(() => RapidFixEventSource.Log.WriteLatencySummary(in summary, "0107"));
    }

    [Fact]
    public void Session_events_and_counters_carry_their_fields()
    {
        using var listener = new RapidFixListener(null, RapidFixEventSource.Keywords.Sessions | RapidFixEventSource.Keywords.Counters);
        RapidFixEventSource.Log.WriteSession(RapidFixEventSource.SessionResendRequestId, "FIX.4.4:A->B", (int)RapidFixEventSource.Direction.Sent, 5, 9);
        RapidFixEventSource.Log.WriteSession(RapidFixEventSource.SessionDisconnectedId, "FIX.4.4:A->B", 17);
        var counters = new EngineCountersData { MessagesIn = 10, MessagesOut = 11, PoolsInUse = 2, Gen2Collections = 3 };
        RapidFixEventSource.Log.WriteEngineCounters(in counters);

        var resend = Assert.Single(listener.Events, x => x.EventName == "SessionResendRequest");
        Assert.Equal("FIX.4.4:A->B", listener.Value(resend, "session"));
        Assert.Equal(5L, listener.Value(resend, "beginSeqNo"));
        Assert.Equal(9L, listener.Value(resend, "endSeqNo"));
        var disconnected = Assert.Single(listener.Events, x => x.EventName == "SessionDisconnected");
        Assert.Equal(17, listener.Value(disconnected, "reason"));
        var c = Assert.Single(listener.Events, x => x.EventName == "EngineCounters");
        Assert.Equal(11L, listener.Value(c, "messagesOut"));
        Assert.Equal(3, listener.Value(c, "gen2Collections"));
    }

    [Fact]
    public void Writing_with_no_listener_allocates_nothing()
    {
        Assert.False(RapidFixEventSource.Log.IsEnabled());
        var summary = new LatencySummaryData { Count = 1 };
        long bytes = RapidFix.Tests.Shared.Allocations.Measure(summary, static s =>
        {
            RapidFixEventSource.Log.WriteLatencySummary(in s, "00\0");
            RapidFixEventSource.Log.WriteSession(RapidFixEventSource.SessionLogonId, "s", 0, 1);
            RapidFixEventSource.Log.ContinuousEnd("e");
        }, 100_000);
        Assert.Equal(0, bytes);
    }
}
