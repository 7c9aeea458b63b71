namespace RapidFix.Engine.Configuration;

/// <summary>Where a setting's value came from.</summary>
/// <param name="Value">The text of the value.</param>
/// <param name="Line">The line it was read from; 0 when it is the catalogue default.</param>
/// <param name="Section">The section it was read from; null when it is the catalogue default.</param>
public readonly record struct SettingValue(string Value, int Line, SettingsSection? Section)
{
    /// <summary>True for the [DEFAULT] section's view.</summary>
    public bool IsDefault => Section is null;
}

/// <summary>
/// Typed read access to settings: a key is looked up in the view's sections in order (a session's own section,
/// then [DEFAULT]), then in the catalogue's default. Values were already checked when the file was loaded; an
/// error here names the file, line and key.
/// </summary>
public abstract class SettingsView
{
    private readonly SettingsSection[] _chain;

    private protected SettingsView(string filePath, params SettingsSection[] chain)
    {
        FilePath = filePath;
        _chain = chain;
    }

    /// <summary>The settings file (or source name) the values come from.</summary>
    public string FilePath { get; }

    /// <summary>The section whose header is quoted when a required key is missing.</summary>
    protected SettingsSection Primary => _chain[0];

    /// <summary>True when the key is set in the file (catalogue defaults do not count).</summary>
    public bool Has(string key) => TryFindInFile(key, out _);

    /// <summary>The value of a key set in the file, or the catalogue default; false when neither exists.</summary>
    public bool TryGetValue(string key, out SettingValue value)
    {
        if (TryFindInFile(key, out value))
        {
            return true;
        }

        if (SettingsCatalogue.Find(key)?.DefaultValue is { } defaultValue)
        {
            value = new SettingValue(defaultValue, 0, null);
            return true;
        }

        value = default;
        return false;
    }

    /// <summary>The value of <paramref name="key"/> (this section, then [DEFAULT], then the catalogue's default); a <see cref="ConfigurationException"/> when none.</summary>
    public string GetString(string key) => Require(key).Value;

    /// <summary>The value, or null when the key is set nowhere and has no default.</summary>
    public string? GetStringOrNull(string key) => TryGetValue(key, out var value) ? value.Value : null;

    /// <summary>The value of <paramref name="key"/> as an int; a <see cref="ConfigurationException"/> naming the line when it is not one.</summary>
    public int GetInt(string key)
    {
        var value = Require(key);
        var definition = SettingsCatalogue.Find(key);
        bool isPort = definition?.Type == SettingType.Port;
        long min = isPort ? 0 : Math.Max(definition?.Min ?? int.MinValue, int.MinValue);
        long max = isPort ? 65535 : Math.Min(definition?.Max ?? int.MaxValue, int.MaxValue);
        Check(key, value, SettingValues.TryParseInteger(value.Value, min, max, out long parsed));
        return (int)parsed;
    }

    /// <summary>The value of <paramref name="key"/> as a long; a <see cref="ConfigurationException"/> naming the line when it is not one.</summary>
    public long GetLong(string key)
    {
        var value = Require(key);
        var definition = SettingsCatalogue.Find(key);
        Check(key, value, SettingValues.TryParseInteger(value.Value, definition?.Min ?? long.MinValue, definition?.Max ?? long.MaxValue, out long parsed));
        return parsed;
    }

    /// <summary>The value of <paramref name="key"/> as Y/N; a <see cref="ConfigurationException"/> naming the line when it is neither.</summary>
    public bool GetBool(string key)
    {
        var value = Require(key);
        Check(key, value, SettingValues.TryParseBool(value.Value, out bool parsed));
        return parsed;
    }

    /// <summary>The value of <paramref name="key"/> as a time of day; a <see cref="ConfigurationException"/> naming the line when it is not one.</summary>
    public TimeOnly GetTimeOfDay(string key)
    {
        var value = Require(key);
        Check(key, value, SettingValues.TryParseTimeOfDay(value.Value, out var parsed));
        return parsed;
    }

    /// <summary>The value of <paramref name="key"/> as a day of the week; a <see cref="ConfigurationException"/> naming the line when it is not one.</summary>
    public DayOfWeek GetDayOfWeek(string key)
    {
        var value = Require(key);
        Check(key, value, SettingValues.TryParseDayOfWeek(value.Value, out var parsed));
        return parsed;
    }

    /// <summary>The value of <paramref name="key"/> as a list of days; a <see cref="ConfigurationException"/> naming the line when it is not one.</summary>
    public IReadOnlyList<DayOfWeek> GetDays(string key)
    {
        var value = Require(key);
        Check(key, value, SettingValues.TryParseDayList(value.Value, out var parsed));
        return parsed;
    }

