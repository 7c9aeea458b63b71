using System.Runtime.InteropServices;
using Microsoft.Diagnostics.Tracing;
using Microsoft.Diagnostics.Tracing.Etlx;
using Microsoft.Diagnostics.Tracing.Parsers.Clr;
using RapidFix.Pools.Diagnostics;

namespace RapidFix.EtwAnalyzer.Reading;

/// <summary>A trace that cannot be analyzed at all; the message says why, for a person.</summary>
public sealed class TraceReadException : Exception
{
    public TraceReadException(string message, Exception? inner = null) : base(message, inner)
    {
    }
}

/// <summary>
/// Reads a trace with TraceEvent into a <see cref="TraceModel"/>: .nettrace (EventPipe, any OS), .etl (ETW, on
/// Windows) and .etlx (TraceEvent's own format, converted from either).
/// </summary>
public static class TraceReader
{
    private const string RapidFixProvider = RapidFixEventSource.ProviderName;
    private const int EndOfStreamTag = 1;

    public static TraceModel Read(string path)
    {
        if (string.IsNullOrWhiteSpace(path))
        {
            throw new TraceReadException("no trace file given");
        }

        var file = new FileInfo(path);
        if (!file.Exists)
        {
            throw new TraceReadException(Directory.Exists(path) ? $"'{path}' is a directory, not a trace file" : $"trace file not found: {path}");
        }

        if (file.Length == 0)
        {
            throw new TraceReadException($"trace file is empty: {path} (the traced process may have failed before the runtime wrote anything)");
        }

        string extension = file.Extension.ToLowerInvariant();
        var model = new TraceModel { Path = file.FullName };
        switch (extension)
        {
            case ".nettrace":
                ReadEventPipe(file, model);
                break;
            case ".etl":
                if (!RuntimeInformation.IsOSPlatform(OSPlatform.Windows))
                {
                    throw new TraceReadException($"{path}: .etl files are read with Windows' own ETW API; analyze it on Windows, or convert it to .etlx there (PerfView or this tool) and analyze that here");
                }

                using (var source = Open(() => new ETWTraceEventSource(file.FullName), path))
                {
                    Process(source, model);
                }

                break;
            case ".etlx":
                using (var log = Open(() => new TraceLog(file.FullName), path))
                using (var source = log.Events.GetSource())
                {
                    Process(source, model);
                }

                break;
            default:
                throw new TraceReadException($"{path}: unknown trace format '{extension}'; expected .nettrace (EventPipe), .etl or .etlx (ETW)");
        }

        return model;
    }

    private static void ReadEventPipe(FileInfo file, TraceModel model)
    {
        // A nettrace file starts with "Nettrace" (format 4 and later): check it so that a stray file gets a clear message.
        Span<byte> magic = stackalloc byte[8];
        using (var stream = file.OpenRead())
        {
            int n = stream.ReadAtLeast(magic, 8, throwOnEndOfStream: false);
            if (n < 8 || !magic.SequenceEqual("Nettrace"u8))
            {
                throw new TraceReadException($"{file.FullName} is not an EventPipe trace (it does not start with the 'Nettrace' signature)");
            }
        }

        using (var source = Open(() => new EventPipeEventSource(file.FullName), file.FullName))
        {
            Process(source, model);
            model.EventsLost = source.EventsLost;
        }

        // A finished nettrace stream ends with the serializer's end-of-stream tag (1). Without it the writer never
        // finished: the process was killed, or the file was copied while being written or cut short.
        using var tail = file.OpenRead();
        tail.Seek(-1, SeekOrigin.End);
        if (tail.ReadByte() != EndOfStreamTag && model.TruncationMessage is null)
        {
            model.TruncationMessage = $"the trace ends abruptly after {model.EventCount:N0} events (no end-of-stream marker: the traced process was killed, or the file is incomplete)";
        }
    }

    private static T Open<T>(Func<T> open, string path)
    {
        try
        {
            return open();
        }
        catch (Exception ex) when (ex is not OutOfMemoryException)
        {
            throw new TraceReadException($"{path}: cannot be opened as a trace ({ex.GetType().Name}: {ex.Message})", ex);
        }
    }

