using System.Text;
using RapidFix.Engine.Codec;
using RapidFix.Engine.Dictionary;
using RapidFix.Engine.Store;
using RapidFix.Matching;
using RapidFix.Tests.Shared;
using RapidFix.TradeDriver;

namespace RapidFix.MatchingService.Tests;

/// <summary>
/// The service's hot paths allocate nothing once warm: the matcher thread's work per input (parse in place, match,
/// write the answers: acks, CLS, rejections and notices), the connection threads' (journal append and ring write)
/// with the matcher thread's read and release, and the answer queues.
/// </summary>
public sealed class AllocationTests : IDisposable
{
    private static readonly byte[][] ParticipantIds = [.. TradeGenerator.Participants.Select(Encoding.ASCII.GetBytes)];
    private readonly string _work = Path.Combine(Path.GetTempPath(), "rapidfix-alloc-" + Guid.NewGuid().ToString("N"));

    public void Dispose()
    {
        if (Directory.Exists(_work))
        {
            Directory.Delete(_work, recursive: true);
        }
    }

    [Fact]
    public void Matching_and_writing_the_answers_allocates_nothing()
    {
        // Distinct trades of every kind, so the measured inputs clear trades, reject and notify, not only repeat.
        var (messages, _) = TradeGenerator.Generate(GeneratorOptions.DefaultMix(20_000, 9));
        var state = new MatcherState(messages);
        long bytes = Allocations.Measure(state, static s => s.Next(), iterations: 20_000);
        Assert.Equal(0, bytes);
        Assert.True(state.Answers > 20_000, $"the measured inputs produced {state.Answers} answers");
        Assert.True(state.Core.Matcher.Counters.Cleared > 1000 && state.Core.Matcher.Counters.Rejected > 100);
    }

    [Fact]
    public void Journalling_queueing_and_reading_an_input_allocates_nothing()
    {
        using var journal = OpenJournal();
        var ring = new InputRing(1 << 20);
        var sequencer = new InputSequencer(journal, ring, ParticipantIds, static () => { });
        var message = TradeMessages.Complete(TradeMessages.Standard(new TradeSpec
        {
            Key = "T1", InvestmentManager = "IM1", ExecutingBroker = "EB1", Isin = "SG1T75931496", Currency = "SGD", TradeDate = 20261123,
            SettlDate = 20261127, Price = 2.505m, Accounts = [new AccountSpec("ACC-A", 600, "CDP"), new AccountSpec("ACC-B", 400, "CDP")],
        })[0], "MATCH", 2);
        var state = (sequencer, ring, message, seq: new int[1], cursor: new long[1], journal);
        long bytes = Allocations.Measure(state, static s =>
        {
            // Checks without Assert: xunit's Assert.Equal allocates its comparer.
            if (s.sequencer.Submit(2, 1, ++s.seq[0], s.message) != SubmitResult.Accepted || !s.ring.TryRead(ref s.cursor[0], out var entry) ||
                entry.Length != s.message.Length)
            {
                throw new InvalidOperationException("submit or read failed");
            }

            s.ring.Release(s.cursor[0]);
            if ((s.seq[0] & 1023) == 0)
            {
                s.journal.RequestFlush(); // as the matcher thread asks for each batch's flush (appends start none)
            }
        }, iterations: 50_000);
        Assert.Equal(0, bytes);
        // A resend of what was journalled is recognised, and not journalled again.
        Assert.Equal(SubmitResult.AlreadyJournalled, sequencer.Submit(2, 1, 5, message));
    }

