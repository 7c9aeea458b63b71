namespace RapidFix.Engine.Configuration;

/// <summary>
/// A QuickFIX-style settings file: a [DEFAULT] section and [SESSION] sections of key=value lines, '#' and ';'
/// comment lines. Sessions inherit every key of [DEFAULT] they do not set themselves.
/// </summary>
/// <remarks>
/// Loading checks every value against <see cref="SettingsCatalogue"/> and every session's identity, and throws a
/// <see cref="ConfigurationException"/> naming file, line and key for the first invalid one. Keys the catalogue
/// does not know (and QuickFIX keys RapidFix does not implement) are reported in <see cref="Warnings"/>, never
/// silently dropped. As in QuickFIX, a value runs to the end of its line ('#' inside a value is kept) and keys are
/// matched ignoring case. Startup code: it allocates freely.
/// </remarks>
public sealed class SettingsFile
{
    private const string DefaultSectionName = "DEFAULT";
    private const string SessionSectionName = "SESSION";

    private SettingsFile(string filePath, SettingsSection defaults, IReadOnlyList<SessionSettings> sessions, IReadOnlyList<SettingsWarning> warnings)
    {
        FilePath = filePath;
        DefaultSection = defaults;
        Defaults = new DefaultSettings(filePath, defaults);
        Sessions = sessions;
        Warnings = warnings;
    }

    /// <summary>The file read, or the source name given to <see cref="Parse(string, string)"/>.</summary>
    public string FilePath { get; }

    /// <summary>The [DEFAULT] section as written (empty when the file has none).</summary>
    public SettingsSection DefaultSection { get; }

    /// <summary>Engine-wide settings: [DEFAULT] and catalogue defaults.</summary>
    public DefaultSettings Defaults { get; }

    /// <summary>One entry per [SESSION] section, in file order.</summary>
    public IReadOnlyList<SessionSettings> Sessions { get; }

    /// <summary>Everything that was accepted but deserves a look: unknown, unsupported or repeated keys, stray lines.</summary>
    public IReadOnlyList<SettingsWarning> Warnings { get; }

    /// <summary>The session with this identity, or null.</summary>
    public SessionSettings? Find(SessionId id) => Sessions.FirstOrDefault(s => s.SessionId == id);

    /// <summary>Reads and checks a settings file.</summary>
    public static SettingsFile Load(string path)
    {
        ArgumentNullException.ThrowIfNull(path);
        string text;
        try
        {
            text = File.ReadAllText(path);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            throw new ConfigurationException($"cannot read the settings file: {e.Message}", path);
        }

        return Parse(text, path);
    }

    /// <summary>Parses and checks settings held in memory; <paramref name="sourceName"/> names them in messages.</summary>
    public static SettingsFile Parse(string text, string sourceName = "<settings>")
    {
        ArgumentNullException.ThrowIfNull(text);
        ArgumentNullException.ThrowIfNull(sourceName);

        var warnings = new List<SettingsWarning>();
        SettingsSection? defaults = null;
        var sessionSections = new List<SettingsSection>();
        SettingsSection? current = null;
        bool currentIsIgnored = false;

        var lines = text.Split('\n');
        for (int index = 0; index < lines.Length; index++)
        {
            int lineNumber = index + 1;
            string line = lines[index].Trim();
            if (line.Length == 0 || line[0] == '#' || line[0] == ';')
            {
                continue;
            }

            if (line[0] == '[')
            {
                if (line[^1] != ']')
                {
                    throw new ConfigurationException($"section header '{line}' has no closing ']'", sourceName, lineNumber);
                }

                string name = line[1..^1].Trim();
                currentIsIgnored = false;
                if (name.Equals(DefaultSectionName, StringComparison.OrdinalIgnoreCase))
                {
                    if (defaults is null)
                    {
                        defaults = new SettingsSection(name, lineNumber, 0);
                    }
                    else
                    {
                        warnings.Add(new(SettingsWarningKind.RepeatedDefaultSection, sourceName, lineNumber, "[" + name + "]", null,
                            $"a second [DEFAULT] section (the first is on line {defaults.HeaderLine}); its keys are merged into the first"));
                    }

                    current = defaults;
                }
                else if (name.Equals(SessionSectionName, StringComparison.OrdinalIgnoreCase))
                {
                    current = new SettingsSection(name, lineNumber, sessionSections.Count + 1);
                    sessionSections.Add(current);
                }
                else
                {
                    warnings.Add(new(SettingsWarningKind.UnknownSection, sourceName, lineNumber, "[" + name + "]", null,
                        $"unknown section [{name}]: only [DEFAULT] and [SESSION] are read; the keys that follow are not used"));
                    current = new SettingsSection(name, lineNumber, 0);
                    currentIsIgnored = true;
                }

                continue;
            }

            int equals = line.IndexOf('=');
            if (equals <= 0)
            {
                warnings.Add(new(SettingsWarningKind.StrayLine, sourceName, lineNumber, current?.DisplayName, null,
                    $"'{line}' is neither a comment, a [section] nor key=value; it is not used"));
                continue;
            }

            string key = line[..equals].Trim();
            string value = line[(equals + 1)..].Trim();
            if (current is null)
            {
                warnings.Add(new(SettingsWarningKind.StrayLine, sourceName, lineNumber, null, key,
                    $"'{key}' comes before any [DEFAULT] or [SESSION] section; it is not used"));
                continue;
            }

            if (currentIsIgnored)
            {
                continue;
            }

            CheckEntry(sourceName, current, key, value, lineNumber, warnings);
            if (current.Add(new SettingEntry(key, value, lineNumber)) is { } previous)
            {
                warnings.Add(new(SettingsWarningKind.DuplicateKey, sourceName, lineNumber, current.DisplayName, key,
                    $"'{key}' is also set on line {previous.Line}; this later value is used"));
            }
        }

        defaults ??= new SettingsSection(DefaultSectionName, 0, 0);
        var sessions = new List<SessionSettings>(sessionSections.Count);
        foreach (var section in sessionSections)
        {
            var session = BuildSession(sourceName, section, defaults);
            WarnOverridden(session, warnings);
            var clash = sessions.FirstOrDefault(s => s.SessionId == session.SessionId);
            if (clash is not null)
            {
                throw new ConfigurationException(
                    $"{section.DisplayName} defines the session {session.SessionId} again (first defined by {clash.Section.DisplayName} on line {clash.Section.HeaderLine})",
                    sourceName, section.HeaderLine);
            }

            sessions.Add(session);
        }

        return new SettingsFile(sourceName, defaults, sessions, warnings);
    }

