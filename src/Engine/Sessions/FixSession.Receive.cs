using RapidFix.Engine.Codec;
using RapidFix.Engine.Diagnostics;
using RapidFix.Engine.Fields;
using RapidFix.Engine.Validation;

namespace RapidFix.Engine.Sessions;

/// <summary>The receive side: one message in, the protocol's answer out.</summary>
public sealed partial class FixSession
{
    /// <summary>
    /// Processes one message from the counterparty, parsed with <see cref="FixSessionOptions.Dictionary"/>
    /// (<see cref="FixMessage.Parse(byte[], int, int, Dictionary.DataDictionary?)"/>), then any messages the
    /// gap it closed releases. The view may be reused by the caller once this returns.
    /// </summary>
    /// <param name="message">The parsed message.</param>
    /// <param name="readBatch">
    /// The caller is a connection that calls <see cref="OnReadEnd"/> after the last message of each read: business
    /// rejects of this message are then stored and written with the read's batch (one store flush for the read)
    /// instead of one flush wait each.
    /// </param>
    internal void OnMessage(FixMessage message, bool readBatch = false)
    {
        lock (_sync)
        {
            if (_transport is null)
            {
                return;
            }

            _inReadBatch = readBatch;
            _counters.MessagesReceived++;
            _messageLog?.Incoming(message.Bytes);
            long now = _clock.UtcNowNanos;
            _messageNanos = now;
            Process(message);
            _lastProcessedWasQueued = false;
            ProcessQueued();
            CheckTimers(now);
            _inReadBatch = false;
        }
    }

    /// <summary>A frame that could not be used (bad CheckSum, garbled): FIX says ignore it; it is logged and counted.</summary>
    internal void OnGarbled(FrameStatus status, int code)
    {
        _log.Write(LogLevel.Warning, status == FrameStatus.BadChecksum ? LogEvent.BadChecksum : LogEvent.GarbledMessage, _logIndex, code);
    }

    /// <summary>
    /// A message larger than MaxMessageSize arrived: it cannot be read, and it would come back with every resend, so
    /// the session logs out with the reason and disconnects (the limit is enforced, not silently skipped).
    /// </summary>
    internal void OnMessageTooLarge()
    {
        lock (_sync)
        {
            if (_transport is null)
            {
                return;
            }

            _log.Write(LogLevel.Error, LogEvent.MessageTooLarge, _logIndex, _options.MaxMessageSize);
            if (_receivedLogon && !_sentLogout)
            {
                int n = Text(_text, 0, "Message larger than MaxMessageSize ("u8);
                n += FixValue.FormatLong(_options.MaxMessageSize, _text.AsSpan(n));
                n = Text(_text, n, " bytes)"u8);
                GenerateLogout(_text.AsSpan(0, n));
            }

            DisconnectCore(DisconnectReason.MessageTooLarge);
        }
    }

