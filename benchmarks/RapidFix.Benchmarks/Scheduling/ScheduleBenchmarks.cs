using BenchmarkDotNet.Attributes;
using RapidFix.Engine.Sessions.Scheduling;

namespace RapidFix.Benchmarks.Scheduling;

/// <summary>The schedule checks a session makes on every timer tick, in a DST zone (tz data of the machine).</summary>
public class ScheduleBenchmarks
{
    private SessionSchedule _weekly = null!;
    private SessionSchedule _daily = null!;
    private DateTime _now;
    private DateTime _created;

    [GlobalSetup]
    public void Setup()
    {
        var zone = TimeZoneInfo.FindSystemTimeZoneById("America/New_York");
        _weekly = SessionSchedule.Weekly(DayOfWeek.Sunday, new TimeOnly(17, 0), DayOfWeek.Friday, new TimeOnly(17, 0), zone);
        _daily = SessionSchedule.Daily(new TimeOnly(22, 0), new TimeOnly(6, 0), zone);
        _now = new DateTime(2025, 3, 12, 15, 30, 0, DateTimeKind.Utc);
        _created = _now.AddHours(-20);
    }

    [Benchmark]
    public bool WeeklyIsInSession() => _weekly.IsInSession(_now);

    [Benchmark]
    public bool DailyIsInSession() => _daily.IsInSession(_now);

    [Benchmark]
    public bool WeeklyIsSameSession() => _weekly.IsSameSession(_created, _now);
}
