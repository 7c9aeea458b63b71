using RapidFix.Engine.Configuration;
using RapidFix.Engine.Sessions.Scheduling;
using RapidFix.Tests.Shared;

namespace RapidFix.Engine.Tests.Scheduling;

public sealed class SessionScheduleTests
{
    /// <summary>US Eastern rules since 2007, built in code so the tests do not depend on the machine's tz data.</summary>
    internal static readonly TimeZoneInfo Eastern = TimeZoneInfo.CreateCustomTimeZone(
        "Test/Eastern",
        TimeSpan.FromHours(-5),
        "Test Eastern",
        "EST",
        "EDT",
        [
            TimeZoneInfo.AdjustmentRule.CreateAdjustmentRule(
                new DateTime(2007, 1, 1),
                new DateTime(2099, 12, 31),
                TimeSpan.FromHours(1),
                TimeZoneInfo.TransitionTime.CreateFloatingDateRule(new DateTime(1, 1, 1, 2, 0, 0), 3, 2, DayOfWeek.Sunday),
                TimeZoneInfo.TransitionTime.CreateFloatingDateRule(new DateTime(1, 1, 1, 2, 0, 0), 11, 1, DayOfWeek.Sunday)),
        ]);

    private static DateTime Utc(int year, int month, int day, int hour, int minute = 0, int second = 0) =>
        new(year, month, day, hour, minute, second, DateTimeKind.Utc);

    private static TimeOnly T(int hour, int minute = 0) => new(hour, minute);

    [Fact]
    public void Daily_session_follows_local_time_across_dst()
    {
        var schedule = SessionSchedule.Daily(T(9), T(17), Eastern);

        // Winter: 09:00 EST = 14:00Z; 17:00 EST = 22:00Z.
        Assert.False(schedule.IsInSession(Utc(2024, 1, 15, 13, 59, 59)));
        Assert.True(schedule.IsInSession(Utc(2024, 1, 15, 14)));
        Assert.True(schedule.IsInSession(Utc(2024, 1, 15, 21, 59, 59)));
        Assert.False(schedule.IsInSession(Utc(2024, 1, 15, 22)));

        // Summer: 09:00 EDT = 13:00Z; 17:00 EDT = 21:00Z.
        Assert.False(schedule.IsInSession(Utc(2024, 7, 15, 12, 59, 59)));
        Assert.True(schedule.IsInSession(Utc(2024, 7, 15, 13)));
        Assert.True(schedule.IsInSession(Utc(2024, 7, 15, 20, 59, 59)));
        Assert.False(schedule.IsInSession(Utc(2024, 7, 15, 21)));

        // The day the clocks go forward (10 March 2024) and back (3 November 2024).
        Assert.True(schedule.IsInSession(Utc(2024, 3, 10, 13)));
        Assert.False(schedule.IsInSession(Utc(2024, 3, 10, 21)));
        Assert.False(schedule.IsInSession(Utc(2024, 11, 3, 13)));
        Assert.True(schedule.IsInSession(Utc(2024, 11, 3, 14)));
        Assert.True(schedule.IsInSession(Utc(2024, 11, 3, 21, 30)));
        Assert.False(schedule.IsInSession(Utc(2024, 11, 3, 22)));
    }

    [Fact]
    public void A_start_time_skipped_by_the_spring_transition_starts_when_the_clocks_jump()
    {
        var schedule = SessionSchedule.Daily(T(2, 30), T(4), Eastern);

        // 02:30 does not exist on 10 March 2024: clocks go from 02:00 EST (07:00Z) to 03:00 EDT (07:00Z).
        Assert.False(schedule.IsInSession(Utc(2024, 3, 10, 6, 59, 59)));
        Assert.True(schedule.IsInSession(Utc(2024, 3, 10, 7)));
        Assert.True(schedule.TryGetSession(Utc(2024, 3, 10, 7, 30), out var start, out var end));
        Assert.Equal(Utc(2024, 3, 10, 7), start);
        Assert.Equal(Utc(2024, 3, 10, 8), end); // 04:00 EDT
        Assert.Equal(DateTimeKind.Utc, start.Kind);
    }

    [Fact]
    public void A_start_time_repeated_by_the_autumn_transition_starts_at_its_first_occurrence()
    {
        var schedule = SessionSchedule.Daily(T(1, 30), T(3), Eastern);

        // 01:30 happens twice on 3 November 2024: first at 05:30Z (EDT), again at 06:30Z (EST).
        Assert.False(schedule.IsInSession(Utc(2024, 11, 3, 5, 29, 59)));
        Assert.True(schedule.IsInSession(Utc(2024, 11, 3, 5, 30)));
        Assert.True(schedule.TryGetSession(Utc(2024, 11, 3, 6), out var start, out var end));
        Assert.Equal(Utc(2024, 11, 3, 5, 30), start);
        Assert.Equal(Utc(2024, 11, 3, 8), end); // 03:00 EST, a window 30 minutes longer than on other days
    }