    private void Process(FixMessage message)
    {
        long nowNanos = _messageNanos;
        if (!IsInSession(nowNanos))
        {
            ResetOutOfSession();
            return;
        }

        var msgType = message.MsgType;
        bool isLogon = Is(msgType, (byte)'A');
        bool isLogout = Is(msgType, (byte)'5');

        if (!message.BeginString.SequenceEqual(_options.BeginStringBytes))
        {
            if (isLogout)
            {
                NextLogout(message);
            }
            else
            {
                _log.Write(LogLevel.Error, LogEvent.IncorrectBeginString, _logIndex);
                int n = Text(_text, 0, "Incorrect BeginString ("u8);
                n = Text(_text, n, message.BeginString);
                n = Text(_text, n, ")"u8);
                GenerateLogout(_text.AsSpan(0, n));
                IncrementTarget();
            }

            return;
        }

        if (!message.TryGetInt(Tags.MsgSeqNum, out int msgSeqNum) || msgSeqNum > MaxSeqNum)
        {
            // Without a usable MsgSeqNum the message can be neither sequenced nor rejected: the session ends (as
            // QuickFIX/J's QFJ-650; a Reject would have to answer a message that has no place in the sequence).
            _log.Write(LogLevel.Error, LogEvent.MsgSeqNumInvalid, _logIndex);
            if (!_receivedLogon)
            {
                RefuseLogon(null, "first message has no valid MsgSeqNum(34)", DisconnectReason.InvalidLogon, "nothing is answered before a valid Logon");
                return;
            }

            if (!_sentLogout)
            {
                GenerateLogout("MsgSeqNum(34) missing or not a valid sequence number"u8);
            }

            DisconnectCore(DisconnectReason.InvalidMsgSeqNum);
            return;
        }

        var validator = _adminValidator is not null && ReferenceEquals(message.Dictionary, _adminValidator.Dictionary) ? _adminValidator : _validator;
        if (validator is not null)
        {
            var verdict = validator.Validate(message);
            if (!verdict.IsValid)
            {
                if (isLogon || !_receivedLogon)
                {
                    RefuseLogon(null, $"invalid {(isLogon ? "Logon" : "first message")}: {verdict}",
                        DisconnectReason.InvalidLogon, "an invalid Logon is closed without an answer, as QuickFIX does");
                    return;
                }

                if (verdict.Outcome == ValidationOutcome.UnsupportedMessageType)
                {
                    GenerateBusinessReject(message, 3, 0);
                }
                else
                {
                    GenerateReject(message, verdict.Reason, verdict.HasRefTag ? verdict.RefTagId : 0, verdict.HasRefTag, verdict.Detail, verdict.DetailTag);
                }

                return;
            }
        }

        if (_receivedLogon && !isLogon && !CheckSequenceFields(message, msgType, msgSeqNum))
        {
            return;
        }

        if (isLogon)
        {
            NextLogon(message, nowNanos);
        }
        else if (isLogout)
        {
            NextLogout(message);
        }
        else if (!IsLoggedOn)
        {
            _log.Write(LogLevel.Warning, LogEvent.NotLogonFirst, _logIndex, SeqNumOf(message));
            RefuseLogon(null, $"first message was not a Logon (MsgType {System.Text.Encoding.ASCII.GetString(msgType)})", DisconnectReason.NotLogonFirst,
                "nothing is answered before a valid Logon");
        }
        else if (Is(msgType, (byte)'0'))
        {
            if (Verify(message, true, true))
            {
                _application.FromAdmin(this, message);
                IncrementTarget();
            }
        }
        else if (Is(msgType, (byte)'1'))
        {
            if (Verify(message, true, true))
            {
                _application.FromAdmin(this, message);
                GenerateHeartbeat(message);
                IncrementTarget();
            }
        }
        else if (Is(msgType, (byte)'4'))
        {
            NextSequenceReset(message);
        }
        else if (Is(msgType, (byte)'2'))
        {
            NextResendRequest(message);
        }
        else
        {
            if (!Verify(message, true, true))
            {
                return;
            }

            if (IsAdminType(msgType))
            {
                _application.FromAdmin(this, message);
                IncrementTarget();
                return;
            }

            _counters.ApplicationMessagesReceived++;
            var disposition = _application.FromApp(this, message);
            switch (disposition.Kind)
            {
                case MessageDispositionKind.Accept:
                    IncrementTarget();
                    break;
                case MessageDispositionKind.BusinessReject:
                    GenerateBusinessReject(message, disposition.Reason, disposition.RefTagId);
                    break;
                default:
                    GenerateReject(message, (SessionRejectReason)disposition.Reason, disposition.RefTagId, disposition.RefTagId != 0, RejectDetail.None, 0);
                    break;
            }
        }
    }

