using System.Diagnostics.Tracing;
using Microsoft.Diagnostics.NETCore.Client;
using RapidFix.Pools.Diagnostics;

namespace RapidFix.EtwAnalyzer.Collecting;

/// <summary>
/// The providers a RapidFix latency trace enables, in every form they are needed: EventPipe's environment variables,
/// dotnet-trace's --providers text, the diagnostics client's list. The CPU sample profiler is never among them: its
/// stack sampling suspends threads and perturbs the run it measures.
/// </summary>
public static class TraceProviders
{
    public const string RuntimeProvider = "Microsoft-Windows-DotNETRuntime";

    /// <summary>GC (collections, suspensions, allocation ticks at verbose level).</summary>
    public const ulong GcKeyword = 0x1;

    /// <summary>JIT (MethodLoadVerbose: every compiled method, with its tier).</summary>
    public const ulong JitKeyword = 0x10;

    /// <summary>Exceptions thrown.</summary>
    public const ulong ExceptionKeyword = 0x8000;

    /// <summary>Tiered compilation (background tier-up, call counting).</summary>
    public const ulong CompilationKeyword = 0x1000000000;

    public const ulong RuntimeKeywords = GcKeyword | JitKeyword | ExceptionKeyword | CompilationKeyword;

    /// <summary>Every RapidFix keyword: phases, sessions, latency, counters.</summary>
    public const ulong RapidFixKeywords = 0xF;

    /// <summary>Verbose: allocation ticks and MethodLoadVerbose are verbose-level events.</summary>
    public const int Level = (int)EventLevel.Verbose;

    /// <summary>The providers as "Provider:Keywords:Level" items joined by commas (DOTNET_EventPipeConfig, dotnet-trace --providers).</summary>
    public static string Configuration =>
        $"{RuntimeProvider}:0x{RuntimeKeywords:X}:{Level},{RapidFixEventSource.ProviderName}:0x{RapidFixKeywords:X}:{Level}";

    /// <summary>
    /// The runtime's own EventPipe environment variables for a session that starts with the process and streams into
    /// <paramref name="outputPath"/> (nothing to install; the process is traced from its first instruction).
    /// </summary>
    public static IReadOnlyList<KeyValuePair<string, string>> Environment(string outputPath) =>
    [
        new("DOTNET_EnableEventPipe", "1"),
        new("DOTNET_EventPipeConfig", Configuration),
        new("DOTNET_EventPipeOutputPath", outputPath),
        new("DOTNET_EventPipeOutputStreaming", "1"),
        // Method names come from MethodLoadVerbose; the end-of-run rundown would only make the file larger.
        new("DOTNET_EventPipeRundown", "0"),
    ];

    /// <summary>The same providers for <see cref="DiagnosticsClient.StartEventPipeSession(IEnumerable{EventPipeProvider}, bool, int)"/>.</summary>
    public static IReadOnlyList<EventPipeProvider> Providers =>
    [
        new(RuntimeProvider, EventLevel.Verbose, (long)RuntimeKeywords),
        new(RapidFixEventSource.ProviderName, EventLevel.Verbose, (long)RapidFixKeywords),
    ];
}
