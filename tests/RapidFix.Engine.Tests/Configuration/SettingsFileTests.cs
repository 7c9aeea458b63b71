using RapidFix.Engine.Configuration;

namespace RapidFix.Engine.Tests.Configuration;

public sealed class SettingsFileTests
{
    private const string Acceptor = """
        # comment
        ; also a comment
        [DEFAULT]
        ConnectionType=acceptor
        SocketAcceptPort=5001
        SenderCompID=ISLD
        StartTime=00:00:00
        EndTime=00:00:00
        HeartBtInt=30

        [SESSION]
        BeginString=FIX.4.2
        TargetCompID=TW
        HeartBtInt=45

        [SESSION]
        BeginString=FIX.4.4
        TargetCompID=TW
        """;

    [Fact]
    public void Sessions_inherit_default_and_override_it()
    {
        var file = SettingsFile.Parse(Acceptor, "test.cfg");

        Assert.Equal(2, file.Sessions.Count);
        Assert.Empty(file.Warnings);
        var fix42 = file.Sessions[0];
        var fix44 = file.Sessions[1];
        Assert.Equal(new SessionId("FIX.4.2", "ISLD", "TW"), fix42.SessionId);
        Assert.Equal(new SessionId("FIX.4.4", "ISLD", "TW"), fix44.SessionId);
        Assert.Equal(TimeSpan.FromSeconds(45), fix42.GetTimeSpan(SettingKeys.HeartBtInt));
        Assert.Equal(TimeSpan.FromSeconds(30), fix44.GetTimeSpan(SettingKeys.HeartBtInt));
        Assert.Equal(5001, fix44.GetInt(SettingKeys.SocketAcceptPort));
        Assert.True(fix42.IsAcceptor);
        Assert.True(fix42.TryGetValue(SettingKeys.HeartBtInt, out var own));
        Assert.Equal(14, own.Line);
        Assert.Same(fix42.Section, own.Section);
        Assert.True(fix44.TryGetValue(SettingKeys.HeartBtInt, out var inherited));
        Assert.Equal(9, inherited.Line);
        Assert.Same(file.DefaultSection, inherited.Section);
    }

    [Fact]
    public void Absent_keys_fall_back_to_the_catalogue_default_but_do_not_count_as_set()
    {
        var session = SettingsFile.Parse(Acceptor).Sessions[0];

        Assert.False(session.Has(SettingKeys.ResetOnLogon));
        Assert.False(session.GetBool(SettingKeys.ResetOnLogon));
        Assert.True(session.GetBool(SettingKeys.PersistMessages));
        Assert.Equal(TimeSpan.FromSeconds(10), session.GetTimeSpan(SettingKeys.LogonTimeout));
        Assert.Equal(TimeSpan.FromSeconds(120), session.GetTimeSpan(SettingKeys.MaxLatency));
        Assert.Equal("GroupCommit", session.GetChoice(SettingKeys.StoreFlushPolicy));
        Assert.Null(session.GetStringOrNull(SettingKeys.FileStorePath));
        var missing = Assert.Throws<ConfigurationException>(() => session.GetString(SettingKeys.FileStorePath));
        Assert.Equal(SettingKeys.FileStorePath, missing.Key);
        Assert.Equal(11, missing.Line);
    }

    [Fact]
    public void Keys_are_matched_ignoring_case_and_values_are_trimmed()
    {
        var file = SettingsFile.Parse("[DEFAULT]\r\nconnectiontype = Acceptor \r\nsocketacceptport=7000\r\n[session]\r\nbeginstring=FIX.4.4\r\nSENDERCOMPID= A \r\ntargetcompid=B\r\n");

        var session = Assert.Single(file.Sessions);
        Assert.Equal(new SessionId("FIX.4.4", "A", "B"), session.SessionId);
        Assert.Equal("acceptor", session.GetChoice(SettingKeys.ConnectionType));
        Assert.Equal(7000, session.GetInt(SettingKeys.SocketAcceptPort));
    }

