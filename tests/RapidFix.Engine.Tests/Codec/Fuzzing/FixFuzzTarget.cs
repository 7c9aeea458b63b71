using System.Runtime.CompilerServices;
using System.Text;
using RapidFix.Engine.Codec;
using RapidFix.Engine.Dictionary;
using RapidFix.Engine.Fields;
using RapidFix.Engine.Validation;
using RapidFix.Tests.Shared;

namespace RapidFix.Fuzzing;

/// <summary>
/// One fuzz case of the FIX receive path, as a session runs it: frame a byte stream, parse each complete frame with
/// the dictionary, validate it (or, for a message that broke a limit, read its header as the session does). Shared
/// by the CI slice (<c>tests/RapidFix.Engine.Tests/Codec/FuzzCampaignTests.cs</c>) and the standalone runner
/// (<c>tools/Fuzz</c>), so both check the same invariants:
/// <list type="bullet">
/// <item>the framer makes progress and consumes only what it was given; every status is a known one;</item>
/// <item>parse + validate never throw, and the validator's fast path (the parser's screen) agrees with the full walk;</item>
/// <item>nothing reads beyond the input: the whole outcome is the same whatever bytes follow the input in memory
/// (run twice, with two different tails);</item>
/// <item>nothing allocates (checked by the callers around many cases).</item>
/// </list>
/// A broken invariant throws <see cref="FuzzInvariantException"/> (allocating: it ends the run).
/// </summary>
public sealed class FixFuzzTarget : IFuzzTarget
{
    /// <summary>Bytes after the input: two tails that would change any outcome that read them.</summary>
    private const int TailLength = 64;

    private readonly FixFramer _framer;
    private readonly FixMessage _message;
    private readonly MessageValidator _validator;
    private readonly DataDictionary _dictionary;
    private readonly byte[] _stream;
    private readonly byte[] _scratch;

    /// <param name="maxMessageSize">The framer's limit.</param>
    /// <param name="options">The parser's tables; by default small limits (256 fields, 128 group entries) that the
    /// seeds and mutations reach, so the paths of a broken limit are exercised as often as the others.</param>
    /// <param name="dictionary">The dictionary messages are parsed and validated with (default: the built-in FIX 4.4).</param>
    public FixFuzzTarget(int maxMessageSize = 8192, FixMessageOptions? options = null, DataDictionary? dictionary = null)
    {
        _dictionary = dictionary ?? StandardDictionaries.Load("FIX44");
        _framer = new FixFramer(maxMessageSize);
        _message = new FixMessage(options ?? new FixMessageOptions { MaxMessageSize = maxMessageSize * 2, MaxFields = 256, MaxGroupEntries = 128 });
        _validator = new MessageValidator(_dictionary);
        MaxInput = maxMessageSize * 4;
        _stream = new byte[MaxInput + TailLength];
        _scratch = new byte[MaxInput];
        Seeds = BuildSeeds();
    }

    /// <summary>Longest input a case takes (longer ones are cut).</summary>
    public int MaxInput { get; }

    /// <summary>The seed corpus: the sample messages and messages at the edges of the limits and checks.</summary>
    public byte[][] Seeds { get; }

    /// <summary>Totals over the cases run.</summary>
    public FuzzCounters Counters;

    /// <summary>Runs one case; throws <see cref="FuzzInvariantException"/> when an invariant breaks.</summary>
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    public void Run(ReadOnlySpan<byte> input)
    {
        if (input.Length > MaxInput)
        {
            input = input.Slice(0, MaxInput);
        }

        input.CopyTo(_stream);
        // Tail A: what a lenient overread would take for the rest of a message; tail B: nothing it could use.
        _stream.AsSpan(input.Length, TailLength).Fill((byte)'1');
        _stream[input.Length] = 1;
        "10=000\u0001"u8.CopyTo(_stream.AsSpan(input.Length + 1));
        ulong first = Consume(input.Length, ref Counters);
        _stream.AsSpan(input.Length, TailLength).Fill(0xFF);
        var scratch = default(FuzzCounters);
        ulong second = Consume(input.Length, ref scratch);
        if (first != second)
        {
            throw new FuzzInvariantException("the outcome depends on the bytes after the input (a read beyond it)");
        }

        Counters.Cases++;
    }

