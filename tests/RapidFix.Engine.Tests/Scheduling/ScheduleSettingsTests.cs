using RapidFix.Engine.Configuration;
using RapidFix.Engine.Sessions.Scheduling;

namespace RapidFix.Engine.Tests.Scheduling;

public sealed class ScheduleSettingsTests
{
    private const string Session = "[SESSION]\nBeginString=FIX.4.2\nSenderCompID=A\nTargetCompID=B\nConnectionType=acceptor\nSocketAcceptPort=1\n";

    private static SessionSettings Parse(string extra) => SettingsFile.Parse(Session + extra, "s.cfg").Sessions[0];

    [Fact]
    public void Daily_schedule_from_settings_with_time_zone()
    {
        var schedule = SessionSchedule.FromSettings(Parse("StartTime=09:30:00\nEndTime=16:00:00\nTimeZone=America/New_York\n"));

        Assert.Equal(ScheduleKind.Daily, schedule.Kind);
        Assert.Equal(new TimeOnly(9, 30), schedule.StartTime);
        Assert.Equal("America/New_York", schedule.TimeZone.Id);
        Assert.True(schedule.IsInSession(new DateTime(2025, 7, 1, 13, 30, 0, DateTimeKind.Utc)));
        Assert.False(schedule.IsInSession(new DateTime(2025, 7, 1, 13, 29, 59, DateTimeKind.Utc)));
    }

    [Fact]
    public void Weekly_and_weekday_schedules_from_settings()
    {
        var weekly = SessionSchedule.FromSettings(Parse("StartTime=17:00:00\nEndTime=17:00:00\nStartDay=Sun\nEndDay=Fri\n"));
        var weekdays = SessionSchedule.FromSettings(Parse("StartTime=08:00:00\nEndTime=17:00:00\nWeekdays=Mon,Tue,Wed,Thu,Fri\n"));

        Assert.Equal(ScheduleKind.Weekly, weekly.Kind);
        Assert.Equal(DayOfWeek.Sunday, weekly.StartDay);
        Assert.Equal(DayOfWeek.Friday, weekly.EndDay);
        Assert.Equal(ScheduleKind.Daily, weekdays.Kind);
        Assert.Equal(5, weekdays.ActiveDays.Count);
        Assert.False(weekdays.IsInSession(new DateTime(2025, 6, 7, 12, 0, 0, DateTimeKind.Utc))); // Saturday
    }

    [Fact]
    public void Non_stop_and_local_time_from_settings()
    {
        Assert.Same(SessionSchedule.NonStop, SessionSchedule.FromSettings(Parse("NonStopSession=Y\n")));
        Assert.Same(TimeZoneInfo.Local, SessionSchedule.FromSettings(Parse("StartTime=00:00:00\nEndTime=00:00:00\nUseLocalTime=Y\n")).TimeZone);
    }

    [Fact]
    public void Non_stop_with_a_schedule_is_non_stop_and_the_schedule_keys_are_a_warning_as_quickfixj_accepts_them()
    {
        var file = SettingsFile.Parse(Session + "NonStopSession=Y\nStartTime=08:00:00\nEndTime=17:00:00\n", "s.cfg");

        Assert.Same(SessionSchedule.NonStop, SessionSchedule.FromSettings(file.Sessions[0]));
        Assert.Equal([(SettingsWarningKind.OverriddenKey, "StartTime", 8), (SettingsWarningKind.OverriddenKey, "EndTime", 9)],
            file.Warnings.Select(w => (w.Kind, w.Key, w.Line)));
        Assert.Contains("no effect: NonStopSession=Y", file.Warnings[0].ToString(), StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("EndTime=00:00:00\n", "StartTime", 1, "unless NonStopSession=Y")]
    [InlineData("StartTime=00:00:00\n", "EndTime", 1, "unless NonStopSession=Y")]
    [InlineData("StartTime=00:00:00\nEndTime=00:00:00\nStartDay=Mon\n", "StartDay", 9, "without EndDay")]
    [InlineData("StartTime=00:00:00\nEndTime=00:00:00\nEndDay=Mon\n", "EndDay", 9, "without StartDay")]
    [InlineData("StartTime=00:00:00\nEndTime=00:00:00\nStartDay=Mon\nEndDay=Fri\nWeekdays=Mon\n", "Weekdays", 11, "conflicts with StartDay")]
    [InlineData("StartTime=00:00:00\nEndTime=00:00:00\nUseLocalTime=Y\nTimeZone=UTC\n", "TimeZone", 10, "conflicts with UseLocalTime")]
    public void Conflicting_or_missing_schedule_settings_are_located_errors(string extra, string key, int line, string reason)
    {
        var error = Assert.Throws<ConfigurationException>(() => SessionSchedule.FromSettings(Parse(extra)));

        Assert.Equal(key, error.Key);
        Assert.Equal(line, error.Line);
        Assert.Equal("s.cfg", error.FilePath);
        Assert.Contains(reason, error.Message, StringComparison.Ordinal);
    }
}
