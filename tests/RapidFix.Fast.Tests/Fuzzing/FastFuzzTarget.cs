using System.Runtime.CompilerServices;
using RapidFix.Fast;
using RapidFix.Fast.Codec;
using RapidFix.Fast.Messages;
using RapidFix.Fast.Templates;

namespace RapidFix.Fuzzing;

/// <summary>
/// One fuzz case of the FAST decoder: decode a packet (a mutated corpus packet) into a message. Shared by the CI
/// slice (<c>tests/RapidFix.Fast.Tests/FuzzCampaignTests.cs</c>) and the standalone runner (<c>tools/Fuzz</c>).
/// Invariants: decoding never throws; a success consumed between 1 byte and the packet, an error points inside the
/// packet with a known code; decoding the same bytes from the same dictionary state gives the same result
/// (checked on every 16th case); nothing allocates (checked by the callers).
/// </summary>
public sealed class FastFuzzTarget : IFuzzTarget
{
    private readonly FastDecoder _decoder;
    private readonly FastDecoder _replay;
    private readonly FastMessage _message = new();
    private int _sinceReset;

    /// <param name="templates">The templates the packets were encoded with.</param>
    /// <param name="packets">The seed packets (one message each).</param>
    public FastFuzzTarget(FastTemplateRegistry templates, byte[][] packets)
    {
        ArgumentNullException.ThrowIfNull(templates);
        ArgumentNullException.ThrowIfNull(packets);
        if (packets.Length == 0)
        {
            throw new ArgumentException("At least one seed packet.", nameof(packets));
        }

        _decoder = new FastDecoder(templates);
        _replay = new FastDecoder(templates);
        Seeds = packets;
        MaxInput = packets.Max(p => p.Length) + 64;
    }

    public byte[][] Seeds { get; }

    public int MaxInput { get; }

    public FuzzCounters Counters;

    /// <summary>Distinct error codes seen.</summary>
    public int DistinctErrors => _seen.Count(b => b);

    private readonly bool[] _seen = new bool[256];

    /// <summary>Runs one case; throws <see cref="FuzzInvariantException"/> when an invariant breaks.</summary>
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    public void Run(ReadOnlySpan<byte> packet)
    {
        if (++_sinceReset == 1000)
        {
            // The dictionary carries over between messages, as on a stream; start afresh now and then.
            _decoder.Reset();
            _sinceReset = 0;
        }

        bool replay = (Counters.Cases & 15) == 0;
        if (replay)
        {
            _decoder.Reset();
            _replay.Reset();
            _sinceReset = 0;
        }

        var r = _decoder.Decode(packet, _message);
        if (r.Ok)
        {
            if (r.Length < 1 || r.Length > packet.Length)
            {
                throw new FuzzInvariantException("a decoded message claims bytes outside the packet");
            }

            Counters.Ok++;
        }
        else
        {
            if (r.Offset < 0 || r.Offset > packet.Length || (uint)r.Error > 255)
            {
                throw new FuzzInvariantException("an error points outside the packet or has no known code");
            }

            _seen[(int)r.Error] = true;
            Counters.Errors++;
        }

        if (replay && _replay.Decode(packet, _message) != r)
        {
            throw new FuzzInvariantException("the same bytes from the same state decoded differently");
        }

        Counters.Cases++;
    }

    /// <summary>Writes a mutated copy of a seed packet into <paramref name="output"/>; returns its length.</summary>
    public int Mutate(Random random, byte[] output)
    {
        var packet = Seeds[random.Next(Seeds.Length)];
        int length = packet.Length;
        packet.CopyTo(output, 0);
        switch (random.Next(7))
        {
            case 0: // flip 1-3 bits
                for (int k = random.Next(1, 4); k > 0; k--)
                {
                    output[random.Next(length)] ^= (byte)(1 << random.Next(8));
                }

                break;
            case 1: // truncate
                length = random.Next(length);
                break;
            case 2: // clear a stop bit (runs a field into the next one)
                output[random.Next(length)] &= 0x7F;
                break;
            case 3: // insert a random byte
                if (length < output.Length)
                {
                    int at = random.Next(length);
                    output.AsSpan(at, length - at).CopyTo(output.AsSpan(at + 1));
                    output[at] = (byte)random.Next(256);
                    length++;
                }

                break;
            case 4: // delete a byte
                {
                    int at = random.Next(length);
                    output.AsSpan(at + 1, length - at - 1).CopyTo(output.AsSpan(at));
                    length--;
                    break;
                }

            case 5: // set stop bits (every byte its own field: huge counts, lengths and template ids)
                for (int k = random.Next(1, 6); k > 0; k--)
                {
                    output[random.Next(length)] |= 0x80;
                }

                break;
            default: // random bytes, with a valid-looking header half the time
                random.NextBytes(output.AsSpan(0, length));
                if (random.Next(2) == 0 && length > 1)
                {
                    output[0] = 0xC0;
                    output[1] = (byte)(0x80 | random.Next(1, 3));
                }

                break;
        }

        return length;
    }

    /// <summary>The packets of a corpus file: each message after a 4-byte little-endian length.</summary>
    public static byte[][] CorpusPackets(byte[] data, int count)
    {
        var list = new List<byte[]>();
        int pos = 0;
        while (list.Count < count && pos + 4 <= data.Length)
        {
            int length = BitConverter.ToInt32(data, pos);
            list.Add(data.AsSpan(pos + 4, length).ToArray());
            pos += 4 + length;
        }

        return list.ToArray();
    }
}
