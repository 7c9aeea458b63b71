namespace RapidFix.Engine.Validation;

/// <summary>SessionRejectReason (373) values, the reasons a session-level Reject (35=3) gives.</summary>
public enum SessionRejectReason
{
    /// <summary>Invalid tag number (0).</summary>
    InvalidTagNumber = 0,
    /// <summary>Required tag missing (1).</summary>
    RequiredTagMissing = 1,
    /// <summary>Tag not defined for this message type (2).</summary>
    TagNotDefinedForThisMessageType = 2,
    /// <summary>Undefined tag (3).</summary>
    UndefinedTag = 3,
    /// <summary>Tag specified without a value (4).</summary>
    TagSpecifiedWithoutAValue = 4,
    /// <summary>Value is incorrect (out of range) for this tag (5).</summary>
    ValueIsIncorrect = 5,
    /// <summary>Incorrect data format for value (6).</summary>
    IncorrectDataFormatForValue = 6,
    /// <summary>Decryption problem (7).</summary>
    DecryptionProblem = 7,
    /// <summary>Signature problem (8).</summary>
    SignatureProblem = 8,
    /// <summary>CompID problem (9).</summary>
    CompIdProblem = 9,
    /// <summary>SendingTime accuracy problem (10).</summary>
    SendingTimeAccuracyProblem = 10,
    /// <summary>Invalid MsgType (11).</summary>
    InvalidMsgType = 11,
    /// <summary>XML validation error (12).</summary>
    XmlValidationError = 12,
    /// <summary>Tag appears more than once (13).</summary>
    TagAppearsMoreThanOnce = 13,
    /// <summary>Tag specified out of required order (14).</summary>
    TagSpecifiedOutOfRequiredOrder = 14,
    /// <summary>Repeating group fields out of order (15).</summary>
    RepeatingGroupFieldsOutOfOrder = 15,
    /// <summary>Incorrect NumInGroup count for repeating group (16).</summary>
    IncorrectNumInGroupCountForRepeatingGroup = 16,
    /// <summary>Non-data value includes field delimiter (SOH) (17).</summary>
    NonDataValueIncludesFieldDelimiter = 17,
    /// <summary>Invalid or unsupported application version (18).</summary>
    InvalidOrUnsupportedApplicationVersion = 18,
    /// <summary>Other (99): the Reject's Text says what.</summary>
    Other = 99,
}

/// <summary>The Text (58) that accompanies each reason, as UTF-8 bytes ready to encode (the wording QuickFIX uses).</summary>
public static class SessionRejectReasonText
{
    /// <summary>The reason's Text as QuickFIX words it, as UTF-8 bytes (no allocation).</summary>
    public static ReadOnlySpan<byte> Of(SessionRejectReason reason) => reason switch
    {
        SessionRejectReason.InvalidTagNumber => "Invalid tag number"u8,
        SessionRejectReason.RequiredTagMissing => "Required tag missing"u8,
        SessionRejectReason.TagNotDefinedForThisMessageType => "Tag not defined for this message type"u8,
        SessionRejectReason.UndefinedTag => "Undefined Tag"u8,
        SessionRejectReason.TagSpecifiedWithoutAValue => "Tag specified without a value"u8,
        SessionRejectReason.ValueIsIncorrect => "Value is incorrect (out of range) for this tag"u8,
        SessionRejectReason.IncorrectDataFormatForValue => "Incorrect data format for value"u8,
        SessionRejectReason.DecryptionProblem => "Decryption problem"u8,
        SessionRejectReason.SignatureProblem => "Signature problem"u8,
        SessionRejectReason.CompIdProblem => "CompID problem"u8,
        SessionRejectReason.SendingTimeAccuracyProblem => "SendingTime accuracy problem"u8,
        SessionRejectReason.InvalidMsgType => "Invalid MsgType"u8,
        SessionRejectReason.XmlValidationError => "XML validation error"u8,
        SessionRejectReason.TagAppearsMoreThanOnce => "Tag appears more than once"u8,
        SessionRejectReason.TagSpecifiedOutOfRequiredOrder => "Tag specified out of required order"u8,
        SessionRejectReason.RepeatingGroupFieldsOutOfOrder => "Repeating group fields out of order"u8,
        SessionRejectReason.IncorrectNumInGroupCountForRepeatingGroup => "Incorrect NumInGroup count for repeating group"u8,
        SessionRejectReason.NonDataValueIncludesFieldDelimiter => "Non-data value includes field delimiter"u8,
        SessionRejectReason.InvalidOrUnsupportedApplicationVersion => "Invalid or unsupported application version"u8,
        _ => "Other"u8,
    };

    /// <summary>The text as a string (for logs and tests; allocates).</summary>
    public static string ToText(SessionRejectReason reason) => System.Text.Encoding.ASCII.GetString(Of(reason));
}