    [Fact]
    public void A_business_date_roll_journalled_queued_and_expiring_trades_allocates_nothing()
    {
        using var journal = OpenJournal();
        var ring = new InputRing(1 << 20);
        var sequencer = new InputSequencer(journal, ring, ParticipantIds, static () => { });
        sequencer.NoteBusinessDate(20261123);
        var dispatcher = new OutputDispatcher(ParticipantIds.Length, new long[ParticipantIds.Length], 64 << 20, 200_000);
        // Each round: one message of a trade, then a roll; trades spread over days expire three rolls later.
        var (messages, _) = TradeGenerator.Generate(new GeneratorOptions { Trades = 4000, Seed = 5 });
        var matcher = new MatcherState(messages);
        var state = (sequencer, ring, dispatcher, matcher, cursor: new long[1]);
        long bytes = Allocations.Measure(state, static s =>
        {
            s.matcher.Next();
            int date = s.sequencer.SubmitRoll();
            if (date == 0 || !s.ring.TryRead(ref s.cursor[0], out var entry) || entry.Participant != InputRing.BusinessDateRoll ||
                System.Buffers.Binary.BinaryPrimitives.ReadInt32LittleEndian(s.ring.Buffer.AsSpan(entry.Offset, 4)) != date)
            {
                throw new InvalidOperationException("the roll was not journalled and queued"); // not Assert: it allocates
            }

            s.ring.Release(s.cursor[0]);
            s.matcher.Core.AdvanceBusinessDate(date, s.dispatcher);
        }, iterations: 20_000);
        Assert.Equal(0, bytes);
        Assert.True(matcher.Core.Matcher.Counters.Expired > 1000, $"{matcher.Core.Matcher.Counters.Expired} trades expired");
        Assert.True(dispatcher.Queued > 1000, $"{dispatcher.Queued} expiry notices");
    }

    [Fact]
    public void The_answer_queue_allocates_nothing_and_keeps_order_across_compaction()
    {
        var queue = new OutputQueue(4096, 64);
        var body = new byte[100];
        long bytes = Allocations.Measure((queue, body), static s =>
        {
            bool ok = true;
            for (int i = 0; i < 30; i++)
            {
                ok &= s.queue.TryAdd(i, "AK"u8, s.body);
            }

            ok &= s.queue[0].Destination == 0;
            s.queue.RemoveFirst(10);
            ok &= s.queue[0].Destination == 10;
            for (int i = 0; i < 10; i++)
            {
                ok &= s.queue.TryAdd(30 + i, "P"u8, s.body); // past the end: compacts
            }

            ok &= s.queue[0].Destination == 10 && s.queue[s.queue.Count - 1].Destination == 39 && s.queue[s.queue.Count - 1].MsgType[0] == (byte)'P';
            s.queue.Clear();
            if (!ok)
            {
                throw new InvalidOperationException("the queue lost its order"); // not Assert: it allocates
            }
        }, iterations: 10_000);
        Assert.Equal(0, bytes);
        Assert.False(new OutputQueue(100, 4).TryAdd(0, "AK"u8, body)); // too large: refused, not grown
    }

    // The input journal of a business day, in the test's directory.
    private InputJournal OpenJournal()
    {
        Directory.CreateDirectory(_work);
        var journal = InputJournal.Open(Path.Combine(_work, "input.journal"), FlushPolicy.GroupCommit, 600_000, 64 << 20, 4096);
        journal.BusinessDate(20261123);
        return journal;
    }

    private sealed class MatcherState
    {
        private readonly (int Participant, byte[] Bytes)[] _messages;
        private readonly DataDictionary _dictionary = StandardDictionaries.Load("FIX44");
        private readonly FixMessage _view = new();
        private readonly OutputQueue _queue = new(MatchingCore.MaxAnswerBytesPerInput, MatchingCore.MaxAnswersPerInput);
        private int _next;

        public MatcherState(List<TradeMessages.Message> messages)
        {
            var ids = TradeGenerator.Participants.ToList();
            _messages = [.. messages.Select((m, i) => (ids.IndexOf(m.Sender), TradeMessages.Complete(m, "MATCH", i + 2)))];
            var reference = MatchingCore.LoadStaticData(DocumentedExamplesTests.GeneratedStaticData);
            Core = new MatchingCore(reference, ParticipantIds, 20261123, new MatcherOptions { OpenTrades = 1 << 16, Exceptions = 1 << 14 });
        }

        public MatchingCore Core { get; }

        public long Answers { get; private set; }

        public void Next()
        {
            var (participant, bytes) = _messages[_next++ % _messages.Length];
            if (_view.Parse(bytes, 0, bytes.Length, _dictionary) != FixParseError.None)
            {
                throw new InvalidOperationException("a generated message does not parse");
            }

            Core.Process(participant, _view, _queue);
            Answers += _queue.Count;
            _queue.Clear();
        }
    }
}
