using RapidFix.Persister;
using Xunit.Abstractions;

namespace RapidFix.Persistence.Tests;

/// <summary>
/// The fault runs of issue 11, small (CI): each is a real service run (TradeDriver generate, the service's
/// executable, TradeDriver verify over FIX sessions) persisted while the fault happens, then counted against the
/// journals and the generator's expected outcomes. The full-size runs: <c>RapidFix.Persister fault ...</c>.
/// </summary>
[Collection(nameof(PersisterProcesses))]
public sealed class FaultTests(ITestOutputHelper output) : IDisposable
{
    private const int Trades = 40;
    private readonly TempDir _work = new();
    private readonly LogBuffer _log = new();

    public void Dispose()
    {
        output.WriteLine(_log.ToString());
        _work.Dispose();
    }

    [PostgresFact]
    public void PostgreSQL_stopped_mid_run_the_persister_retries_and_catches_up_exactly_once()
    {
        var result = Faults.DatabaseOutage(Path.Combine(_work.Path, "run"), Trades, TimeSpan.FromSeconds(3), _log);
        Assert.True(result.Ok, result + "\n" + _log);
        Assert.True(result.Cls > 0 && result.Rejections > 0, result.ToString());
    }

    [PostgresFact]
    public void Persister_killed_at_random_points_restarts_and_writes_everything_exactly_once()
    {
        var result = Faults.KillPersister(Path.Combine(_work.Path, "run"), Trades, points: 3, seed: 5, _log);
        Assert.True(result.Ok, result + "\n" + _log);
    }

    [PostgresFact]
    public void Matching_service_killed_at_random_points_restarts_no_acknowledged_message_lost_database_exactly_once()
    {
        var result = Faults.KillService(Path.Combine(_work.Path, "run"), Trades, points: 2, seed: 7, _log);
        Assert.True(result.Ok, result + "\n" + _log);
        Assert.True(result.Cls > 0, result.ToString());
    }

    [PostgresFact]
    public void One_of_two_databases_down_the_other_keeps_flowing_and_the_stalled_one_catches_up()
    {
        var (whileDown, atEnd) = Faults.OneOfTwoDown(Path.Combine(_work.Path, "run"), Trades, _log);
        Assert.True(whileDown.Ok, "while down: " + whileDown + "\n" + _log);
        Assert.True(atEnd.Ok, "at the end: " + atEnd + "\n" + _log);
    }
}
