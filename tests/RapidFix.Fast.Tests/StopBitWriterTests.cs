using RapidFix.Fast.Codec;

namespace RapidFix.Fast.Tests;

/// <summary>
/// The encoder's stop-bit integer writer against a byte-by-byte reference, for values of every length (1 to 10
/// bytes), signed and unsigned, with room for the one-word store and with exactly the bytes needed.
/// </summary>
public sealed class StopBitWriterTests
{
    [Fact]
    public void Integers_of_every_length_are_written_as_the_reference_writes_them()
    {
        var random = new Random(20261122);
        int checkedValues = 0;
        for (int bits = 0; bits <= 64; bits++)
        {
            for (int k = 0; k < 200; k++)
            {
                ulong magnitude = bits == 0 ? 0 : (((ulong)random.NextInt64() << 1) ^ (ulong)random.NextInt64()) >> (64 - bits);
                ulong unsignedValue = bits == 0 ? 0 : magnitude | (1UL << (bits - 1));
                Check(unsignedValue, signed: false);
                Check((ulong)(long)unsignedValue, signed: true);
                Check((ulong)(-(long)unsignedValue), signed: true);
                checkedValues += 3;
            }
        }

        foreach (ulong edge in new ulong[] { 0, 63, 64, 127, 128, 0x3FFF, 0x4000, ulong.MaxValue, (ulong)long.MaxValue, 1UL << 63, 1UL << 56, (1UL << 56) - 1 })
        {
            Check(edge, signed: false);
            Check(edge, signed: true);
        }

        Assert.True(checkedValues > 30_000);
    }

    [Fact]
    public void A_destination_without_room_is_refused_and_left_alone()
    {
        var destination = new byte[12];
        Array.Fill(destination, (byte)0x55);
        Assert.False(StopBitWriter.TryWrite(destination, 10, 1UL << 20, StopBitWriter.UnsignedLength(1UL << 20), signed: false));
        Assert.All(destination, b => Assert.Equal(0x55, b));
        Assert.True(StopBitWriter.TryWrite(destination, 9, 1UL << 20, 3, signed: false));
        Assert.Equal("400080", Convert.ToHexString(destination, 9, 3)); // 2^20: groups 0x40, 0, 0
    }

    private static void Check(ulong value, bool signed)
    {
        byte[] expected = Reference(value, signed);
        int length = signed ? StopBitWriter.SignedLength((long)value) : StopBitWriter.UnsignedLength(value);
        Assert.Equal(expected.Length, length);

        // With room for a word past the integer, and with exactly its bytes (behind three others).
        var roomy = new byte[length + 8];
        Assert.True(StopBitWriter.TryWrite(roomy, 0, value, length, signed));
        Assert.Equal(Convert.ToHexString(expected), Convert.ToHexString(roomy, 0, length));
        var exact = new byte[length + 3];
        Assert.True(StopBitWriter.TryWrite(exact, 3, value, length, signed));
        Assert.Equal(Convert.ToHexString(expected), Convert.ToHexString(exact, 3, length));
    }

    /// <summary>The fewest 7-bit groups that hold the value (with its sign bit when signed), most significant first.</summary>
    private static byte[] Reference(ulong value, bool signed)
    {
        var groups = new List<byte>();
        if (signed)
        {
            long v = (long)value;
            do
            {
                groups.Insert(0, (byte)(v & 0x7F));
                v >>= 7;
            }
            while (!((v == 0 && (groups[0] & 0x40) == 0) || (v == -1 && (groups[0] & 0x40) != 0)));
        }
        else
        {
            do
            {
                groups.Insert(0, (byte)(value & 0x7F));
                value >>= 7;
            }
            while (value != 0);
        }

        groups[^1] |= 0x80;
        return groups.ToArray();
    }
}
