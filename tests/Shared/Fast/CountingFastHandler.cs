using RapidFix.Fast.Codec;
using RapidFix.Fast.Templates;

namespace RapidFix.Tests.Shared.Fast;

/// <summary>A FAST decode handler that only counts the values it is given (tests and benchmarks of the handler path).</summary>
internal struct CountingFastHandler : IFastDecodeHandler
{
    public long Values;

    public bool OnMessageStart(FastTemplate template) => true;

    public void OnInteger(FastField field, long value) => Values++;

    public void OnDecimal(FastField field, long mantissa, int exponent) => Values++;

    public bool OnBytes(FastField field, ReadOnlySpan<byte> value)
    {
        Values++;
        return true;
    }

    public void OnAbsent(FastField field)
    {
    }

    public bool OnSequenceStart(FastField field, int length) => true;

    public void OnSequenceEntryStart(FastField field, int index)
    {
    }

    public void OnSequenceEntryEnd(FastField field)
    {
    }

    public void OnSequenceEnd(FastField field)
    {
    }

    public void OnGroupStart(FastField field)
    {
    }

    public void OnGroupEnd(FastField field)
    {
    }

    public bool OnTemplateRefStart(FastField field, FastTemplate template) => true;

    public void OnTemplateRefEnd(FastField field)
    {
    }

    public void OnMessageEnd(FastTemplate template)
    {
    }
}
