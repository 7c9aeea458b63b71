using RapidFix.Engine.Codec;
using RapidFix.Engine.Diagnostics;
using RapidFix.Engine.Fields;
using RapidFix.Engine.Validation;

namespace RapidFix.Engine.Sessions;

/// <summary>
/// Framed messages that could not be parsed. A format error (a tag that is not a number, a missing '=', a data
/// field whose length is wrong) is garbled and ignored, as FIX and QuickFIX say; a message that breaks one of our
/// limits (MaxFieldsPerMessage, MaxGroupEntries, a tag beyond int range) is well framed and readable, so it is
/// rejected like an invalid message, its MsgSeqNum consumed, and a faithful resend is not ignored again.
/// </summary>
public sealed partial class FixSession
{
    /// <summary>
    /// The transport framed a message that <paramref name="message"/> failed to parse (its
    /// <see cref="FixMessage.Error"/> says why). A view that broke a limit is still readable
    /// (<see cref="FixMessage.IsPartial"/>): it gets a Reject with the reason (a Logon before logon disconnects).
    /// </summary>
    internal void OnParseError(FixMessage message)
    {
        ArgumentNullException.ThrowIfNull(message);
        var error = message.Error;
        if (!message.IsPartial)
        {
            lock (_sync)
            {
                if (_transport is not null && !IsLoggedOn && Is(message.MsgType, (byte)'A'))
                {
                    DisconnectCore(DisconnectReason.InvalidLogon);
                    return;
                }
            }

            OnGarbled(FrameStatus.Garbled, 100 + (int)error);
            return;
        }

        lock (_sync)
        {
            if (_transport is null)
            {
                return;
            }

            _counters.MessagesReceived++;
            _messageNanos = _clock.UtcNowNanos; // what the queued messages processed below are timed by
            var limits = message.Options;
            switch (error)
            {
                case FixParseError.TooManyFields:
                    _log.Write(LogLevel.Warning, LogEvent.MessageLimitExceeded, _logIndex, (long)error, limits.MaxFields);
                    GenerateReject(message, SessionRejectReason.Other, 0, false, RejectDetail.TooManyFields, limits.MaxFields);
                    break;
                case FixParseError.TooManyGroupEntries:
                    _log.Write(LogLevel.Warning, LogEvent.MessageLimitExceeded, _logIndex, (long)error, limits.MaxGroupEntries);
                    GenerateReject(message, SessionRejectReason.Other, message.ErrorTag, true, RejectDetail.TooManyGroupEntries, limits.MaxGroupEntries);
                    break;
                default:
                    _log.Write(LogLevel.Warning, LogEvent.MessageLimitExceeded, _logIndex, (long)error, int.MaxValue);
                    GenerateReject(message, SessionRejectReason.InvalidTagNumber, 0, false, RejectDetail.TagOutOfRange, 0);
                    break;
            }

            // The Reject consumed an in-sequence MsgSeqNum: messages queued behind it may now be processed.
            _lastProcessedWasQueued = false;
            ProcessQueued();
            CheckTimers(_messageNanos);
        }
    }

    /// <summary>Writes the Text (58) of a Reject that carries its own wording into <c>_text</c>; returns its length.</summary>
    private int RejectDetailText(RejectDetail detail, int refTagId, int detailTag)
    {
        var text = _text;
        int n;
        switch (detail)
        {
            case RejectDetail.GroupDelimiterMissing:
                n = Text(text, 0, "Group "u8);
                n += FixValue.FormatLong(refTagId, text.AsSpan(n));
                n = Text(text, n, "'s first entry does not start with delimiter "u8);
                n += FixValue.FormatLong(detailTag, text.AsSpan(n));
                return n;
            case RejectDetail.TooManyFields:
                n = Text(text, 0, "Message has more than "u8);
                n += FixValue.FormatLong(detailTag, text.AsSpan(n));
                return Text(text, n, " fields (MaxFieldsPerMessage)"u8);
            case RejectDetail.TooManyGroupEntries:
                n = Text(text, 0, "Group "u8);
                n += FixValue.FormatLong(refTagId, text.AsSpan(n));
                n = Text(text, n, " takes the message past "u8);
                n += FixValue.FormatLong(detailTag, text.AsSpan(n));
                return Text(text, n, " repeating-group entries (MaxGroupEntries)"u8);
            case RejectDetail.TagOutOfRange:
                return Text(text, 0, "Invalid tag number (beyond 2147483647)"u8);
            default:
                return Text(text, 0, SessionRejectReasonText.Of(SessionRejectReason.Other));
        }
    }
}
