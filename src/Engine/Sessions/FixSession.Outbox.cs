using RapidFix.Engine.Diagnostics;
using RapidFix.Engine.Store;

namespace RapidFix.Engine.Sessions;

/// <summary>
/// Send semantics around <see cref="Send"/>: the <see cref="IToAppHook"/> veto, and messages sent while not logged on
/// (stored for the resend after logon, or refused: <see cref="FixSessionOptions.SendWhileNotLoggedOn"/>).
/// </summary>
public sealed partial class FixSession
{
    private long _vetoed;
    private long _storedWhileNotLoggedOn;

    /// <summary>Application messages the <see cref="IToAppHook"/> vetoed (no MsgSeqNum used).</summary>
    public long MessagesVetoed => Interlocked.Read(ref _vetoed);

    /// <summary>Application messages stored, not sent, because the session was not logged on (they go out on resend).</summary>
    public long MessagesStoredWhileNotLoggedOn => Interlocked.Read(ref _storedWhileNotLoggedOn);

    /// <summary>Messages sent while not logged on are stored (SendWhileNotLoggedOn=Store, which needs PersistMessages).</summary>
    private bool StoresWhileNotLoggedOn => _options.SendWhileNotLoggedOn == NotLoggedOnSend.Store && _options.PersistMessages;

    /// <summary>Asks the application's <see cref="IToAppHook"/>, if it has one; false: vetoed (counted, nothing used).</summary>
    private bool PassesToApp(ReadOnlySpan<byte> msgType, ReadOnlySpan<byte> body)
    {
        if (_application is not IToAppHook hook || hook.ToApp(this, msgType, body, _encoder) == ToAppDecision.Send)
        {
            return true;
        }

        Interlocked.Increment(ref _vetoed);
        return false;
    }

    /// <summary>
    /// Not logged on, SendWhileNotLoggedOn=Store: the message in the encoder takes the next MsgSeqNum and goes into the
    /// store only. After logon our next message (our Logon, for an acceptor its answer) shows the counterparty the gap,
    /// its ResendRequest brings the message out with PossDupFlag=Y, as QuickFIX/n does. A store that refuses it
    /// leaves the number unused and the caller is told <see cref="SendResult.NotLoggedOn"/>.
    /// </summary>
    private SendResult StoreWhileNotLoggedOn()
    {
        if (!_encoder.Finish(out var encoded))
        {
            _log.Write(LogLevel.Error, LogEvent.MessageTooLarge, _logIndex, _encoder.BodyLength);
            return SendResult.TooLarge;
        }

        int seq = _store.NextSenderMsgSeqNum;
        var status = _store.Append(seq, encoded.Span);
        if (status != StoreWriteStatus.Ok)
        {
            _counters.StoreFailures++;
            _log.Write(LogLevel.Error, LogEvent.StoreWriteFailed, _logIndex, (long)status);
            return SendResult.NotLoggedOn;
        }

        _storedWhileNotLoggedOn++;
        return SendResult.Stored;
    }
}
