using System.CommandLine;
using System.Diagnostics;
using System.Text;
using RapidFix.Engine.Codec;
using RapidFix.Engine.Dictionary;
using RapidFix.Engine.Validation;
using RapidFix.Pools.Buffers;
using RapidFix.Pools.Phases;
using RapidFix.Samples;
using RapidFix.Samples.FixReplay;

// FixReplay: frames, parses, validates and re-encodes every message of a FIX file, round after round, in the
// engine's three phases. Usage (--help lists the options):
//   dotnet run -c Release --project samples/FixReplay [-- [file.fix] [--seconds N] [--dictionary FIX44|path.xml]]
//   dotnet run -c Release --project samples/FixReplay -- --generate <count> <file.fix>
// Exit codes: 0 OK, 1 no message in the file, 2 a usage or environment error, or a GC or round-trip mismatch.
var fileArgument = new Argument<FileInfo>("file")
{
    Description = "FIX file to replay (default: data/session.fix beside the program), or the file --generate writes",
    DefaultValueFactory = _ => new FileInfo(Path.Combine(AppContext.BaseDirectory, "data", "session.fix")),
}.NotAnOption();
var secondsOption = new Option<double>("--seconds") { Description = "length of the continuous phase", DefaultValueFactory = _ => 5 }.Positive();
var dictionaryOption = new Option<string>("--dictionary") { Description = "a standard dictionary (FIX40 ... FIX50SP2) or a QuickFIX XML file", DefaultValueFactory = _ => "FIX44" };
dictionaryOption.Validators.Add(r =>
{
    string name = r.GetValueOrDefault<string>() ?? "";
    if (!File.Exists(name) && !StandardDictionaries.Names.Contains(name.Replace(".", "", StringComparison.Ordinal).ToUpperInvariant()))
    {
        r.AddError($"--dictionary: '{name}' is neither a file nor a built-in dictionary ({string.Join(", ", StandardDictionaries.Names)})");
    }
});
var generateOption = new Option<int>("--generate") { Description = "write this many sample messages to the file and stop" }.AtLeast(1);
var root = new RootCommand("RapidFix FixReplay: the codec alone over a file of FIX messages (frame, parse, validate, re-encode).")
{
    fileArgument, secondsOption, dictionaryOption, generateOption,
};
root.SetAction(parse => SampleCommand.Guarded("FixReplay", () => Replay(new ReplayOptions(
    parse.GetValue(fileArgument)!.FullName, parse.GetValue(secondsOption), parse.GetValue(dictionaryOption)!, parse.GetValue(generateOption)))));
return SampleCommand.Invoke(root, args);

static int Replay(ReplayOptions options)
{
    if (options.GenerateCount > 0)
    {
        SampleFile.Write(options.File, options.GenerateCount);
        Console.WriteLine($"wrote {options.GenerateCount} messages to {options.File}");
        return 0;
    }

    // ---- Startup: allocate everything, load the dictionary, warm the JIT, then collect. ----
    var phases = new PhaseController("fix-replay");
    var startup = Stopwatch.StartNew();
    DataDictionary dictionary = File.Exists(options.Dictionary)
        ? DataDictionary.Load(options.Dictionary)
        : StandardDictionaries.Load(options.Dictionary);
    byte[] input = File.ReadAllBytes(options.File);
    var replay = new Replayer(dictionary, new BufferPool("replay-output", bufferSize: 64 * 1024, count: 4, pinned: true, phases));
    var warm = replay.Run(input, rounds: 200);
    if (warm.Messages == 0)
    {
        Console.Error.WriteLine($"no FIX message found in {options.File}");
        return 1;
    }

    Console.WriteLine($"startup: {dictionary} loaded, {input.Length:N0} bytes, {warm.Messages / 200:N0} messages per round, warmed in {startup.ElapsedMilliseconds} ms");
    phases.EnterContinuous();
    long mainThreadBefore = GC.GetAllocatedBytesForCurrentThread();

    // ---- Continuous: pooled resources only, no allocation, no GC. ----
    var totals = default(ReplayStats);
    long started = Stopwatch.GetTimestamp();
    long deadline = started + (long)(options.Seconds * Stopwatch.Frequency);
    while (Stopwatch.GetTimestamp() < deadline)
    {
        totals.Add(replay.Run(input, rounds: 10));
    }

    var elapsed = Stopwatch.GetElapsedTime(started);
    long mainThreadAllocated = GC.GetAllocatedBytesForCurrentThread() - mainThreadBefore;
    var report = phases.EnterShutdown();

    // ---- Shutdown: allocation allowed again; report. ----
    double seconds = elapsed.TotalSeconds;
    Console.WriteLine($"continuous: {totals.Messages:N0} messages in {seconds:F2} s = {totals.Messages / seconds:N0} msg/s, {elapsed.TotalNanoseconds / Math.Max(1, totals.Messages):F0} ns per message (frame + parse + validate + re-encode)");
    Console.WriteLine($"            {totals.Bytes / seconds / 1e6:F1} MB/s; valid {totals.Valid:N0}, rejected {totals.Rejected:N0}, garbled {totals.Garbled:N0}, bad checksum {totals.BadChecksum:N0}, round-trip mismatches {totals.Mismatches:N0}");
    Console.WriteLine($"            garbage skipped before BeginStrings: {replay.SkippedBytesPerRound:N0} bytes per round");
    foreach (var (reason, count) in replay.RejectReasons())
    {
        Console.WriteLine($"            reject {(int)reason} {SessionRejectReasonText.ToText(reason)}: {count:N0} per round");
    }

    Console.WriteLine($"gc during continuous: gen0 {report.Gen0Collections}, gen1 {report.Gen1Collections}, gen2 {report.Gen2Collections}; allocated {report.AllocatedBytes:N0} bytes (whole process), {mainThreadAllocated:N0} by the replay thread");
    bool ok = totals.Mismatches == 0 && report.NoGarbageCollections;
    Console.WriteLine(ok ? "result: OK" : "result: FAILED");
    return ok ? 0 : 2;
}

