using RapidFix.Engine.Codec;
using RapidFix.Engine.Diagnostics;
using RapidFix.Engine.Fields;
using RapidFix.Engine.Validation;

namespace RapidFix.Engine.Sessions;

/// <summary>Building session messages: Logon, Logout, Heartbeat, TestRequest, ResendRequest, gap fills, and the wording of rejects.</summary>
public sealed partial class FixSession
{
    // Scratch for header fields a generated message carries beyond the standard ones (reverse routing, resent extras).
    private readonly byte[] _extras = new byte[2048];

    private void GenerateLogon()
    {
        if (_options.ResetOnLogon)
        {
            ResetState();
        }

        bool sendReset = _options.Version >= 41 && (_options.ResetOnLogon || _options.ResetOnLogout || _options.ResetOnDisconnect) &&
                         _store.NextSenderMsgSeqNum == 1 && _store.NextTargetMsgSeqNum == 1;
        if (sendReset && !_receivedReset)
        {
            _sentReset = true;
        }

        Begin("A"u8, _store.NextSenderMsgSeqNum, new HeaderOptions(), default);
        _encoder.AddChar(Tags.EncryptMethod, (byte)'0');
        _encoder.Add(Tags.HeartBtInt, _options.HeartBtInt);
        if (sendReset)
        {
            _encoder.AddChar(Tags.ResetSeqNumFlag, (byte)'Y');
        }

        if (_options.Id.IsFixt)
        {
            _encoder.AddAscii(Tags.DefaultApplVerID, _options.DefaultApplVerId);
        }

        if (_options.UsesNextExpectedMsgSeqNum)
        {
            _encoder.Add(Tags.NextExpectedMsgSeqNum, _store.NextTargetMsgSeqNum);
        }

        if (_options.UsernameBytes.Length > 0)
        {
            _encoder.Add(Tags.Username, _options.UsernameBytes);
        }

        if (_options.PasswordBytes.Length > 0)
        {
            _encoder.Add(Tags.Password, _options.PasswordBytes);
        }

        _lastReceivedNanos = _clock.UtcNowNanos;
        _testRequestCounter = 0;
        int seq = _store.NextSenderMsgSeqNum;
        if (Complete("A"u8, 0, application: false) == SendResult.Sent)
        {
            _sentLogon = true;
            _logonSeqNumSent = seq;
            _status = SessionStatus.LogonSent;
            _log.Write(LogLevel.Info, LogEvent.LogonSent, _logIndex, seq);
        }
    }

    /// <param name="logon">The counterparty's Logon.</param>
    /// <param name="withReset">Answer a ResetSeqNumFlag=Y with ResetSeqNumFlag=Y (the FIX session specification, QuickFIX/J).</param>
    private void GenerateLogonResponse(FixMessage logon, bool withReset)
    {
        int logonSeq = SeqNumOf(logon);
        var header = new HeaderOptions { LastMsgSeqNumProcessed = logonSeq };
        int seq = _store.NextSenderMsgSeqNum;
        Begin("A"u8, seq, header, default);
        _encoder.AddChar(Tags.EncryptMethod, (byte)'0');
        _encoder.Add(Tags.HeartBtInt, _heartBtInt);
        if (withReset)
        {
            _encoder.AddChar(Tags.ResetSeqNumFlag, (byte)'Y');
        }

        if (_options.Id.IsFixt)
        {
            _encoder.AddAscii(Tags.DefaultApplVerID, _options.DefaultApplVerId);
        }

        if (_options.UsesNextExpectedMsgSeqNum)
        {
            // What we expect next once this Logon is processed: past it when it is in sequence.
            int expected = _store.NextTargetMsgSeqNum;
            _encoder.Add(Tags.NextExpectedMsgSeqNum, logonSeq == expected ? expected + 1 : expected);
        }

        if (Complete("A"u8, 0, application: false) == SendResult.Sent)
        {
            _sentLogon = true;
            _logonSeqNumSent = seq;
            _log.Write(LogLevel.Info, LogEvent.LogonSent, _logIndex, seq);
        }
    }

    private void GenerateLogout(string? text) =>
        GenerateLogout(text is null ? default : System.Text.Encoding.ASCII.GetBytes(text));

    private void GenerateLogout(ReadOnlySpan<byte> text, int respondingTo = 0)
    {
        if (_transport is null)
        {
            _log.Write(LogLevel.Warning, LogEvent.LogoutNotSent, _logIndex);
            return;
        }

        var header = new HeaderOptions { LastMsgSeqNumProcessed = respondingTo };
        int seq = _store.NextSenderMsgSeqNum;
        Begin("5"u8, seq, header, default);
        if (!text.IsEmpty)
        {
            _encoder.Add(Tags.Text, text);
        }

        if (Complete("5"u8, 0, application: false) == SendResult.Sent)
        {
            _sentLogout = true;
            _logoutSentNanos = _clock.UtcNowNanos;
            if (_status == SessionStatus.LoggedOn)
            {
                _status = SessionStatus.LogoutSent;
            }

            _log.Write(LogLevel.Info, LogEvent.LogoutSent, _logIndex, seq);
        }
    }

