using System.Runtime.CompilerServices;
using RapidFix.Engine.Codec;
using RapidFix.Engine.Diagnostics;
using RapidFix.Engine.Fields;
using RapidFix.Engine.Store;
using RapidFix.Engine.Validation;
using RapidFix.Pools.Diagnostics;

namespace RapidFix.Engine.Sessions;

/// <summary>Whether <see cref="FixSession.Send"/> put the message on the wire.</summary>
public enum SendResult : byte
{
    /// <summary>Stored and handed to the connection.</summary>
    Sent,

    /// <summary>Not logged on and SendWhileNotLoggedOn=Refuse (or the store refused it): nothing was sent, no sequence number was used.</summary>
    NotLoggedOn,

    /// <summary>The message does not fit MaxMessageSize.</summary>
    TooLarge,

    /// <summary>The connection refused it (closed, or its outbound buffer is full); the session disconnects.</summary>
    TransportFailed,

    /// <summary>Not logged on (SendWhileNotLoggedOn=Store): stored with its MsgSeqNum, sent on the resend after logon.</summary>
    Stored,

    /// <summary>The application's <see cref="IToAppHook"/> said DoNotSend: nothing stored or sent, no MsgSeqNum used.</summary>
    Vetoed,
}

/// <summary>The send side: the standard header in ascending tag order, the body, persistence, the wire.</summary>
public sealed partial class FixSession
{
    private readonly byte[] _extras = new byte[2048];

    /// <summary>
    /// Sends an application message: the session writes the standard header (MsgSeqNum, CompIDs, SendingTime and
    /// the rest, in ascending tag order), then <paramref name="body"/> as given ("tag=value&lt;SOH&gt;" fields, see
    /// <see cref="FixBodyWriter"/>), then the trailer, stores it for resends and hands it to the transport.
    /// </summary>
    /// <param name="msgType">MsgType (35), e.g. "D"u8.</param>
    /// <param name="body">The body fields.</param>
    /// <param name="extraHeader">Additional header fields (PossResend, OnBehalfOf/DeliverTo routing...), "tag=value&lt;SOH&gt;" each.</param>
    public SendResult Send(ReadOnlySpan<byte> msgType, ReadOnlySpan<byte> body, ReadOnlySpan<byte> extraHeader = default)
    {
        long started = EngineLatency.Start();
        lock (_sync)
        {
            bool live = IsLoggedOn && _transport is not null;
            if (!live && !StoresWhileNotLoggedOn)
            {
                return SendResult.NotLoggedOn;
            }

            int seq = _store.NextSenderMsgSeqNum;
            Begin(msgType, seq, new HeaderOptions(), extraHeader);
            _encoder.AddRaw(body);
            if (!PassesToApp(msgType, body))
            {
                return SendResult.Vetoed;
            }

            var result = live ? Complete(msgType, 0, application: true) : StoreWhileNotLoggedOn();
            if (result == SendResult.Sent)
            {
                _counters.ApplicationMessagesSent++;
            }

            EngineLatency.Stop(LatencyChannel.Send, started);
            return result;
        }
    }

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

    /// <summary>BusinessMessageReject (35=j) from FIX 4.2; a session Reject with the reason as text before.</summary>
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
            Complete("j"u8, 0, application: false);
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