namespace RapidFix.Samples.FixReplay
{
    /// <summary>The command line of the replay.</summary>
    internal sealed record ReplayOptions(string File, double Seconds, string Dictionary, int GenerateCount);

    internal struct ReplayStats
    {
        public long Messages;
        public long Bytes;
        public long Valid;
        public long Rejected;
        public long Garbled;
        public long BadChecksum;
        public long Mismatches;

        public void Add(in ReplayStats other)
        {
            Messages += other.Messages;
            Bytes += other.Bytes;
            Valid += other.Valid;
            Rejected += other.Rejected;
            Garbled += other.Garbled;
            BadChecksum += other.BadChecksum;
            Mismatches += other.Mismatches;
        }
    }

    /// <summary>The continuous-phase work: every object it uses is created in the constructor.</summary>
    internal sealed class Replayer
    {
        private readonly FixFramer _framer = new();
        private readonly FixMessage _message = new();
        private readonly FixEncoder _encoder = new();
        private readonly MessageValidator _validator;
        private readonly DataDictionary _dictionary;
        private readonly BufferPool _output;
        private readonly long[] _rejects = new long[100];
        private long _rounds;

        public Replayer(DataDictionary dictionary, BufferPool output)
        {
            _dictionary = dictionary;
            _validator = new MessageValidator(dictionary);
            _output = output;
        }

        public ReplayStats Run(byte[] input, int rounds)
        {
            var stats = default(ReplayStats);
            for (int r = 0; r < rounds; r++)
            {
                RunOnce(input, ref stats);
            }

            _rounds += rounds;
            return stats;
        }

        private void RunOnce(byte[] input, ref ReplayStats stats)
        {
            if (!_output.TryRent(out var buffer))
            {
                throw new InvalidOperationException("output pool exhausted");
            }

            int offset = 0;
            while (offset < input.Length)
            {
                var frame = _framer.Frame(new ReadOnlySpan<byte>(input, offset, input.Length - offset));
                if (frame.Status == FrameStatus.NeedMoreData)
                {
                    break;
                }

                stats.Bytes += frame.Consumed;
                switch (frame.Status)
                {
                    case FrameStatus.Complete:
                        stats.Messages++;
                        int start = offset + frame.Start;
                        if (_message.Parse(input, start, frame.Length, _dictionary) != FixParseError.None)
                        {
                            stats.Garbled++;
                            break;
                        }

                        var verdict = _validator.Validate(_message);
                        if (verdict.IsValid)
                        {
                            stats.Valid++;
                        }
                        else
                        {
                            stats.Rejected++;
                            _rejects[(int)verdict.Reason % _rejects.Length]++;
                        }

                        if (!ReencodeMatches(buffer, frame.Length))
                        {
                            stats.Mismatches++;
                        }

                        break;
                    case FrameStatus.Garbled:
                        stats.Garbled++;
                        break;
                    case FrameStatus.BadChecksum:
                        stats.BadChecksum++;
                        break;
                }

                offset += frame.Consumed;
            }

            _output.Return(buffer);
        }

        /// <summary>Writes the parsed message back field by field and checks the bytes are identical.</summary>
        private bool ReencodeMatches(PooledBuffer buffer, int length)
        {
            var m = _message;
            _encoder.Begin(buffer.Array, buffer.Offset, buffer.Capacity, m.BeginString, m.MsgType);
            for (int i = 3; i < m.FieldCount - 1; i++)
            {
                _encoder.Add(m.GetTag(i), m.GetValueAt(i));
            }

            return _encoder.Finish(out var encoded) && encoded.Length == length && encoded.Span.SequenceEqual(m.Bytes);
        }

        public long SkippedBytesPerRound => _framer.SkippedBytes / Math.Max(1, _rounds);

