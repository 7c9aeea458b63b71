using System.Runtime.CompilerServices;
using RapidFix.Engine.Configuration;

namespace RapidFix.Engine.Sessions.Scheduling;

/// <summary>The shape of a schedule.</summary>
public enum ScheduleKind
{
    /// <summary>NonStopSession=Y: always in session, never a new session.</summary>
    NonStop,

    /// <summary>StartTime/EndTime every day (or every listed weekday).</summary>
    Daily,

    /// <summary>StartDay StartTime to EndDay EndTime every week.</summary>
    Weekly,
}

/// <summary>
/// When a FIX session is up: a daily window (StartTime to EndTime), a weekly one (StartDay StartTime to EndDay
/// EndTime), daily windows on chosen weekdays, or non-stop; in a time zone (TimeZone, UseLocalTime, UTC by default).
/// </summary>
/// <remarks>
/// <para>Each session is a window [start, end) of UTC instants: its start and end are wall-clock times in the zone,
/// converted through a precomputed offset table, so DST is honoured (a 09:00 start is 09:00 local in winter and in
/// summer). An EndTime at or before StartTime ends the window on the next day (a session across midnight, or with
/// StartTime = EndTime a 24-hour session that still ends, and resets, every day). A wall-clock time skipped by a
/// DST transition means the instant the clocks jump to; one that occurs twice means its first occurrence.</para>
/// <para><see cref="IsInSession(DateTime)"/>, <see cref="IsSameSession"/>, <see cref="NextSessionEnd"/> and
/// <see cref="TryGetSession"/> are the continuous-phase checks: they take the time as a parameter, allocate nothing
/// and are safe to call from any thread. Times must be UTC (<see cref="DateTimeKind.Utc"/>, or Unspecified taken as
/// UTC); a local DateTime is a programming error.</para>
/// </remarks>
public sealed class SessionSchedule
{
    private const long TicksPerDay = TimeSpan.TicksPerDay;

    private readonly ZoneOffsetTable _zone;
    private readonly long _startTimeTicks;
    private readonly long _endTimeTicks;
    private readonly int _endDayOffset;   // days from a window's start day to its end day
    private readonly int _activeDays;     // bit per DayOfWeek: days a window may start on

    private SessionSchedule(ScheduleKind kind, TimeZoneInfo zone, TimeOnly startTime, TimeOnly endTime, DayOfWeek startDay, DayOfWeek endDay, int activeDays, int endDayOffset)
    {
        Kind = kind;
        TimeZone = zone;
        StartTime = startTime;
        EndTime = endTime;
        StartDay = startDay;
        EndDay = endDay;
        _zone = ZoneOffsetTable.For(zone);
        _startTimeTicks = startTime.Ticks;
        _endTimeTicks = endTime.Ticks;
        _activeDays = activeDays;
        _endDayOffset = endDayOffset;
    }

    /// <summary>Always in session; never a new session.</summary>
    public static SessionSchedule NonStop { get; } =
        new(ScheduleKind.NonStop, TimeZoneInfo.Utc, TimeOnly.MinValue, TimeOnly.MinValue, default, default, 0x7F, 0);

    /// <summary>Non-stop, daily, weekly or on chosen weekdays.</summary>
    public ScheduleKind Kind { get; }

    /// <summary>The zone StartTime and EndTime are read in.</summary>
    public TimeZoneInfo TimeZone { get; }

    /// <summary>The time of day the session starts, in <see cref="TimeZone"/>.</summary>
    public TimeOnly StartTime { get; }

    /// <summary>The time of day the session ends, in <see cref="TimeZone"/>.</summary>
    public TimeOnly EndTime { get; }

    /// <summary>For weekly schedules: the day the session starts.</summary>
    public DayOfWeek StartDay { get; }

    /// <summary>For weekly schedules: the day the session ends.</summary>
    public DayOfWeek EndDay { get; }

    /// <summary>The weekdays a window may start on (all seven for a plain daily schedule).</summary>
    public IReadOnlyList<DayOfWeek> ActiveDays =>
        Enumerable.Range(0, 7).Where(d => (_activeDays & (1 << d)) != 0).Select(d => (DayOfWeek)d).ToArray();

