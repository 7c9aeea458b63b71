using RapidFix.Engine.Diagnostics;

namespace RapidFix.Engine.Sessions;

/// <summary>What happens with the passage of time: heartbeats, TestRequests, timeouts, the schedule.</summary>
public sealed partial class FixSession
{
    /// <summary>How long a counterparty that announced its resend (NextExpectedMsgSeqNum) has to begin it.</summary>
    private const long PeerResendGraceNanos = 2_000_000_000;

    /// <summary>
    /// Called by the transport's thread a few times a second (and after every message): sends heartbeats and
    /// TestRequests, enforces the logon, logout and heartbeat timeouts and the session schedule. Allocation-free.
    /// </summary>
    internal void OnTimer()
    {
        lock (_sync)
        {
            CheckTimers(_clock.UtcNowNanos);
        }
    }

    // The session window in force, in UTC ticks ([start, end)): the schedule is asked again only once the clock is
    // outside it, not at every message (it was twice a message, each a zone conversion and a search).
    private long _windowStartTicks = long.MaxValue;
    private long _windowEndTicks = long.MinValue;

    /// <summary>Whether <paramref name="nowNanos"/> (UTC nanoseconds since 1970) falls inside a session window.</summary>
    private bool IsInSession(long nowNanos)
    {
        long ticks = DateTime.UnixEpoch.Ticks + (nowNanos / 100);
        if (ticks >= _windowStartTicks && ticks < _windowEndTicks)
        {
            return true;
        }

        if (!_options.Schedule.TryGetSession(new DateTime(ticks, DateTimeKind.Utc), out var start, out var end))
        {
            return false;
        }

        _windowStartTicks = start.Ticks;
        _windowEndTicks = end.Ticks;
        return true;
    }

    private void CheckTimers(long now)
    {
        if (_transport is null)
        {
            return;
        }

        if (!IsInSession(now))
        {
            ResetOutOfSession();
            return;
        }

        if (!_enabled && IsLoggedOn && !_sentLogout)
        {
            GenerateLogout(default);
        }

        if (!_receivedLogon)
        {
            // Acceptor: the counterparty must log on in time; initiator: our Logon must be answered in time.
            if (now - _lastReceivedNanos >= _options.LogonTimeout.Ticks * 100)
            {
                _log.Write(LogLevel.Warning, LogEvent.LogonTimedOut, _logIndex, (long)_options.LogonTimeout.TotalSeconds);
                DisconnectCore(DisconnectReason.LogonTimeout);
            }

            return;
        }

        if (_resend.AwaitingPeerSince != 0 && !_resend.Started && now - _resend.AwaitingPeerSince >= PeerResendGraceNanos)
        {
            // The counterparty sent NextExpectedMsgSeqNum but has not begun to fill its gap: ask, as without 789.
            _log.Write(LogLevel.Warning, LogEvent.PeerResendNotForthcoming, _logIndex, _resend.Begin, _resend.End);
            int begin = _resend.Begin;
            int end = _resend.End;
            _resend = default;
            RequestResend(begin, end + 1);
        }

        if (_heartBtInt == 0)
        {
            return;
        }

        if (_sentLogout && now - _logoutSentNanos >= _options.LogoutTimeout.Ticks * 100)
        {
            DisconnectCore(DisconnectReason.LogoutTimeout);
            return;
        }

        long interval = _heartBtInt * 1_000_000_000L;
        long sinceSent = now - _lastSentNanos;
        long sinceReceived = now - _lastReceivedNanos;
        if (sinceSent < interval && sinceReceived < interval)
        {
            return;
        }

        if (sinceReceived >= (long)(2.4 * interval))
        {
            _log.Write(LogLevel.Warning, LogEvent.HeartbeatTimeout, _logIndex);
            if (_options.SendLogoutBeforeDisconnectFromTimeout)
            {
                GenerateLogout(default);
            }

            DisconnectCore(DisconnectReason.HeartbeatTimeout);
        }
        else if (sinceReceived >= (long)(1.2 * (_testRequestCounter + 1) * interval))
        {
            GenerateTestRequest();
            _testRequestCounter++;
        }
        else if (sinceSent >= interval && _testRequestCounter == 0)
        {
            GenerateHeartbeat(null);
        }
    }
}
