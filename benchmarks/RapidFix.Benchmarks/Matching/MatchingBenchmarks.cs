using System.Globalization;
using System.Runtime.CompilerServices;
using System.Text;
using BenchmarkDotNet.Attributes;
using RapidFix.Engine.Codec;
using RapidFix.Engine.Dictionary;
using RapidFix.Matching;
using RapidFix.Matching.StaticData;

namespace RapidFix.Benchmarks.Matching;

/// <summary>
/// The matcher alone, per message, with <see cref="Resident"/> open trades in its tables (each holds an NOE whose
/// allocations never come): 1,000,000 (the issue's figure: most lookups miss the caches) and 1,000 (the tables fit
/// in them: the per-message work itself). Measured: complete trades (NOE, 2 ALC, 2 NPR, 2 SET, interleaved in
/// blocks of trades) streamed through <see cref="Matcher.Process{TSink}(in MatchInput, ref TSink)"/> from pre-read
/// <see cref="MatchInput"/>s, so the figure is validation, lookup, matching and clearing, without reading fields.
/// <see cref="ReadNpr"/> is the cost of reading one parsed FIX message (a net-proceeds AK) into a <see cref="MatchInput"/>.
/// Static data: 100 investment managers (2 accounts each), 100 brokers, 1,000 securities, generated at setup.
/// </summary>
/// <remarks>
/// Every pass over the stream carries new message IDs (the last 8 bytes of each ID count the passes, rewritten in
/// the input just matched, while its line is hot): the same stream with the same IDs would meet its own IDs retained
/// from the pass before as duplicates once more trades are retained than the stream holds. <see cref="Sizing"/>
/// chooses the matcher's sizes: <see cref="MatcherSizing.ServiceDefaults"/> those the matching service runs with
/// (only <see cref="MatcherOptions.OpenTrades"/> set: a quarter of it cleared trades retained, 254,096 at a million
/// resident, and eight message rows for each open and each kept trade), <see cref="MatcherSizing.Tight"/> the benchmark's earlier sizes
/// (1,024 cleared trades retained, message rows for the resident and streamed trades only).
/// </remarks>
public class MatchingBenchmarks
{
    private const int StreamTrades = 16_384;
    private const int Batch = 7 * 1024;
    private const int ServiceBatch = 256;

    private const int PassSuffixLength = 8;

    private Matcher _matcher = null!;
    private long _pass;              // passes the cursor has completed over the stream
    private ulong _nextPassSuffix;   // the ID bytes of the pass after the current one
    private MatchInput[] _stream = [];
    private int _next;
    private Sink _sink;
    private FixMessage _npr = null!;
    private byte[] _nprSender = [];
    private string _dir = string.Empty;

    /// <summary>Open trades resident in the tables while the stream is matched.</summary>
    [Params(1_000, 1_000_000)]
    public int Resident { get; set; } = 1_000_000;

    /// <summary>How the matcher's tables are sized (see the remarks).</summary>
    [Params(MatcherSizing.ServiceDefaults, MatcherSizing.Tight)]
    public MatcherSizing Sizing { get; set; } = MatcherSizing.ServiceDefaults;

