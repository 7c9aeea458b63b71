using RapidFix.Fast.Templates;

namespace RapidFix.Fast.Codec;

/// <summary>
/// Receives a message as the decoder reads it, field by field (like Kestrel's HTTP parser handlers). Implement it
/// on a struct and pass it by reference: the decoder is generic over it, so calls are direct and inlinable.
/// Spans are valid only during the call. Methods returning bool stop decoding with
/// <see cref="FastErrorCode.CapacityExceeded"/> when they return false.
/// </summary>
public interface IFastDecodeHandler
{
    /// <summary>A message of <paramref name="template"/> begins.</summary>
    bool OnMessageStart(FastTemplate template);

    /// <summary>An integer value (a uInt64 above <see cref="long.MaxValue"/> arrives as its bit pattern).</summary>
    void OnInteger(FastField field, long value);

    /// <summary>A decimal value: <paramref name="mantissa"/> × 10^<paramref name="exponent"/>.</summary>
    void OnDecimal(FastField field, long mantissa, int exponent);

    /// <summary>A string (ASCII or UTF-8 bytes) or byte vector.</summary>
    bool OnBytes(FastField field, ReadOnlySpan<byte> value);

    /// <summary>An optional field, group or sequence that is absent.</summary>
    void OnAbsent(FastField field);

    /// <summary>A sequence of <paramref name="length"/> entries begins; false stops decoding (no room for them).</summary>
    bool OnSequenceStart(FastField field, int length);

    /// <summary>Entry <paramref name="index"/> of the sequence begins.</summary>
    void OnSequenceEntryStart(FastField field, int index);

    /// <summary>The current sequence entry ends.</summary>
    void OnSequenceEntryEnd(FastField field);

    /// <summary>The sequence ends.</summary>
    void OnSequenceEnd(FastField field);

    /// <summary>A present group begins: its fields follow, then <see cref="OnGroupEnd"/>.</summary>
    void OnGroupStart(FastField field);

    /// <summary>The group ends.</summary>
    void OnGroupEnd(FastField field);

    /// <summary>A dynamic template reference: the fields of <paramref name="template"/> follow, then <see cref="OnTemplateRefEnd"/>.</summary>
    bool OnTemplateRefStart(FastField field, FastTemplate template);

    /// <summary>The fields of a dynamically referenced template end.</summary>
    void OnTemplateRefEnd(FastField field);

    /// <summary>The message of <paramref name="template"/> is complete.</summary>
    void OnMessageEnd(FastTemplate template);
}
