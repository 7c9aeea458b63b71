namespace RapidFix.Engine.Validation;

/// <summary>The verdict on one message.</summary>
public enum ValidationOutcome : byte
{
    /// <summary>Everything the options ask for holds.</summary>
    Valid,

    /// <summary>Answer with a session-level Reject (35=3) giving <see cref="ValidationResult.Reason"/>.</summary>
    Reject,

    /// <summary>A MsgType FIX defines but this dictionary does not carry: answer with a BusinessMessageReject (reason 3).</summary>
    UnsupportedMessageType,

    /// <summary>The message could not be parsed at all: ignore it (FIX treats it as garbled).</summary>
    Garbled,
}

/// <summary>A problem whose Reject carries its own text (reason Other, 99) instead of the reason's standard wording.</summary>
public enum RejectDetail : byte
{
    /// <summary>No detail: the reason's standard wording.</summary>
    None,

    /// <summary>"Group {RefTagId}'s first entry does not start with delimiter {DetailTag}" (QuickFIX's wording).</summary>
    GroupDelimiterMissing,

    /// <summary>"Message has more than {DetailTag} fields (MaxFieldsPerMessage)": a limit of ours, no RefTagID.</summary>
    TooManyFields,

    /// <summary>"Group {RefTagId} takes the message past {DetailTag} repeating-group entries (MaxGroupEntries)".</summary>
    TooManyGroupEntries,

    /// <summary>"Invalid tag number (beyond 2147483647)": reason InvalidTagNumber without a RefTagID, which cannot hold it.</summary>
    TagOutOfRange,
}

/// <summary>The outcome of validation: on failure, the SessionRejectReason and the tag it is about.</summary>
public readonly record struct ValidationResult(ValidationOutcome Outcome, SessionRejectReason Reason, int RefTagId, bool HasRefTag, RejectDetail Detail = RejectDetail.None, int DetailTag = 0)
{
    /// <summary>The message is valid.</summary>
    public static ValidationResult Valid => default;

    /// <summary>True when the message is valid.</summary>
    public bool IsValid => Outcome == ValidationOutcome.Valid;

    /// <summary>A Reject with <paramref name="reason"/> and RefTagID <paramref name="tag"/>.</summary>
    public static ValidationResult RejectFor(SessionRejectReason reason, int tag) => new(ValidationOutcome.Reject, reason, tag, true);

    /// <summary>A Reject with <paramref name="reason"/> and no RefTagID.</summary>
    public static ValidationResult RejectWithoutTag(SessionRejectReason reason) => new(ValidationOutcome.Reject, reason, 0, false);

    /// <summary>The verdict in words, for logs and tests.</summary>
    public override string ToString() => Outcome switch
    {
        ValidationOutcome.Valid => "valid",
        ValidationOutcome.Reject when HasRefTag => $"reject {(int)Reason} ({SessionRejectReasonText.ToText(Reason)}) tag {RefTagId}",
        ValidationOutcome.Reject => $"reject {(int)Reason} ({SessionRejectReasonText.ToText(Reason)})",
        _ => Outcome.ToString(),
    };
}
