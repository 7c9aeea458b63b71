using System.Globalization;
using RapidFix.Engine.Time;

namespace RapidFix.Engine.Tests.Sessions;

/// <summary>
/// The session keeps the schedule's window it found (FixSession.IsInSession asks the schedule only once the clock is
/// outside it): a message or a timer tick past the window's end still takes the session out of session time, and the
/// next day's window is found again. Driven by a manual clock, so the window's edges are crossed exactly.
/// </summary>
public sealed class SessionWindowTests
{
    [Fact]
    public void The_window_kept_between_messages_still_ends_the_session_at_its_end_and_the_next_one_is_found()
    {
        // A daily window from an hour before now to an hour after (across midnight when it must: the schedule's rule).
        var now = DateTime.UtcNow;
        var clock = EngineClock.Manual(now);
        string start = now.AddHours(-1).ToString("HH:mm:ss", CultureInfo.InvariantCulture);
        string end = now.AddHours(1).ToString("HH:mm:ss", CultureInfo.InvariantCulture);
        using var h = new ProtocolHarness($"StartTime={start}\nEndTime={end}\nCheckLatency=N", clock: clock);
        h.Logon();
        Assert.True(h.Session.IsLoggedOn);
        h.Receive("0", "2"); // a Heartbeat inside the window: the window is kept now
        clock.Advance(TimeSpan.FromMinutes(50));
        h.Receive("0", "3");
        Assert.True(h.Session.IsLoggedOn);
        h.TakeSent();

        clock.Advance(TimeSpan.FromMinutes(20)); // 10 minutes past the window's end
        h.Receive("0", "4");

        Assert.False(h.Session.IsLoggedOn);
        Assert.Contains(h.TakeSent(), m => m.MsgType.SequenceEqual("5"u8)); // the Logout, out of session time

        // The next day's window: a new connection logs on again (a new session: sequence numbers from 1).
        clock.Advance(TimeSpan.FromHours(23));
        h.Connect();
        h.Logon();
        Assert.True(h.Session.IsLoggedOn);
    }
}