    [GlobalSetup]
    public void Setup()
    {
        _dir = Path.Combine(Path.GetTempPath(), "rapidfix-matching-bench-" + Environment.ProcessId.ToString(CultureInfo.InvariantCulture));
        WriteStaticData(_dir);
        var reference = ReferenceData.Load(_dir);
        _matcher = new Matcher(reference, Sizing == MatcherSizing.ServiceDefaults && ClearedTrades is null
            ? new MatcherOptions { OpenTrades = Resident + StreamTrades, BusinessDate = 20261123 }
            : new MatcherOptions
            {
                OpenTrades = Resident + StreamTrades,
                ClearedTrades = ClearedTrades ?? 1024,
                Messages = Resident * ResidentIds + (StreamTrades + 1024) * 8,
                Exceptions = 1024,
                BusinessDate = 20261123,
            });

        // The resident open trades: one NOE each, keys spread over managers, brokers, securities and sides (replaced
        // ResidentIds - 1 times: each replaced NOE keeps its row and ID, as history).
        for (int i = 0; i < Resident; i++)
        {
            var noe = Trade(i, prefix: "R")[0];
            _matcher.Process(in noe, ref _sink);
            for (int r = 1; r < ResidentIds; r++)
            {
                var replace = noe;
                replace.Trans = TransType.Replace;
                replace.RefId = noe.Id;
                replace.Id.TrySet(Encoding.ASCII.GetBytes("N" + r.ToString(CultureInfo.InvariantCulture) + "R" + i.ToString(CultureInfo.InvariantCulture)));
                replace.MessageId = replace.Id;
                _matcher.Process(in replace, ref _sink);
                noe = replace;
            }
        }

        if (_matcher.OpenTrades != Resident || _sink.Rejected != 0)
        {
            throw new InvalidOperationException($"setup: {_matcher.OpenTrades} open, {_sink.Rejected} rejected");
        }

        // The stream: trades in groups of 8, their 56 messages shuffled within the group (any order matches).
        var rng = new Random(42);
        var stream = new List<MatchInput>(StreamTrades * 7);
        for (int g = 0; g < StreamTrades; g += 8)
        {
            var group = new List<MatchInput>(56);
            for (int t = g; t < g + 8; t++)
            {
                group.AddRange(Trade(Resident + t, prefix: "S"));
            }

            for (int i = group.Count - 1; i > 0; i--)
            {
                int j = rng.Next(i + 1);
                (group[i], group[j]) = (group[j], group[i]);
            }

            stream.AddRange(group);
        }

        _stream = [.. stream];
        _pass = 0;
        _nextPassSuffix = PassSuffix(1);

        // One pass to warm up and check that every streamed trade clears.
        long cleared = _sink.Cleared;
        ProcessBatch(_stream.Length);
        if (_sink.Cleared - cleared != StreamTrades || _sink.Rejected != 0)
        {
            throw new InvalidOperationException($"setup: {_sink.Cleared - cleared} of {StreamTrades} cleared, {_sink.Rejected} rejected");
        }

        // And once through the batch entry (warms it up; the same stream clears the same way).
        cleared = _sink.Cleared;
        ProcessInBatches(_stream.Length);
        if (_sink.Cleared - cleared != StreamTrades || _sink.Rejected != 0)
        {
            throw new InvalidOperationException($"setup (batch): {_sink.Cleared - cleared} of {StreamTrades} cleared, {_sink.Rejected} rejected");
        }

        var dictionary = StandardDictionaries.Load("FIX44");
        string npr = "8=FIX.4.4|9=435|35=AK|34=3|49=EB1|52=20261123-12:00:00.000|56=MATCH|664=NPR-3001|666=0|773=2|665=1|60=20261123-12:00:00.000|75=20261123|64=20261126|453=3|448=EB1|447=D|452=1|448=IM1|447=D|452=13|448=CDP|447=D|452=10|55=[N/A]|48=SG1T75931496|22=4|711=0|555=0|768=1|769=20261123-12:00:00.000|770=1|80=6000|54=1|15=SGD|862=1|528=A|863=6000|79=ACC-A|6=2.505|381=15030.00|118=15063.77|119=15063.77|120=SGD|12=30.06|13=3|136=2|137=1.50|139=4|137=2.21|139=2|10=175|";
        var wire = Encoding.Latin1.GetBytes(npr.Replace('|', '\u0001'));
        _npr = new FixMessage();
        if (_npr.Parse(wire, 0, wire.Length, dictionary) != FixParseError.None)
        {
            throw new InvalidOperationException("NPR sample does not parse");
        }

        _nprSender = "EB1"u8.ToArray();
    }

    [GlobalCleanup]
    public void Cleanup()
    {
        if (Directory.Exists(_dir))
        {
            Directory.Delete(_dir, true);
        }
    }

