using RapidFix.Pools.Diagnostics;

namespace RapidFix.Engine.Diagnostics;

/// <summary>
/// Turns the session events the engine logs into "RapidFix" trace events (<see cref="RapidFixEventSource"/>):
/// logons, logouts, resend requests, rejects and disconnections. Called by <see cref="EngineLog.Write"/> only when
/// the event source is enabled; allocation-free.
/// </summary>
internal static class SessionEventTrace
{
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