    /// <summary>A session every day (or only on <paramref name="days"/>, the days it starts on) from start to end.</summary>
    public static SessionSchedule Daily(TimeOnly start, TimeOnly end, TimeZoneInfo? zone = null, IEnumerable<DayOfWeek>? days = null)
    {
        int mask = 0x7F;
        if (days is not null)
        {
            mask = 0;
            foreach (var day in days)
            {
                mask |= 1 << (int)day;
            }

            if (mask == 0)
            {
                throw new ArgumentException("A daily schedule needs at least one day.", nameof(days));
            }
        }

        return new(ScheduleKind.Daily, zone ?? TimeZoneInfo.Utc, start, end, default, default, mask, end <= start ? 1 : 0);
    }

    /// <summary>A session every week from <paramref name="startDay"/> <paramref name="startTime"/> to the next <paramref name="endDay"/> <paramref name="endTime"/>.</summary>
    public static SessionSchedule Weekly(DayOfWeek startDay, TimeOnly startTime, DayOfWeek endDay, TimeOnly endTime, TimeZoneInfo? zone = null)
    {
        int span = ((int)endDay - (int)startDay + 7) % 7;
        if (span == 0 && endTime <= startTime)
        {
            span = 7;
        }

        return new(ScheduleKind.Weekly, zone ?? TimeZoneInfo.Utc, startTime, endTime, startDay, endDay, 1 << (int)startDay, span);
    }

    /// <summary>
    /// The schedule a session's settings describe (NonStopSession, StartTime, EndTime, StartDay, EndDay, Weekdays,
    /// TimeZone, UseLocalTime). Conflicting or missing keys are a <see cref="ConfigurationException"/> at their line;
    /// NonStopSession=Y overrides the others.
    /// </summary>
    public static SessionSchedule FromSettings(SettingsView settings)
    {
        ArgumentNullException.ThrowIfNull(settings);
        if (settings.GetBool(SettingKeys.NonStopSession))
        {
            return NonStop; // schedule keys beside it have no effect (a settings warning, as QuickFIX/J accepts them)
        }

        if (!settings.Has(SettingKeys.StartTime))
        {
            throw settings.Missing(SettingKeys.StartTime, "a session needs StartTime and EndTime unless NonStopSession=Y");
        }

        if (!settings.Has(SettingKeys.EndTime))
        {
            throw settings.Missing(SettingKeys.EndTime, "a session needs StartTime and EndTime unless NonStopSession=Y");
        }

        bool hasStartDay = settings.Has(SettingKeys.StartDay);
        bool hasEndDay = settings.Has(SettingKeys.EndDay);
        if (hasStartDay != hasEndDay)
        {
            string present = hasStartDay ? SettingKeys.StartDay : SettingKeys.EndDay;
            string absent = hasStartDay ? SettingKeys.EndDay : SettingKeys.StartDay;
            settings.TryGetValue(present, out var value);
            throw settings.Error(present, value, $"is set without {absent}: a weekly session needs both");
        }

        if (settings.Has(SettingKeys.Weekdays) && hasStartDay)
        {
            settings.TryGetValue(SettingKeys.Weekdays, out var value);
            throw settings.Error(SettingKeys.Weekdays, value, "conflicts with StartDay/EndDay: use either weekly or weekday sessions");
        }

        TimeZoneInfo zone = TimeZoneInfo.Utc;
        if (settings.GetBool(SettingKeys.UseLocalTime))
        {
            if (settings.TryGetValue(SettingKeys.TimeZone, out var value) && !value.IsDefault)
            {
                throw settings.Error(SettingKeys.TimeZone, value, "conflicts with UseLocalTime=Y: use one or the other");
            }

            zone = TimeZoneInfo.Local;
        }
        else if (settings.Has(SettingKeys.TimeZone))
        {
            zone = settings.GetTimeZone(SettingKeys.TimeZone);
        }

        var start = settings.GetTimeOfDay(SettingKeys.StartTime);
        var end = settings.GetTimeOfDay(SettingKeys.EndTime);
        if (hasStartDay)
        {
            return Weekly(settings.GetDayOfWeek(SettingKeys.StartDay), start, settings.GetDayOfWeek(SettingKeys.EndDay), end, zone);
        }

        return Daily(start, end, zone, settings.Has(SettingKeys.Weekdays) ? settings.GetDays(SettingKeys.Weekdays) : null);
    }

