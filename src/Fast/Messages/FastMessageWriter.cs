using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using RapidFix.Fast.Codec;
using RapidFix.Fast.Templates;

namespace RapidFix.Fast.Messages;

/// <summary>
/// The decode handler that fills a <see cref="FastMessage"/>: each field's value goes to its pre-resolved slot in
/// the current scope; strings are copied into the message's arena.
/// </summary>
public struct FastMessageWriter : IFastDecodeHandler
{
    private const int MaxDepth = 64;

    private readonly FastMessage _message;
    private readonly FastValue[] _values;
    private int _base;
    private int _depth;
    private InlineBases _stack;

    /// <summary>A handler that fills <paramref name="message"/> as the decoder reads (it is cleared at each message start).</summary>
    public FastMessageWriter(FastMessage message)
    {
        ArgumentNullException.ThrowIfNull(message);

        // A writer is made for every message decoded: its stack of enclosing scope bases (256 bytes) is written
        // before it is read (Push, then Pop), so it is left as it is rather than zeroed each time.
        Unsafe.SkipInit(out this);
        _message = message;
        _values = message.Values;
        _base = 0;
        _depth = 0;
    }

    [InlineArray(MaxDepth)]
    private struct InlineBases
    {
        private int _element0;
    }

    /// <inheritdoc/>
    public bool OnMessageStart(FastTemplate template)
    {
        _depth = 0;
        _base = 0;
        return _message.TryBegin(template, clear: false);
    }

    /// <inheritdoc/>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void OnInteger(FastField field, long value)
    {
        ref var v = ref _values[_base + field.Slot];
        v.KindValue = field.Type is FastFieldType.UInt32 or FastFieldType.UInt64 ? FastValueKind.UnsignedInteger : FastValueKind.Integer;
        v.Int = value;
    }

    /// <inheritdoc/>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void OnDecimal(FastField field, long mantissa, int exponent)
    {
        ref var v = ref _values[_base + field.Slot];
        v.KindValue = FastValueKind.Decimal;
        v.Int = mantissa;
        v.Aux = exponent;
    }

    /// <inheritdoc/>
    public bool OnBytes(FastField field, ReadOnlySpan<byte> value)
    {
        int offset;
        byte[] initial = field.InitialBytes;
        if (value.Length == initial.Length && field.InitialPoolOffset >= 0
            && Unsafe.AreSame(ref MemoryMarshal.GetReference(value), ref MemoryMarshal.GetArrayDataReference(initial)))
        {
            // The template's own initial value (constant, default): refer to the shared pool instead of copying.
            offset = ~field.InitialPoolOffset;
        }
        else if (!_message.TryAppendBytes(value, out offset))
        {
            return false;
        }

        ref var v = ref _values[_base + field.Slot];
        v.KindValue = FastValueKind.Bytes;
        v.Offset = offset;
        v.Aux = value.Length;
        return true;
    }

    /// <inheritdoc/>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void OnAbsent(FastField field)
    {
        _values[_base + field.Slot].KindValue = FastValueKind.Absent;
        if (field.Type == FastFieldType.Group)
        {
            ClearGroup(field.Body!);
        }
    }

    private void ClearGroup(FastGroupBody body)
    {
        foreach (var f in body.Instructions)
        {
            _values[_base + f.Slot].KindValue = FastValueKind.Absent;
            if (f.Type == FastFieldType.Group)
            {
                ClearGroup(f.Body!);
            }
        }
    }

    /// <inheritdoc/>
    public bool OnSequenceStart(FastField field, int length)
    {
        if (!_message.TryAddScopes(field.Body!, length, out int first, clear: false))
        {
            return false;
        }

        ref var v = ref _values[_base + field.Slot];
        v.KindValue = FastValueKind.Sequence;
        v.Int = length;
        v.Aux = first;
        return true;
    }

    /// <inheritdoc/>
    public void OnSequenceEntryStart(FastField field, int index)
    {
        int scope = _values[_base + field.Slot].Aux + index;
        Push(_message.Scopes[scope].Base);
    }

    /// <inheritdoc/>
    public void OnSequenceEntryEnd(FastField field) => Pop();