    /// <summary>Starts a message in the output buffer: 8, 9 (reserved), 35, then the header fields in ascending tag order.</summary>
    private void Begin(ReadOnlySpan<byte> msgType, int seqNum, HeaderOptions header, ReadOnlySpan<byte> extras)
    {
        _encoder.Begin(_output, 0, _output.Length, _options.BeginStringBytes, msgType);
        Span<HeaderItem> items = stackalloc HeaderItem[32];
        int count = 0;
        var o = _options;
        items[count++] = new HeaderItem(Tags.MsgSeqNum, HeaderKind.SeqNum);
        if (header.PossDup)
        {
            items[count++] = new HeaderItem(Tags.PossDupFlag, HeaderKind.PossDup);
        }

        items[count++] = new HeaderItem(Tags.SenderCompID, HeaderKind.Sender);
        if (o.SenderSubId.Length > 0)
        {
            items[count++] = new HeaderItem(Tags.SenderSubID, HeaderKind.SenderSub);
        }

        items[count++] = new HeaderItem(Tags.SendingTime, HeaderKind.SendingTime);
        items[count++] = new HeaderItem(Tags.TargetCompID, HeaderKind.Target);
        if (o.TargetSubId.Length > 0)
        {
            items[count++] = new HeaderItem(Tags.TargetSubID, HeaderKind.TargetSub);
        }

        if (header.OrigSendingTimeNanos != 0)
        {
            items[count++] = new HeaderItem(Tags.OrigSendingTime, HeaderKind.OrigSendingTime);
        }

        if (o.SenderLocationId.Length > 0)
        {
            items[count++] = new HeaderItem(Tags.SenderLocationID, HeaderKind.SenderLocation);
        }

        if (o.TargetLocationId.Length > 0)
        {
            items[count++] = new HeaderItem(Tags.TargetLocationID, HeaderKind.TargetLocation);
        }

        if (o.EnableLastMsgSeqNumProcessed)
        {
            items[count++] = new HeaderItem(Tags.LastMsgSeqNumProcessed, HeaderKind.LastProcessed);
        }

        // Extra fields: "tag=value<SOH>" each; ones the session writes itself are ignored.
        int pos = 0;
        while (pos < extras.Length && count < items.Length)
        {
            int eq = extras.Slice(pos).IndexOf((byte)'=');
            int soh = extras.Slice(pos).IndexOf((byte)1);
            if (eq <= 0 || soh < eq)
            {
                break;
            }

            if (FixValue.TryParseNonNegativeInt(extras.Slice(pos, eq), out int tag) && !IsSessionHeaderTag(tag))
            {
                items[count++] = new HeaderItem(tag, HeaderKind.Extra, pos + eq + 1, soh - eq - 1);
            }

            pos += soh + 1;
        }

        // Insertion sort: a dozen items at most.
        for (int i = 1; i < count; i++)
        {
            var item = items[i];
            int j = i - 1;
            while (j >= 0 && items[j].Tag > item.Tag)
            {
                items[j + 1] = items[j];
                j--;
            }

            items[j + 1] = item;
        }

        long sendingTime = header.SendingTimeNanos != 0 ? header.SendingTimeNanos : _clock.UtcNowNanos;
        var precision = o.Version >= 42 ? o.TimeStampPrecision : FixTimePrecision.Seconds;
        for (int i = 0; i < count; i++)
        {
            ref var item = ref items[i];
            switch (item.Kind)
            {
                case HeaderKind.SeqNum: _encoder.Add(Tags.MsgSeqNum, seqNum); break;
                case HeaderKind.PossDup: _encoder.AddChar(Tags.PossDupFlag, (byte)'Y'); break;
                case HeaderKind.Sender: _encoder.Add(Tags.SenderCompID, o.SenderCompId); break;
                case HeaderKind.SenderSub: _encoder.Add(Tags.SenderSubID, o.SenderSubId); break;
                case HeaderKind.SendingTime: _encoder.AddTimestamp(Tags.SendingTime, sendingTime, precision); break;
                case HeaderKind.Target: _encoder.Add(Tags.TargetCompID, o.TargetCompId); break;
                case HeaderKind.TargetSub: _encoder.Add(Tags.TargetSubID, o.TargetSubId); break;
                case HeaderKind.OrigSendingTime: _encoder.AddTimestamp(Tags.OrigSendingTime, header.OrigSendingTimeNanos, precision); break;
                case HeaderKind.SenderLocation: _encoder.Add(Tags.SenderLocationID, o.SenderLocationId); break;
                case HeaderKind.TargetLocation: _encoder.Add(Tags.TargetLocationID, o.TargetLocationId); break;
                case HeaderKind.LastProcessed:
                    _encoder.Add(Tags.LastMsgSeqNumProcessed, header.LastMsgSeqNumProcessed > 0 ? header.LastMsgSeqNumProcessed : _store.NextTargetMsgSeqNum - 1);
                    break;
                default: _encoder.Add(item.Tag, extras.Slice(item.Offset, item.Length)); break;
            }
        }
    }