    /// <summary>True when <paramref name="utc"/> falls inside a session window.</summary>
    public bool IsInSession(DateTime utc) => TryGetSessionTicks(UtcTicks(utc), out _, out _);

    /// <summary>
    /// True when no session ends between the two instants (in either order): a store created at
    /// <paramref name="utcA"/> still belongs to the session current at <paramref name="utcB"/>. False means a new
    /// session has begun since, so sequence numbers are reset. Always true for a non-stop schedule.
    /// </summary>
    public bool IsSameSession(DateTime utcA, DateTime utcB)
    {
        if (Kind == ScheduleKind.NonStop)
        {
            return true;
        }

        long a = UtcTicks(utcA), b = UtcTicks(utcB);
        long lo = Math.Min(a, b), hi = Math.Max(a, b);
        return hi < NextEndTicks(lo);
    }

    /// <summary>The end of the first session window that ends after <paramref name="utc"/>; <see cref="DateTime.MaxValue"/> for a non-stop schedule.</summary>
    public DateTime NextSessionEnd(DateTime utc)
    {
        long ticks = UtcTicks(utc);
        return Kind == ScheduleKind.NonStop ? DateTime.MaxValue : new DateTime(NextEndTicks(ticks), DateTimeKind.Utc);
    }

    /// <summary>The window containing <paramref name="utc"/>, as UTC instants [start, end); false outside any session.</summary>
    public bool TryGetSession(DateTime utc, out DateTime startUtc, out DateTime endUtc)
    {
        bool inSession = TryGetSessionTicks(UtcTicks(utc), out long start, out long end);
        startUtc = new DateTime(start, DateTimeKind.Utc);
        endUtc = new DateTime(end, DateTimeKind.Utc);
        return inSession;
    }

    private bool TryGetSessionTicks(long utc, out long start, out long end)
    {
        if (Kind == ScheduleKind.NonStop)
        {
            start = DateTime.MinValue.Ticks;
            end = DateTime.MaxValue.Ticks;
            return true;
        }

        long localDay = _zone.ToLocal(utc) / TicksPerDay;

        // Windows that could contain the instant started at most _endDayOffset days (plus one for DST) before it.
        for (long day = localDay + 1; day >= localDay - _endDayOffset - 1; day--)
        {
            if (IsActive(day) && day >= 1)
            {
                start = WindowStart(day);
                end = WindowEnd(day);
                if (start <= utc && utc < end)
                {
                    return true;
                }
            }
        }

        start = 0;
        end = 0;
        return false;
    }

    private long NextEndTicks(long utc)
    {
        long localDay = _zone.ToLocal(utc) / TicksPerDay;
        long best = long.MaxValue;
        for (long day = localDay - _endDayOffset - 1; day <= localDay + 8; day++)
        {
            if (IsActive(day) && day >= 1)
            {
                long end = WindowEnd(day);
                if (end > utc && end < best)
                {
                    best = end;
                }
            }
        }

        return best;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private bool IsActive(long day) => (_activeDays & (1 << (int)((day + 1) % 7))) != 0; // day 0 (0001-01-01) was a Monday

    private long WindowStart(long day) => _zone.ToUtc((day * TicksPerDay) + _startTimeTicks);

    private long WindowEnd(long day) => _zone.ToUtc(((day + _endDayOffset) * TicksPerDay) + _endTimeTicks);

    private static long UtcTicks(DateTime utc)
    {
        if (utc.Kind == DateTimeKind.Local)
        {
            ThrowLocalTime();
        }

        return utc.Ticks;
    }

    private static void ThrowLocalTime() =>
        throw new ArgumentException("Session schedules take UTC times; a DateTime of kind Local was passed.");

    /// <summary>The schedule as a settings-like line, for logs.</summary>
    public override string ToString() => Kind switch
    {
        ScheduleKind.NonStop => "non-stop",
        ScheduleKind.Weekly => $"weekly {StartDay} {StartTime:HH:mm:ss} to {EndDay} {EndTime:HH:mm:ss} ({TimeZone.Id})",
        _ => $"daily {StartTime:HH:mm:ss} to {EndTime:HH:mm:ss} on {string.Join(",", ActiveDays)} ({TimeZone.Id})",
    };
}
