using System.Text;
using RapidFix.Engine.Sessions;
using RapidFix.Tests.Shared;
using RapidFix.TradeDriver;

namespace RapidFix.MatchingService.Tests;

/// <summary>
/// The business-date roll: a trade still open after the expiry's business days goes to the exception queue and each
/// of its messages' senders is told; the roll is journalled among the inputs, so a restart replays it at the same
/// point (same date, same expiries, nothing sent twice); the roll time on the engine's clock triggers it.
/// </summary>
[Collection(nameof(ServiceProcesses))]
public sealed class BusinessDateRollTests : IDisposable
{
    private readonly string _work = Path.Combine(Path.GetTempPath(), "rapidfix-roll-" + Guid.NewGuid().ToString("N"));

    public void Dispose()
    {
        if (Directory.Exists(_work))
        {
            Directory.Delete(_work, recursive: true);
        }
    }

    [Fact]
    public void A_trade_still_open_after_the_expiry_days_expires_its_senders_are_told_and_a_restart_replays_it()
    {
        var examples = DocumentedExamplesTests.Examples();
        var server = Start(20261123, rollTime: null);
        var collector = new AnswerCollector { KeepText = true };
        using (var participants = new Participants(TradeGenerator.Participants, "MATCH", "127.0.0.1", server.Port, collector))
        {
            Assert.True(participants.WaitForLogons(TimeSpan.FromSeconds(30)), "logons");
            foreach (var name in new[] { "NOE", "ALC-A" }) // an incomplete trade
            {
                var (sender, type, body) = DocumentedExamplesTests.Inbound(examples[name]);
                Assert.Equal(SendResult.Sent, participants[sender].Send(Encoding.ASCII.GetBytes(type), Encoding.ASCII.GetBytes(body)));
            }

            Wait.Until(() => collector.Acks == 2, "the two acks");

            // Two business days later the trade is still open: nothing expires.
            Assert.Equal(20261124, server.RollBusinessDate());
            Assert.Equal(20261125, server.RollBusinessDate());
            Wait.Until(() => server.Rolls == 2, "two rolls");
            Thread.Sleep(200);
            Assert.Equal(0, server.Expired);
            Assert.DoesNotContain(collector.Texts, t => t.Contains("EXPIRED", StringComparison.Ordinal));

            // The third: it expires, and the sender of each of its messages gets a notice.
            Assert.Equal(20261126, server.RollBusinessDate());
            Wait.Until(() => collector.Texts.Count(t => t.Contains("EXPIRED", StringComparison.Ordinal)) == 2, "two expiry notices");
            var notices = collector.Texts.Where(t => t.Contains("EXPIRED", StringComparison.Ordinal)).ToList();
            Assert.Contains(notices, t => t.Contains("|35=j|", StringComparison.Ordinal) && t.Contains("|56=EB1|", StringComparison.Ordinal) &&
                                          t.Contains("|372=AE|", StringComparison.Ordinal) && t.Contains("|379=NOE-1001|", StringComparison.Ordinal));
            Assert.Contains(notices, t => t.Contains("|35=j|", StringComparison.Ordinal) && t.Contains("|56=IM1|", StringComparison.Ordinal) &&
                                          t.Contains("|372=J|", StringComparison.Ordinal));
            Assert.Equal(1, server.Expired);
            Assert.Equal(20261126, server.BusinessDate);
        }

        server.Stop();

        // The restart replays the inputs and the rolls in their order: same date, same expiry, and the four answers
        // (two acks, two notices) are found in the participants' stores, not sent again.
        var restarted = Start(20261123, rollTime: null);
        try
        {
            Assert.Equal(2, restarted.Replay.Inputs);
            Assert.Equal(20261126, restarted.BusinessDate);
            Assert.Equal(1, restarted.Expired);
            Assert.Equal(4, restarted.Replay.AnswersSuppressed);
            Assert.Equal(0, restarted.Replay.AnswersToSend);
        }
        finally
        {
            restarted.Stop();
        }
    }

    [Fact]
    public void The_roll_time_on_the_engine_clock_rolls_to_the_business_day_after_today_and_the_rolls_are_journalled()
    {
        // A journal begun a week ago, the roll at midnight: every business date up to today has ended.
        var today = DateOnly.FromDateTime(DateTime.UtcNow);
        int start = Date(WeekdayOnOrBefore(today.AddDays(-7)));
        int expected = Date(NextWeekday(today));

        var server = Start(start, rollTime: TimeSpan.Zero);
        try
        {
            Wait.Until(() => server.BusinessDate == expected, () => $"the roll to {expected} (at {server.BusinessDate})");
            Thread.Sleep(200);
            Assert.Equal(expected, server.BusinessDate); // and no further: tomorrow's roll time has not come
        }
        finally
        {
            server.Stop();
        }

        // Without a roll time the restart still ends in that date: the rolls are in the journal.
        var restarted = Start(start, rollTime: null);
        try
        {
            Assert.Equal(expected, restarted.BusinessDate);
        }
        finally
        {
            restarted.Stop();
        }
    }

    [Fact]
    public void A_roll_date_is_the_next_weekday()
    {
        Assert.Equal(20261124, BusinessDateRoll.Next(20261123)); // Monday to Tuesday
        Assert.Equal(20261130, BusinessDateRoll.Next(20261127)); // Friday to Monday
        Assert.Equal(20270101, BusinessDateRoll.Next(20261231));
        Assert.Equal(new DateTimeOffset(2026, 11, 23, 22, 30, 0, TimeSpan.Zero).ToUnixTimeMilliseconds() * 1_000_000,
            BusinessDateRoll.RollInstantNanos(20261123, new TimeSpan(22, 30, 0)));
    }

    private static DateOnly WeekdayOnOrBefore(DateOnly day)
    {
        while (day.DayOfWeek is DayOfWeek.Saturday or DayOfWeek.Sunday)
        {
            day = day.AddDays(-1);
        }

        return day;
    }

    private static DateOnly NextWeekday(DateOnly day)
    {
        do
        {
            day = day.AddDays(1);
        }
        while (day.DayOfWeek is DayOfWeek.Saturday or DayOfWeek.Sunday);
        return day;
    }

    private static int Date(DateOnly day) => (day.Year * 10_000) + (day.Month * 100) + day.Day;

    private MatchingServer Start(int businessDate, TimeSpan? rollTime) =>
        StartupChecksTests.StartSmall(_work, Verifier.ServiceSettings(TradeGenerator.Participants, "MATCH", 1000), businessDate,
            o => o with { RollTime = rollTime, ExpiryBusinessDays = 3 });
}