    private static void CheckEntry(string sourceName, SettingsSection section, string key, string value, int line, List<SettingsWarning> warnings)
    {
        var definition = SettingsCatalogue.Find(key);
        if (definition is null)
        {
            string hint = SettingsCatalogue.Suggest(key) is { } suggestion ? $" (did you mean {suggestion}?)" : "";
            warnings.Add(new(SettingsWarningKind.UnknownKey, sourceName, line, section.DisplayName, key,
                $"unknown key '{key}'{hint}; it is not used"));
            return;
        }

        switch (definition.Support)
        {
            case SettingSupport.Unsupported:
                warnings.Add(new(SettingsWarningKind.UnsupportedKey, sourceName, line, section.DisplayName, key,
                    $"'{definition.Key}' is a QuickFIX/n setting RapidFix does not implement; it has no effect"));
                return;
            case SettingSupport.Ignored:
                warnings.Add(new(SettingsWarningKind.IgnoredKey, sourceName, line, section.DisplayName, key,
                    $"'{definition.Key}' is accepted for compatibility and has no effect in RapidFix"));
                return;
        }

        if (SettingValues.Validate(definition, value) is { } error)
        {
            throw new ConfigurationException($"{error} (in {section.DisplayName})", sourceName, line, key);
        }
    }

    /// <summary>
    /// NonStopSession=Y with a schedule key: QuickFIX/J accepts it and the session is non-stop, so the schedule key
    /// is reported as having no effect rather than refused.
    /// </summary>
    private static void WarnOverridden(SessionSettings session, List<SettingsWarning> warnings)
    {
        if (!session.GetBool(SettingKeys.NonStopSession))
        {
            return;
        }

        foreach (var key in new[] { SettingKeys.StartTime, SettingKeys.EndTime, SettingKeys.StartDay, SettingKeys.EndDay, SettingKeys.Weekdays })
        {
            if (session.TryGetValue(key, out var value) && !value.IsDefault)
            {
                warnings.Add(new(SettingsWarningKind.OverriddenKey, session.FilePath, value.Line, value.Section!.DisplayName, key,
                    $"'{key}' has no effect: NonStopSession=Y (a non-stop session has no schedule)"));
            }
        }
    }

    private static SessionSettings BuildSession(string sourceName, SettingsSection section, SettingsSection defaults)
    {
        // Identity first: the view needs it, and every other check is reported against it.
        string Required(string key)
        {
            if (section.TryGet(key, out var entry) || defaults.TryGet(key, out entry))
            {
                if (entry.Value.Length == 0)
                {
                    throw new ConfigurationException($"the value is empty (in {section.DisplayName})", sourceName, entry.Line, key);
                }

                return entry.Value;
            }

            throw new ConfigurationException(
                $"required setting is missing in {section.DisplayName} and [DEFAULT]: every session needs it",
                sourceName, section.HeaderLine, key);
        }

        string Optional(string key) =>
            section.TryGet(key, out var entry) || defaults.TryGet(key, out entry) ? entry.Value : "";

        SettingValues.TryParseChoice(Required(SettingKeys.BeginString), SettingsCatalogue.BeginStrings, out var beginString);
        var id = new SessionId(
            beginString,
            Required(SettingKeys.SenderCompId),
            Required(SettingKeys.TargetCompId),
            Optional(SettingKeys.SenderSubId),
            Optional(SettingKeys.SenderLocationId),
            Optional(SettingKeys.TargetSubId),
            Optional(SettingKeys.TargetLocationId),
            Optional(SettingKeys.SessionQualifier));

        var session = new SessionSettings(sourceName, section, defaults, id);
        Required(SettingKeys.ConnectionType);
        if (id.IsFixt && !session.Has(SettingKeys.DefaultApplVerId))
        {
            throw session.Missing(SettingKeys.DefaultApplVerId, "a FIXT.1.1 session needs the application version");
        }

        if (session.IsAcceptor)
        {
            if (!session.Has(SettingKeys.SocketAcceptPort))
            {
                throw session.Missing(SettingKeys.SocketAcceptPort, "an acceptor needs a port to listen on");
            }
        }
        else
        {
            if (!session.Has(SettingKeys.HeartBtInt))
            {
                throw session.Missing(SettingKeys.HeartBtInt, "an initiator sends it in its Logon");
            }

            if (session.GetConnectEndpoints().Count == 0)
            {
                throw session.Missing(SettingKeys.SocketConnectHost, "an initiator needs a host and port to connect to");
            }
        }

        return session;
    }
}
