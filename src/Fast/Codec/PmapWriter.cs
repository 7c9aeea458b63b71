namespace RapidFix.Fast.Codec;

/// <summary>A presence map being written into the bytes the encoder reserved for it.</summary>
internal struct PmapWriter
{
    public int Start;
    public int Reserved;
    public int Bit;
}