    [Fact]
    public void Daily_session_spanning_midnight()
    {
        var schedule = SessionSchedule.Daily(T(22), T(6));

        Assert.False(schedule.IsInSession(Utc(2024, 5, 1, 21, 59, 59)));
        Assert.True(schedule.IsInSession(Utc(2024, 5, 1, 22)));
        Assert.True(schedule.IsInSession(Utc(2024, 5, 2, 0)));
        Assert.True(schedule.IsInSession(Utc(2024, 5, 2, 5, 59, 59)));
        Assert.False(schedule.IsInSession(Utc(2024, 5, 2, 6)));
        Assert.False(schedule.IsInSession(Utc(2024, 5, 2, 12)));

        Assert.True(schedule.IsSameSession(Utc(2024, 5, 1, 23), Utc(2024, 5, 2, 5)));
        Assert.False(schedule.IsSameSession(Utc(2024, 5, 2, 5), Utc(2024, 5, 2, 23)));
        Assert.False(schedule.IsSameSession(Utc(2024, 5, 2, 23), Utc(2024, 5, 2, 5))); // order does not matter
        Assert.Equal(Utc(2024, 5, 2, 6), schedule.NextSessionEnd(Utc(2024, 5, 1, 23)));
    }

    [Fact]
    public void Equal_start_and_end_is_always_in_session_but_a_new_session_each_day()
    {
        var schedule = SessionSchedule.Daily(T(0), T(0));

        for (var t = Utc(2024, 2, 28, 0); t < Utc(2024, 3, 2, 0); t = t.AddMinutes(17))
        {
            Assert.True(schedule.IsInSession(t), t.ToString("O"));
        }

        Assert.True(schedule.IsSameSession(Utc(2024, 2, 28, 0), Utc(2024, 2, 28, 23, 59, 59)));
        Assert.False(schedule.IsSameSession(Utc(2024, 2, 28, 23, 59, 59), Utc(2024, 2, 29, 0)));
        Assert.False(schedule.IsSameSession(Utc(2024, 2, 28, 12), Utc(2024, 3, 1, 12)));
    }

    [Fact]
    public void Weekly_session_across_the_dst_weekend()
    {
        // Sunday 17:00 to Friday 17:00 New York time.
        var schedule = SessionSchedule.Weekly(DayOfWeek.Sunday, T(17), DayOfWeek.Friday, T(17), Eastern);

        // Week of 3 March 2024 (EST): Sunday 17:00 EST = 22:00Z.
        Assert.False(schedule.IsInSession(Utc(2024, 3, 3, 21, 59, 59)));
        Assert.True(schedule.IsInSession(Utc(2024, 3, 3, 22)));
        Assert.True(schedule.IsInSession(Utc(2024, 3, 6, 12)));
        Assert.True(schedule.IsInSession(Utc(2024, 3, 8, 21, 59, 59)));
        Assert.False(schedule.IsInSession(Utc(2024, 3, 8, 22)));
        Assert.False(schedule.IsInSession(Utc(2024, 3, 9, 12)));

        // Week of 10 March 2024, clocks went forward that morning: Sunday 17:00 EDT = 21:00Z.
        Assert.False(schedule.IsInSession(Utc(2024, 3, 10, 20, 59, 59)));
        Assert.True(schedule.IsInSession(Utc(2024, 3, 10, 21)));
        Assert.False(schedule.IsInSession(Utc(2024, 3, 15, 21)));

        Assert.True(schedule.IsSameSession(Utc(2024, 3, 4, 9), Utc(2024, 3, 7, 9)));
        Assert.False(schedule.IsSameSession(Utc(2024, 3, 7, 9), Utc(2024, 3, 11, 9)));
        Assert.Equal(Utc(2024, 3, 15, 21), schedule.NextSessionEnd(Utc(2024, 3, 10, 21)));
    }

    [Fact]
    public void Weekly_session_spanning_the_week_boundary()
    {
        var schedule = SessionSchedule.Weekly(DayOfWeek.Friday, T(20), DayOfWeek.Monday, T(6));

        Assert.False(schedule.IsInSession(Utc(2024, 6, 7, 19, 59))); // Friday
        Assert.True(schedule.IsInSession(Utc(2024, 6, 7, 20)));
        Assert.True(schedule.IsInSession(Utc(2024, 6, 8, 12)));      // Saturday
        Assert.True(schedule.IsInSession(Utc(2024, 6, 9, 12)));      // Sunday
        Assert.True(schedule.IsInSession(Utc(2024, 6, 10, 5, 59)));  // Monday
        Assert.False(schedule.IsInSession(Utc(2024, 6, 10, 6)));
        Assert.False(schedule.IsInSession(Utc(2024, 6, 12, 12)));    // Wednesday
        Assert.True(schedule.IsSameSession(Utc(2024, 6, 7, 21), Utc(2024, 6, 10, 5)));
    }