    [Fact]
    public void A_hash_inside_a_value_is_part_of_the_value()
    {
        var file = SettingsFile.Parse(Acceptor + "\nSenderSubID=desk#1\n");

        Assert.Equal("desk#1", file.Sessions[1].SessionId.SenderSubId);
    }

    [Fact]
    public void Unknown_keys_are_reported_with_line_section_and_a_suggestion()
    {
        var file = SettingsFile.Parse(Acceptor + "\nHeartBtIntt=5\nFooBarBaz=1\n", "x.cfg");

        Assert.Equal(2, file.Warnings.Count);
        var typo = file.Warnings[0];
        Assert.Equal(SettingsWarningKind.UnknownKey, typo.Kind);
        Assert.Equal("x.cfg", typo.FilePath);
        Assert.Equal(19, typo.Line);
        Assert.Equal("[SESSION] #2", typo.Section);
        Assert.Equal("HeartBtIntt", typo.Key);
        Assert.Contains("did you mean HeartBtInt?", typo.Message, StringComparison.Ordinal);
        Assert.Equal(20, file.Warnings[1].Line);
        Assert.DoesNotContain("did you mean", file.Warnings[1].Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Unsupported_ignored_and_repeated_keys_stray_lines_and_unknown_sections_are_reported()
    {
        string text = """
            Orphan=1
            [DEFAULT]
            ConnectionType=acceptor
            SocketAcceptPort=1
            SocketIgnoreProxy=Y
            Verbose=Y
            just some words
            [SESSION]
            BeginString=FIX.4.2
            SenderCompID=A
            TargetCompID=B
            TargetCompID=C
            [LOGGING]
            Level=debug
            """;

        var file = SettingsFile.Parse(text);

        Assert.Equal(
            [
                (SettingsWarningKind.StrayLine, 1),
                (SettingsWarningKind.UnsupportedKey, 5),
                (SettingsWarningKind.IgnoredKey, 6),
                (SettingsWarningKind.StrayLine, 7),
                (SettingsWarningKind.DuplicateKey, 12),
                (SettingsWarningKind.UnknownSection, 13),
            ],
            file.Warnings.Select(w => (w.Kind, w.Line)).ToArray());
        Assert.Equal("C", file.Sessions[0].SessionId.TargetCompId);
    }

    [Theory]
    [InlineData("ResetOnLogon=Yes", "ResetOnLogon", "not a boolean")]
    [InlineData("HeartBtInt=abc", "HeartBtInt", "not a whole number")]
    [InlineData("HeartBtInt=-1", "HeartBtInt", "out of range")]
    [InlineData("SocketAcceptPort=70000", "SocketAcceptPort", "out of range")]
    [InlineData("StartTime=25:00:00", "StartTime", "not a time of day")]
    [InlineData("StartDay=Xyz", "StartDay", "not a day of the week")]
    [InlineData("StartDay=M", "StartDay", "not a day of the week")]
    [InlineData("Weekdays=Mon,Funday", "Weekdays", "not a day of the week")]
    [InlineData("TimeZone=Mars/Olympus_Mons", "TimeZone", "not a time zone")]
    [InlineData("ConnectionType=server", "ConnectionType", "not one of: acceptor, initiator")]
    [InlineData("BeginString=FIX.9.9", "BeginString", "not one of")]
    [InlineData("TimeStampPrecision=Picosecond", "TimeStampPrecision", "not one of")]
    [InlineData("MaxLatency=", "MaxLatency", "empty")]
    [InlineData("StoreMaxMessages=1", "StoreMaxMessages", "out of range")]
    [InlineData("StoreMaxBytes=281474976710657", "StoreMaxBytes", "out of range")]
    [InlineData("StoreWindowBytes=4096", "StoreWindowBytes", "out of range")]
    public void Invalid_values_are_errors_naming_file_line_and_key(string entry, string key, string reason)
    {
        string text = Acceptor + "\n" + entry + "\n";

        var error = Assert.Throws<ConfigurationException>(() => SettingsFile.Parse(text, "bad.cfg"));

        Assert.Equal("bad.cfg", error.FilePath);
        Assert.Equal(19, error.Line);
        Assert.Equal(key, error.Key);
        Assert.Contains(reason, error.Message, StringComparison.Ordinal);
        Assert.StartsWith($"bad.cfg(19): {key}: ", error.Message, StringComparison.Ordinal);
        Assert.Contains("[SESSION] #2", error.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("[SESSION]\nBeginString=FIX.4.2\nSenderCompID=A\nConnectionType=acceptor\nSocketAcceptPort=1\n", "TargetCompID", "every session needs it")]
    [InlineData("[SESSION]\nSenderCompID=A\nTargetCompID=B\nConnectionType=acceptor\nSocketAcceptPort=1\n", "BeginString", "every session needs it")]
    [InlineData("[SESSION]\nBeginString=FIX.4.2\nSenderCompID=A\nTargetCompID=B\nSocketAcceptPort=1\n", "ConnectionType", "every session needs it")]
    [InlineData("[SESSION]\nBeginString=FIXT.1.1\nSenderCompID=A\nTargetCompID=B\nConnectionType=acceptor\nSocketAcceptPort=1\n", "DefaultApplVerID", "FIXT.1.1")]
    [InlineData("[SESSION]\nBeginString=FIX.4.2\nSenderCompID=A\nTargetCompID=B\nConnectionType=acceptor\n", "SocketAcceptPort", "acceptor")]
    [InlineData("[SESSION]\nBeginString=FIX.4.2\nSenderCompID=A\nTargetCompID=B\nConnectionType=initiator\nSocketConnectHost=h\nSocketConnectPort=1\n", "HeartBtInt", "initiator")]
    [InlineData("[SESSION]\nBeginString=FIX.4.2\nSenderCompID=A\nTargetCompID=B\nConnectionType=initiator\nHeartBtInt=30\n", "SocketConnectHost", "initiator")]
    [InlineData("[SESSION]\nBeginString=FIX.4.2\nSenderCompID=\nTargetCompID=B\nConnectionType=acceptor\nSocketAcceptPort=1\n", "SenderCompID", "empty")]
    public void Missing_required_settings_are_errors_at_the_session_header(string text, string key, string reason)
    {
        var error = Assert.Throws<ConfigurationException>(() => SettingsFile.Parse("# header\n" + text, "s.cfg"));

        Assert.Equal(key, error.Key);
        Assert.Contains(reason, error.Message, StringComparison.Ordinal);
        Assert.Equal("s.cfg", error.FilePath);
        Assert.Equal(reason == "empty" ? 4 : 2, error.Line);
    }

    [Fact]
    public void The_same_session_twice_is_an_error_naming_both_sections()
    {
        var error = Assert.Throws<ConfigurationException>(() => SettingsFile.Parse(Acceptor + "\n[SESSION]\nBeginString=FIX.4.2\nTargetCompID=TW\n", "d.cfg"));

        Assert.Equal(19, error.Line);
        Assert.Contains("FIX.4.2:ISLD->TW", error.Message, StringComparison.Ordinal);
        Assert.Contains("[SESSION] #1 on line 11", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Sessions_differing_only_by_qualifier_or_sub_ids_are_distinct()
    {
        var file = SettingsFile.Parse(Acceptor + "\nSessionQualifier=Q2\n[SESSION]\nBeginString=FIX.4.4\nTargetCompID=TW\nTargetSubID=DESK\n");

        Assert.Equal(3, file.Sessions.Count);
        Assert.Equal("FIX.4.4:ISLD->TW:Q2", file.Sessions[1].SessionId.ToString());
        Assert.Equal("FIX.4.4:ISLD->TW/DESK", file.Sessions[2].SessionId.ToString());
        Assert.Same(file.Sessions[2], file.Find(new SessionId("FIX.4.4", "ISLD", "TW", TargetSubId: "DESK")));
    }

    [Fact]
    public void Session_ids_format_like_quickfixn_and_give_distinct_file_names()
    {
        var full = new SessionId("FIX.4.2", "ISLD", "TW", "SS", "SL", "TS", "TL", "Q");
        Assert.Equal("FIX.4.2:ISLD/SS/SL->TW/TS/TL:Q", full.ToString());

        var a = new SessionId("FIX.4.2", "A.B", "C");
        var b = new SessionId("FIX.4.2", "A", "C", SenderSubId: "B");
        var c = new SessionId("FIX.4.2", "A/B", "C");
        string[] names = [a.ToFileName(), b.ToFileName(), c.ToFileName(), full.ToFileName()];
        Assert.Equal(names.Length, names.Distinct(StringComparer.Ordinal).Count());
        Assert.All(names, n => Assert.True(n.All(ch => char.IsAsciiLetterOrDigit(ch) || ch is '.' or '-' or '_'), n));
    }

    [Fact]
    public void Initiator_endpoints_list_primary_then_failovers_in_order()
    {
        string text = """
            [SESSION]
            BeginString=FIX.4.2
            SenderCompID=A
            TargetCompID=B
            ConnectionType=initiator
            HeartBtInt=30
            SocketConnectHost=primary
            SocketConnectPort=1000
            SocketConnectHost1=backup1
            SocketConnectPort1=1001
            SocketConnectHost2=backup2
            SocketConnectPort2=1002
            """;

        var session = SettingsFile.Parse(text).Sessions[0];

        Assert.Equal([("primary", 1000), ("backup1", 1001), ("backup2", 1002)], session.GetConnectEndpoints());
        Assert.False(session.IsAcceptor);
    }

    [Fact]
    public void A_failover_port_without_host_is_an_error_at_its_line()
    {
        string text = "[SESSION]\nBeginString=FIX.4.2\nSenderCompID=A\nTargetCompID=B\nConnectionType=initiator\nHeartBtInt=30\nSocketConnectHost=h\nSocketConnectPort=1\nSocketConnectPort1=2\n";

        var error = Assert.Throws<ConfigurationException>(() => SettingsFile.Parse(text));

        Assert.Equal("SocketConnectPort1", error.Key);
        Assert.Equal(9, error.Line);
        Assert.Contains("no matching SocketConnectHost1", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Typed_values_parse_days_times_lists_and_zones()
    {
        string text = Acceptor + "\nStartDay=mo\nEndDay=Friday\nWeekdays=Mon, tue,WEDNESDAY\nStartTime=9:30\nEndTime=17:45:30\nTimeZone=Eastern Standard Time\nStoreFlushMaxDelayMicroseconds=250\n";

        var session = SettingsFile.Parse(text).Sessions[1];

        Assert.Equal(DayOfWeek.Monday, session.GetDayOfWeek(SettingKeys.StartDay));
        Assert.Equal(DayOfWeek.Friday, session.GetDayOfWeek(SettingKeys.EndDay));
        Assert.Equal([DayOfWeek.Monday, DayOfWeek.Tuesday, DayOfWeek.Wednesday], session.GetDays(SettingKeys.Weekdays));
        Assert.Equal(new TimeOnly(9, 30), session.GetTimeOfDay(SettingKeys.StartTime));
        Assert.Equal(new TimeOnly(17, 45, 30), session.GetTimeOfDay(SettingKeys.EndTime));
        Assert.Equal(TimeSpan.FromMicroseconds(250), session.GetTimeSpan(SettingKeys.StoreFlushMaxDelayMicroseconds));
        var zone = session.GetTimeZone(SettingKeys.TimeZone);
        Assert.Equal(TimeSpan.FromHours(-5), zone.GetUtcOffset(new DateTime(2024, 1, 15, 12, 0, 0, DateTimeKind.Utc)));
        Assert.Equal(TimeSpan.FromHours(-4), zone.GetUtcOffset(new DateTime(2024, 7, 15, 12, 0, 0, DateTimeKind.Utc)));
    }

    [Fact]
    public void Reading_a_key_as_the_wrong_type_names_its_line()
    {
        var session = SettingsFile.Parse(Acceptor, "t.cfg").Sessions[0];

        var error = Assert.Throws<ConfigurationException>(() => session.GetTimeSpan(SettingKeys.SenderCompId));

        Assert.Equal(6, error.Line);
        Assert.Contains("not a duration", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void A_missing_file_is_a_configuration_error_naming_it()
    {
        string path = Path.Combine(Path.GetTempPath(), "rapidfix-no-such-" + Guid.NewGuid().ToString("N") + ".cfg");

        var error = Assert.Throws<ConfigurationException>(() => SettingsFile.Load(path));

        Assert.Equal(path, error.FilePath);
        Assert.Contains("cannot read", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void A_section_header_without_closing_bracket_is_an_error()
    {
        var error = Assert.Throws<ConfigurationException>(() => SettingsFile.Parse("[DEFAULT\nA=1\n", "h.cfg"));

        Assert.Equal(1, error.Line);
    }

    [Fact]
    public void The_catalogue_knows_every_key_the_session_layer_needs()
    {
        string[] required =
        [
            "ConnectionType", "SocketAcceptHost", "SocketAcceptPort", "SocketConnectHost", "SocketConnectPort",
            "SocketConnectHost1", "SocketConnectPort1", "SocketConnectHost12", "ReconnectInterval", "BeginString",
            "SenderCompID", "SenderSubID", "SenderLocationID", "TargetCompID", "TargetSubID", "TargetLocationID",
            "SessionQualifier", "HeartBtInt", "ResetOnLogon", "ResetOnLogout", "ResetOnDisconnect", "RefreshOnLogon",
            "DataDictionary", "TransportDataDictionary", "AppDataDictionary", "DefaultApplVerID", "UseDataDictionary",
            "ValidateFieldsOutOfOrder", "ValidateFieldsHaveValues", "ValidateUserDefinedFields", "AllowUnknownMsgFields",
            "CheckLatency", "MaxLatency", "CheckCompID", "FileStorePath", "FileLogPath", "PersistMessages", "StartTime",
            "EndTime", "StartDay", "EndDay", "TimeZone", "UseLocalTime", "NonStopSession", "LogonTimeout", "LogoutTimeout",
            "SendRedundantResendRequests", "ResendSessionLevelRejects", "MillisecondsInTimeStamp", "TimeStampPrecision",
            "EnableLastMsgSeqNumProcessed", "MaxMessagesInResendRequest", "SendLogoutBeforeDisconnectFromTimeout",
            "IgnorePossDupResendRequests", "RequiresOrigSendingTime", "MaxMessageSize", "MessagePoolSize", "BufferPoolSize",
            "OutboundQueueDepth", "StoreType", "StoreFlushPolicy", "StoreFlushMaxBatch", "StoreFlushMaxDelayMicroseconds",
            "StoreMaxMessages", "StoreMaxBytes",
        ];

        Assert.All(required, key => Assert.Equal(SettingSupport.Supported, SettingsCatalogue.Find(key)?.Support));
        Assert.Null(SettingsCatalogue.Find("HeartBtInt1"));
        Assert.Null(SettingsCatalogue.Find("NoSuchKey"));
        Assert.Equal(SettingsCatalogue.All.Count, SettingsCatalogue.All.Select(d => d.Key.ToUpperInvariant()).Distinct().Count());
        Assert.All(SettingsCatalogue.All.Where(d => d.DefaultValue is not null), d => Assert.Null(SettingValues.Validate(d, d.DefaultValue!)));
    }
}