    private void NextLogon(FixMessage logon, long nowNanos)
    {
        bool reset = logon.TryGetBool(Tags.ResetSeqNumFlag, out bool resetFlag) && resetFlag;
        if (_receivedLogon && !reset)
        {
            // A second Logon on a logged-on connection is not a valid state (QuickFIX/J): never a second OnLogon.
            RefuseLogon("Logon received while already logged on", "Logon state is not valid for a second Logon without ResetSeqNumFlag=Y", DisconnectReason.InvalidLogon);
            return;
        }

        // Everything that can refuse the Logon comes before anything that changes the session (resets, sequence
        // numbers, the application's OnLogon): a refused Logon leaves the session as it was.
        if (_options.CheckCompId &&
            (!logon.GetValue(Tags.SenderCompID).SequenceEqual(_options.TargetCompId) ||
             !logon.GetValue(Tags.TargetCompID).SequenceEqual(_options.SenderCompId)))
        {
            _log.Write(LogLevel.Error, LogEvent.CompIdProblem, _logIndex);
            RefuseLogon("CompID problem", "CompID problem", DisconnectReason.InvalidLogon);
            return;
        }

        if (!IsGoodTime(logon))
        {
            // QuickFIX closes without a Logout here (acceptance script 1d_InvalidLogonBadSendingTime).
            RefuseLogon("SendingTime accuracy problem", "SendingTime accuracy problem", DisconnectReason.InvalidLogon,
                _options.AcceptanceScriptCompatibility ? "AcceptanceScriptCompatibility=Y" : null);
            return;
        }

        if (!_options.IsInitiator && !CheckCounterparty(logon))
        {
            return;
        }

        int seqNum = SeqNumOf(logon);
        logon.TryGetInt(Tags.HeartBtInt, out int heartBtInt);
        _log.Write(LogLevel.Info, LogEvent.LogonReceived, _logIndex, seqNum, heartBtInt);

        // NextExpectedMsgSeqNum(789): the counterparty cannot expect a number we have not reached (after the reset
        // this Logon will cause, if any).
        bool resetsNow = (reset && !_sentReset) || (!_options.IsInitiator && _options.ResetOnLogon);
        int nextSender = resetsNow ? 1 : _store.NextSenderMsgSeqNum;
        int theirNext = 0;
        bool theyExpect = _options.UsesNextExpectedMsgSeqNum && logon.Contains(Tags.NextExpectedMsgSeqNum);
        if (theyExpect && (!logon.TryGetInt(Tags.NextExpectedMsgSeqNum, out theirNext) || theirNext > nextSender || theirNext < 1))
        {
            RefuseNextExpected(theirNext, nextSender);
            return;
        }

        var decision = _application.OnLogonRequest(this, logon);
        if (!decision.Accepted)
        {
            _log.Write(LogLevel.Warning, LogEvent.LogonRefused, _logIndex);
            RefuseLogon(decision.Reason, "refused by the application: " + decision.Reason, DisconnectReason.LogonRefused);
            return;
        }

        _receivedReset = reset;
        if (resetsNow)
        {
            ResetState();
        }

        if (!Verify(logon, false, true))
        {
            return;
        }

        _receivedLogon = true;
        _counters.Logons++;
        if (!_options.IsInitiator)
        {
            _heartBtInt = heartBtInt;
            GenerateLogonResponse(logon, reset && !_options.AcceptanceScriptCompatibility);
        }

        _sentReset = false;
        bool receivedReset = _receivedReset;
        _receivedReset = false;
        _application.FromAdmin(this, logon);

        if (seqNum > _store.NextTargetMsgSeqNum && !receivedReset)
        {
            if (theyExpect)
            {
                ExpectResendFromLogon(logon, seqNum);
            }
            else
            {
                DoTargetTooHigh(logon, seqNum);
            }
        }
        else
        {
            IncrementTarget();
        }

        if (IsLoggedOn)
        {
            _status = SessionStatus.LoggedOn;
            _lastReceivedNanos = nowNanos;
            if (theyExpect && theirNext < _logonSeqNumSent)
            {
                // They missed [theirNext, our Logon): send it now rather than wait for their ResendRequest.
                _log.Write(LogLevel.Info, LogEvent.ResendForNextExpected, _logIndex, theirNext, _logonSeqNumSent - 1);
                ResendMessages(theirNext, _logonSeqNumSent - 1, seqNum);
            }

            _application.OnLogon(this);
        }
    }