    /// <summary>A duration; the written number is in the unit the catalogue gives the key (seconds for QuickFIX keys).</summary>
    public TimeSpan GetTimeSpan(string key)
    {
        var value = Require(key);
        var definition = SettingsCatalogue.Find(key);
        if (definition is null || definition.Type != SettingType.Duration)
        {
            throw Error(key, value, "is not a duration setting");
        }

        Check(key, value, SettingValues.TryParseInteger(value.Value, definition.Min, definition.Max, out long parsed));
        return definition.Unit * parsed;
    }

    /// <summary>One of a Choice key's allowed values, in its canonical spelling.</summary>
    public string GetChoice(string key)
    {
        var value = Require(key);
        var allowed = SettingsCatalogue.Find(key)?.AllowedValues ?? [];
        Check(key, value, SettingValues.TryParseChoice(value.Value, allowed, out var canonical));
        return canonical;
    }

    /// <summary>The value of <paramref name="key"/> as a time zone known to this machine; a <see cref="ConfigurationException"/> naming the line otherwise.</summary>
    public TimeZoneInfo GetTimeZone(string key)
    {
        var value = Require(key);
        Check(key, value, SettingValues.TryResolveTimeZone(value.Value, out var zone));
        return zone!;
    }

    /// <summary>The error for a value that is present but unusable, located at its line.</summary>
    public ConfigurationException Error(string key, SettingValue value, string reason) =>
        value.IsDefault
            ? new ConfigurationException($"{reason} (default value '{value.Value}')", FilePath, Primary.HeaderLine, key)
            : new ConfigurationException($"{reason} (in {value.Section!.DisplayName})", FilePath, value.Line, key);

    /// <summary>The error for a setting that is required here, located at the section header.</summary>
    public ConfigurationException Missing(string key, string why) =>
        new($"required setting is missing in {Primary.DisplayName} and [DEFAULT]: {why}", FilePath, Primary.HeaderLine, key);

    private SettingValue Require(string key) =>
        TryGetValue(key, out var value) ? value : throw Missing(key, "no value and no default");

    private void Check(string key, SettingValue value, string? error)
    {
        if (error is not null)
        {
            throw Error(key, value, error);
        }
    }

    private bool TryFindInFile(string key, out SettingValue value)
    {
        foreach (var section in _chain)
        {
            if (section.TryGet(key, out var entry))
            {
                value = new SettingValue(entry.Value, entry.Line, section);
                return true;
            }
        }

        value = default;
        return false;
    }
}

/// <summary>The [DEFAULT] section alone: engine-wide settings.</summary>
public sealed class DefaultSettings : SettingsView
{
    internal DefaultSettings(string filePath, SettingsSection defaults) : base(filePath, defaults)
    {
    }
}

/// <summary>One session's settings: its [SESSION] section, inheriting from [DEFAULT].</summary>
public sealed class SessionSettings : SettingsView
{
    internal SessionSettings(string filePath, SettingsSection session, SettingsSection defaults, SessionId id)
        : base(filePath, session, defaults)
    {
        Section = session;
        SessionId = id;
        _defaults = defaults;
    }

    private readonly SettingsSection _defaults;

    /// <summary>The same settings for another identity (a session created from an acceptor template).</summary>
    internal SessionSettings For(SessionId id) => new(FilePath, Section, _defaults, id);

    /// <summary>The identity of the session this section defines.</summary>
    public SessionId SessionId { get; }

    /// <summary>The session's own section.</summary>
    public SettingsSection Section { get; }

    /// <summary>True for ConnectionType=acceptor.</summary>
    public bool IsAcceptor => GetChoice(SettingKeys.ConnectionType) == "acceptor";

    /// <summary>
    /// The initiator's endpoints in failover order: SocketConnectHost/Port, then SocketConnectHost1/Port1, 2, ...
    /// up to the first index with no host.
    /// </summary>
    public IReadOnlyList<(string Host, int Port)> GetConnectEndpoints()
    {
        var endpoints = new List<(string, int)>();
        for (int index = 0; ; index++)
        {
            string suffix = index == 0 ? "" : index.ToString(System.Globalization.CultureInfo.InvariantCulture);
            string hostKey = SettingKeys.SocketConnectHost + suffix;
            string portKey = SettingKeys.SocketConnectPort + suffix;
            if (!Has(hostKey))
            {
                if (index > 0 && Has(portKey))
                {
                    throw Error(portKey, Find(portKey), $"has no matching {hostKey}");
                }

                break;
            }

            if (!Has(portKey))
            {
                throw Error(hostKey, Find(hostKey), $"has no matching {portKey}");
            }

            endpoints.Add((GetString(hostKey), GetInt(portKey)));
        }

        return endpoints;

        SettingValue Find(string key) => TryGetValue(key, out var value) ? value : default;
    }

    /// <summary>The session's identity, as in logs.</summary>
    public override string ToString() => SessionId.ToString();
}
