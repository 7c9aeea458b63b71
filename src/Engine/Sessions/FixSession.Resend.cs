using RapidFix.Engine.Codec;
using RapidFix.Engine.Diagnostics;
using RapidFix.Engine.Fields;

namespace RapidFix.Engine.Sessions;

/// <summary>Serving ResendRequests from the store: application messages again with PossDupFlag, the rest as gap fills.</summary>
public sealed partial class FixSession
{
    /// <summary>Resends [begin, end] (end below our next MsgSeqNum): stored application messages, gap fills for the rest.</summary>
    private void ResendMessages(int begin, int end, int requestSeq)
    {
        if (!_options.PersistMessages)
        {
            GenerateGapFill(begin, Math.Min(end + 1, _store.NextSenderMsgSeqNum), requestSeq);
        }
        else
        {
            ResendStored(begin, end, requestSeq);
        }
    }

    /// <summary>Serves a ResendRequest from the store: application messages again (PossDup), admin ones gap-filled.</summary>
    private void NextResendRequest(FixMessage request)
    {
        if (!Verify(request, false, false))
        {
            return;
        }

        _application.FromAdmin(this, request);
        _counters.ResendRequestsReceived++;
        int requestSeq = SeqNumOf(request);
        bool ignore = _options.IgnorePossDupResendRequests && request.Contains(Tags.PossDupFlag);
        if (!ignore)
        {
            request.TryGetInt(Tags.BeginSeqNo, out int begin);
            request.TryGetInt(Tags.EndSeqNo, out int end);
            _log.Write(LogLevel.Info, LogEvent.ResendRequestReceived, _logIndex, begin, end);
            int nextSender = _store.NextSenderMsgSeqNum;
            if (end == 0 || end == 999999 || end >= nextSender)
            {
                end = nextSender - 1;
            }

            ResendMessages(begin, end, requestSeq);
        }

        int expected = _store.NextTargetMsgSeqNum;
        if (requestSeq == expected)
        {
            IncrementTarget();
        }
    }

    private void ResendStored(int begin, int end, int requestSeq)
    {
        int current = begin;
        int gapBegin = 0;
        int resent = 0;
        foreach (var stored in _store.GetRange(begin, end))
        {
            int seq = stored.SeqNum;
            if (current != seq && gapBegin == 0)
            {
                gapBegin = current;
            }

            if (_replay.ParseCopy(stored.Bytes, _options.Dictionary) != FixParseError.None)
            {
                // Unreadable in the store: leave it to the gap fill.
                if (gapBegin == 0)
                {
                    gapBegin = seq;
                }

                current = seq + 1;
                continue;
            }

            var msgType = _replay.MsgType;
            if ((IsAdminType(msgType) && !(_options.ResendSessionLevelRejects && Is(msgType, (byte)'3'))) || resent >= _options.ResendBatchLimit)
            {
                if (gapBegin == 0)
                {
                    gapBegin = seq;
                }
            }
            else
            {
                if (!_application.OnResending(this, _replay))
                {
                    continue;
                }

                if (gapBegin != 0)
                {
                    GenerateGapFill(gapBegin, seq, requestSeq);
                }

                Resend(_replay, seq);
                resent++;
                gapBegin = 0;
            }

            current = seq + 1;
        }

        int nextSender = _store.NextSenderMsgSeqNum;
        int newSeqNo = Math.Min(end + 1, nextSender);
        if (gapBegin == 0)
        {
            gapBegin = current;
        }

        if (newSeqNo > gapBegin)
        {
            GenerateGapFill(gapBegin, newSeqNo, requestSeq);
        }
    }

    /// <summary>Sends a stored message again: PossDupFlag=Y, OrigSendingTime = its SendingTime, a new SendingTime, the same body.</summary>
    private void Resend(FixMessage stored, int seq)
    {
        long orig = stored.TryGetTimestamp(Tags.SendingTime, out var sendingTime) ? sendingTime.UnixNanoseconds : _clock.UtcNowNanos;
        int extras = CopyExtraHeaderFields(stored);
        Begin(stored.MsgType, seq, new HeaderOptions { PossDup = true, OrigSendingTimeNanos = orig }, _extras.AsSpan(0, extras));
        if (stored.TryGetBodyRange(out int bodyStart, out int bodyLength))
        {
            _encoder.AddRaw(new ReadOnlySpan<byte>(stored.Buffer, stored.Offset + bodyStart, bodyLength));
        }

        if (Complete(stored.MsgType, seq, application: true) == SendResult.Sent)
        {
            _counters.MessagesResent++;
        }
    }

    /// <summary>Header fields of a stored message that the session does not regenerate (routing, PossResend...).</summary>
    private int CopyExtraHeaderFields(FixMessage stored)
    {
        int at = 0;
        for (int i = 3; i < stored.FieldCount; i++)
        {
            ref readonly var f = ref stored.FieldAt(i);
            if (f.Scope != 0 || f.Section != FixMessage.SectionHeader)
            {
                continue;
            }

            switch (f.Tag)
            {
                case Tags.MsgSeqNum or Tags.SenderCompID or Tags.SenderSubID or Tags.SendingTime or Tags.TargetCompID
                    or Tags.TargetSubID or Tags.SenderLocationID or Tags.TargetLocationID or Tags.PossDupFlag
                    or Tags.OrigSendingTime or Tags.LastMsgSeqNumProcessed:
                    continue;
            }

            var value = stored.GetValueAt(i);
            if (at + value.Length + 16 >= _extras.Length)
            {
                break;
            }

            at += FixValue.FormatLong(f.Tag, _extras.AsSpan(at));
            _extras[at++] = (byte)'=';
            value.CopyTo(_extras.AsSpan(at));
            at += value.Length;
            _extras[at++] = 1;
        }

        return at;
    }
}