    /// <summary>
    /// An acceptor's checks of who is logging on, before the application's: the HeartBtInt it asks for (within
    /// MinHeartBtInt..MaxHeartBtInt), the address it comes from (AllowedRemoteAddresses), Username and Password.
    /// False when the Logon was refused (logged with the peer's address, answered with a Logout, disconnected).
    /// </summary>
    private bool CheckCounterparty(FixMessage logon)
    {
        var o = _options;
        if (!logon.TryGetInt(Tags.HeartBtInt, out int heartBtInt))
        {
            RefuseLogon("HeartBtInt(108) missing or not a number", "HeartBtInt(108) missing or not a number", DisconnectReason.InvalidLogon);
            return false;
        }

        string? heartBtIntProblem = heartBtInt < 0 ? $"HeartBtInt {heartBtInt} is negative"
            : heartBtInt < o.MinHeartBtInt ? $"HeartBtInt {heartBtInt} is below MinHeartBtInt {o.MinHeartBtInt}"
            : heartBtInt > o.MaxHeartBtInt ? $"HeartBtInt {heartBtInt} is above MaxHeartBtInt {o.MaxHeartBtInt}"
            : null;
        if (heartBtIntProblem is not null)
        {
            RefuseLogon(heartBtIntProblem, heartBtIntProblem, DisconnectReason.InvalidLogon);
            return false;
        }

        if (o.AllowedRemoteAddresses is { } allowed && !allowed.Allows(RemoteEndPoint))
        {
            RefuseLogon("Logon refused: source address not allowed", $"address not in AllowedRemoteAddresses ({allowed.Text})", DisconnectReason.LogonRefused);
            return false;
        }

        // Both compared in full whatever the first one gives, and in constant time: the answer says nothing of which
        // was wrong, and the time taken nothing of how much of it was right.
        bool usernameOk = o.UsernameBytes.Length == 0 ||
                          System.Security.Cryptography.CryptographicOperations.FixedTimeEquals(logon.GetValue(Tags.Username), o.UsernameBytes);
        bool passwordOk = o.PasswordBytes.Length == 0 ||
                          System.Security.Cryptography.CryptographicOperations.FixedTimeEquals(logon.GetValue(Tags.Password), o.PasswordBytes);
        if (!usernameOk || !passwordOk)
        {
            string which = !usernameOk && !passwordOk ? "Username and Password" : !usernameOk ? "Username" : "Password";
            string detail = logon.Contains(Tags.Username) || logon.Contains(Tags.Password)
                ? $"{which} do not match the session's" : $"{which} missing";
            RefuseLogon("Logon refused: invalid Username or Password", detail, DisconnectReason.LogonRefused);
            return false;
        }

        return true;
    }

    /// <summary>
    /// Refuses a Logon: the log gets the peer's address and <paramref name="detail"/> (never a password), the
    /// counterparty a Logout with <paramref name="logoutText"/> (none when <paramref name="noLogoutBecause"/> says
    /// why, and the log says so), and the connection closes. Allocates: connection tear-down. The session's
    /// sequence numbers and store are left as they were, but for the Logout's own MsgSeqNum (as QuickFIX: the
    /// counterparty counts it).
    /// </summary>
    private void RefuseLogon(string? logoutText, string detail, DisconnectReason reason, string? noLogoutBecause = null)
    {
        _counters.LogonsRefused++;
        _log.WriteRefusal(LogLevel.Warning, noLogoutBecause is null ? LogEvent.LogonRejected : LogEvent.LogonRejectedNoLogout, _logIndex, RemoteEndPoint,
            detail, noLogoutBecause);
        if (noLogoutBecause is null && !_sentLogout)
        {
            GenerateLogout(logoutText);
        }

        DisconnectCore(reason);
    }

    /// <summary>A Logon whose NextExpectedMsgSeqNum is beyond what we have sent (or not a number): an unrecoverable mismatch.</summary>
    private void RefuseNextExpected(int theirNext, int next)
    {
        _log.Write(LogLevel.Error, LogEvent.NextExpectedMsgSeqNumTooHigh, _logIndex, next, theirNext);
        string text = theirNext < 1
            ? "NextExpectedMsgSeqNum(789) is not a valid sequence number"
            : $"NextExpectedMsgSeqNum(789) {theirNext} is higher than the next MsgSeqNum we send, {next}";
        RefuseLogon(text, text, DisconnectReason.InvalidLogon);
    }

    /// <summary>Logs out with the text "{first}{a}{second}{b}" (built without allocation) and disconnects.</summary>
    private void LogoutAndDisconnect(ReadOnlySpan<byte> first, long a, ReadOnlySpan<byte> second, long b, DisconnectReason reason)
    {
        int n = Text(_text, 0, first);
        n += FixValue.FormatLong(a, _text.AsSpan(n));
        n = Text(_text, n, second);
        n += FixValue.FormatLong(b, _text.AsSpan(n));
        GenerateLogout(_text.AsSpan(0, n));
        DisconnectCore(reason);
    }

    /// <summary>
    /// The counterparty's Logon is ahead of what we expect, and it knows what we expect (our 789, or the one in our
    /// answer): it resends the gap unasked, so we hold the Logon and wait for that resend instead of requesting it.
    /// </summary>
    private void ExpectResendFromLogon(FixMessage logon, int seqNum)
    {
        int expected = _store.NextTargetMsgSeqNum;
        _log.Write(LogLevel.Info, LogEvent.ResendExpectedFromLogon, _logIndex, expected, seqNum - 1);
        if (_queue.TryEnqueue(seqNum, logon))
        {
            _counters.QueuedAheadOfGap++;
        }

        _resend = new ResendRange { Active = true, Begin = expected, End = seqNum - 1, ChunkEnd = 0, AwaitingPeerSince = _clock.UtcNowNanos };
    }

