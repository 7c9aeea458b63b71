namespace RapidFix.MatchingService;

/// <summary>
/// The business-date roll: when the engine's cached clock passes the roll time of the current business date (UTC),
/// the service moves to the next business day (Monday to Friday) and the matcher expires what stayed open too long
/// (<c>Matcher.AdvanceBusinessDate</c>). The roll is an input like any other: journalled (a control record:
/// empty sender, the new date where a message's store generation goes, no message) and queued in the input ring, so
/// it happens at the same point among the inputs in a replay. Date arithmetic here is on integers and
/// <see cref="DateOnly"/> values: nothing allocates.
/// </summary>
internal static class BusinessDateRoll
{
    private const long NanosPerDay = 86_400L * 1_000_000_000L;
    private const int UnixEpochDayNumber = 719_162; // 1970-01-01 as DateOnly.DayNumber

    /// <summary>The business day after <paramref name="yyyymmdd"/>: the next Monday to Friday.</summary>
    public static int Next(int yyyymmdd)
    {
        var day = ToDate(yyyymmdd).AddDays(1);
        while (day.DayOfWeek is DayOfWeek.Saturday or DayOfWeek.Sunday)
        {
            day = day.AddDays(1);
        }

        return (day.Year * 10_000) + (day.Month * 100) + day.Day;
    }

    /// <summary>When business date <paramref name="yyyymmdd"/> ends: that date at <paramref name="rollTime"/> (UTC), in Unix nanoseconds.</summary>
    public static long RollInstantNanos(int yyyymmdd, TimeSpan rollTime) =>
        ((long)(ToDate(yyyymmdd).DayNumber - UnixEpochDayNumber) * NanosPerDay) + (rollTime.Ticks * 100);

    private static DateOnly ToDate(int yyyymmdd) => new(yyyymmdd / 10_000, yyyymmdd / 100 % 100, yyyymmdd % 100);
}