    /// <summary>Finishes the message in the encoder, stores it (unless it is a resend or gap fill) and sends it.</summary>
    private SendResult Complete(ReadOnlySpan<byte> msgType, int resendSeqNum, bool application, bool defer = false)
    {
        if (_transport is null)
        {
            // Closed (an answer generated after a disconnection): no sequence number is used for what is not sent.
            _counters.SendFailures++;
            return SendResult.TransportFailed;
        }

        if (!application)
        {
            _application.OnSendingAdmin(this, msgType, _encoder);
        }

        if (!_encoder.Finish(out var encoded))
        {
            _log.Write(LogLevel.Error, LogEvent.MessageTooLarge, _logIndex, _encoder.BodyLength);
            return SendResult.TooLarge;
        }

        if (resendSeqNum == 0)
        {
            int seq = _store.NextSenderMsgSeqNum;
            bool persist = _options.PersistMessages && (application || (_options.ResendSessionLevelRejects && Is(msgType, (byte)'3')));
            var status = persist ? _store.Append(seq, encoded.Span) : _store.SetNextSenderMsgSeqNum(seq + 1);
            if (status != StoreWriteStatus.Ok)
            {
                _counters.StoreFailures++;
                _log.Write(LogLevel.Error, LogEvent.StoreWriteFailed, _logIndex, (long)status);
                if (persist)
                {
                    _store.SetNextSenderMsgSeqNum(seq + 1); // the number is used; the resend will gap-fill it
                }
            }
            else if (defer)
            {
                return Defer(seq); // stored; on the wire at FlushDeferred, after one wait for the whole batch
            }
            else if (_options.SyncBeforeSend && !_store.WaitForDurable(_store.WrittenPosition, _options.SyncTimeout))
            {
                // The counterparty must never see what a crash could take back: no durability, no send. That holds
                // for session messages too: their sequence number alone, lost to a crash, would be used again.
                _counters.StoreFailures++;
                _log.Write(LogLevel.Error, LogEvent.StoreWriteFailed, _logIndex, (long)StoreWriteStatus.Faulted);
                DisconnectCore(DisconnectReason.SendFailed);
                return SendResult.TransportFailed;
            }
        }

        if (_deferredFirst != 0 && !WriteDeferred())
        {
            return SendResult.TransportFailed; // a batch waiting for FlushDeferred goes first: the wire keeps MsgSeqNum order
        }

        var transport = _transport;
        if (transport is null || !transport.Send(encoded.Span))
        {
            _counters.SendFailures++;
            if (transport is not null)
            {
                // A socket transport refuses a send its outbound buffer cannot take (a counterparty too slow) but
                // keeps room for one Logout: tell the counterparty why before closing (it fails at once if closed).
                if (!_sentLogout && !Is(msgType, (byte)'5'))
                {
                    GenerateLogout("Outbound buffer full: counterparty too slow"u8);
                }

                DisconnectCore(DisconnectReason.SendFailed);
            }

            return SendResult.TransportFailed;
        }

        _counters.MessagesSent++;
        _messageLog?.Outgoing(encoded.Span);
        _lastSentNanos = _clock.UtcNowNanos;
        return SendResult.Sent;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static bool IsSessionHeaderTag(int tag) => tag is Tags.BeginString or Tags.BodyLength or Tags.MsgType or Tags.MsgSeqNum
        or Tags.SenderCompID or Tags.SenderSubID or Tags.SendingTime or Tags.TargetCompID or Tags.TargetSubID
        or Tags.SenderLocationID or Tags.TargetLocationID or Tags.PossDupFlag or Tags.OrigSendingTime
        or Tags.LastMsgSeqNumProcessed or Tags.CheckSum;

    /// <summary>How the next message's header differs from the plain one.</summary>
    private struct HeaderOptions
    {
        public bool PossDup;
        public long OrigSendingTimeNanos;
        public long SendingTimeNanos;
        public int LastMsgSeqNumProcessed;
    }

    private enum HeaderKind : byte
    {
        SeqNum,
        PossDup,
        Sender,
        SenderSub,
        SendingTime,
        Target,
        TargetSub,
        OrigSendingTime,
        SenderLocation,
        TargetLocation,
        LastProcessed,
        Extra,
    }

    private readonly struct HeaderItem
    {
        public HeaderItem(int tag, HeaderKind kind, int offset = 0, int length = 0)
        {
            Tag = tag;
            Kind = kind;
            Offset = offset;
            Length = length;
        }

        public int Tag { get; }

        public HeaderKind Kind { get; }

        public int Offset { get; }

        public int Length { get; }
    }
}
