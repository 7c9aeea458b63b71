using System.Diagnostics;
using RapidFix.Engine.Store;

namespace RapidFix.MatchingService.Tests;

/// <summary>
/// The input journal flushes on demand: an append starts no fsync of its own; the matcher thread asks for one a batch
/// (<see cref="InputJournal.RequestFlush"/> when it starts matching the batch, <see cref="InputJournal.WaitForDurable"/>
/// before the answers leave). Before, the journal's flusher wrote and fsynced one batch after another for as long as
/// inputs arrived, whether or not anything waited for them.
/// </summary>
public sealed class InputJournalFlushTests : IDisposable
{
    private readonly string _work = Path.Combine(Path.GetTempPath(), "rapidfix-journal-flush-" + Guid.NewGuid().ToString("N"));

    public void Dispose()
    {
        if (Directory.Exists(_work))
        {
            Directory.Delete(_work, recursive: true);
        }
    }

    [Fact]
    public void Appends_start_no_flush_and_one_request_makes_them_all_durable()
    {
        using var journal = InputJournal.Open(Path.Combine(_work, "input.journal"), FlushPolicy.GroupCommit, 10_000, 1 << 20, 4096);
        Assert.Equal(20261123, journal.BusinessDate(20261123));
        var message = "8=FIX.4.4\u00019=5\u000135=AE\u000110=000\u0001"u8.ToArray();
        long flushes = journal.Counters.Flushes;
        var watch = Stopwatch.StartNew();
        for (int i = 0; i < 50; i++)
        {
            Assert.Equal(StoreWriteStatus.Ok, journal.Append("IM1"u8, 1, message));
            Thread.Sleep(1); // time for a flusher woken by each append to flush it (it did: one flush each, or nearly)
        }

        // Nobody asked: at most the flusher's park timeout's flush (one each 100 ms).
        long allowed = 1 + (watch.ElapsedMilliseconds / 100);
        Assert.True(journal.Counters.Flushes - flushes <= allowed,
            $"{journal.Counters.Flushes - flushes} flushes for 50 appends in {watch.ElapsedMilliseconds} ms");

        long before = journal.Counters.Flushes;
        long asked = journal.RequestFlush();
        Assert.Equal(journal.WrittenPosition, asked);
        Assert.True(journal.WaitForDurable(asked, TimeSpan.FromSeconds(10)));
        Assert.Equal(journal.WrittenPosition, journal.DurablePosition);
        Assert.True(journal.Counters.Flushes - before <= 1, $"{journal.Counters.Flushes - before} flushes for one request");

        // A wait alone asks too (an input the matcher waits for without having asked).
        Assert.Equal(StoreWriteStatus.Ok, journal.Append("IM1"u8, 1, message));
        Assert.True(journal.WaitForDurable(journal.WrittenPosition, TimeSpan.FromSeconds(10)));
    }
}