    private void GenerateHeartbeat(FixMessage? testRequest)
    {
        var header = new HeaderOptions();
        if (testRequest is not null)
        {
            header.LastMsgSeqNumProcessed = SeqNumOf(testRequest);
        }

        Begin("0"u8, _store.NextSenderMsgSeqNum, header, default);
        if (testRequest is not null && testRequest.TryGetValue(Tags.TestReqID, out var id))
        {
            _encoder.Add(Tags.TestReqID, id);
        }

        Complete("0"u8, 0, application: false);
    }

    private void GenerateTestRequest()
    {
        Begin("1"u8, _store.NextSenderMsgSeqNum, new HeaderOptions(), default);
        _encoder.Add(Tags.TestReqID, "TEST"u8);
        if (Complete("1"u8, 0, application: false) == SendResult.Sent)
        {
            _log.Write(LogLevel.Info, LogEvent.TestRequestSent, _logIndex);
        }
    }

    private void GenerateResendRequest(int begin, int end, int triggeringSeqNum)
    {
        Begin("2"u8, _store.NextSenderMsgSeqNum, new HeaderOptions { LastMsgSeqNumProcessed = triggeringSeqNum }, default);
        _encoder.Add(Tags.BeginSeqNo, begin);
        _encoder.Add(Tags.EndSeqNo, end);
        if (Complete("2"u8, 0, application: false) == SendResult.Sent)
        {
            _counters.ResendRequestsSent++;
            _log.Write(LogLevel.Info, LogEvent.ResendRequestSent, _logIndex, begin, end);
        }
    }

    /// <summary>SequenceReset-GapFill sent with MsgSeqNum <paramref name="begin"/> in place of messages not resent.</summary>
    private void GenerateGapFill(int begin, int newSeqNo, int respondingTo)
    {
        long now = _clock.UtcNowNanos;
        var header = new HeaderOptions { PossDup = true, OrigSendingTimeNanos = now, SendingTimeNanos = now, LastMsgSeqNumProcessed = respondingTo };
        Begin("4"u8, begin, header, default);
        _encoder.Add(Tags.NewSeqNo, newSeqNo);
        _encoder.AddChar(Tags.GapFillFlag, (byte)'Y');
        if (Complete("4"u8, begin, application: false) == SendResult.Sent)
        {
            _counters.GapFillsSent++;
            _log.Write(LogLevel.Info, LogEvent.GapFillSent, _logIndex, begin, newSeqNo);
        }
    }

    /// <summary>A session-level Reject of <paramref name="message"/>, with QuickFIX's fields and wording per FIX version.</summary>
    private void GenerateReject(FixMessage message, SessionRejectReason reason, int refTagId, bool hasRefTag, RejectDetail detail, int detailTag)
    {
        if (!_receivedLogon)
        {
            DisconnectCore(DisconnectReason.InvalidLogon);
            return;
        }

        int version = _options.Version;
        var msgType = message.MsgType;
        bool hasSeq = message.TryGetInt(Tags.MsgSeqNum, out int refSeqNum);
        int extrasLength = ReverseRoute(message);
        Begin("3"u8, _store.NextSenderMsgSeqNum, new HeaderOptions(), _extras.AsSpan(0, extrasLength));
        if (hasSeq)
        {
            _encoder.Add(Tags.RefSeqNum, refSeqNum);
        }

        // Text (58) and RefTagID (371) by version; RefMsgType (372) and SessionRejectReason (373) from FIX 4.2.
        ReadOnlySpan<byte> text = SessionRejectReasonText.Of(reason);
        int n = 0;
        if (detail != RejectDetail.None)
        {
            n = RejectDetailText(detail, refTagId, detailTag);
            text = _text.AsSpan(0, n);
        }

        bool withField = (hasRefTag && refTagId != 0) || (reason == SessionRejectReason.InvalidTagNumber && detail != RejectDetail.TagOutOfRange);
        if (withField && reason == SessionRejectReason.InvalidMsgType && version >= 43)
        {
            withField = false;
        }

        if (withField && version < 42)
        {
            // FIX 4.0/4.1 have no RefTagID: the tag goes into the text.
            n = Text(_text, n == 0 ? 0 : n, n == 0 ? text : default);
            if (reason != SessionRejectReason.InvalidMsgType)
            {
                n = Text(_text, n, " ("u8);
                n += FixValue.FormatLong(refTagId, _text.AsSpan(n));
                n = Text(_text, n, ")"u8);
            }

            _encoder.Add(Tags.Text, _text.AsSpan(0, n));
        }
        else
        {
            _encoder.Add(Tags.Text, text);
            if (withField)
            {
                _encoder.Add(Tags.RefTagID, refTagId);
            }
        }

        if (version >= 42)
        {
            if (!msgType.IsEmpty)
            {
                _encoder.Add(Tags.RefMsgType, msgType);
            }

            if (version > 42 || (int)reason <= (int)SessionRejectReason.InvalidMsgType)
            {
                _encoder.Add(Tags.SessionRejectReason, (int)reason);
            }
        }

        if (!Is(msgType, (byte)'A') && !Is(msgType, (byte)'4') && hasSeq && refSeqNum == _store.NextTargetMsgSeqNum)
        {
            IncrementTarget();
        }

        if (Complete("3"u8, 0, application: false) == SendResult.Sent)
        {
            _counters.RejectsSent++;
            _log.Write(LogLevel.Warning, LogEvent.RejectSent, _logIndex, (long)reason, refTagId);
        }
    }

