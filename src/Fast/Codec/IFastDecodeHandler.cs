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

    void OnDecimal(FastField field, long mantissa, int exponent);

    /// <summary>A string (ASCII or UTF-8 bytes) or byte vector.</summary>
    bool OnBytes(FastField field, ReadOnlySpan<byte> value);

    /// <summary>An optional field, group or sequence that is absent.</summary>
    void OnAbsent(FastField field);

    bool OnSequenceStart(FastField field, int length);

    void OnSequenceEntryStart(FastField field, int index);

    void OnSequenceEntryEnd(FastField field);

    void OnSequenceEnd(FastField field);

    void OnGroupStart(FastField field);

    void OnGroupEnd(FastField field);

    /// <summary>A dynamic template reference: the fields of <paramref name="template"/> follow, then <see cref="OnTemplateRefEnd"/>.</summary>
    bool OnTemplateRefStart(FastField field, FastTemplate template);

    void OnTemplateRefEnd(FastField field);

    void OnMessageEnd(FastTemplate template);
}