    /// <summary>One message through the matcher (per-message figure: the batch divided by its size).</summary>
    [Benchmark(OperationsPerInvoke = Batch)]
    public void MatchMessage()
    {
        if (HotInputs)
        {
            ProcessBatchInputsPrefetched(Batch);
        }
        else
        {
            ProcessBatch(Batch);
        }
    }

    /// <summary>
    /// The same stream through the batch entry (<see cref="Matcher.Process{TSink}(ReadOnlySpan{MatchInput}, ref TSink)"/>),
    /// <see cref="ServiceBatch"/> inputs a call (the matcher thread's batch size at most), which fetches the cache
    /// lines of the next inputs while one is matched. Same per-message figure as <see cref="MatchMessage"/>.
    /// </summary>
    [Benchmark(OperationsPerInvoke = Batch)]
    public void MatchMessageBatch() => ProcessInBatches(Batch);

    /// <summary>Reading one parsed FIX net-proceeds message into a <see cref="MatchInput"/>.</summary>
    [Benchmark]
    public bool ReadNpr() => MessageReader.TryRead(_npr, _nprSender, out _, out _);

    /// <summary>
    /// Cleared trades kept, with the tight sizes (<c>--match-loop</c>'s <c>cleared=N</c>, to measure what evicting them
    /// costs: with 0 a trade is freed as it clears, while its records and index entries are still cached); null: as
    /// <see cref="Sizing"/> says.
    /// </summary>
    internal int? ClearedTrades { get; set; }

    /// <summary>
    /// <c>--match-loop</c>'s <c>ids=N</c>: each resident trade holds N IDs (its NOE replaced N - 1 times), to measure
    /// the ID index at the load a service whose open trades hold more of their messages has. 1 in the benchmark.
    /// </summary>
    internal int ResidentIds { get; set; } = 1;

    /// <summary>
    /// <c>--match-loop</c>'s <c>cycled</c>: the IDs are not rewritten, each pass repeats the last one's (the benchmark
    /// before fresh IDs; correct only while fewer trades are retained than the stream holds). Measures the rewrite.
    /// </summary>
    internal bool CycledIds { get; set; }

    /// <summary>The matcher (<c>--match-loop</c> checks its counters after the rounds and reads its indices).</summary>
    internal Matcher Matcher => _matcher;

    /// <summary>
    /// <c>--match-loop</c>'s <c>hotinputs</c>: <see cref="MatchMessage"/> prefetches the input 8 ahead (all its
    /// cache lines), to measure what the stream's own misses cost (114,688 pre-read inputs of 312 bytes, 35 MB, read
    /// once a pass, where the service reads each message into one hot <see cref="MatchInput"/>). Off in the benchmark.
    /// </summary>
    internal bool HotInputs { get; set; }

    private void ProcessBatch(int count)
    {
        var stream = _stream;
        int next = _next;
        bool fresh = !CycledIds;
        for (int i = 0; i < count; i++)
        {
            _matcher.Process(in stream[next], ref _sink);
            if (fresh)
            {
                NextPassIds(ref stream[next]);
            }

            if (++next == stream.Length)
            {
                next = 0;
                NextPass();
            }
        }

        _next = next;
    }

    /// <summary><see cref="ProcessBatch"/> with the input 8 ahead prefetched (<see cref="HotInputs"/>).</summary>
    private unsafe void ProcessBatchInputsPrefetched(int count)
    {
        var stream = _stream;
        int next = _next;
        bool fresh = !CycledIds;
        for (int i = 0; i < count; i++)
        {
            int ahead = next + 8 < stream.Length ? next + 8 : next + 8 - stream.Length;
            byte* p = (byte*)Unsafe.AsPointer(ref stream[ahead]);
            for (int offset = 0; offset < sizeof(MatchInput) + 63; offset += 64)
            {
                System.Runtime.Intrinsics.X86.Sse.Prefetch0(p + offset);
            }

            _matcher.Process(in stream[next], ref _sink);
            if (fresh)
            {
                NextPassIds(ref stream[next]);
            }

            if (++next == stream.Length)
            {
                next = 0;
                NextPass();
            }
        }

        _next = next;
    }

