namespace RapidFix.Engine.Validation;

/// <summary>
/// What <see cref="MessageValidator"/> checks, with the QuickFIX settings that control each (same defaults).
/// </summary>
public sealed record ValidationOptions
{
    /// <summary>QuickFIX's defaults.</summary>
    public static ValidationOptions Default { get; } = new();

    /// <summary>ValidateFieldsOutOfOrder: header fields after the body, body fields after the trailer.</summary>
    public bool CheckFieldsOutOfOrder { get; init; } = true;

    /// <summary>
    /// ValidateUnorderedGroupFields (QuickFIX/J): a group entry's fields must follow the dictionary's order, else
    /// SessionRejectReason 15 with the group's NumInGroup tag.
    /// </summary>
    public bool CheckUnorderedGroupFields { get; init; } = true;

    /// <summary>ValidateFieldsHaveValues: a field with an empty value is rejected.</summary>
    public bool CheckFieldsHaveValues { get; init; } = true;

    /// <summary>ValidateUserDefinedFields: tags at or above <see cref="UserDefinedTagMin"/> are checked like the others.</summary>
    public bool CheckUserDefinedFields { get; init; } = true;

    /// <summary>AllowUnknownMsgFields: fields the dictionary does not define, or not for this message type, are accepted.</summary>
    public bool AllowUnknownMessageFields { get; init; }

    /// <summary>Accept values outside a field's enumeration.</summary>
    public bool AllowUnknownEnumValues { get; init; }

    /// <summary>The first user-defined tag number (FIX reserves 5000 and above for bilateral use).</summary>
    public int UserDefinedTagMin { get; init; } = 5000;
}
