using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using RapidFix.Fast.Messages;
using RapidFix.Fast.Templates;

namespace RapidFix.Fast.Codec;

/// <summary>Compiled encoding code of one body (see <see cref="EncoderCompiler"/>).</summary>
internal delegate bool CompiledEncodeBody(ref EncodeRun run, int valueBase, ref PmapWriter pm);

/// <summary>State accessors for <see cref="EncodeOps"/>, which keep the hot state in the compiled method's locals.</summary>
internal ref partial struct EncodeRun
{
    internal int Position
    {
        readonly get => _pos;
        set => _pos = value;
    }

    internal readonly Span<byte> Destination => _dst;

    internal readonly PreviousValue[] Dictionary => _dict;

    internal readonly FastMessage Source => _message;

    internal readonly byte[] DictionaryBytes(int slot) => _encoder.State.Bytes[slot]!;

    /// <summary>The value slot at <paramref name="valueBase"/> (the scope's first; its capacity was checked when reserved).</summary>
    internal readonly ref FastValue ValueRef(int valueBase) =>
        ref Unsafe.Add(ref MemoryMarshal.GetArrayDataReference(_message.Values), valueBase);

    internal bool FailAt(FastErrorCode code, int offset) => Fail(code, offset);

    /// <summary>An integer of the type (nullable or not) at the position, with the interpreter's writers.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    internal bool WriteInteger(FastFieldType type, long value, bool nullable)
    {
        if (type is FastFieldType.UInt32 or FastFieldType.UInt64)
        {
            return nullable ? WriteNullableUnsigned((ulong)value) : WriteUnsigned((ulong)value);
        }

        return nullable ? WriteNullableSigned(value) : WriteSigned(value);
    }

    /// <summary>A string or byte vector value at the position, with the interpreter's writers.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    internal bool WriteValueBytes(bool ascii, ReadOnlySpan<byte> value, bool nullable)
    {
        if (ascii)
        {
            return WriteAscii(value, nullable);
        }

        if (!(nullable ? WriteNullableUnsigned((ulong)value.Length) : WriteUnsigned((ulong)value.Length)))
        {
            return false;
        }

        if (value.Length > _dst.Length - _pos)
        {
            return Fail(FastErrorCode.BufferTooSmall, _pos);
        }

        value.CopyTo(_dst.Slice(_pos));
        _pos += value.Length;
        return true;
    }

    /// <summary>One instruction by the interpreter; false after recording the error.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    internal bool EncodeOne(int fieldIndex, int valueBase, ref PmapWriter pm) =>
        One(_encoder.Templates.Fields[fieldIndex], valueBase, ref pm);
}
