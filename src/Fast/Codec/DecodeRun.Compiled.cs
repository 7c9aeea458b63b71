using System.Runtime.CompilerServices;
using RapidFix.Fast.Messages;
using RapidFix.Fast.Templates;

namespace RapidFix.Fast.Codec;

/// <summary>State accessors for <see cref="CompiledOps"/>, which keep the hot state in the compiled method's locals.</summary>
internal ref partial struct DecodeRun<THandler>
{
    internal int Position
    {
        readonly get => _pos;
        set => _pos = value;
    }

    internal readonly ReadOnlySpan<byte> Data => _data;

    /// <summary>The presence map window handed between a compiled body and the methods of its later parts.</summary>
    internal ulong PmWindow
    {
        readonly get => _pmWindow;
        set => _pmWindow = value;
    }

    internal readonly PreviousValue[] Dictionary => _dict;

    internal readonly FastField Field(int index) => _decoder.Templates.Fields[index];

    internal readonly int MaxStringBytes => _decoder.Scratch.Length;

    internal readonly byte[] DictionaryBytes(int slot) => _decoder.State.Bytes[slot]!;

    /// <summary>The dictionary's string buffers by slot (null for slots that hold no string).</summary>
    internal readonly byte[]?[] DictionaryByteArrays => _decoder.State.Bytes;

    internal FastMessage TargetMessage => Unsafe.As<THandler, FastMessageWriter>(ref _handler).Message;

    /// <summary>The first value slot of the current scope (capacity was checked when the scope was reserved).</summary>
    internal ref FastValue ScopeStart() => ref Unsafe.As<THandler, FastMessageWriter>(ref _handler).ScopeStart();

    internal bool FailAt(FastErrorCode code, int offset) => Fail(code, offset);

    internal readonly bool Strict => _decoder.Strict;

    /// <summary>The value index of the first entry of the sequence in <paramref name="slot"/>.</summary>
    internal readonly int FirstEntryBase(int slot) => Unsafe.As<THandler, FastMessageWriter>(ref _handler).FirstEntryBase(slot);

    internal void EnterEntries() => Unsafe.As<THandler, FastMessageWriter>(ref _handler).EnterEntries();

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal ref FastValue EnterEntry(int entryBase) => ref Unsafe.As<THandler, FastMessageWriter>(ref _handler).EnterEntry(entryBase);

    internal void LeaveEntries() => Unsafe.As<THandler, FastMessageWriter>(ref _handler).LeaveEntries();

    /// <summary>
    /// A sequence of compiled code whose length was read: the limits checked and the handler told, as
    /// the interpreter does. The entry count, or -1 after recording the error.
    /// </summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    internal int StartSequence(int fieldIndex, long length, int at, int pos, int depth)
    {
        _pos = pos;
        return StartSequence(_decoder.Templates.Fields[fieldIndex], length, at, depth) ? (int)length : -1;
    }

    /// <summary>
    /// A sequence entry's presence map at <paramref name="pos"/>, of at most <paramref name="maxBytes"/> bytes when
    /// strict: the position after it, or -1 after recording the error (as the interpreter's entry loop).
    /// </summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    internal int EntryPmap(int pos, int maxBytes)
    {
        _pos = pos;
        if (!ReadPmap(out _, out int length))
        {
            return -1;
        }

        return !_decoder.Strict || length <= maxBytes || Fail(FastErrorCode.R8, pos) ? _pos : -1;
    }

    /// <summary>The value the last <see cref="SlowUnsigned"/> or <see cref="SlowSigned"/> read.</summary>
    internal readonly ulong SlowValue => _slowValue;

    /// <summary>The last slow read's value is exactly 2^64 (unsigned) or 2^63 (signed).</summary>
    internal readonly bool SlowCarry => _slowCarry;

    /// <summary>
    /// An unsigned integer of 3 or more bytes at <paramref name="pos"/> (value in <see cref="SlowValue"/>): the
    /// new position, or -1 after recording the error.
    /// </summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    internal int SlowUnsigned(int pos)
    {
        var data = _data;
        if (CompiledOps.TryWordUnsigned(data, pos, out ulong word, out int end))
        {
            _slowValue = word;
            _slowCarry = false;
            return end;
        }

        // Up to 9 bytes (63 bits, no overflow) with a non-zero first byte, near the end of the input.
        int limit = Math.Min(data.Length, pos + 9);
        if ((uint)pos < (uint)data.Length && data[pos] != 0)
        {
            ulong v = 0;
            for (int p = pos; p < limit; p++)
            {
                uint b = data[p];
                v = (v << 7) | (b & 0x7F);
                if (b >= 0x80)
                {
                    _slowValue = v;
                    _slowCarry = false;
                    return p + 1;
                }
            }
        }

        _pos = pos;
        if (!ReadUnsignedSlow(out ulong value, out bool carry))
        {
            return -1;
        }

        _slowValue = value;
        _slowCarry = carry;
        return _pos;
    }

    /// <summary>
    /// A signed integer of 2 or more bytes at <paramref name="pos"/> (value in <see cref="SlowValue"/>): the new
    /// position, or -1 after recording the error.
    /// </summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    internal int SlowSigned(int pos)
    {
        _pos = pos;
        if (!ReadSignedSlow(out long value, out bool carry))
        {
            return -1;
        }

        _slowValue = (ulong)value;
        _slowCarry = carry;
        return _pos;
    }

    /// <summary>One instruction by the interpreter, its presence bit already read (not for split decimals, which read two).</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    internal bool InterpretWithBit(int fieldIndex, bool bit, int depth)
    {
        var f = _decoder.Templates.Fields[fieldIndex];
        switch (f.Code)
        {
            case Opcode.Int:
                {
                    int r = IntOperator(f, bit, out long value);
                    if (r == Present)
                    {
                        _handler.OnInteger(f, value);
                    }
                    else if (r == Absent)
                    {
                        _handler.OnAbsent(f);
                    }

                    return r != Failed;
                }

            case Opcode.Decimal:
                {
                    int r = DecimalOperator(f, bit, out long mantissa, out int exponent);
                    if (r == Present)
                    {
                        _handler.OnDecimal(f, mantissa, exponent);
                    }
                    else if (r == Absent)
                    {
                        _handler.OnAbsent(f);
                    }

                    return r != Failed;
                }

            case Opcode.Ascii:
            case Opcode.Bytes:
                return BytesOperator(f, bit);
            case Opcode.Sequence:
                return Sequence(f, bit, depth);
            case Opcode.Group:
                return Group(f, bit, depth);
            case Opcode.TemplateRef:
                return depth < _decoder.MaxDepth ? Segment(f, depth + 1) : Fail(FastErrorCode.LimitExceeded, _pos);
            default:
                return Fail(FastErrorCode.S2, _pos);
        }
    }
}