    private void NextLogout(FixMessage logout)
    {
        if (!Verify(logout, false, false))
        {
            return;
        }

        _log.Write(LogLevel.Info, LogEvent.LogoutReceived, _logIndex, SeqNumOf(logout));
        _application.FromAdmin(this, logout);
        if (!_sentLogout)
        {
            GenerateLogout(default, SeqNumOf(logout));
        }

        IncrementTarget();
        if (_options.ResetOnLogout)
        {
            ResetState();
        }

        DisconnectCore(DisconnectReason.LogoutExchanged);
    }

    private void NextSequenceReset(FixMessage sequenceReset)
    {
        bool isGapFill = sequenceReset.TryGetBool(Tags.GapFillFlag, out bool gapFill) && gapFill;
        sequenceReset.TryGetInt(Tags.NewSeqNo, out int newSeqNo);
        int expected = _store.NextTargetMsgSeqNum;
        _log.Write(LogLevel.Info, LogEvent.SequenceResetReceived, _logIndex, expected, newSeqNo);
        if (newSeqNo < expected)
        {
            // RefTagID 36 as QuickFIX/J gives it; the older QuickFIX of the acceptance scripts leaves it out.
            bool withTag = !_options.AcceptanceScriptCompatibility;
            GenerateReject(sequenceReset, SessionRejectReason.ValueIsIncorrect, withTag ? Tags.NewSeqNo : 0, withTag, RejectDetail.None, 0);
            return;
        }

        if (!Verify(sequenceReset, isGapFill, isGapFill))
        {
            return;
        }

        _application.FromAdmin(this, sequenceReset);
        if (newSeqNo > _store.NextTargetMsgSeqNum)
        {
            SetNextTarget(newSeqNo);
        }
    }

    /// <summary>
    /// Sequence, CompID and SendingTime checks every message gets (QuickFIX's Verify). False means the message has
    /// been dealt with (queued, rejected, logged out) and must not be processed further.
    /// </summary>
    private bool Verify(FixMessage message, bool checkTooHigh, bool checkTooLow)
    {
        if (_options.CheckCompId &&
            (!message.GetValue(Tags.SenderCompID).SequenceEqual(_options.TargetCompId) ||
             !message.GetValue(Tags.TargetCompID).SequenceEqual(_options.SenderCompId)))
        {
            _log.Write(LogLevel.Error, LogEvent.CompIdProblem, _logIndex);
            GenerateReject(message, SessionRejectReason.CompIdProblem, 0, false, RejectDetail.None, 0);
            GenerateLogout(default);
            return false;
        }

        if (checkTooHigh || checkTooLow)
        {
            int seqNum = SeqNumOf(message);
            int expected = _store.NextTargetMsgSeqNum;
            if (checkTooHigh && seqNum > expected)
            {
                DoTargetTooHigh(message, seqNum);
                return false;
            }

            if (checkTooLow && seqNum < expected)
            {
                bool obeyGapFill = _lastProcessedWasQueued && Is(message.MsgType, (byte)'4') &&
                                   message.TryGetBool(Tags.GapFillFlag, out bool gf) && gf;
                if (!obeyGapFill)
                {
                    DoTargetTooLow(message, seqNum);
                    return false;
                }
            }

            if (_resend.Active)
            {
                // Satisfied once the gap that caused it is filled, also when it asked "through infinity" (as
                // QuickFIX): later gaps then get their own ResendRequest.
                if (seqNum >= _resend.End)
                {
                    _log.Write(LogLevel.Info, LogEvent.ResendSatisfied, _logIndex, _resend.End);
                    _resend = default;
                }
                else if (_resend.ChunkEnd > 0 && seqNum >= _resend.ChunkEnd)
                {
                    int newStart = _resend.ChunkEnd + 1;
                    int newChunkEnd = Math.Min(_resend.End, _resend.ChunkEnd + _options.MaxMessagesInResendRequest);
                    GenerateResendRequest(newStart, newChunkEnd, seqNum);
                    _resend.Begin = newStart;
                    _resend.ChunkEnd = newChunkEnd;
                }
                else if (seqNum >= _resend.Begin)
                {
                    _resend.Started = true;
                }
            }
        }

        if (!IsGoodTime(message))
        {
            _log.Write(LogLevel.Error, LogEvent.SendingTimeAccuracy, _logIndex);
            GenerateReject(message, SessionRejectReason.SendingTimeAccuracyProblem, 0, false, RejectDetail.None, 0);
            GenerateLogout(default);
            return false;
        }

        _lastReceivedNanos = _messageNanos;
        _testRequestCounter = 0;
        return true;
    }

