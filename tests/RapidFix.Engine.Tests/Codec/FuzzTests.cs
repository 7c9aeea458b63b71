using RapidFix.Engine.Codec;
using RapidFix.Engine.Dictionary;
using RapidFix.Engine.Validation;
using RapidFix.Tests.Shared;

namespace RapidFix.Engine.Tests.Codec;

/// <summary>
/// Mutates valid messages many thousands of times (bit flips, truncation, inserted SOH, deleted bytes, huge
/// BodyLength, garbage, duplicated runs) and runs the receive path on each stream: framer, parser, validator.
/// Every outcome must be a specific status, every step must make progress, nothing may throw or allocate, and the
/// validator's fast path (the parser's screen) must agree with a full walk of the fields on every message.
/// </summary>
public sealed class FuzzTests
{
    private const int Iterations = 60_000;
    private static readonly DataDictionary Fix44 = StandardDictionaries.Load("FIX44");

    private static readonly byte[][] Seeds =
    [
        FixSamples.Wire(FixSamples.NewOrderSingle),
        FixSamples.Wire(FixSamples.ExecutionReport),
        FixSamples.Wire(FixSamples.MarketDataSnapshot),
        FixSamples.Wire("8=FIX.4.4|35=A|34=1|49=TW|52=20261121-21:30:15.000|56=ISLD|98=0|108=30|95=6|96=ab|c=d|141=Y|"),
        FixSamples.Wire("8=FIX.4.4|35=E|34=1|49=A|52=20261121-21:30:15.123|56=B|66=L|394=1|68=1|73=1|11=O1|67=1|453=1|448=P1|447=D|452=1|55=X|54=1|38=1|40=1|"),
    ];

    [Fact]
    public void Mutated_streams_yield_specific_results_without_exceptions_or_allocation()
    {
        var harness = new Harness();
        // Warm-up over other streams, then over exactly the streams measured (so that no path is first taken inside
        // the window), then the measured run must allocate nothing at all.
        harness.Run(new Random(1), Iterations / 10);
        for (int round = 0; round < 2; round++)
        {
            harness.Run(new Random(2), Iterations);
            Thread.Sleep(200); // let tiered compilation settle
        }

        // Each window replays the same 60,000 streams, so a window repeated because the JIT worked on this
        // thread during it (see Allocations.Window) does exactly the same work again.
        var sameStreams = new Random[Allocations.MaxWindows];
        for (int i = 0; i < sameStreams.Length; i++)
        {
            sameStreams[i] = new Random(2);
        }

        int windows = 0;
        var stats = default(Stats);
        var window = Allocations.Window(harness, h => stats = h.Run(sameStreams[windows++], Iterations));

        Assert.True(window.Bytes == 0, window.ToString());
        Assert.True(stats.Complete > 0, "some mutations leave a valid frame");
        Assert.True(stats.Garbled > 0 && stats.BadChecksum > 0, $"garbled {stats.Garbled}, bad checksum {stats.BadChecksum}");
        Assert.True(stats.ParseErrors > 0 && stats.Rejects > 0, $"parse errors {stats.ParseErrors}, rejects {stats.Rejects}");
        Assert.True(stats.Valid > 0);
    }

    private struct Stats
    {
        public int Complete;
        public int Garbled;
        public int BadChecksum;
        public int ParseErrors;
        public int Rejects;
        public int Valid;
    }

    private sealed class Harness
    {
        private readonly FixFramer _framer = new(maxMessageSize: 4096);
        private readonly FixMessage _message = new();
        private readonly MessageValidator _validator = new(Fix44);
        private readonly byte[] _stream = new byte[16 * 1024];

        [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.AggressiveOptimization)]
        public Stats Run(Random random, int iterations)
        {
            var stats = default(Stats);
            for (int i = 0; i < iterations; i++)
            {
                int length = Mutate(random, _stream);
                Consume(length, ref stats);
            }

            return stats;
        }

