using RapidFix.Engine.Diagnostics;
using RapidFix.Engine.Store;
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

/// <summary>
/// The send side: an application message in, stored and on the wire. The header is written by
/// <c>FixSession.Header.cs</c>, session messages are built in <c>FixSession.SessionMessages.cs</c>, resends are
/// served by <c>FixSession.Resend.cs</c>; all of them finish through <see cref="Complete"/>.
/// </summary>
public sealed partial class FixSession
{
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
            // A BusinessMessageReject is an application message (QuickFIX/n and /J store it and resend it, not gap-fill
            // it); storing it also lets it go out deferred with its read batch (FixSession.Batch.cs).
            bool persist = _options.PersistMessages &&
                           (application || Is(msgType, (byte)'j') || (_options.ResendSessionLevelRejects && Is(msgType, (byte)'3')));
            var status = !persist ? _store.SetNextSenderMsgSeqNum(seq + 1)
                : defer && LazyDeferredAppend ? _journalStore!.AppendDeferred(seq, encoded.Span)
                : _store.Append(seq, encoded.Span);
            if (status != StoreWriteStatus.Ok)
            {
                _counters.StoreFailures++;
                _log.Write(LogLevel.Error, LogEvent.StoreWriteFailed, _logIndex, (long)status);
                if (persist)
                {
                    _store.SetNextSenderMsgSeqNum(seq + 1); // the number is used; the resend will gap-fill it
                }
            }
            else if (defer && Deferrable(encoded.Span.Length))
            {
                return Defer(seq, encoded.Span); // stored; on the wire at FlushDeferred, after one wait for the whole batch
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

        // Our Logon counts as sent from the moment its bytes can reach the counterparty: whoever holds the answer
        // (a counterparty, or a test on another thread) must find IsLoggedOn already true, never a moment later.
        bool logon = resendSeqNum == 0 && Is(msgType, (byte)'A');
        bool wasSentLogon = _sentLogon;
        if (logon)
        {
            Volatile.Write(ref _sentLogon, true);
        }

        var transport = _transport;
        if (transport is null || !transport.Send(encoded.Span))
        {
            _sentLogon = wasSentLogon; // not on the wire: not logged on (and no OnLogout for a logon that never was)
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

}