    /// <summary>Frames, parses and validates everything in the first <paramref name="length"/> bytes; returns a digest of every outcome.</summary>
    private ulong Consume(int length, ref FuzzCounters counters)
    {
        ulong digest = 14695981039346656037UL;
        int offset = 0;
        while (offset < length)
        {
            var r = _framer.Frame(new ReadOnlySpan<byte>(_stream, offset, length - offset));
            if (r.Consumed < 0 || r.Consumed > length - offset || (r.Status == FrameStatus.Complete && (r.Start < 0 || r.End > length - offset)))
            {
                throw new FuzzInvariantException("the framer consumed or framed bytes it was not given");
            }

            digest = Mix(digest, (ulong)r.Status, (ulong)r.Consumed);
            switch (r.Status)
            {
                case FrameStatus.NeedMoreData:
                    return digest;
                case FrameStatus.Complete:
                    counters.Frames++;
                    digest = ParseAndValidate(offset + r.Start, r.Length, digest, ref counters);
                    break;
                case FrameStatus.Garbled:
                    counters.Garbled++;
                    break;
                case FrameStatus.BadChecksum:
                    counters.BadChecksum++;
                    break;
                default:
                    throw new FuzzInvariantException("unknown frame status");
            }

            if (r.Consumed == 0)
            {
                throw new FuzzInvariantException("no progress on a complete or garbled frame");
            }

            offset += r.Consumed;
        }

        return digest;
    }

