using RapidFix.Engine.Configuration;

namespace RapidFix.Engine.Sessions;

/// <summary>What <see cref="FixSession.Send"/> does with an application message while the session is not logged on.</summary>
public enum NotLoggedOnSend : byte
{
    /// <summary>
    /// As QuickFIX/n: the message gets the next MsgSeqNum and is stored, not sent; after logon the counterparty sees
    /// the gap and asks for it, and the resend delivers it (PossDupFlag=Y). Needs PersistMessages=Y.
    /// </summary>
    Store,

    /// <summary>Nothing is stored and no MsgSeqNum is used: the caller gets <see cref="SendResult.NotLoggedOn"/> and keeps the message.</summary>
    Refuse,
}

public sealed partial class FixSessionOptions
{
    /// <summary>
    /// SendWhileNotLoggedOn: refuse (the default, so that callers that retry until <see cref="SendResult.Sent"/> keep
    /// working) or store (QuickFIX/n's behaviour) application messages sent while not logged on. Store only holds with
    /// <see cref="PersistMessages"/>; without it the session refuses (a message stored nowhere could only be gap-filled over).
    /// </summary>
    public NotLoggedOnSend SendWhileNotLoggedOn { get; init; } = NotLoggedOnSend.Refuse;

    /// <summary>SendWhileNotLoggedOn from the settings (Refuse by default): Store needs PersistMessages=Y (an error at startup otherwise).</summary>
    private static NotLoggedOnSend SendWhileNotLoggedOnSetting(SessionSettings settings)
    {
        bool persist = settings.GetBool(SettingKeys.PersistMessages);
        var mode = settings.GetChoice(SettingKeys.SendWhileNotLoggedOn) == "Store" ? NotLoggedOnSend.Store : NotLoggedOnSend.Refuse;
        if (mode == NotLoggedOnSend.Store && !persist)
        {
            settings.TryGetValue(SettingKeys.SendWhileNotLoggedOn, out var value);
            throw settings.Error(SettingKeys.SendWhileNotLoggedOn, value,
                "Store keeps messages for the resend after logon, which needs PersistMessages=Y (with PersistMessages=N they could only be gap-filled over)");
        }

        return mode;
    }
}
