using System.Diagnostics;
using RapidFix.Engine.Store;
using RapidFix.StoreCrashHost;

namespace RapidFix.Engine.Tests.Store;

/// <summary>
/// Kills a process that is writing to a journal (SIGKILL, mid-stream) and proves that every message it saw become
/// durable is recovered byte for byte, and that sequence numbers resume where the journal ends.
/// </summary>
public sealed class StoreCrashTests : IDisposable
{
    private static readonly TimeSpan Deadline = TimeSpan.FromSeconds(90);
    private readonly TempDirectory _directory = new();

    public void Dispose() => _directory.Dispose();

    private sealed record Run(int FirstSeqNum, List<int> Durable);

    /// <summary>Starts the writer, waits for <paramref name="acknowledgements"/> durable reports, kills it, and returns what it reported.</summary>
    private static Run WriteUntilKilled(string journal, FlushPolicy policy, int acknowledgements, int window)
    {
        string host = Path.Combine(AppContext.BaseDirectory, "RapidFix.StoreCrashHost.dll");
        Assert.True(File.Exists(host), $"crash host not built: {host}");
        var start = new ProcessStartInfo(Environment.GetEnvironmentVariable("DOTNET_HOST_PATH") is { Length: > 0 } dotnet ? dotnet : "dotnet")
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        foreach (var argument in new[] { "exec", host, journal, policy.ToString(), window.ToString(System.Globalization.CultureInfo.InvariantCulture) })
        {
            start.ArgumentList.Add(argument);
        }

        using var process = Process.Start(start)!;
        using var watchdog = new Timer(_ => process.Kill(entireProcessTree: true), null, Deadline, Timeout.InfiniteTimeSpan);
        var durable = new List<int>();
        int first = 0;
        try
        {
            string? line;
            while (durable.Count < acknowledgements && (line = process.StandardOutput.ReadLine()) is not null)
            {
                if (line.StartsWith("READY ", StringComparison.Ordinal))
                {
                    first = int.Parse(line.AsSpan(6), System.Globalization.CultureInfo.InvariantCulture);
                }
                else if (line.StartsWith("DURABLE ", StringComparison.Ordinal))
                {
                    durable.Add(int.Parse(line.AsSpan(8), System.Globalization.CultureInfo.InvariantCulture));
                }
                else
                {
                    Assert.Fail($"unexpected output from the writer: {line}");
                }
            }

            if (durable.Count < acknowledgements)
            {
                Assert.Fail($"the writer stopped early: {process.StandardError.ReadToEnd()}");
            }
        }
        finally
        {
            process.Kill(entireProcessTree: true); // SIGKILL: no finalizers, no flush, no dispose
            process.WaitForExit();
        }

        // Reports already printed before the kill are promises too.
        string? rest;
        while ((rest = process.StandardOutput.ReadLine()) is not null)
        {
            if (rest.StartsWith("DURABLE ", StringComparison.Ordinal))
            {
                durable.Add(int.Parse(rest.AsSpan(8), System.Globalization.CultureInfo.InvariantCulture));
            }
        }

        Assert.NotEqual(0, process.ExitCode);
        return new Run(first, durable);
    }

    /// <summary>Checks the journal against what the writers reported; returns the last message it holds.</summary>
    private static int Verify(string journal, IReadOnlyList<int> acknowledged, int window)
    {
        using var store = JournalMessageStore.Open(new JournalOptions { FilePath = journal, MaxMessages = 4_000_000, MaxBytes = 1 << 30, WindowBytes = window }, DateTime.UtcNow);
        var handler = CollectingHandler.Create();
        store.ReadRange(1, 0, ref handler);
        var recovered = handler.Messages;

        int last = recovered.Count;
        Assert.Equal(Enumerable.Range(1, last), recovered.Select(m => m.SeqNum));       // no holes, nothing misread
        Assert.All(recovered, m => Assert.Equal(CrashStream.Message(m.SeqNum), m.Bytes)); // byte for byte
        Assert.True(last >= acknowledged.Max(), $"acknowledged {acknowledged.Max()} but only {last} recovered");
        Assert.Equal(last + 1, store.NextSenderMsgSeqNum);
        Assert.Contains(store.NextTargetMsgSeqNum, new[] { CrashStream.TargetAfter(last - 1), CrashStream.TargetAfter(last) });
        Assert.Equal(1, store.Generation);
        return last;
    }

    [Theory]
    [InlineData(FlushPolicy.GroupCommit, 3000, JournalOptions.DefaultWindowBytes)]
    [InlineData(FlushPolicy.EveryMessage, 300, JournalOptions.DefaultWindowBytes)]
    [InlineData(FlushPolicy.OsOnly, 3000, JournalOptions.DefaultWindowBytes)]
    // A 64 KiB window: the journal is many windows long at the kill, so recovery and the verdict read it from the file.
    [InlineData(FlushPolicy.GroupCommit, 3000, 65536)]
    [InlineData(FlushPolicy.OsOnly, 3000, 65536)]
    public void Acknowledged_messages_survive_a_kill_and_sequence_numbers_resume(FlushPolicy policy, int acknowledgements, int window)
    {
        string journal = _directory.File("crash.journal");

        var first = WriteUntilKilled(journal, policy, acknowledgements, window);
        Assert.Equal(1, first.FirstSeqNum);
        Assert.Equal(Enumerable.Range(1, first.Durable.Count), first.Durable); // reported in order, none skipped
        int lastAfterFirst = Verify(journal, first.Durable, window);

        // A second writer resumes right after what the journal holds, and is killed in turn.
        var second = WriteUntilKilled(journal, policy, acknowledgements / 3, window);
        Assert.Equal(lastAfterFirst + 1, second.FirstSeqNum);
        Assert.Equal(Enumerable.Range(lastAfterFirst + 1, second.Durable.Count), second.Durable);
        Verify(journal, [.. first.Durable, .. second.Durable], window);
    }
}