    /// <inheritdoc/>
    public void OnSequenceEnd(FastField field)
    {
    }

    /// <inheritdoc/>
    public void OnGroupStart(FastField field) => _values[_base + field.Slot].KindValue = FastValueKind.Group;

    /// <inheritdoc/>
    public void OnGroupEnd(FastField field)
    {
    }

    /// <inheritdoc/>
    public bool OnTemplateRefStart(FastField field, FastTemplate template)
    {
        if (_depth >= MaxDepth || !_message.TryAddScopes(template.Body, 1, out int scope, clear: false))
        {
            return false;
        }

        ref var v = ref _values[_base + field.Slot];
        v.KindValue = FastValueKind.TemplateReference;
        v.Aux = scope;
        Push(_message.Scopes[scope].Base);
        return true;
    }

    /// <inheritdoc/>
    public void OnTemplateRefEnd(FastField field) => Pop();

    /// <inheritdoc/>
    public void OnMessageEnd(FastTemplate template)
    {
    }

    // Slot-level access for compiled template code.

    internal readonly FastMessage Message => _message;

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal readonly ref FastValue ScopeStart() => ref Unsafe.Add(ref MemoryMarshal.GetArrayDataReference(_values), _base);

    /// <summary>The value index where the first entry of the sequence in <paramref name="slot"/> starts (its entries are consecutive).</summary>
    internal readonly int FirstEntryBase(int slot) => _message.Scopes[_values[_base + slot].Aux].Base;

    /// <summary>Before a sequence's entries decoded by compiled code: saves the enclosing scope.</summary>
    internal void EnterEntries() => Push(_base);

    /// <summary>One entry of the sequence: its scope becomes current (for interpreted fields); its first value slot.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal ref FastValue EnterEntry(int entryBase)
    {
        _base = entryBase;
        return ref Unsafe.Add(ref MemoryMarshal.GetArrayDataReference(_values), entryBase);
    }

    /// <summary>After the entries: the enclosing scope is current again.</summary>
    internal void LeaveEntries() => Pop();

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal void SetInteger(int slot, FastValueKind kind, long value)
    {
        ref var v = ref _values[_base + slot];
        v.KindValue = kind;
        v.Int = value;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal void SetDecimal(int slot, long mantissa, int exponent)
    {
        ref var v = ref _values[_base + slot];
        v.KindValue = FastValueKind.Decimal;
        v.Int = mantissa;
        v.Aux = exponent;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal void SetAbsent(int slot) => _values[_base + slot].KindValue = FastValueKind.Absent;

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal bool SetBytes(int slot, ReadOnlySpan<byte> value)
    {
        if (!_message.TryAppendBytes(value, out int offset))
        {
            return false;
        }

        ref var v = ref _values[_base + slot];
        v.KindValue = FastValueKind.Bytes;
        v.Offset = offset;
        v.Aux = value.Length;
        return true;
    }

    /// <summary>An ASCII string as on the wire (stop bit on its last byte), copied and cleaned in one pass.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal bool SetAsciiFromWire(int slot, ReadOnlySpan<byte> wire)
    {
        if (!_message.TryAppendBytes(wire, out int offset))
        {
            return false;
        }

        _message.Arena[offset + wire.Length - 1] &= 0x7F;
        ref var v = ref _values[_base + slot];
        v.KindValue = FastValueKind.Bytes;
        v.Offset = offset;
        v.Aux = wire.Length;
        return true;
    }

    /// <summary>A template initial value, referenced in the constant pool (an empty one needs no bytes at all).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal void SetPooledBytes(int slot, int poolOffset, int length)
    {
        ref var v = ref _values[_base + slot];
        v.KindValue = FastValueKind.Bytes;
        v.Offset = length == 0 ? 0 : ~poolOffset;
        v.Aux = length;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private void Push(int newBase)
    {
        // The decoder bounds nesting below MaxDepth, so the stack cannot overflow.
        _stack[_depth & (MaxDepth - 1)] = _base;
        _depth++;
        _base = newBase;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private void Pop()
    {
        _depth--;
        _base = _stack[_depth & (MaxDepth - 1)];
    }
}
