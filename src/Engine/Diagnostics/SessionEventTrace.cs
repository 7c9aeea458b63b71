using RapidFix.Pools.Diagnostics;

namespace RapidFix.Engine.Diagnostics;

/// <summary>
/// Turns the session events the engine logs into "RapidFix" trace events (<see cref="RapidFixEventSource"/>):
/// logons, logouts, resend requests, rejects and disconnections. Called by <see cref="EngineLog.Write"/> only when
/// the event source is enabled; allocation-free.
/// </summary>
internal static class SessionEventTrace
{
    /// <summary>The events that refuse a counterparty: traced as <c>ConnectionRefused</c> with its address.</summary>
    public static bool IsRefusal(LogEvent ev) => ev is LogEvent.TooManyPendingConnections or LogEvent.TooManyPendingFromAddress
        or LogEvent.ClosedBeforeLogon or LogEvent.UnknownSession or LogEvent.AlreadyLoggedOn or LogEvent.NotLogonFirst
        or LogEvent.LogonTimedOut or LogEvent.LogonRejected or LogEvent.LogonRejectedNoLogout or LogEvent.TlsHandshakeFailed;

    /// <summary>
    /// A refusal with the peer's address ("address:port", formatted on the stack) and the reason, when the event
    /// source listens for session events. Allocation-free.
    /// </summary>
    public static void WriteRefusal(LogEvent ev, string? session, System.Net.EndPoint peer, string? reason, long a, long b)
    {
        var log = RapidFixEventSource.Log;
        if (!log.IsEnabled(System.Diagnostics.Tracing.EventLevel.Warning, RapidFixEventSource.Keywords.Sessions))
        {
            return;
        }

        Span<char> address = stackalloc char[72];
        int length = EngineLog.FormatPeer(peer, address);
        log.WriteConnectionRefused(session ?? "", address.Slice(0, length), (int)ev, reason ?? "", a, b);
    }

    public static void Write(LogLevel level, LogEvent ev, string? session, long a, long b)
    {
        if (session is null)
        {
            return; // a connection not yet bound to a session
        }

        var log = RapidFixEventSource.Log;
        const int received = (int)RapidFixEventSource.Direction.Received;
        const int sent = (int)RapidFixEventSource.Direction.Sent;
        switch (ev)
        {
            // The session also logs LogonReceived at Warning level, with no numbers, for a logon timeout: not a logon.
            case LogEvent.LogonReceived when level == LogLevel.Info:
                log.WriteSession(RapidFixEventSource.SessionLogonId, session, received, a);
                break;
            case LogEvent.LogonSent:
                log.WriteSession(RapidFixEventSource.SessionLogonId, session, sent, a);
                break;
            case LogEvent.LogoutReceived:
                log.WriteSession(RapidFixEventSource.SessionLogoutId, session, received, a);
                break;
            case LogEvent.LogoutSent:
                log.WriteSession(RapidFixEventSource.SessionLogoutId, session, sent, a);
                break;
            case LogEvent.ResendRequestReceived:
                log.WriteSession(RapidFixEventSource.SessionResendRequestId, session, received, a, b);
                break;
            case LogEvent.ResendRequestSent:
                log.WriteSession(RapidFixEventSource.SessionResendRequestId, session, sent, a, b);
                break;
            case LogEvent.RejectSent:
                log.WriteSession(RapidFixEventSource.SessionRejectId, session, 0, a, b);
                break;
            case LogEvent.BusinessRejectSent:
                log.WriteSession(RapidFixEventSource.SessionRejectId, session, 1, a, b);
                break;
            case LogEvent.Disconnected:
                log.WriteSession(RapidFixEventSource.SessionDisconnectedId, session, (int)a);
                break;
        }
    }
}
