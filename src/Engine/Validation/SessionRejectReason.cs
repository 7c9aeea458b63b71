namespace RapidFix.Engine.Validation;

/// <summary>SessionRejectReason (373) values, the reasons a session-level Reject (35=3) gives.</summary>
public enum SessionRejectReason
{
    InvalidTagNumber = 0,
    RequiredTagMissing = 1,
    TagNotDefinedForThisMessageType = 2,
    UndefinedTag = 3,
    TagSpecifiedWithoutAValue = 4,
    ValueIsIncorrect = 5,
    IncorrectDataFormatForValue = 6,
    DecryptionProblem = 7,
    SignatureProblem = 8,
    CompIdProblem = 9,
    SendingTimeAccuracyProblem = 10,
    InvalidMsgType = 11,
    XmlValidationError = 12,
    TagAppearsMoreThanOnce = 13,
    TagSpecifiedOutOfRequiredOrder = 14,
    RepeatingGroupFieldsOutOfOrder = 15,
    IncorrectNumInGroupCountForRepeatingGroup = 16,
    NonDataValueIncludesFieldDelimiter = 17,
    InvalidOrUnsupportedApplicationVersion = 18,
    Other = 99,
}

/// <summary>The Text (58) that accompanies each reason, as UTF-8 bytes ready to encode (the wording QuickFIX uses).</summary>
public static class SessionRejectReasonText
{
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