    /// <summary>
    /// BusinessMessageReject (35=j) from FIX 4.2, stored like an application message (resent, not gap-filled) and,
    /// in a read batch, deferred to the read's end; a session Reject with the reason as text before FIX 4.2.
    /// </summary>
    private void GenerateBusinessReject(FixMessage message, int businessRejectReason, int refTagId)
    {
        int refSeqNum = SeqNumOf(message);
        var reasonText = BusinessRejectText(businessRejectReason);
        IncrementTarget();
        if (_options.Version >= 42)
        {
            Begin("j"u8, _store.NextSenderMsgSeqNum, new HeaderOptions(), default);
            _encoder.Add(Tags.RefSeqNum, refSeqNum);
            _encoder.Add(Tags.Text, reasonText);
            if (refTagId != 0)
            {
                _encoder.Add(Tags.RefTagID, refTagId);
            }

            _encoder.Add(Tags.RefMsgType, message.MsgType);
            _encoder.Add(Tags.BusinessRejectReason, businessRejectReason);
            // In a read batch it goes out deferred: stored now, written after one store flush for the whole read
            // (OnReadEnd), not one flush wait per reject under the session lock: a flood of rejected messages (an
            // application refusing for back-pressure) then costs what the read costs.
            bool defer = _inReadBatch && CanDefer;
            if (Complete("j"u8, 0, application: false, defer: defer) == SendResult.Sent && defer)
            {
                _flushAfterRead = true;
                // The read's first reject is logged now, the others in one line at the read's end (OnReadEnd): a flood
                // of refusals (back-pressure) would otherwise cost a log line each, more than the refusal itself.
                if (_readRejects++ > 0)
                {
                    _readRejectLast = refSeqNum;
                    return;
                }
            }
        }
        else
        {
            // "Unsupported Message Type" → "Unsupported message type", as QuickFIX words it for FIX 4.0/4.1.
            int n = Text(_text, 0, reasonText);
            for (int i = 1; i < n; i++)
            {
                if (_text[i] is >= (byte)'A' and <= (byte)'Z')
                {
                    _text[i] = (byte)(_text[i] + 32);
                }
            }

            Begin("3"u8, _store.NextSenderMsgSeqNum, new HeaderOptions(), default);
            _encoder.Add(Tags.RefSeqNum, refSeqNum);
            _encoder.Add(Tags.Text, _text.AsSpan(0, n));
            Complete("3"u8, 0, application: false);
        }

        _log.Write(LogLevel.Warning, LogEvent.BusinessRejectSent, _logIndex, businessRejectReason, refSeqNum);
    }

    private static ReadOnlySpan<byte> BusinessRejectText(int reason) => reason switch
    {
        1 => "Unknown ID"u8,
        2 => "Unknown Security"u8,
        3 => "Unsupported Message Type"u8,
        4 => "Application not available"u8,
        5 => "Conditionally Required Field Missing"u8,
        6 => "Not authorized"u8,
        7 => "DeliverTo firm not available at this time"u8,
        _ => "Other"u8,
    };

    /// <summary>
    /// Writes the routing fields a reply to <paramref name="message"/> carries (OnBehalfOf ↔ DeliverTo swapped) into
    /// the extras scratch; returns their length.
    /// </summary>
    private int ReverseRoute(FixMessage message)
    {
        int n = 0;
        n = SwapRoute(message, Tags.OnBehalfOfCompID, Tags.DeliverToCompID, n);
        n = SwapRoute(message, Tags.OnBehalfOfSubID, Tags.DeliverToSubID, n);
        n = SwapRoute(message, Tags.DeliverToCompID, Tags.OnBehalfOfCompID, n);
        n = SwapRoute(message, Tags.DeliverToSubID, Tags.OnBehalfOfSubID, n);
        if (_options.Version >= 41)
        {
            n = SwapRoute(message, Tags.OnBehalfOfLocationID, Tags.DeliverToLocationID, n);
            n = SwapRoute(message, Tags.DeliverToLocationID, Tags.OnBehalfOfLocationID, n);
        }

        return n;
    }

    private int SwapRoute(FixMessage message, int from, int to, int at)
    {
        if (message.TryGetValue(from, out var value) && !value.IsEmpty && at + value.Length + 16 < _extras.Length)
        {
            at += FixValue.FormatLong(to, _extras.AsSpan(at));
            _extras[at++] = (byte)'=';
            value.CopyTo(_extras.AsSpan(at));
            at += value.Length;
            _extras[at++] = 1;
        }

        return at;
    }
}