    private void DoTargetTooHigh(FixMessage message, int seqNum)
    {
        int expected = _store.NextTargetMsgSeqNum;
        _log.Write(LogLevel.Warning, LogEvent.MsgSeqNumTooHigh, _logIndex, expected, seqNum);
        bool queued = _queue.TryEnqueue(seqNum, message);
        if (queued)
        {
            _counters.QueuedAheadOfGap++;
        }

        if (!_resend.Active || _options.SendRedundantResendRequests || seqNum < _resend.Begin)
        {
            RequestResend(expected, seqNum);
        }

        // Otherwise a ResendRequest covering the gap is already out (or the counterparty's own resend is awaited).
        if (!queued)
        {
            // A request "through infinity" whose resend has not begun covers everything the counterparty has sent
            // so far, this message too; anything else is asked for again once the gap is filled (ProcessQueued).
            bool covered = _resend.Active && _resend.ThroughInfinity && !_resend.Started;
            if (!covered)
            {
                _droppedThrough = Math.Max(_droppedThrough, seqNum);
            }

            _counters.InboundQueueOverflows++;
            _log.Write(LogLevel.Warning, LogEvent.InboundQueueFull, _logIndex, seqNum, covered ? 1 : 0);
        }
    }

    /// <summary>
    /// Asks for everything from <paramref name="expected"/> below <paramref name="seqNum"/>: "through infinity"
    /// (0, or 999999 before FIX 4.2), or in chunks of MaxMessagesInResendRequest.
    /// </summary>
    private void RequestResend(int expected, int seqNum)
    {
        int endRange = seqNum - 1;
        int endChunk;
        if (_options.MaxMessagesInResendRequest > 0)
        {
            endChunk = Math.Min(endRange, expected + _options.MaxMessagesInResendRequest - 1);
        }
        else
        {
            endRange = _options.Version >= 42 ? 0 : 999999;
            endChunk = endRange;
        }

        GenerateResendRequest(expected, endChunk, seqNum);
        bool throughInfinity = _options.MaxMessagesInResendRequest <= 0;
        _resend = new ResendRange
        {
            Active = true,
            Begin = expected,
            End = seqNum - 1,
            ChunkEnd = throughInfinity ? 0 : endChunk,
            ThroughInfinity = throughInfinity,
        };
    }

    private void DoTargetTooLow(FixMessage message, int seqNum)
    {
        bool possDup = message.TryGetBool(Tags.PossDupFlag, out bool pd) && pd;
        if (!possDup)
        {
            int expected = _store.NextTargetMsgSeqNum;
            _log.Write(LogLevel.Error, LogEvent.MsgSeqNumTooLow, _logIndex, expected, seqNum);
            LogoutAndDisconnect("MsgSeqNum too low, expecting "u8, expected, " but received "u8, seqNum, DisconnectReason.MsgSeqNumTooLow);
            return;
        }

        // A possible duplicate of something already received: checked, then ignored.
        if (Is(message.MsgType, (byte)'4') && !_options.RequiresOrigSendingTime)
        {
            return;
        }

        if (!message.TryGetTimestamp(Tags.OrigSendingTime, out var orig))
        {
            GenerateReject(message, SessionRejectReason.RequiredTagMissing, Tags.OrigSendingTime, true, RejectDetail.None, 0);
            return;
        }

        if (message.TryGetTimestamp(Tags.SendingTime, out var sent) && orig.UnixNanoseconds > sent.UnixNanoseconds)
        {
            GenerateReject(message, SessionRejectReason.SendingTimeAccuracyProblem, 0, false, RejectDetail.None, 0);
            GenerateLogout(default);
        }
    }