    private static void Process(TraceEventDispatcher source, TraceModel model)
    {
        var gcStarts = new Dictionary<long, GCStartTraceData>();
        var gcStartTimes = new Dictionary<long, double>();
        (double Time, string Reason, bool ForGc)? pendingSuspension = null;

        source.AllEvents += e =>
        {
            model.EventCount++;
            double t = e.TimeStampRelativeMSec;
            if (double.IsNaN(model.StartMs) || t < model.StartMs)
            {
                model.StartMs = t;
            }

            if (double.IsNaN(model.EndMs) || t > model.EndMs)
            {
                model.EndMs = t;
            }
        };

        var clr = source.Clr;
        clr.GCStart += e =>
        {
            gcStarts[e.Count] = (GCStartTraceData)e.Clone();
            gcStartTimes[e.Count] = e.TimeStampRelativeMSec;
            if (pendingSuspension is { } s)
            {
                pendingSuspension = s with { ForGc = true };
            }
        };
        clr.GCStop += e =>
        {
            if (gcStarts.Remove(e.Count, out var start))
            {
                double startTime = gcStartTimes[e.Count];
                gcStartTimes.Remove(e.Count);
                model.Collections.Add(new GcEvent(startTime, start.Count, start.Depth, start.Reason.ToString(), start.Type.ToString(), e.TimeStampRelativeMSec - startTime));
            }
        };
        clr.GCSuspendEEStart += e => pendingSuspension = (e.TimeStampRelativeMSec, e.Reason.ToString(), e.Reason == GCSuspendEEReason.SuspendForGC || e.Reason == GCSuspendEEReason.SuspendForGCPrep);
        clr.GCRestartEEStop += e =>
        {
            if (pendingSuspension is { } s)
            {
                model.Suspensions.Add(new SuspensionEvent(s.Time, s.Reason, e.TimeStampRelativeMSec - s.Time, s.ForGc));
                pendingSuspension = null;
            }
        };
        clr.GCAllocationTick += e =>
            model.AllocationTicks.Add(new AllocationTick(e.TimeStampRelativeMSec, string.IsNullOrEmpty(e.TypeName) ? "(unknown type)" : e.TypeName,
                e.AllocationAmount64 != 0 ? e.AllocationAmount64 : e.AllocationAmount, e.AllocationKind.ToString(), e.ThreadID));
        clr.MethodLoadVerbose += e =>
        {
            if ((e.MethodFlags & MethodFlags.Jitted) == 0)
            {
                return; // ready-to-run code loaded, not compiled
            }

            string name = string.IsNullOrEmpty(e.MethodNamespace) ? e.MethodName : e.MethodNamespace + "." + e.MethodName;
            model.Compilations.Add(new JitEvent(e.TimeStampRelativeMSec, name, e.OptimizationTier.ToString()));
        };
        clr.ExceptionStart += e => model.Exceptions.Add(new ExceptionEvent(e.TimeStampRelativeMSec, e.ExceptionType, e.ExceptionMessage));

        source.Dynamic.All += e =>
        {
            if (e.ProviderName == RapidFixProvider)
            {
                ReadRapidFix(e, model);
            }
        };

        try
        {
            source.Process();
        }
        catch (Exception ex) when (ex is not OutOfMemoryException)
        {
            model.TruncationMessage = $"the trace ends abruptly after {model.EventCount:N0} events ({ex.GetType().Name}: {ex.Message})";
        }
    }

    private static void ReadRapidFix(TraceEvent e, TraceModel model)
    {
        double t = e.TimeStampRelativeMSec;
        switch ((int)e.ID)
        {
            case RapidFixEventSource.StartupBeginId or RapidFixEventSource.StartupEndId or RapidFixEventSource.ContinuousBeginId
                or RapidFixEventSource.ContinuousEndId or RapidFixEventSource.ContinuousReportId or RapidFixEventSource.ShutdownBeginId
                or RapidFixEventSource.ShutdownEndId or RapidFixEventSource.WarmUpEndId:
                model.Markers.Add(new PhaseMarker(t, e.EventName, e.PayloadByName("engine") as string ?? "", Numbers(e, "engine")));
                break;
            case RapidFixEventSource.LatencySummaryId:
                ReadLatency(e, model);
                break;
            case RapidFixEventSource.EngineCountersId:
                model.Counters.Add(new CounterSample(t, Numbers(e, null)));
                break;
            case RapidFixEventSource.SessionLogonId or RapidFixEventSource.SessionLogoutId or RapidFixEventSource.SessionResendRequestId
                or RapidFixEventSource.SessionRejectId or RapidFixEventSource.SessionDisconnectedId:
                var numbers = Numbers(e, "session");
                model.SessionEvents.Add(new SessionEvent(t, e.EventName, e.PayloadByName("session") as string ?? "",
                    string.Join(", ", numbers.Select(kv => kv.Key + " " + kv.Value))));
                break;
        }
    }

    private static void ReadLatency(TraceEvent e, TraceModel model)
    {
        var values = Numbers(e, "histogram");
        LatencyHistogram? histogram = null;
        if (e.PayloadByName("histogram") is string { Length: > 0 } text)
        {
            histogram = new LatencyHistogram();
            if (!LatencyHistogramCodec.TryDecodeTextInto(text, histogram, out string? error))
            {
                model.Warnings.Add($"latency summary at {e.TimeStampRelativeMSec:F1} ms: {error}; its percentiles are shown, its histogram is left out");
                histogram = null;
            }
        }
        else
        {
            model.Warnings.Add($"latency summary at {e.TimeStampRelativeMSec:F1} ms carries no histogram (too large for one event); left out of the merged percentiles");
        }

        long V(string name) => values.TryGetValue(name, out long v) ? v : 0;
        model.Latency.Add(new LatencyInterval(e.TimeStampRelativeMSec, (int)V("channel"), (int)V("phase"), V("intervalNanoseconds"), V("count"),
            V("p50Nanoseconds"), V("p99Nanoseconds"), V("p9999Nanoseconds"), V("maxNanoseconds"), histogram));
    }

    /// <summary>The numeric (and boolean) payload fields of an event, by name.</summary>
    private static Dictionary<string, long> Numbers(TraceEvent e, string? skip)
    {
        var values = new Dictionary<string, long>(StringComparer.Ordinal);
        var names = e.PayloadNames;
        for (int i = 0; i < names.Length; i++)
        {
            if (names[i] == skip)
            {
                continue;
            }

            switch (e.PayloadValue(i))
            {
                case bool b:
                    values[names[i]] = b ? 1 : 0;
                    break;
                case long l:
                    values[names[i]] = l;
                    break;
                case int n:
                    values[names[i]] = n;
                    break;
                case IConvertible c when e.PayloadValue(i) is not string and not byte[]:
                    values[names[i]] = c.ToInt64(System.Globalization.CultureInfo.InvariantCulture);
                    break;
            }
        }

        return values;
    }
}
