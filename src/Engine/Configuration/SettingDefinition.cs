namespace RapidFix.Engine.Configuration;

/// <summary>How a setting's value is written and checked.</summary>
public enum SettingType
{
    /// <summary>Any text (identifiers, host names).</summary>
    String,

    /// <summary>A file or directory path.</summary>
    Path,

    /// <summary>A whole number within <see cref="SettingDefinition.Min"/>..<see cref="SettingDefinition.Max"/>.</summary>
    Integer,

    /// <summary>Y or N.</summary>
    Boolean,

    /// <summary>A time of day: HH:mm:ss (or HH:mm, H:mm:ss, with optional fraction).</summary>
    TimeOfDay,

    /// <summary>A day of the week: Monday, Mon or Mo (any case).</summary>
    DayOfWeek,

    /// <summary>A comma-separated list of days of the week.</summary>
    DayList,

    /// <summary>A duration written as a whole number in <see cref="SettingDefinition.Unit"/>.</summary>
    Duration,

    /// <summary>One of <see cref="SettingDefinition.AllowedValues"/> (compared ignoring case).</summary>
    Choice,

    /// <summary>A time zone id (IANA, or a common Windows id).</summary>
    TimeZone,

    /// <summary>A TCP port, 0 to 65535 (0 asks the OS for a free port when accepting).</summary>
    Port,
}

/// <summary>Whether RapidFix acts on a setting.</summary>
public enum SettingSupport
{
    /// <summary>The engine uses it.</summary>
    Supported,

    /// <summary>A QuickFIX/n setting RapidFix does not implement (a warning is reported when it is present).</summary>
    Unsupported,

    /// <summary>Accepted so that QuickFIX files load unchanged; it has no effect (a warning is reported when it is present).</summary>
    Ignored,
}

/// <summary>Where a setting comes from.</summary>
public enum SettingOrigin
{
    /// <summary>The QuickFIX / QuickFIX/n settings vocabulary.</summary>
    QuickFix,

    /// <summary>RapidFix's own settings (pools, limits, message store).</summary>
    RapidFix,
}

/// <summary>One key the engine understands: its type, default and meaning.</summary>
public sealed record SettingDefinition
{
    /// <summary>The key as written in a settings file.</summary>
    public required string Key { get; init; }

    /// <summary>How the value is parsed and checked.</summary>
    public required SettingType Type { get; init; }

    /// <summary>What the setting does (one sentence, shown in the catalogue and docs/configuration.md).</summary>
    public required string Description { get; init; }

    /// <summary>The value used when neither the session nor [DEFAULT] sets the key; null when there is none.</summary>
    public string? DefaultValue { get; init; }

    /// <summary>Whether the engine honours it; an unsupported setting is refused at load rather than ignored.</summary>
    public SettingSupport Support { get; init; } = SettingSupport.Supported;

    /// <summary>Where the key comes from: QuickFIX's set, or RapidFix's own.</summary>
    public SettingOrigin Origin { get; init; } = SettingOrigin.QuickFix;

    /// <summary>For <see cref="SettingType.Choice"/>: the accepted values, in their canonical spelling.</summary>
    public IReadOnlyList<string> AllowedValues { get; init; } = [];

    /// <summary>For <see cref="SettingType.Integer"/> and <see cref="SettingType.Duration"/>: the smallest value accepted.</summary>
    public long Min { get; init; } = int.MinValue;

    /// <summary>For <see cref="SettingType.Integer"/> and <see cref="SettingType.Duration"/>: the largest value accepted.</summary>
    public long Max { get; init; } = int.MaxValue;

    /// <summary>For <see cref="SettingType.Duration"/>: what one unit of the written number is.</summary>
    public TimeSpan Unit { get; init; } = TimeSpan.FromSeconds(1);

    /// <summary>True when the key may carry a numeric suffix (SocketConnectHost1, SocketConnectPort2, ...).</summary>
    public bool Indexed { get; init; }
}