        /// <summary>Writes a mutated copy of a seed (sometimes two messages back to back) and returns its length.</summary>
        private static int Mutate(Random random, byte[] output)
        {
            var seed = Seeds[random.Next(Seeds.Length)];
            seed.CopyTo(output, 0);
            int length = seed.Length;
            if (random.Next(4) == 0)
            {
                var second = Seeds[random.Next(Seeds.Length)];
                second.CopyTo(output, length);
                length += second.Length;
            }

            int mutations = 1 + random.Next(3);
            for (int m = 0; m < mutations && length > 2; m++)
            {
                int at = random.Next(length);
                switch (random.Next(8))
                {
                    case 0: // bit flip
                        output[at] ^= (byte)(1 << random.Next(8));
                        break;
                    case 1: // truncation
                        length = at;
                        break;
                    case 2: // inserted SOH
                        Array.Copy(output, at, output, at + 1, length - at);
                        output[at] = 1;
                        length++;
                        break;
                    case 3: // deleted byte
                        Array.Copy(output, at + 1, output, at, length - at - 1);
                        length--;
                        break;
                    case 4: // huge or wrong BodyLength
                        {
                            int nine = output.AsSpan(0, length).IndexOf("\u00019="u8);
                            if (nine >= 0)
                            {
                                var digits = random.Next(2) == 0 ? "99999999"u8 : "1"u8;
                                int end = output.AsSpan(nine + 3, length - nine - 3).IndexOf((byte)1);
                                if (end >= 0)
                                {
                                    int old = end;
                                    Array.Copy(output, nine + 3 + old, output, nine + 3 + digits.Length, length - nine - 3 - old);
                                    digits.CopyTo(output.AsSpan(nine + 3));
                                    length += digits.Length - old;
                                }
                            }

                            break;
                        }

                    case 5: // garbage prefix
                        {
                            int n = 1 + random.Next(20);
                            Array.Copy(output, 0, output, n, length);
                            for (int k = 0; k < n; k++)
                            {
                                output[k] = (byte)random.Next(256);
                            }

                            length += n;
                            break;
                        }

                    case 6: // duplicate a run of bytes
                        {
                            int n = Math.Min(1 + random.Next(30), length - at);
                            if (length + n < output.Length)
                            {
                                Array.Copy(output, at, output, at + n, length - at);
                                length += n;
                            }

                            break;
                        }

                    default: // random byte
                        output[at] = (byte)random.Next(256);
                        break;
                }

                if (length > output.Length / 2)
                {
                    length = output.Length / 2;
                }
            }

            return length;
        }

        /// <summary>The receive loop of a session, over one buffer: frame, parse, validate until nothing is left.</summary>
        private void Consume(int length, ref Stats stats)
        {
            int offset = 0;
            while (offset < length)
            {
                var r = _framer.Frame(new ReadOnlySpan<byte>(_stream, offset, length - offset));
                if (r.Consumed < 0 || r.Consumed > length - offset)
                {
                    throw new InvalidOperationException($"framer consumed {r.Consumed} of {length - offset}");
                }

                switch (r.Status)
                {
                    case FrameStatus.NeedMoreData:
                        return; // the rest waits for bytes that never come
                    case FrameStatus.Complete:
                        stats.Complete++;
                        var error = _message.Parse(_stream, offset + r.Start, r.Length, Fix44);
                        if (error != FixParseError.None)
                        {
                            stats.ParseErrors++;
                        }
                        else
                        {
                            var v = _validator.Validate(_message);
                            if (v != _validator.ValidateThoroughly(_message))
                            {
                                throw new InvalidOperationException("the parser's screen and the full walk disagree");
                            }

                            if (v.IsValid)
                            {
                                stats.Valid++;
                            }
                            else
                            {
                                stats.Rejects++;
                            }
                        }

                        break;
                    case FrameStatus.Garbled:
                        stats.Garbled++;
                        break;
                    case FrameStatus.BadChecksum:
                        stats.BadChecksum++;
                        break;
                    default:
                        throw new InvalidOperationException("unknown frame status");
                }

                if (r.Consumed == 0)
                {
                    throw new InvalidOperationException("no progress on a complete or garbled frame");
                }

                offset += r.Consumed;
            }
        }
    }
}
