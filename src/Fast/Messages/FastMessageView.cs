using RapidFix.Engine.Fields;

namespace RapidFix.Fast.Messages;

/// <summary>
/// A struct view of a <see cref="FastMessage"/> for generic hot paths: <c>Process&lt;FastMessageView&gt;(view)</c> gets
/// code specialised for the struct, so every accessor call is direct (with the class itself, generic code is
/// shared across reference types and calls go through interface dispatch).
/// </summary>
public readonly struct FastMessageView : IFieldAccessor
{
    private readonly FastMessage _message;

    /// <summary>A view of <paramref name="message"/>; it reads the message's current content.</summary>
    public FastMessageView(FastMessage message)
    {
        ArgumentNullException.ThrowIfNull(message);
        _message = message;
    }

    /// <summary>The message viewed.</summary>
    public FastMessage Message => _message;

    /// <summary>MsgType (35) of the message, from its template or its fields; empty when unknown.</summary>
    public ReadOnlySpan<byte> MsgType => _message.MsgType;

    /// <inheritdoc/>
    public bool Contains(FieldScope scope, int tag) => _message.Contains(scope, tag);

    /// <inheritdoc/>
    public bool TryGetText(FieldScope scope, int tag, out ReadOnlySpan<byte> value) => _message.TryGetText(scope, tag, out value);

    /// <inheritdoc/>
    public bool TryGetInt(FieldScope scope, int tag, out int value) => _message.TryGetInt(scope, tag, out value);

    /// <inheritdoc/>
    public bool TryGetLong(FieldScope scope, int tag, out long value) => _message.TryGetLong(scope, tag, out value);

    /// <inheritdoc/>
    public bool TryGetDecimal(FieldScope scope, int tag, out FixDecimal value) => _message.TryGetDecimal(scope, tag, out value);

    /// <inheritdoc cref="FastMessage.TryGetLong(FieldScope, int, out long, out FastErrorCode)"/>
    public bool TryGetLong(FieldScope scope, int tag, out long value, out FastErrorCode error) => _message.TryGetLong(scope, tag, out value, out error);

    /// <inheritdoc cref="FastMessage.TryGetInt(FieldScope, int, out int, out FastErrorCode)"/>
    public bool TryGetInt(FieldScope scope, int tag, out int value, out FastErrorCode error) => _message.TryGetInt(scope, tag, out value, out error);

    /// <inheritdoc cref="FastMessage.TryGetDecimal(FieldScope, int, out FixDecimal, out FastErrorCode)"/>
    public bool TryGetDecimal(FieldScope scope, int tag, out FixDecimal value, out FastErrorCode error) => _message.TryGetDecimal(scope, tag, out value, out error);

    /// <inheritdoc cref="FastMessage.TryGetAscii(FieldScope, int, out ReadOnlySpan{byte}, out FastErrorCode)"/>
    public bool TryGetAscii(FieldScope scope, int tag, out ReadOnlySpan<byte> value, out FastErrorCode error) => _message.TryGetAscii(scope, tag, out value, out error);

    /// <inheritdoc/>
    public int GetGroupCount(FieldScope scope, int countTag) => _message.GetGroupCount(scope, countTag);

    /// <inheritdoc/>
    public bool TryGetGroupEntry(FieldScope scope, int countTag, int index, out FieldScope entry) =>
        _message.TryGetGroupEntry(scope, countTag, index, out entry);
}
