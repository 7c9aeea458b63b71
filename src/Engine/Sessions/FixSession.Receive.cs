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
    public void OnMessage(FixMessage message)
    {
        lock (_sync)
        {
            if (_transport is null)
            {
                return;
            }

            _counters.MessagesReceived++;
            Process(message);
            _lastProcessedWasQueued = false;
            ProcessQueued();
            CheckTimers();
        }
    }

    /// <summary>A frame that could not be used (bad CheckSum, garbled): FIX says ignore it; it is logged and counted.</summary>
    public void OnGarbled(FrameStatus status, int code)
    {
        _log.Write(LogLevel.Warning, status == FrameStatus.BadChecksum ? LogEvent.BadChecksum : LogEvent.GarbledMessage, _logIndex, code);
    }

    /// <summary>
    /// A message larger than MaxMessageSize arrived: it cannot be read, and it would come back with every resend, so
    /// the session logs out with the reason and disconnects (the limit is enforced, not silently skipped).
    /// </summary>
    public void OnMessageTooLarge()
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
        long nowNanos = _clock.UtcNowNanos;
        if (!_options.Schedule.IsInSession(_clock.UtcNow))
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

        var validator = _adminValidator is not null && ReferenceEquals(message.Dictionary, _adminValidator.Dictionary) ? _adminValidator : _validator;
        if (validator is not null)
        {
            var verdict = validator.Validate(message);
            if (!verdict.IsValid)
            {
                if (isLogon || !_receivedLogon)
                {
                    DisconnectCore(DisconnectReason.InvalidLogon);
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
            DisconnectCore(DisconnectReason.NotLogonFirst);
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
        _receivedReset = logon.TryGetBool(Tags.ResetSeqNumFlag, out bool reset) && reset;
        if (_receivedReset && !_sentReset)
        {
            ResetState();
        }

        if (!_options.IsInitiator && _options.ResetOnLogon)
        {
            ResetState();
        }

        if (!Verify(logon, false, true))
        {
            return;
        }

        if (!IsGoodTime(logon))
        {
            _log.Write(LogLevel.Error, LogEvent.SendingTimeAccuracy, _logIndex);
            DisconnectCore(DisconnectReason.InvalidLogon);
            return;
        }

        int seqNum = SeqNumOf(logon);
        logon.TryGetInt(Tags.HeartBtInt, out int heartBtInt);
        _log.Write(LogLevel.Info, LogEvent.LogonReceived, _logIndex, seqNum, heartBtInt);

        // NextExpectedMsgSeqNum(789): the counterparty cannot expect a number we have not reached.
        int theirNext = 0;
        bool theyExpect = _options.UsesNextExpectedMsgSeqNum && logon.TryGetInt(Tags.NextExpectedMsgSeqNum, out theirNext);
        if (theyExpect && (theirNext > _store.NextSenderMsgSeqNum || theirNext < 1))
        {
            RefuseNextExpected(theirNext);
            return;
        }

        var decision = _application.OnLogonRequest(this, logon);
        if (!decision.Accepted)
        {
            _log.Write(LogLevel.Warning, LogEvent.LogonRefused, _logIndex);
            GenerateLogout(decision.Reason);
            DisconnectCore(DisconnectReason.LogonRefused);
            return;
        }

        _receivedLogon = true;
        _counters.Logons++;
        if (!_options.IsInitiator)
        {
            _heartBtInt = heartBtInt;
            GenerateLogonResponse(logon);
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

    /// <summary>A Logon whose NextExpectedMsgSeqNum is beyond what we have sent: an unrecoverable mismatch.</summary>
    private void RefuseNextExpected(int theirNext)
    {
        int next = _store.NextSenderMsgSeqNum;
        _log.Write(LogLevel.Error, LogEvent.NextExpectedMsgSeqNumTooHigh, _logIndex, next, theirNext);
        LogoutAndDisconnect("NextExpectedMsgSeqNum(789) "u8, theirNext, " is higher than the next MsgSeqNum we send, "u8, next, DisconnectReason.InvalidLogon);
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
            GenerateReject(sequenceReset, SessionRejectReason.ValueIsIncorrect, 0, false, RejectDetail.None, 0);
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

        _lastReceivedNanos = _clock.UtcNowNanos;
        _testRequestCounter = 0;
        return true;
    }

    private void DoTargetTooHigh(FixMessage message, int seqNum)
    {
        int expected = _store.NextTargetMsgSeqNum;
        _log.Write(LogLevel.Warning, LogEvent.MsgSeqNumTooHigh, _logIndex, expected, seqNum);
        if (_queue.TryEnqueue(seqNum, message))
        {
            _counters.QueuedAheadOfGap++;
        }
        else
        {
            _counters.InboundQueueOverflows++;
            _log.Write(LogLevel.Warning, LogEvent.InboundQueueFull, _logIndex, seqNum);
        }

        if (_resend.Active && !_options.SendRedundantResendRequests && seqNum >= _resend.Begin)
        {
            return; // a ResendRequest covering this is already out (or the counterparty's own resend is awaited)
        }

        RequestResend(expected, seqNum);
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
        _resend = new ResendRange
        {
            Active = true,
            Begin = expected,
            End = endRange == 0 ? int.MaxValue : endRange,
            ChunkEnd = endChunk == 0 || endChunk == 999999 ? 0 : endChunk,
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

        long skew = _clock.UtcNowNanos - sendingTime.UnixNanoseconds;
        return Math.Abs(skew) <= _options.MaxLatency.Ticks * 100;
    }

    /// <summary>Processes messages kept ahead of a gap that is now closed, in order.</summary>
    private void ProcessQueued()
    {
        while (_transport is not null)
        {
            var queued = _queue.TryDequeue(_store.NextTargetMsgSeqNum);
            if (queued is null)
            {
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
