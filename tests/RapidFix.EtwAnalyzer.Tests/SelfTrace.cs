using Microsoft.Diagnostics.NETCore.Client;
using RapidFix.EtwAnalyzer.Collecting;

namespace RapidFix.EtwAnalyzer.Tests;

/// <summary>An EventPipe session on this very process (through its diagnostics port), written to a file.</summary>
internal sealed class SelfTrace : IDisposable
{
    private readonly EventPipeSession _session;
    private readonly FileStream _file;
    private readonly Task _copy;
    private bool _stopped;

    public SelfTrace(string path)
    {
        Path = path;
        _session = new DiagnosticsClient(Environment.ProcessId).StartEventPipeSession(TraceProviders.Providers, requestRundown: false, circularBufferMB: 64);
        _file = File.Create(path);
        _copy = Task.Run(() => _session.EventStream.CopyTo(_file));
        Thread.Sleep(300); // the runtime enables the providers asynchronously
    }

    public string Path { get; }

    /// <summary>Ends the session and waits until every event is in the file.</summary>
    public void Stop()
    {
        if (_stopped)
        {
            return;
        }

        _stopped = true;
        _session.Stop();
        _copy.Wait(TimeSpan.FromSeconds(30));
        _file.Dispose();
    }

    public void Dispose()
    {
        Stop();
        _session.Dispose();
    }
}

/// <summary>Tests that trace this process or run traced children: one at a time, so no other test's events mix in.</summary>
[CollectionDefinition(Name, DisableParallelization = true)]
public sealed class TracedRuns
{
    public const string Name = "Traced runs";
}