    [Fact]
    public void Weekly_session_on_one_day_with_end_before_start_runs_all_week_but_one_hour()
    {
        var schedule = SessionSchedule.Weekly(DayOfWeek.Monday, T(8), DayOfWeek.Monday, T(7));

        Assert.True(schedule.IsInSession(Utc(2024, 6, 10, 6, 59)));  // Monday
        Assert.False(schedule.IsInSession(Utc(2024, 6, 10, 7)));
        Assert.False(schedule.IsInSession(Utc(2024, 6, 10, 7, 59)));
        Assert.True(schedule.IsInSession(Utc(2024, 6, 10, 8)));
        Assert.True(schedule.IsInSession(Utc(2024, 6, 14, 8)));      // Friday
        Assert.True(schedule.IsSameSession(Utc(2024, 6, 10, 8), Utc(2024, 6, 17, 6, 59)));
        Assert.False(schedule.IsSameSession(Utc(2024, 6, 10, 8), Utc(2024, 6, 17, 8)));
    }

    [Fact]
    public void Weekday_sessions_start_only_on_listed_days()
    {
        var weekdays = new[] { DayOfWeek.Monday, DayOfWeek.Tuesday, DayOfWeek.Wednesday, DayOfWeek.Thursday, DayOfWeek.Friday };
        var overnight = SessionSchedule.Daily(T(22), T(6), null, weekdays);

        Assert.True(overnight.IsInSession(Utc(2024, 6, 7, 23)));    // Friday night
        Assert.True(overnight.IsInSession(Utc(2024, 6, 8, 5)));     // Saturday morning: Friday's session
        Assert.False(overnight.IsInSession(Utc(2024, 6, 8, 23)));   // Saturday night
        Assert.False(overnight.IsInSession(Utc(2024, 6, 9, 5)));    // Sunday morning
        Assert.True(overnight.IsInSession(Utc(2024, 6, 10, 23)));   // Monday night
        Assert.Equal(Utc(2024, 6, 11, 6), overnight.NextSessionEnd(Utc(2024, 6, 8, 12)));
    }

    [Fact]
    public void Non_stop_is_always_in_the_same_session()
    {
        var schedule = SessionSchedule.NonStop;

        Assert.True(schedule.IsInSession(Utc(2024, 1, 1, 0)));
        Assert.True(schedule.IsSameSession(Utc(2000, 1, 1, 0), Utc(2099, 1, 1, 0)));
        Assert.Equal(DateTime.MaxValue, schedule.NextSessionEnd(Utc(2024, 1, 1, 0)));
    }

    [Fact]
    public void Local_times_are_refused()
    {
        var schedule = SessionSchedule.Daily(T(9), T(17));

        Assert.Throws<ArgumentException>(() => schedule.IsInSession(new DateTime(2024, 1, 1, 0, 0, 0, DateTimeKind.Local)));
    }

    [Fact]
    public void Matches_a_direct_time_zone_conversion_every_quarter_hour_of_a_year_in_real_zones()
    {
        foreach (var id in new[] { "America/New_York", "Europe/London", "Australia/Sydney" })
        {
            var zone = TimeZoneInfo.FindSystemTimeZoneById(id);
            var schedule = SessionSchedule.Daily(T(8), T(16, 30), zone);
            for (var t = Utc(2025, 1, 1, 0); t < Utc(2026, 1, 1, 0); t = t.AddMinutes(15))
            {
                var local = TimeZoneInfo.ConvertTimeFromUtc(t, zone).TimeOfDay;
                bool expected = local >= TimeSpan.FromHours(8) && local < new TimeSpan(16, 30, 0);
                Assert.True(expected == schedule.IsInSession(t), $"{id} {t:O}: expected {expected}");
            }
        }
    }
}

/// <summary>Schedule checks run on every timer tick of the continuous phase: they must allocate nothing.</summary>
[Collection(RapidFix.Engine.Tests.Store.AllocationTestCollection.Name)]
public sealed class ScheduleAllocationTests
{
    [Fact]
    public void Continuous_phase_checks_allocate_nothing()
    {
        var schedule = SessionSchedule.Weekly(DayOfWeek.Sunday, new TimeOnly(17), DayOfWeek.Friday, new TimeOnly(17), SessionScheduleTests.Eastern);
        var daily = SessionSchedule.Daily(new TimeOnly(22), new TimeOnly(6), SessionScheduleTests.Eastern);
        var state = (schedule, daily, t: new DateTime(2024, 3, 1, 0, 0, 0, DateTimeKind.Utc));

        long bytes = RapidFix.Engine.Tests.Store.SteadyStateAllocations.Measure(state, static s =>
        {
            // A walk through March 2024, across the DST change, one step per call.
            long step = TimeSpan.TicksPerMinute * 37;
            var time = new DateTime(s.t.Ticks + (Environment.TickCount64 & 0x3FF) * step, DateTimeKind.Utc);
            _ = s.schedule.IsInSession(time);
            _ = s.daily.IsInSession(time);
            _ = s.schedule.IsSameSession(s.t, time);
            _ = s.daily.NextSessionEnd(time);
            _ = s.daily.TryGetSession(time, out _, out _);
        }, iterations: 100_000);

        Assert.Equal(0, bytes);
    }
}
