namespace RapidFix.EtwAnalyzer.Reading;

/// <summary>A RapidFix phase marker (StartupBegin, ContinuousBegin, ...), with its numeric payload by field name.</summary>
public sealed record PhaseMarker(double TimeMs, string Name, string Engine, IReadOnlyDictionary<string, long> Values);

/// <summary>A garbage collection: GCStart joined with its GCEnd.</summary>
public sealed record GcEvent(double TimeMs, long Number, int Generation, string Reason, string Type, double DurationMs);

/// <summary>A runtime suspension: SuspendEEStart to RestartEEStop, with the suspension's reason.</summary>
public sealed record SuspensionEvent(double TimeMs, string Reason, double DurationMs, bool ForGc);

/// <summary>An allocation tick (the runtime samples one about every 100 KB allocated).</summary>
public sealed record AllocationTick(double TimeMs, string TypeName, long Bytes, string Kind, int ThreadId);

/// <summary>A method the JIT compiled (MethodLoadVerbose).</summary>
public sealed record JitEvent(double TimeMs, string Method, string Tier);

/// <summary>An exception thrown.</summary>
public sealed record ExceptionEvent(double TimeMs, string Type, string Message);

/// <summary>One RapidFix latency summary: an interval of one channel, with its decoded histogram.</summary>
public sealed record LatencyInterval(double TimeMs, int Channel, int Phase, long IntervalNanoseconds, long Count, long P50, long P99,
    long P9999, long Max, RapidFix.Pools.Diagnostics.LatencyHistogram? Histogram);

/// <summary>One RapidFix engine-counters event.</summary>
public sealed record CounterSample(double TimeMs, IReadOnlyDictionary<string, long> Values);

/// <summary>One RapidFix session event (logon, logout, resend, reject, disconnection).</summary>
public sealed record SessionEvent(double TimeMs, string Name, string Session, string Detail);

/// <summary>Everything the analyzer uses from a trace.</summary>
public sealed class TraceModel
{
    public required string Path { get; init; }

    public double StartMs { get; set; } = double.NaN;

    public double EndMs { get; set; } = double.NaN;

    public long EventCount { get; set; }

    /// <summary>Events the runtime reported lost (buffers full).</summary>
    public long EventsLost { get; set; }

    /// <summary>Set when the file ended in the middle of its data (a killed process, a copy cut short).</summary>
    public string? TruncationMessage { get; set; }

    public List<PhaseMarker> Markers { get; } = [];

    public List<GcEvent> Collections { get; } = [];

    public List<SuspensionEvent> Suspensions { get; } = [];

    public List<AllocationTick> AllocationTicks { get; } = [];

    public List<JitEvent> Compilations { get; } = [];

    public List<ExceptionEvent> Exceptions { get; } = [];

    public List<LatencyInterval> Latency { get; } = [];

    public List<CounterSample> Counters { get; } = [];

    public List<SessionEvent> SessionEvents { get; } = [];

    /// <summary>Problems found in the RapidFix events (undecodable histograms...).</summary>
    public List<string> Warnings { get; } = [];
}