        public IEnumerable<(SessionRejectReason Reason, long PerRound)> RejectReasons()
        {
            for (int i = 0; i < _rejects.Length; i++)
            {
                if (_rejects[i] > 0)
                {
                    yield return ((SessionRejectReason)i, _rejects[i] / Math.Max(1, _rounds));
                }
            }
        }
    }

    /// <summary>Writes a sample session: orders, executions, market data, heartbeats and a few broken messages.</summary>
    internal static class SampleFile
    {
        public static void Write(string path, int count)
        {
            var random = new Random(20261121);
            using var output = File.Create(path);
            var encoder = new FixEncoder();
            var buffer = new byte[16 * 1024];
            long time = new DateTimeOffset(2026, 11, 21, 9, 0, 0, TimeSpan.Zero).ToUnixTimeMilliseconds() * 1_000_000;
            for (int seq = 1; seq <= count; seq++)
            {
                time += random.Next(1, 5_000_000);
                int kind = random.Next(100);
                string type = kind < 35 ? "D" : kind < 75 ? "8" : kind < 95 ? "W" : "0";
                encoder.Begin(buffer, 0, buffer.Length, "FIX.4.4"u8, Encoding.ASCII.GetBytes(type));
                encoder.Add(34, seq);
                encoder.Add(49, type == "D" ? "CLIENT01"u8 : "BROKER01"u8);
                encoder.AddTimestamp(52, time);
                encoder.Add(56, type == "D" ? "BROKER01"u8 : "CLIENT01"u8);
                string symbol = random.Next(4) switch { 0 => "MSFT", 1 => "AAPL", 2 => "VOD.L", _ => "ES Z6" };
                switch (type)
                {
                    case "D":
                        encoder.Add(11, Encoding.ASCII.GetBytes($"ORD-{seq:D8}"));
                        encoder.Add(1, "ACCT-778"u8);
                        encoder.AddChar(21, (byte)'1');
                        encoder.Add(55, Encoding.ASCII.GetBytes(symbol));
                        // One order in fifty carries an invalid Side: well framed, rejected by validation (reason 5).
                        encoder.AddChar(54, seq % 50 == 0 ? (byte)'Z' : random.Next(2) == 0 ? (byte)'1' : (byte)'2');
                        encoder.AddTimestamp(60, time - 1_000_000);
                        encoder.Add(38, 100 * random.Next(1, 50));
                        encoder.AddChar(40, (byte)'2');
                        encoder.Add(44, new RapidFix.Engine.Fields.FixDecimal(random.Next(10_000, 50_000), -2));
                        encoder.AddChar(59, (byte)'0');
                        break;
                    case "8":
                        encoder.Add(37, Encoding.ASCII.GetBytes($"BRK-{seq:D8}"));
                        encoder.Add(11, Encoding.ASCII.GetBytes($"ORD-{seq - 1:D8}"));
                        encoder.Add(17, Encoding.ASCII.GetBytes($"EXE-{seq:D10}"));
                        encoder.AddChar(150, (byte)'F');
                        encoder.AddChar(39, (byte)'1');
                        encoder.Add(55, Encoding.ASCII.GetBytes(symbol));
                        encoder.AddChar(54, (byte)'1');
                        encoder.Add(38, 1500);
                        encoder.Add(32, 500);
                        encoder.Add(31, new RapidFix.Engine.Fields.FixDecimal(random.Next(10_000, 50_000), -2));
                        encoder.Add(151, 1000);
                        encoder.Add(14, 500);
                        encoder.Add(6, new RapidFix.Engine.Fields.FixDecimal(random.Next(10_000, 50_000), -2));
                        encoder.AddTimestamp(60, time);
                        break;
                    case "W":
                        encoder.Add(262, Encoding.ASCII.GetBytes($"MDR-{seq % 7}"));
                        encoder.Add(55, Encoding.ASCII.GetBytes(symbol));
                        int entries = random.Next(2, 11);
                        encoder.Add(268, entries);
                        for (int e = 0; e < entries; e++)
                        {
                            encoder.AddChar(269, e % 2 == 0 ? (byte)'0' : (byte)'1');
                            encoder.Add(270, new RapidFix.Engine.Fields.FixDecimal(random.Next(10_000, 50_000), -2));
                            encoder.Add(271, 100 * random.Next(1, 100));
                            encoder.Add(290, (e / 2) + 1);
                        }

                        break;
                }

                if (!encoder.Finish(out var message))
                {
                    throw new InvalidOperationException("sample message too large");
                }

                var bytes = message.Span.ToArray();
                if (seq % 97 == 0)
                {
                    bytes[^3] = (byte)(bytes[^3] == (byte)'9' ? '0' : bytes[^3] + 1); // a damaged CheckSum: ignored
                }
                else if (seq % 131 == 0)
                {
                    output.Write("line noise"u8); // garbage between messages: skipped and counted
                }

                output.Write(bytes);
            }
        }
    }
}
