namespace RapidFix.Engine.Codec;

/// <summary>What <see cref="FixFramer"/> found at the front of a buffer.</summary>
public enum FrameStatus : byte
{
    /// <summary>A whole message with a correct BodyLength and CheckSum: <see cref="FrameResult.Start"/>, <see cref="FrameResult.Length"/>.</summary>
    Complete,

    /// <summary>No whole message yet. Discard <see cref="FrameResult.Consumed"/> bytes (garbage) and call again with more.</summary>
    NeedMoreData,

    /// <summary>A message whose CheckSum does not match: FIX says ignore it. Discard <see cref="FrameResult.Consumed"/> bytes.</summary>
    BadChecksum,

    /// <summary>Something that starts like a message but cannot be one (see <see cref="FrameResult.Error"/>): ignore it.</summary>
    Garbled,
}

/// <summary>Why a frame was garbled.</summary>
public enum FrameError : byte
{
    /// <summary>Not a failure (the frame is complete or needs more data).</summary>
    None,

    /// <summary>BeginString (8) is not followed by BodyLength (9).</summary>
    MissingBodyLength,

    /// <summary>BodyLength is not a non-negative integer.</summary>
    InvalidBodyLength,

    /// <summary>BodyLength is larger than the configured maximum message size.</summary>
    MessageTooLarge,

    /// <summary>The byte at BodyLength's end is not the start of the CheckSum field: BodyLength is wrong.</summary>
    BodyLengthMismatch,

    /// <summary>The CheckSum field is not 1 to 3 digits followed by SOH.</summary>
    InvalidCheckSumField,

    /// <summary>The BeginString value is empty or longer than any FIX version.</summary>
    InvalidBeginString,
}

/// <summary>The outcome of one framing step. Positions are relative to the buffer given to the framer.</summary>
/// <param name="Status">What was found.</param>
/// <param name="Start">First byte of the message (the '8' of "8=").</param>
/// <param name="Length">Bytes of the message, through the SOH after the CheckSum.</param>
/// <param name="Consumed">Bytes the caller must drop from the front of its buffer before the next call.</param>
/// <param name="SkippedBytes">Bytes of garbage dropped before the message start (part of <paramref name="Consumed"/>).</param>
/// <param name="Error">The reason for <see cref="FrameStatus.Garbled"/>.</param>
/// <param name="RequiredLength">For <see cref="FrameStatus.NeedMoreData"/> once BodyLength is known: the buffer length that completes the message.</param>
public readonly record struct FrameResult(
    FrameStatus Status,
    int Start,
    int Length,
    int Consumed,
    int SkippedBytes,
    FrameError Error = FrameError.None,
    int RequiredLength = 0)
{
    /// <summary>Offset of the first byte after the message.</summary>
    public int End => Start + Length;
}
