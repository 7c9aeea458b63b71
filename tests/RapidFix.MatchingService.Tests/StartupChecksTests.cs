using RapidFix.Engine.Configuration;
using RapidFix.TradeDriver;

namespace RapidFix.MatchingService.Tests;

/// <summary>Settings and journals the service cannot honour are refused at startup, with the key and the reason.</summary>
[Collection(nameof(ServiceProcesses))]
public sealed class StartupChecksTests : IDisposable
{
    private readonly string _work = Path.Combine(Path.GetTempPath(), "rapidfix-startup-" + Guid.NewGuid().ToString("N"));

    public void Dispose()
    {
        if (Directory.Exists(_work))
        {
            Directory.Delete(_work, recursive: true);
        }
    }

    [Theory]
    [InlineData("StoreSyncBeforeSend=Y", "StoreSyncBeforeSend=N", "StoreSyncBeforeSend")]
    [InlineData("StoreSyncBeforeSend=Y", "StoreSyncBeforeSend=Y\nResetOnLogon=Y", "ResetOnLogon")]
    [InlineData("FileStorePath=store", "StoreType=express", "StoreType")]
    [InlineData("ConnectionType=acceptor", "ConnectionType=initiator\nSocketConnectHost=127.0.0.1\nSocketConnectPort=1\nHeartBtInt=30", "ConnectionType")]
    public void A_setting_the_restart_rule_cannot_honour_is_refused(string line, string replacement, string key)
    {
        var error = Assert.Throws<ConfigurationException>(() => Start(Settings().Replace(line, replacement, StringComparison.Ordinal), 20261123));
        Assert.True(error.Key == key || error.Message.Contains(key, StringComparison.Ordinal), error.Message);
    }

    [Fact]
    public void A_journal_of_another_business_date_is_refused()
    {
        Start(Settings(), 20261123).Stop();
        var error = Assert.Throws<ConfigurationException>(() => Start(Settings(), 20261124));
        Assert.Contains("20261123", error.Message, StringComparison.Ordinal);
        // The same date starts again (and replays the journal: nothing in it but the date).
        var server = Start(Settings(), 20261123);
        Assert.Equal(0, server.Replay.Inputs);
        server.Stop();
    }

    private static string Settings() => Verifier.ServiceSettings(TradeGenerator.Participants, "MATCH", 1000);

    private MatchingServer Start(string settings, int businessDate) => StartSmall(_work, settings, businessDate);

    /// <summary>
    /// A small service (1,000 inputs, no warm-up) on a free port with its settings, data and log under
    /// <paramref name="work"/>; <paramref name="configure"/> changes further options.
    /// </summary>
    internal static MatchingServer StartSmall(string work, string settings, int businessDate, Func<ServiceOptions, ServiceOptions>? configure = null)
    {
        Directory.CreateDirectory(work);
        string config = Path.Combine(work, "service.cfg");
        File.WriteAllText(config, settings);
        var options = new ServiceOptions
        {
            SettingsPath = config,
            StaticDataPath = DocumentedExamplesTests.GeneratedStaticData,
            Port = Participants.FreePort(),
            DataDirectory = Path.Combine(work, "data"),
            BusinessDate = businessDate,
            WarmUp = false,
            LogPath = Path.Combine(work, "engine.log"),
            MaxInputs = 1000,
            InputJournalBytes = 16 << 20,
        };
        return MatchingServer.Start(configure is null ? options : configure(options));
    }
}
