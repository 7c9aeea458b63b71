using System.Text;
using RapidFix.Engine.Dictionary;
using RapidFix.Engine.Store;
using RapidFix.Matching;
using RapidFix.TradeDriver;

namespace RapidFix.MatchingService.Tests;

/// <summary>
/// The matcher thread takes what the ring holds in one batch (one journal wait, one store flush per session), not a
/// fixed 256 inputs: its rate is the batch divided by the cycle, and the cycle's waits (fsyncs) are fixed, so a small
/// cap held the whole service to about 256 inputs per cycle (docs/matching-service.md "Throughput").
/// </summary>
public sealed class MatcherBatchTests : IDisposable
{
    private static readonly byte[][] ParticipantIds = [.. TradeGenerator.Participants.Select(Encoding.ASCII.GetBytes)];
    private readonly string _work = Path.Combine(Path.GetTempPath(), "rapidfix-batch-" + Guid.NewGuid().ToString("N"));

    public void Dispose()
    {
        if (Directory.Exists(_work))
        {
            Directory.Delete(_work, recursive: true);
        }
    }

    [Fact]
    public void A_backlog_is_matched_in_batches_of_what_the_ring_holds_and_every_answer_is_kept_in_order()
    {
        Directory.CreateDirectory(_work);
        using var journal = InputJournal.Open(Path.Combine(_work, "input.journal"), FlushPolicy.GroupCommit, 100_000, 16 << 20, 4096);
        journal.BusinessDate(20261123);
        var ring = new InputRing(32 << 20);
        var threadRef = new MatcherThread[1];
        var sequencer = new InputSequencer(journal, ring, ParticipantIds, () => threadRef[0]?.Wake());
        sequencer.NoteBusinessDate(20261123);
        var reference = MatchingCore.LoadStaticData(DocumentedExamplesTests.GeneratedStaticData);
        var core = new MatchingCore(reference, ParticipantIds, 20261123, new MatcherOptions { OpenTrades = 1 << 16, Exceptions = 1 << 14 });
        // No session attached: every answer waits in its participant's queue, in the order the matcher produced it.
        var dispatcher = new OutputDispatcher(ParticipantIds.Length, new long[ParticipantIds.Length], 64 << 20, 100_000);
        var dictionary = StandardDictionaries.Load("FIX44");
        var dictionaries = ParticipantIds.Select(_ => dictionary).ToArray();
        using var thread = new MatcherThread(ring, journal, core, dispatcher, dictionaries, TimeSpan.FromSeconds(30), sequencer, rollTime: null);
        threadRef[0] = thread;

        // A backlog of 3,000 inputs waits in the ring before the thread starts (as when the inputs come faster than a cycle).
        var (messages, _) = TradeGenerator.Generate(new GeneratorOptions { Trades = 430, Seed = 3 });
        var ids = TradeGenerator.Participants.ToList();
        int[] seq = new int[ids.Count];
        int inputs = Math.Min(3000, messages.Count);
        for (int i = 0; i < inputs; i++)
        {
            int p = ids.IndexOf(messages[i].Sender);
            var bytes = TradeMessages.Complete(messages[i], "MATCH", ++seq[p] + 1);
            Assert.Equal(SubmitResult.Accepted, sequencer.Submit(p, 1, seq[p] + 1, bytes));
        }

        thread.Start();
        var deadline = DateTime.UtcNow.AddSeconds(60);
        while (thread.Processed < inputs && DateTime.UtcNow < deadline && thread.Fault is null)
        {
            Thread.Sleep(10);
        }

        Assert.Null(thread.Fault);
        Assert.Equal(inputs, thread.Processed);
        Assert.True(thread.LargestBatch > 256, $"largest batch {thread.LargestBatch} inputs (the old cap: 256), {thread.Batches} batches");
        Assert.True(thread.Batches <= inputs / 256, $"{thread.Batches} batches for {inputs} inputs");

        // The same answers, in the same order per participant, as the inputs matched one by one by a second matcher.
        var expected = new MatchingCore(reference, ParticipantIds, 20261123, new MatcherOptions { OpenTrades = 1 << 16, Exceptions = 1 << 14 });
        var batch = new OutputQueue(MatcherThread.BatchAnswerBytes, MatcherThread.BatchAnswers);
        var view = new RapidFix.Engine.Codec.FixMessage(MatchingCore.InputView);
        Array.Clear(seq);
        for (int i = 0; i < inputs; i++)
        {
            int p = ids.IndexOf(messages[i].Sender);
            var bytes = TradeMessages.Complete(messages[i], "MATCH", ++seq[p] + 1);
            Assert.Equal(RapidFix.Engine.Codec.FixParseError.None, view.Parse(bytes, 0, bytes.Length, dictionary));
            expected.Process(p, view, batch);
        }

        var perParticipant = new int[ParticipantIds.Length];
        for (int i = 0; i < batch.Count; i++)
        {
            var answer = batch[i];
            Assert.True(dispatcher.PendingFor(answer.Destination) > perParticipant[answer.Destination], "an answer is missing");
            var sent = dispatcher.PendingAt(answer.Destination, perParticipant[answer.Destination]++);
            Assert.True(sent.MsgType.SequenceEqual(answer.MsgType) && WithoutClock(sent.Body) == WithoutClock(answer.Body), $"answer {i} differs: {WithoutClock(sent.Body)} / {WithoutClock(answer.Body)}");
        }

        for (int p = 0; p < ParticipantIds.Length; p++)
        {
            Assert.Equal(perParticipant[p], dispatcher.PendingFor(p));
            Assert.Equal(perParticipant[p], dispatcher.ProducedFor(p));
        }

        Assert.True(batch.Count > inputs, $"{batch.Count} answers");
    }

    // TransactTime (60) and TrdRegTimestamp (769) are the clock's when the answer was written.
    private static string WithoutClock(ReadOnlySpan<byte> body) =>
        System.Text.RegularExpressions.Regex.Replace(Encoding.ASCII.GetString(body), "(^|\u0001)(60|769)=[^\u0001]*", "${1}${2}=");
}
