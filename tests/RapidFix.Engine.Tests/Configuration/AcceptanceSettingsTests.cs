using RapidFix.Engine.Configuration;
using RapidFix.Tests.Shared;

namespace RapidFix.Engine.Tests.Configuration;

/// <summary>The QuickFIX settings files the acceptance scripts assume load unchanged.</summary>
public sealed class AcceptanceSettingsTests
{
    [SharedDataTheory]
    [InlineData("at_42.cfg", "FIX.4.2", 5003)]
    [InlineData("at_44.cfg", "FIX.4.4", 5005)]
    [InlineData("at_50_sp2.cfg", "FIXT.1.1", 5008)]
    [InlineData("at_42.misc.cfg", "FIX.4.2", 5003)]
    public void Acceptance_settings_load_with_the_expected_session(string fileName, string beginString, int port)
    {
        var file = SettingsFile.Load(SharedData.PathOf("fix", "acceptance", fileName));

        var session = Assert.Single(file.Sessions);
        Assert.Equal(beginString, session.SessionId.BeginString);
        Assert.Equal("ISLD", session.SessionId.SenderCompId);
        Assert.Equal("TW", session.SessionId.TargetCompId);
        Assert.True(session.IsAcceptor);
        Assert.Equal(port, session.GetInt(SettingKeys.SocketAcceptPort));
        Assert.True(session.GetBool(SettingKeys.ResetOnLogon));
        Assert.True(session.GetBool(SettingKeys.SocketReuseAddress));
        Assert.Equal(TimeOnly.MinValue, session.GetTimeOfDay(SettingKeys.StartTime));
        Assert.Equal(TimeOnly.MinValue, session.GetTimeOfDay(SettingKeys.EndTime));
        Assert.Equal("store", session.GetString(SettingKeys.FileStorePath));

        // Verbose is the only key of these files RapidFix does not act on, and it is reported, not dropped.
        var warning = Assert.Single(file.Warnings);
        Assert.Equal(SettingsWarningKind.IgnoredKey, warning.Kind);
        Assert.Equal("Verbose", warning.Key);
        Assert.Equal(2, warning.Line);
    }

    [SharedDataFact]
    public void Fix50sp2_settings_carry_the_application_version_and_both_dictionaries()
    {
        var session = SettingsFile.Load(SharedData.PathOf("fix", "acceptance", "at_50_sp2.cfg")).Sessions[0];

        Assert.True(session.SessionId.IsFixt);
        Assert.Equal("FIX.5.0SP2", session.GetChoice(SettingKeys.DefaultApplVerId));
        Assert.Equal(@"spec\fix\FIX50SP2.xml", session.GetString(SettingKeys.AppDataDictionary));
        Assert.Equal(@"spec\fix\FIXT11.xml", session.GetString(SettingKeys.TransportDataDictionary));
    }

    [SharedDataFact]
    public void Misc_settings_add_sub_and_location_ids_and_their_session_options()
    {
        var session = SettingsFile.Load(SharedData.PathOf("fix", "acceptance", "at_42.misc.cfg")).Sessions[0];

        Assert.Equal(new SessionId("FIX.4.2", "ISLD", "TW", "SENDERSUB", "SENDERLOC", "TARGETSUB", "TARGETLOC"), session.SessionId);
        Assert.True(session.GetBool(SettingKeys.EnableLastMsgSeqNumProcessed));
        Assert.Equal(2500, session.GetInt(SettingKeys.MaxMessagesInResendRequest));
        Assert.True(session.GetBool(SettingKeys.SendLogoutBeforeDisconnectFromTimeout));
    }
}
