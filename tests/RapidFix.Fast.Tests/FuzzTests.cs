using System.Runtime.CompilerServices;
using RapidFix.Fast.Codec;
using RapidFix.Fast.Framing;
using RapidFix.Fast.Messages;
using RapidFix.Fast.Tests.Support;
using RapidFix.Tests.Shared;

namespace RapidFix.Fast.Tests;

/// <summary>
/// Mutated corpus packets (bit flips, truncation, inserted and deleted bytes, random bytes) many thousands of
/// times: every outcome is a result with an error code and an offset inside the packet; nothing throws, and the
/// whole run allocates nothing after warm-up.
/// </summary>
public sealed class FuzzTests
{
    private const int Iterations = 60_000;

    [SharedDataFact]
    public void Mutated_packets_give_error_codes_never_exceptions_or_allocations()
    {
        var packets = CorpusPackets(2_000);
        var state = new FuzzState(packets);
        // Warm-up over other mutations, then over exactly the mutations measured (so that no path is first taken
        // inside the window), letting tiered compilation settle after each.
        Run(state, 5_000);
        for (int round = 0; round < 2; round++)
        {
            state.Random = new Random(2);
            Run(state, Iterations);
            Thread.Sleep(200);
        }

        // Each window replays the same mutated packets, so a window repeated because the JIT worked on this
        // thread during it (see Allocations.Window) does exactly the same work again.
        var sameMutations = new Random[Allocations.MaxWindows];
        for (int i = 0; i < sameMutations.Length; i++)
        {
            sameMutations[i] = new Random(2);
        }

        int windows = 0;
        var window = Allocations.Window(state, s =>
        {
            s.Random = sameMutations[windows++];
            Run(s, Iterations);
        });

        Assert.True(window.Bytes == 0, window.ToString());
        Assert.Equal(0, state.BadResults);
        Assert.True(state.Errors > Iterations / 10, $"only {state.Errors} of {Iterations} mutated packets failed: mutations too weak");
        Assert.True(state.Ok > 0, "no mutated packet decoded: mutations too strong to exercise the decoder");
        Assert.True(state.DistinctCodes >= 5, $"only {state.DistinctCodes} distinct error codes seen");
    }

    [MethodImpl(MethodImplOptions.AggressiveOptimization)] // no on-stack replacement of this loop inside the window
    private static void Run(FuzzState s, int iterations)
    {
        for (int i = 0; i < iterations; i++)
        {
            if (i % 1000 == 0)
            {
                s.Decoder.Reset();
            }

            var packet = s.Packets[s.Random.Next(s.Packets.Length)];
            int length = Mutate(s.Random, packet, s.Buffer);
            var data = s.Buffer.AsSpan(0, length);
            var r = s.Decoder.Decode(data, s.Message);
            // Plain checks, counted: xUnit's asserts would allocate inside the measured loop.
            if (r.Ok)
            {
                if (r.Length < 1 || r.Length > length)
                {
                    s.BadResults++;
                }

                s.Ok++;
            }
            else
            {
                if (r.Offset < 0 || r.Offset > length)
                {
                    s.BadResults++;
                }

                s.Errors++;
                if (!s.Seen[(int)r.Error])
                {
                    s.Seen[(int)r.Error] = true;
                    s.DistinctCodes++;
                }
            }
        }
    }

    private static int Mutate(Random random, byte[] packet, byte[] buffer)
    {
        int length = packet.Length;
        packet.CopyTo(buffer, 0);
        switch (random.Next(6))
        {
            case 0: // flip 1-3 bits
                for (int k = random.Next(1, 4); k > 0; k--)
                {
                    buffer[random.Next(length)] ^= (byte)(1 << random.Next(8));
                }

                break;
            case 1: // truncate
                length = random.Next(length);
                break;
            case 2: // clear a stop bit (runs a field into the next one)
                buffer[random.Next(length)] &= 0x7F;
                break;
            case 3: // insert a random byte
                {
                    int at = random.Next(length);
                    Array.Copy(buffer, at, buffer, at + 1, length - at);
                    buffer[at] = (byte)random.Next(256);
                    length++;
                    break;
                }

            case 4: // delete a byte
                {
                    int at = random.Next(length);
                    Array.Copy(buffer, at + 1, buffer, at, length - at - 1);
                    length--;
                    break;
                }

            default: // random bytes, with a valid-looking header half the time
                random.NextBytes(buffer.AsSpan(0, length));
                if (random.Next(2) == 0)
                {
                    buffer[0] = 0xC0;
                    buffer[1] = (byte)(0x80 | random.Next(1, 3));
                }

                break;
        }

        return length;
    }

    private static byte[][] CorpusPackets(int count)
    {
        var list = new List<byte[]>();
        var data = Corpus.Bytes;
        int pos = 0;
        while (list.Count < count && pos < data.Length)
        {
            int length = BitConverter.ToInt32(data, pos);
            list.Add(data.AsSpan(pos + 4, length).ToArray());
            pos += 4 + length;
        }

        return list.ToArray();
    }

    private sealed class FuzzState(byte[][] packets)
    {
        public readonly byte[][] Packets = packets;
        public readonly byte[] Buffer = new byte[4096];
        public Random Random = new(20261121);
        public readonly FastDecoder Decoder = new(Corpus.Templates);
        public readonly FastMessage Message = new();
        public readonly bool[] Seen = new bool[64];
        public int Ok;
        public int BadResults;
        public int Errors;
        public int DistinctCodes;
    }
}
