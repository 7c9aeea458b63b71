using System.Runtime.InteropServices;
using RapidFix.Fast.Templates;

namespace RapidFix.Fast.Codec;

/// <summary>One previous value: an integer (or a decimal's mantissa and exponent) or bytes held in the slot's buffer.</summary>
[StructLayout(LayoutKind.Auto)]
internal struct PreviousValue
{
    public long Int;
    public int Exponent;
    public int Length;
    public PreviousState State;

    /// <summary>Type of the field that assigned the value (D4 when another type reads it).</summary>
    public FastFieldType Type;
}

/// <summary>
/// The previous values of every dictionary (global, template, type and named ones) flattened into arrays indexed
/// by the slots the template compiler resolved. One per decoder or encoder; sized at construction, never grows.
/// </summary>
internal sealed class DictionaryState
{
    public readonly PreviousValue[] Values;
    public readonly byte[]?[] Bytes;
    public readonly int MaxStringBytes;

    /// <summary>The template identifier, encoded as if by a copy operator with a key of its own.</summary>
    public uint TemplateId;
    public bool TemplateIdAssigned;

    public DictionaryState(FastTemplateRegistry registry)
    {
        int n = registry.DictionarySlotCount;
        Values = new PreviousValue[n];
        Bytes = new byte[n][];
        MaxStringBytes = registry.Limits.MaxStringBytes;
        for (int i = 0; i < n; i++)
        {
            if (registry.DictionarySlotHoldsBytes[i])
            {
                Bytes[i] = new byte[MaxStringBytes];
            }
        }
    }

    /// <summary>Every previous value becomes undefined (FAST reset, e.g. SCP 1.1 reset or a new stream).</summary>
    public void Reset()
    {
        Array.Clear(Values);
        TemplateIdAssigned = false;
        TemplateId = 0;
    }
}