    private ulong ParseAndValidate(int start, int length, ulong digest, ref FuzzCounters counters)
    {
        var message = _message;
        var error = message.Parse(_stream, start, length, _dictionary);
        digest = Mix(digest, (ulong)error, (ulong)message.FieldCount);
        if (error != FixParseError.None)
        {
            counters.ParseErrors++;
            if (message.IsPartial)
            {
                // What the session reads to answer a message that broke a limit.
                counters.Partial++;
                int seq = message.TryGetInt(Tags.MsgSeqNum, out int s) ? s : -1;
                digest = Mix(digest, (ulong)seq, (ulong)message.MsgType.Length + (ulong)message.ErrorTag);
            }

            return digest;
        }

        for (int i = 0; i < message.FieldCount; i++)
        {
            int end = message.GetValueOffsetAt(i) + message.GetValueAt(i).Length;
            if (message.GetValueOffsetAt(i) < 0 || end > length)
            {
                throw new FuzzInvariantException("a field lies outside its message");
            }
        }

        var verdict = _validator.Validate(message);
        if (verdict != _validator.ValidateThoroughly(message))
        {
            throw new FuzzInvariantException("the parser's screen and the full walk disagree");
        }

        if (verdict.IsValid)
        {
            counters.Valid++;
        }
        else
        {
            counters.Rejects++;
        }

        return Mix(digest, (ulong)verdict.Outcome | ((ulong)(uint)verdict.Reason << 8), (ulong)(uint)verdict.RefTagId);
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static ulong Mix(ulong digest, ulong a, ulong b) => ((digest ^ a) * 1099511628211UL ^ b) * 1099511628211UL;

    /// <summary>Writes a mutated copy of a seed (sometimes two back to back) into <paramref name="output"/>; returns its length.</summary>
    public int Mutate(Random random, byte[] output)
    {
        var seed = Seeds[random.Next(Seeds.Length)];
        int length = Math.Min(seed.Length, output.Length);
        seed.AsSpan(0, length).CopyTo(output);
        if (random.Next(4) == 0)
        {
            var second = Seeds[random.Next(Seeds.Length)];
            if (length + second.Length <= output.Length)
            {
                second.CopyTo(output, length);
                length += second.Length;
            }
        }

        int mutations = 1 + random.Next(3);
        for (int m = 0; m < mutations && length > 2; m++)
        {
            int at = random.Next(length);
            switch (random.Next(11))
            {
                case 0: // bit flip
                    output[at] ^= (byte)(1 << random.Next(8));
                    break;
                case 1: // truncation
                    length = at;
                    break;
                case 2: // inserted SOH (a value split in two, or an SOH inside a value)
                    length = Insert(output, length, at, "\u0001"u8);
                    break;
                case 3: // deleted byte
                    output.AsSpan(at + 1, length - at - 1).CopyTo(output.AsSpan(at));
                    length--;
                    break;
                case 4: // huge or wrong BodyLength
                    length = ReplaceValue(output, length, "\u00019="u8, random.Next(2) == 0 ? "99999999"u8 : "1"u8);
                    break;
                case 5: // garbage prefix
                    {
                        int n = 1 + random.Next(20);
                        if (length + n <= output.Length)
                        {
                            output.AsSpan(0, length).CopyTo(output.AsSpan(n));
                            random.NextBytes(output.AsSpan(0, n));
                            length += n;
                        }

                        break;
                    }

                case 6: // a run of bytes repeated
                    {
                        int n = Math.Min(1 + random.Next(30), length - at);
                        output.AsSpan(at, n).CopyTo(_scratch);
                        length = Insert(output, length, at, _scratch.AsSpan(0, n));
                        break;
                    }

                case 7: // a field repeated many times (group counts, repeated tags, the field limit)
                    {
                        int fieldStart = output.AsSpan(0, at).LastIndexOf((byte)1) + 1;
                        int fieldEnd = output.AsSpan(fieldStart, length - fieldStart).IndexOf((byte)1);
                        if (fieldEnd > 0)
                        {
                            output.AsSpan(fieldStart, fieldEnd + 1).CopyTo(_scratch);
                            var field = _scratch.AsSpan(0, fieldEnd + 1);
                            for (int k = random.Next(1, 300); k > 0 && length + field.Length <= output.Length; k--)
                            {
                                length = Insert(output, length, fieldStart, field);
                            }
                        }

                        break;
                    }

                case 8: // a tag at or beyond the range of int, or with leading zeros
                    {
                        int fieldStart = output.AsSpan(0, at).LastIndexOf((byte)1) + 1;
                        ReadOnlySpan<byte> tag = random.Next(3) switch
                        {
                            0 => "2147483647"u8,
                            1 => "99999999999"u8,
                            _ => "000000000035"u8,
                        };
                        length = Insert(output, length, fieldStart, tag);
                        break;
                    }

                case 9: // a value that is an edge of a number
                    {
                        int equals = output.AsSpan(at, length - at).IndexOf((byte)'=');
                        if (equals >= 0)
                        {
                            ReadOnlySpan<byte> value = random.Next(4) switch
                            {
                                0 => "9223372036854775807"u8,
                                1 => "79228162514264337593543950336"u8,
                                2 => "-0.0000000000000000000000000000001"u8,
                                _ => "2147483648"u8,
                            };
                            length = Insert(output, length, at + equals + 1, value);
                        }

                        break;
                    }

                default: // random byte
                    output[at] = (byte)random.Next(256);
                    break;
            }
        }

        return length;
    }

    private static int Insert(byte[] output, int length, int at, ReadOnlySpan<byte> bytes)
    {
        if (length + bytes.Length > output.Length)
        {
            return length;
        }

        output.AsSpan(at, length - at).CopyTo(output.AsSpan(at + bytes.Length));
        bytes.CopyTo(output.AsSpan(at));
        return length + bytes.Length;
    }

    private static int ReplaceValue(byte[] output, int length, ReadOnlySpan<byte> marker, ReadOnlySpan<byte> value)
    {
        int at = output.AsSpan(0, length).IndexOf(marker);
        if (at < 0)
        {
            return length;
        }

        int start = at + marker.Length;
        int end = output.AsSpan(start, length - start).IndexOf((byte)1);
        if (end < 0 || length - end + value.Length > output.Length)
        {
            return length;
        }

        output.AsSpan(start + end, length - start - end).CopyTo(output.AsSpan(start + value.Length));
        value.CopyTo(output.AsSpan(start));
        return length - end + value.Length;
    }

    private static byte[][] BuildSeeds()
    {
        string News(int lines)
        {
            var news = new StringBuilder("8=FIX.4.4|35=B|34=7|49=TW|52=20261121-21:30:15.000|56=ISLD|148=limits|33=").Append(lines).Append('|');
            for (int i = 0; i < lines; i++)
            {
                news.Append("58=l|");
            }

            return news.ToString();
        }

        return
        [
            FixSamples.Wire(FixSamples.NewOrderSingle),
            FixSamples.Wire(FixSamples.ExecutionReport),
            FixSamples.Wire(FixSamples.MarketDataSnapshot),
            FixSamples.Wire("8=FIX.4.4|35=A|34=1|49=TW|52=20261121-21:30:15.000|56=ISLD|98=0|108=30|95=6|96=ab|c=d|141=Y|"),
            FixSamples.Wire("8=FIX.4.4|35=E|34=1|49=A|52=20261121-21:30:15.123|56=B|66=L|394=1|68=1|73=1|11=O1|67=1|453=1|448=P1|447=D|452=1|802=1|523=S|803=2|55=X|54=1|38=1|40=1|"),
            FixSamples.Wire("8=FIX.4.4|35=D|34=2|49=TW|52=20261121-21:30:15|56=ISLD|115=JCD|144=CHI|11=ID|21=1|38=9223372036854775807|40=1|54=1|55=INTC|60=20261121-21:30:15|58=a|b|1234567890=x|"),
            FixSamples.Wire("8=FIX.4.4|35=1|34=3|49=TW|52=20261121-21:30:15|56=ISLD|112=TEST|"),
            FixSamples.Wire(News(129)), // more group entries than the default view of this target holds
            FixSamples.Wire(News(300)), // more fields
        ];
    }
}
