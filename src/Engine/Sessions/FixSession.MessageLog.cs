using RapidFix.Engine.Diagnostics;

namespace RapidFix.Engine.Sessions;

/// <summary>
/// The message log (FileLogPath): every message received and sent is copied into the session's ring, and every event
/// the engine logs for the session goes to its event file too.
/// </summary>
public sealed partial class FixSession
{
    private SessionMessageLog? _messageLog;

    /// <summary>The session's message log, or null when FileLogPath is not set.</summary>
    public SessionMessageLog? MessageLog => _messageLog;

    /// <summary>
    /// Logs the session's messages to <paramref name="log"/> from now on, and its events (logons, logouts, resend
    /// requests, rejects, disconnections...) to the log's event file (null stops both). Startup or set-up only.
    /// </summary>
    public void AttachMessageLog(SessionMessageLog? log)
    {
        lock (_sync)
        {
            _messageLog = log;
            _log.RouteEvents(_logIndex, log);
        }
    }
}
