using System.Text;
using System.Text.RegularExpressions;
using RapidFix.Engine.Codec;
using RapidFix.Engine.Dictionary;
using RapidFix.Engine.Store;
using RapidFix.Matching;
using RapidFix.Tests.Shared;
using RapidFix.TradeDriver;

namespace RapidFix.MatchingService.Tests;

/// <summary>
/// The connection thread reads each input for the matcher (<see cref="ReadInput"/>, carried in the input ring after the
/// message): matching what it read must answer exactly as parsing and reading the message on the matcher thread does
/// (the replay at startup still parses, and a restart relies on both giving the same answers), and the path
/// allocates nothing.
/// </summary>
public sealed partial class ReadInputTests : IDisposable
{
    private static readonly byte[][] ParticipantIds = [.. TradeGenerator.Participants.Select(Encoding.ASCII.GetBytes)];
    private readonly string _work = Path.Combine(Path.GetTempPath(), "rapidfix-readinput-" + Guid.NewGuid().ToString("N"));

    public void Dispose()
    {
        if (Directory.Exists(_work))
        {
            Directory.Delete(_work, recursive: true);
        }
    }

    [Fact]
    public void Matching_what_the_connection_thread_read_answers_as_parsing_on_the_matcher_thread()
    {
        // Every kind of trade, bad ones included (refused reads, rejections, exceptions), and SETs (rejections echo
        // MsgSeqNum and MsgType), plus messages the reader refuses outright.
        var (messages, _) = TradeGenerator.Generate(GeneratorOptions.DefaultMix(3_000, 11) with { Bad = 0.2 });
        var wire = messages.Select((m, i) => (Participant: Array.IndexOf(TradeGenerator.Participants.ToArray(), m.Sender),
            Bytes: TradeMessages.Complete(m, "MATCH", i + 2))).ToList();
        var reference = MatchingCore.LoadStaticData(DocumentedExamplesTests.GeneratedStaticData);
        var parsed = new MatchingCore(reference, ParticipantIds, 20261123, new MatcherOptions { OpenTrades = 1 << 16, Exceptions = 1 << 14 });
        var read = new MatchingCore(reference, ParticipantIds, 20261123, new MatcherOptions { OpenTrades = 1 << 16, Exceptions = 1 << 14 });
        var dictionary = StandardDictionaries.Load("FIX44");
        var session = new FixMessage();
        var matcherView = new FixMessage(MatchingCore.InputView);
        var ring = new InputRing(1 << 20);
        var queue = new OutputQueue(MatchingCore.MaxAnswerBytesPerInput, MatchingCore.MaxAnswersPerInput);
        var input = default(ReadInput);
        long cursor = 0;
        int readByConnection = 0, parsedByMatcher = 0, answers = 0;
        for (int i = 0; i < wire.Count; i++)
        {
            var (participant, bytes) = wire[i];
            Assert.Equal(FixParseError.None, session.Parse(bytes, 0, bytes.Length, dictionary));

            // The old path: the matcher thread parses the message and reads it.
            parsed.Process(participant, session, queue);
            var expected = Answers(queue);
            queue.Clear();

            // The new one: read on the connection thread, through the ring, matched without a parse.
            bool ok = ReadInput.TryRead(session, ParticipantIds[participant], ref input);
            Assert.True(ring.HasRoomFor(bytes.Length, ok));
            ring.Write(participant, i, bytes, in input, ok);
            input = default; // the ring holds its own copy
            Assert.True(ring.TryRead(ref cursor, out var entry));
            Assert.Equal(ok, entry.Read);
            Assert.Equal(participant, entry.Participant);
            if (entry.Read)
            {
                read.Process(in ring.ReadInputOf(in entry), ring.Buffer, entry.Offset, queue);
                readByConnection++;
            }
            else
            {
                Assert.Equal(FixParseError.None, matcherView.Parse(ring.Buffer, entry.Offset, entry.Length, dictionary));
                read.Process(participant, matcherView, queue);
                parsedByMatcher++;
            }

            ring.Release(cursor);
            var actual = Answers(queue);
            queue.Clear();
            Assert.Equal(expected, actual);
            answers += actual.Count;
        }

        Assert.True(readByConnection > 10_000, $"{readByConnection} read by the connection thread");
        Assert.True(answers > readByConnection, $"{answers} answers");
        Assert.Equal(parsed.Matcher.Counters.Cleared, read.Matcher.Counters.Cleared);
        Assert.Equal(parsed.Matcher.Counters.Rejected, read.Matcher.Counters.Rejected);
        Assert.True(parsed.Matcher.Counters.Rejected > 100, $"{parsed.Matcher.Counters.Rejected} rejected");
    }

