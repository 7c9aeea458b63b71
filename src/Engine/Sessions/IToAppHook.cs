using RapidFix.Engine.Codec;

namespace RapidFix.Engine.Sessions;

/// <summary>What <see cref="IToAppHook.ToApp"/> decides for an outgoing application message.</summary>
public enum ToAppDecision : byte
{
    /// <summary>Store and send it (with whatever the hook appended).</summary>
    Send,

    /// <summary>
    /// Drop it, as QuickFIX/n's DoNotSend: nothing is stored or sent and no MsgSeqNum is used; the caller gets
    /// <see cref="SendResult.Vetoed"/>.
    /// </summary>
    DoNotSend,
}

/// <summary>
/// QuickFIX/n's <c>ToApp</c>: implemented by an <see cref="IFixApplication"/> that wants to see, amend or veto every
/// application message the session sends, before it is given a place in the store. Optional (the session looks for
/// it on its application), so applications that do not need it implement nothing more.
/// </summary>
/// <remarks>
/// Runs under the session's lock on the sending thread, for <see cref="FixSession.Send"/> whether the session is
/// logged on or not (a message stored while not logged on has passed the hook), and not for resends (see
/// <see cref="IFixApplication.OnResending"/>). It must not allocate in the continuous phase, nor send.
/// </remarks>
public interface IToAppHook
{
    /// <summary>
    /// An application message about to be stored and sent: the header and <paramref name="body"/> are in
    /// <paramref name="message"/>, which the hook may amend by appending body fields (the trailer is not written
    /// yet). To change a field already written, return <see cref="ToAppDecision.DoNotSend"/> and send a corrected message.
    /// </summary>
    /// <param name="session">The sending session.</param>
    /// <param name="msgType">MsgType (35).</param>
    /// <param name="body">The body fields as the caller gave them.</param>
    /// <param name="message">The message being encoded.</param>
    ToAppDecision ToApp(FixSession session, ReadOnlySpan<byte> msgType, ReadOnlySpan<byte> body, FixEncoder message);
}
