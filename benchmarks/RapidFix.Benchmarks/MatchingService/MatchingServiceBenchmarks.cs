using System.Text;
using BenchmarkDotNet.Attributes;
using RapidFix.Engine.Codec;
using RapidFix.Engine.Dictionary;
using RapidFix.Engine.Store;
using RapidFix.Matching;
using RapidFix.Matching.StaticData;
using RapidFix.MatchingService;

namespace RapidFix.Benchmarks.MatchingService;

/// <summary>
/// The matching service's per-input work, per message: the connection thread's part (journal append under group
/// commit and the ring copy, then the matcher thread's read and release) and the matcher thread's part (parse in
/// place, match, write the answers) over standard trades that all clear (each trade's seven messages, distinct IDs).
/// </summary>
[MemoryDiagnoser]
public class MatchingServiceBenchmarks
{
    private const int Trades = 2_000;
    private const int Submissions = 200_000;
    private static readonly byte[][] Participants = [.. new[] { "IM1", "IM2", "EB1", "EB2" }.Select(Encoding.ASCII.GetBytes)];

    private readonly FixMessage _view = new(MatchingCore.InputView); // the matcher thread's view: no value screen
    private readonly FixMessage _screenedView = new(); // the session's view, which the matcher thread used before
    private readonly OutputQueue _answers = new(MatchingCore.MaxAnswerBytesPerInput, MatchingCore.MaxAnswersPerInput);
    private (int Participant, byte[] Bytes)[] _messages = [];
    private ReadInput[] _read = [];
    private bool[] _wasRead = [];
    private ReferenceData _reference = null!;
    private DataDictionary _dictionary = null!;
    private MatchingCore _core = null!;
    private InputJournal? _journal;
    private InputRing _ring = null!;
    private InputSequencer _sequencer = null!;
    private string _directory = null!;
    private long _cursor;
    private int _seq;

    [GlobalSetup]
    public void Setup()
    {
        _reference = MatchingCore.LoadStaticData(Path.Combine(AppContext.BaseDirectory, "StaticData", "Demo"));
        _dictionary = StandardDictionaries.Load("FIX44");
        var list = new List<(int, byte[])>();
        for (int t = 0; t < Trades; t++)
        {
            var spec = new TradeSpec
            {
                Key = "B" + t.ToString(System.Globalization.CultureInfo.InvariantCulture),
                InvestmentManager = "IM1",
                ExecutingBroker = "EB1",
                Isin = "SG1T75931496",
                Currency = "SGD",
                // Distinct matching keys, as the trade driver makes them; real dates (20261123 - t / 20 was not a date
                // past the 460th trade, so those trades were refused instead of clearing).
                TradeDate = int.Parse(new DateOnly(2026, 11, 23).AddDays(-(t / 20)).ToString("yyyyMMdd", System.Globalization.CultureInfo.InvariantCulture),
                    System.Globalization.CultureInfo.InvariantCulture),
                SettlDate = 20261127,
                Price = 2.5m + (t % 20),
                Side = (t & 1) == 0 ? '1' : '2',
                Accounts = [new AccountSpec("ACC-A", 600, "CDP"), new AccountSpec("ACC-B", 400, "CDP")],
            };
            foreach (var m in TradeMessages.Standard(spec))
            {
                list.Add((m.Sender == "IM1" ? 0 : 2, TradeMessages.Complete(m, "MATCH", list.Count + 2)));
            }
        }

        _messages = [.. list];
        // What the connection threads read (a message the reader refused would be parsed by the matcher thread).
        _read = new ReadInput[_messages.Length];
        _wasRead = new bool[_messages.Length];
        for (int i = 0; i < _messages.Length; i++)
        {
            var (participant, bytes) = _messages[i];
            _screenedView.Parse(bytes, 0, bytes.Length, _dictionary);
            _wasRead[i] = ReadInput.TryRead(_screenedView, Participants[participant], ref _read[i]);
        }
        _directory = Path.Combine(Path.GetTempPath(), "rapidfix-bench-service-" + Guid.NewGuid().ToString("N"));
        Directory.CreateDirectory(_directory);
        _ring = new InputRing(1 << 22);
    }

    // A journal per iteration: a day's journal has a fixed capacity, and the benchmark would fill one.
    [IterationSetup(Target = nameof(JournalAndQueue))]
    public void FreshJournal()
    {
        _journal?.Dispose();
        string path = Path.Combine(_directory, "input.journal");
        File.Delete(path);
        _journal = InputJournal.Open(path, FlushPolicy.GroupCommit, Submissions + 16, 256 << 20, 4096);
        _journal.BusinessDate(20261123);
        _sequencer = new InputSequencer(_journal, _ring, Participants, static () => { });
        _seq = 0;
    }

    [IterationSetup(Target = nameof(MatchAndAnswer))]
    public void FreshMatcher() => _core = new MatchingCore(_reference, Participants, 20261123, new MatcherOptions { OpenTrades = 4096 });

    /// <summary>Parse, match and write the answers of one trade's seven messages (per message).</summary>
    [Benchmark(OperationsPerInvoke = Trades * 7)]
    public long MatchAndAnswer() => ParseMatchAndAnswer(_view);

    /// <summary>The same with the session's screened parse (the matcher thread's before it parsed without the screen).</summary>
    [Benchmark(OperationsPerInvoke = Trades * 7)]
    public long MatchAndAnswerScreenedParse() => ParseMatchAndAnswer(_screenedView);

    [IterationSetup(Target = nameof(MatchAndAnswerScreenedParse))]
    public void FreshMatcherForScreened() => FreshMatcher();

    /// <summary>
    /// The matcher thread's work per input now: match what the connection thread read (<see cref="ReadInput"/>) and
    /// write the answers, no parse.
    /// </summary>
    [Benchmark(OperationsPerInvoke = Trades * 7)]
    public long MatchReadInputAndAnswer()
    {
        long answers = 0;
        for (int i = 0; i < _messages.Length; i++)
        {
            var (participant, bytes) = _messages[i];
            if (_wasRead[i])
            {
                _core.Process(in _read[i], bytes, 0, _answers);
            }
            else
            {
                _view.Parse(bytes, 0, bytes.Length, _dictionary);
                _core.Process(participant, _view, _answers);
            }

            answers += _answers.Count;
            _answers.Clear();
        }

        return answers;
    }

    [IterationSetup(Target = nameof(MatchReadInputAndAnswer))]
    public void FreshMatcherForRead() => FreshMatcher();

    private long ParseMatchAndAnswer(FixMessage view)
    {
        long answers = 0;
        foreach (var (participant, bytes) in _messages)
        {
            view.Parse(bytes, 0, bytes.Length, _dictionary);
            _core.Process(participant, view, _answers);
            answers += _answers.Count;
            _answers.Clear();
        }

        return answers;
    }

    /// <summary>Journal append and ring copy (the connection thread), then read and release (the matcher thread), per message.</summary>
    [Benchmark(OperationsPerInvoke = Submissions)]
    public long JournalAndQueue()
    {
        long bytes = 0;
        for (int i = 0; i < Submissions; i++)
        {
            var (participant, message) = _messages[i % _messages.Length];
            _sequencer.Submit(participant, 1, ++_seq, message);
            _ring.TryRead(ref _cursor, out var entry);
            _ring.Release(_cursor);
            bytes += entry.Length;
        }

        return bytes;
    }

    [GlobalCleanup]
    public void Cleanup()
    {
        _journal?.Dispose();
        Directory.Delete(_directory, recursive: true);
    }
}