    private void ProcessInBatches(int count)
    {
        // The stream's length is a multiple of Batch and of ServiceBatch: a batch never wraps.
        var stream = _stream;
        int next = _next;
        for (int done = 0; done < count; done += ServiceBatch)
        {
            _matcher.Process(stream.AsSpan(next, ServiceBatch), ref _sink);
            if (!CycledIds)
            {
                for (int i = next; i < next + ServiceBatch; i++)
                {
                    NextPassIds(ref stream[i]);
                }
            }

            next += ServiceBatch;
            if (next == stream.Length)
            {
                next = 0;
                NextPass();
            }
        }

        _next = next;
    }

    /// <summary>
    /// Gives a matched input the IDs of the next pass: its ID and message ID end in the same 8 bytes, the pass
    /// number in hex (one 8-byte store each; <see cref="Bytes32"/>'s bytes are its first field).
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private void NextPassIds(ref MatchInput input)
    {
        EndWith(ref input.Id, _nextPassSuffix);
        EndWith(ref input.MessageId, _nextPassSuffix);
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void EndWith(ref Bytes32 id, ulong suffix) =>
        Unsafe.WriteUnaligned(ref Unsafe.Add(ref Unsafe.As<Bytes32, byte>(ref id), id.Length - PassSuffixLength), suffix);

    /// <summary>The cursor wrapped: the inputs now carry the next pass's IDs, and their rewrite the one after.</summary>
    private void NextPass()
    {
        _pass++;
        _nextPassSuffix = PassSuffix(_pass + 1);
    }

    /// <summary>The 8 ID bytes of pass <paramref name="pass"/>: its number in hex, as the bytes of a ulong.</summary>
    private static ulong PassSuffix(long pass)
    {
        Span<byte> text = stackalloc byte[PassSuffixLength];
        for (int i = PassSuffixLength - 1; i >= 0; i--)
        {
            text[i] = (byte)"0123456789abcdef"[(int)(pass & 15)];
            pass >>= 4;
        }

        return System.Buffers.Binary.BinaryPrimitives.ReadUInt64LittleEndian(text);
    }

    /// <summary>The seven messages of trade <paramref name="n"/> (the NOE first).</summary>
    private static MatchInput[] Trade(int n, string prefix)
    {
        string im = "IM" + (n % 100).ToString("D3", CultureInfo.InvariantCulture);
        string eb = "EB" + (n / 100 % 100).ToString("D3", CultureInfo.InvariantCulture);
        string isin = Isins[n / 10_000 % Isins.Length];
        byte side = (byte)(n / 10_000_000 % 2 == 0 ? '1' : '2');
        int tradeDate = 20261123 - (n / 20_000_000);
        var common = default(MatchInput);
        common.Side = side;
        common.InvestmentManager.TrySet(Encoding.ASCII.GetBytes(im));
        common.ExecutingBroker.TrySet(Encoding.ASCII.GetBytes(eb));
        common.Isin.TrySet(Encoding.ASCII.GetBytes(isin));
        common.Currency = Codes.PackCurrency("SGD"u8);
        common.TradeDate = tradeDate;
        common.SettlDate = 20261126;
        common.Price = 2_505_000;
        common.Present = InputFields.TradeDate | InputFields.SettlDate | InputFields.Currency | InputFields.Security | InputFields.Price | InputFields.Quantity;
        var result = new MatchInput[7];
        string id = prefix + n.ToString(CultureInfo.InvariantCulture) + "-" + new string('0', PassSuffixLength);
        result[0] = With(common, MessageKind.Noe, "N" + id, eb, 10_000 * Scaled.One);
        for (int a = 0; a < 2; a++)
        {
            string account = im + (a == 0 ? "-A" : "-B");
            long qty = (a == 0 ? 6_000 : 4_000) * Scaled.One;
            var alc = With(common, MessageKind.Alc, "A" + a + id, im, qty);
            alc.Account.TrySet(Encoding.ASCII.GetBytes(account));
            alc.Present |= InputFields.Account;
            result[1 + a] = alc;

            var npr = With(common, MessageKind.Npr, "P" + a + id, eb, qty);
            npr.Account = alc.Account;
            npr.Place.TrySet("CDP"u8);
            npr.Gross = qty / Scaled.One * 2_505_000;
            npr.Commission = npr.Gross / 500;
            npr.CommType = (byte)'3';
            npr.Net = side == '1' ? npr.Gross + npr.Commission : npr.Gross - npr.Commission;
            npr.Present |= InputFields.Account | InputFields.Place | InputFields.Gross | InputFields.Commission | InputFields.Net;
            result[3 + a] = npr;

            var set = With(default, MessageKind.Set, "S" + a + id, im, 0);
            set.Side = side;
            set.InvestmentManager = common.InvestmentManager;
            set.ExecutingBroker = common.ExecutingBroker;
            set.Account = alc.Account;
            set.Place.TrySet("CDP"u8);
            set.Present = InputFields.Account | InputFields.Place;
            result[5 + a] = set;
        }

        return result;
    }

    private static MatchInput With(MatchInput input, MessageKind kind, string id, string sender, long quantity)
    {
        input.Kind = kind;
        input.Id.TrySet(Encoding.ASCII.GetBytes(id));
        input.MessageId = input.Id;
        input.Sender.TrySet(Encoding.ASCII.GetBytes(sender));
        input.Quantity = quantity;
        return input;
    }

    private static readonly string[] Isins = [.. Enumerable.Range(0, 1000).Select(i => WithCheckDigit("SG" + (1_000_000_000 + i).ToString(CultureInfo.InvariantCulture)[1..]))];

    private static string WithCheckDigit(string body)
    {
        for (char c = '0'; c <= '9'; c++)
        {
            if (Isin.IsValid(Encoding.ASCII.GetBytes(body + c)))
            {
                return body + c;
            }
        }

        throw new InvalidOperationException(body);
    }

    private static void WriteStaticData(string dir)
    {
        Directory.CreateDirectory(dir);
        File.WriteAllText(Path.Combine(dir, "currencies.csv"), "code,minor_units\nSGD,2\n");
        File.WriteAllText(Path.Combine(dir, "countries.csv"), "code,name\nSG,Singapore\n");
        File.WriteAllText(Path.Combine(dir, "places.csv"), "code,country\nCDP,SG\n");
        File.WriteAllText(Path.Combine(dir, "calendars.csv"), "currency,date\nSGD,20261225\n");
        File.WriteAllLines(Path.Combine(dir, "securities.csv"), ["isin,currency,asset_class,price_decimals", .. Isins.Select(i => i + ",SGD,EQ,3")]);
        var participants = new List<string> { "id,roles,profile" };
        var accounts = new List<string> { "account,investment_manager" };
        for (int i = 0; i < 100; i++)
        {
            string im = "IM" + i.ToString("D3", CultureInfo.InvariantCulture);
            participants.Add(im + ",IM,");
            participants.Add("EB" + i.ToString("D3", CultureInfo.InvariantCulture) + ",EB,");
            accounts.Add(im + "-A," + im);
            accounts.Add(im + "-B," + im);
        }

        File.WriteAllLines(Path.Combine(dir, "participants.csv"), participants);
        File.WriteAllLines(Path.Combine(dir, "accounts.csv"), accounts);
    }

    private struct Sink : IMatchSink
    {
        public long Rejected;
        public long Cleared;

        public void OnAck(in MatchAck ack)
        {
            if (ack.Status == AckStatus.Rejected)
            {
                Rejected++;
            }
        }

        public void OnCleared(in ClearedTrade trade) => Cleared++;

        public void OnException(in MatchException exception)
        {
        }
    }
}

/// <summary>How <see cref="MatchingBenchmarks"/> sizes the matcher's tables.</summary>
public enum MatcherSizing
{
    /// <summary>As the matching service does: only <see cref="MatcherOptions.OpenTrades"/> set, the rest the library's defaults.</summary>
    ServiceDefaults,

    /// <summary>1,024 cleared trades retained and message rows for the resident and streamed trades only (the earlier benchmark).</summary>
    Tight,
}