    [Fact]
    public void A_message_the_reader_refuses_goes_without_a_read_input_and_is_answered_by_the_matcher()
    {
        var spec = new TradeSpec
        {
            Key = "R1", InvestmentManager = "IM1", ExecutingBroker = "EB1", Isin = "SG1T75931496", Currency = "SGD", TradeDate = 20261123,
            SettlDate = 20261127, Price = 2.505m, Accounts = [new AccountSpec("ACC-A", 600, "CDP"), new AccountSpec("ACC-B", 400, "CDP")],
        };
        var noe = TradeMessages.Standard(spec)[0];
        var bytes = TradeMessages.Complete(noe, "MATCH", 2);
        var view = new FixMessage();
        Assert.Equal(FixParseError.None, view.Parse(bytes, 0, bytes.Length, StandardDictionaries.Load("FIX44")));
        var input = default(ReadInput);
        Assert.True(ReadInput.TryRead(view, "EB1"u8, ref input));
        Assert.Equal(MessageKind.Noe, input.Input.Kind);
        Assert.True(input.Echo.IsinOffset > 0);
        Assert.Equal("SG1T75931496", Encoding.ASCII.GetString(bytes, input.Echo.IsinOffset, input.Echo.IsinLength));
        Assert.Equal("AE", Encoding.ASCII.GetString(bytes, input.Echo.TypeOffset, input.Echo.TypeLength));
        Assert.True(input.Echo.HasMsgSeqNum);
        Assert.Equal(2, input.Echo.MsgSeqNum);
        // A sender the reader cannot hold (longer than a CompID may be): refused by the reader, nothing read.
        Assert.False(ReadInput.TryRead(view, new byte[40], ref input));

        // The ring keeps the two kinds of entry apart.
        var ring = new InputRing(1 << 16);
        ring.Write(1, 10, bytes);
        long cursor = 0;
        Assert.True(ring.TryRead(ref cursor, out var entry));
        Assert.False(entry.Read);
        Assert.Equal(bytes.Length, entry.Length);
    }

    [Fact]
    public void Reading_queueing_and_matching_an_input_allocates_nothing()
    {
        Directory.CreateDirectory(_work);
        using var journal = InputJournal.Open(Path.Combine(_work, "input.journal"), FlushPolicy.GroupCommit, 600_000, 64 << 20, 4096);
        journal.BusinessDate(20261123);
        var ring = new InputRing(1 << 20);
        var sequencer = new InputSequencer(journal, ring, ParticipantIds, static () => { });
        var (messages, _) = TradeGenerator.Generate(GeneratorOptions.DefaultMix(20_000, 9));
        var ids = TradeGenerator.Participants.ToList();
        var wire = messages.Select((m, i) => (ids.IndexOf(m.Sender), TradeMessages.Complete(m, "MATCH", i + 2))).ToArray();
        var reference = MatchingCore.LoadStaticData(DocumentedExamplesTests.GeneratedStaticData);
        var state = new PathState(wire, sequencer, ring,
            new MatchingCore(reference, ParticipantIds, 20261123, new MatcherOptions { OpenTrades = 1 << 16, Exceptions = 1 << 14 }));
        long bytes = Allocations.Measure(state, static s => s.Next(), iterations: 20_000);
        Assert.Equal(0, bytes);
        Assert.True(state.Read > 15_000, $"{state.Read} inputs read on the connection side");
        Assert.True(state.Core.Matcher.Counters.Cleared > 1000, $"{state.Core.Matcher.Counters.Cleared} cleared");
    }

    // The answers as (destination, MsgType, body) with the timestamps taken out (the clock moves between the two runs).
    private static List<string> Answers(OutputQueue queue)
    {
        var list = new List<string>();
        for (int i = 0; i < queue.Count; i++)
        {
            var a = queue[i];
            string body = Timestamps().Replace(Encoding.ASCII.GetString(a.Body), "\u0001$1=T\u0001");
            list.Add($"{a.Destination} {Encoding.ASCII.GetString(a.MsgType)} {body}");
        }

        return list;
    }

    [GeneratedRegex("\u0001(60|769)=[^\u0001]*\u0001")]
    private static partial Regex Timestamps();

    private sealed class PathState((int Participant, byte[] Bytes)[] messages, InputSequencer sequencer, InputRing ring, MatchingCore core)
    {
        private readonly DataDictionary _dictionary = StandardDictionaries.Load("FIX44");
        private readonly FixMessage _session = new();
        private readonly FixMessage _matcherView = new(MatchingCore.InputView);
        private readonly OutputQueue _queue = new(MatchingCore.MaxAnswerBytesPerInput, MatchingCore.MaxAnswersPerInput);
        private ReadInput _input;
        private long _cursor;
        private int _next;
        private int _seq;

        public MatchingCore Core => core;

        public long Read { get; private set; }

        public void Next()
        {
            // The connection thread: parse (the session's), read, journal and queue.
            var (participant, bytes) = messages[_next++ % messages.Length];
            if (_session.Parse(bytes, 0, bytes.Length, _dictionary) != FixParseError.None)
            {
                throw new InvalidOperationException("a generated message does not parse"); // not Assert: it allocates
            }

            bool read = ReadInput.TryRead(_session, ParticipantIds[participant], ref _input);
            if (sequencer.Submit(participant, 1, ++_seq, bytes, in _input, read) != SubmitResult.Accepted || !ring.TryRead(ref _cursor, out var entry))
            {
                throw new InvalidOperationException("submit or read failed");
            }

            // The matcher thread.
            if (entry.Read)
            {
                core.Process(in ring.ReadInputOf(in entry), ring.Buffer, entry.Offset, _queue);
                Read++;
            }
            else if (_matcherView.Parse(ring.Buffer, entry.Offset, entry.Length, _dictionary) == FixParseError.None)
            {
                core.Process(participant, _matcherView, _queue);
            }

            ring.Release(_cursor);
            _queue.Clear();
        }
    }
}
