using RapidFix.Engine.Codec;
using RapidFix.Engine.Validation;

namespace RapidFix.Engine.Sessions;

/// <summary>
/// What the application behind a session sees. Every callback runs on the session's receive thread (or, for
/// <see cref="OnSendingAdmin"/>, the thread that sends); messages are zero-copy views valid only during the call
/// (copy with <see cref="FixMessage.CopyFrom"/> to keep one). Nothing here may block for long: the session's
/// heartbeats and the next message wait meanwhile.
/// </summary>
public interface IFixApplication
{
    /// <summary>Once, when the session is created at startup.</summary>
    void OnCreate(FixSession session);

    /// <summary>
    /// A Logon arrived (before we answer it). Check credentials (Username 553 / Password 554) or anything else and
    /// return <see cref="LogonDecision.Accept"/> or a refusal; a refused counterparty gets a Logout with the text and
    /// is disconnected before any application message reaches the application.
    /// </summary>
    LogonDecision OnLogonRequest(FixSession session, FixMessage logon);

    /// <summary>Both Logons exchanged: application messages flow from now on.</summary>
    void OnLogon(FixSession session);

    /// <summary>The session left the logged-on state (Logout exchanged, disconnection, timeout).</summary>
    void OnLogout(FixSession session);

    /// <summary>A session-level message was received and accepted (after sequence checks).</summary>
    void FromAdmin(FixSession session, FixMessage message);

    /// <summary>
    /// An application message was received, validated and is in sequence. Return how the engine should answer:
    /// <see cref="MessageDisposition.Accept"/> or a rejection (session Reject or BusinessMessageReject).
    /// </summary>
    MessageDisposition FromApp(FixSession session, FixMessage message);

    /// <summary>
    /// An admin message we are about to send (Logon, Logout, Heartbeat...): the application may append body fields
    /// (for example Username and Password to a Logon).
    /// </summary>
    void OnSendingAdmin(FixSession session, ReadOnlySpan<byte> msgType, FixEncoder body);

    /// <summary>
    /// A stored application message is about to be resent for a ResendRequest. Return false to gap-fill over it
    /// instead (stale orders, for example).
    /// </summary>
    bool OnResending(FixSession session, FixMessage message);
}

/// <summary>The answer to a Logon.</summary>
public readonly record struct LogonDecision(bool Accepted, string? Reason)
{
    /// <summary>Accept the Logon.</summary>
    public static LogonDecision Accept => new(true, null);

    /// <summary>Refuse the Logon: the counterparty gets a Logout with <paramref name="reason"/> and is disconnected.</summary>
    public static LogonDecision Refuse(string reason) => new(false, reason);
}

/// <summary>How to answer an application message.</summary>
public enum MessageDispositionKind : byte
{
    /// <summary>Accepted: no answer.</summary>
    Accept,

    /// <summary>A session-level Reject (35=3) with a SessionRejectReason and RefTagID.</summary>
    SessionReject,

    /// <summary>A BusinessMessageReject (35=j; a Reject before FIX 4.2) with a BusinessRejectReason.</summary>
    BusinessReject,
}

/// <summary>The application's verdict on one message.</summary>
public readonly record struct MessageDisposition(MessageDispositionKind Kind, int Reason, int RefTagId)
{
    /// <summary>Accept the message.</summary>
    public static MessageDisposition Accept => default;

    /// <summary>BusinessRejectReason 3: the application does not handle this message type.</summary>
    public static MessageDisposition UnsupportedMessageType => new(MessageDispositionKind.BusinessReject, 3, 0);

    /// <summary>A session Reject (35=3) with <paramref name="reason"/> and RefTagID <paramref name="refTagId"/> (0: none).</summary>
    public static MessageDisposition Reject(SessionRejectReason reason, int refTagId = 0) => new(MessageDispositionKind.SessionReject, (int)reason, refTagId);

    /// <summary>BusinessRejectReason: 0 other, 1 unknown ID, 2 unknown security, 3 unsupported message type, 4 application not available, 5 conditionally required field missing, 6 not authorized.</summary>
    public static MessageDisposition BusinessReject(int businessRejectReason, int refTagId = 0) => new(MessageDispositionKind.BusinessReject, businessRejectReason, refTagId);
}

/// <summary>An application that accepts everything and adds nothing: a base for applications that need a few callbacks.</summary>
public class FixApplicationBase : IFixApplication
{
    /// <inheritdoc/>
    public virtual void OnCreate(FixSession session)
    {
    }

    /// <inheritdoc/>
    public virtual LogonDecision OnLogonRequest(FixSession session, FixMessage logon) => LogonDecision.Accept;

    /// <inheritdoc/>
    public virtual void OnLogon(FixSession session)
    {
    }

    /// <inheritdoc/>
    public virtual void OnLogout(FixSession session)
    {
    }

    /// <inheritdoc/>
    public virtual void FromAdmin(FixSession session, FixMessage message)
    {
    }

    /// <inheritdoc/>
    public virtual MessageDisposition FromApp(FixSession session, FixMessage message) => MessageDisposition.Accept;

    /// <inheritdoc/>
    public virtual void OnSendingAdmin(FixSession session, ReadOnlySpan<byte> msgType, FixEncoder body)
    {
    }

    /// <inheritdoc/>
    public virtual bool OnResending(FixSession session, FixMessage message) => true;
}