    private bool IsGoodTime(FixMessage message)
    {
        if (!_options.CheckLatency)
        {
            return true;
        }

        if (!message.TryGetTimestamp(Tags.SendingTime, out var sendingTime))
        {
            return false;
        }

        long skew = _messageNanos - sendingTime.UnixNanoseconds;
        return Math.Abs(skew) <= _options.MaxLatency.Ticks * 100;
    }

    /// <summary>Processes messages kept ahead of a gap that is now closed, in order.</summary>
    private void ProcessQueued()
    {
        while (_transport is not null)
        {
            int next = _store.NextTargetMsgSeqNum;
            var queued = _queue.TryDequeue(next);
            if (queued is null)
            {
                if (_droppedThrough >= next && !_resend.Active && _receivedLogon)
                {
                    // Messages were dropped from the full queue that no request covered: ask for them now.
                    _log.Write(LogLevel.Info, LogEvent.ResendForDropped, _logIndex, next, _droppedThrough);
                    int through = _droppedThrough;
                    _droppedThrough = 0;
                    RequestResend(next, through + 1);
                }

                return;
            }

            var msgType = queued.MsgType;
            if (Is(msgType, (byte)'A') || Is(msgType, (byte)'2'))
            {
                IncrementTarget(); // already acted on when it arrived
            }
            else
            {
                Process(queued);
            }

            _lastProcessedWasQueued = true;
        }
    }

    /// <summary>
    /// Sequence fields other than MsgSeqNum (BeginSeqNo, EndSeqNo, NewSeqNo, RefSeqNum, LastMsgSeqNumProcessed,
    /// NextExpectedMsgSeqNum) must hold a number from their minimum to <see cref="MaxSeqNum"/>; otherwise a Reject
    /// with SessionRejectReason 5 and the tag. Checked when the message is acted on now: ResendRequest and
    /// SequenceReset always (they act whatever their own MsgSeqNum), others when in sequence (one held ahead of a
    /// gap is checked when its turn comes). False when rejected.
    /// </summary>
    private bool CheckSequenceFields(FixMessage message, ReadOnlySpan<byte> msgType, int msgSeqNum)
    {
        if (!Is(msgType, (byte)'2') && !Is(msgType, (byte)'4') && msgSeqNum != _store.NextTargetMsgSeqNum)
        {
            return true;
        }

        int tag = !InRange(message, Tags.BeginSeqNo, 1) ? Tags.BeginSeqNo
            : !InRange(message, Tags.EndSeqNo, 0) ? Tags.EndSeqNo
            : !InRange(message, Tags.NewSeqNo, 1) ? Tags.NewSeqNo
            : !InRange(message, Tags.RefSeqNum, 0) ? Tags.RefSeqNum
            : !InRange(message, Tags.LastMsgSeqNumProcessed, 0) ? Tags.LastMsgSeqNumProcessed
            : !InRange(message, Tags.NextExpectedMsgSeqNum, 1) ? Tags.NextExpectedMsgSeqNum
            : 0;
        if (tag == 0)
        {
            return true;
        }

        GenerateReject(message, SessionRejectReason.ValueIsIncorrect, tag, true, RejectDetail.None, 0);
        return false;
    }

    private static bool InRange(FixMessage message, int tag, int min) =>
        !message.Contains(tag) || (message.TryGetInt(tag, out int value) && value >= min && value <= MaxSeqNum);

    private void ResetOutOfSession()
    {
        if (IsLoggedOn)
        {
            GenerateLogout(_options.IsInitiator ? default : "Message received outside of session time"u8);
        }

        DisconnectCore(DisconnectReason.OutOfSessionTime);
        ResetState();
    }

    private void IncrementTarget() => SetNextTarget(_store.NextTargetMsgSeqNum + 1);

    private void SetNextTarget(int value)
    {
        var status = _store.SetNextTargetMsgSeqNum(value);
        if (status != RapidFix.Engine.Store.StoreWriteStatus.Ok)
        {
            _counters.StoreFailures++;
            _log.Write(LogLevel.Error, LogEvent.StoreWriteFailed, _logIndex, (long)status);
        }
    }

    private static int SeqNumOf(FixMessage message) => message.TryGetInt(Tags.MsgSeqNum, out int seq) ? seq : 0;

    private static int Text(byte[] destination, int at, ReadOnlySpan<byte> text)
    {
        int n = Math.Min(text.Length, destination.Length - at);
        text.Slice(0, n).CopyTo(destination.AsSpan(at));
        return at + n;
    }
}
