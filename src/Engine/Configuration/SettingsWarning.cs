namespace RapidFix.Engine.Configuration;

/// <summary>Why a line of a settings file produced a warning rather than an error.</summary>
public enum SettingsWarningKind
{
    /// <summary>The key is not in <see cref="SettingsCatalogue"/>: probably a typo, or a setting of another engine.</summary>
    UnknownKey,

    /// <summary>A QuickFIX/n key that RapidFix recognises but does not implement; its value has no effect.</summary>
    UnsupportedKey,

    /// <summary>A key accepted for compatibility with QuickFIX settings files that has no effect in RapidFix.</summary>
    IgnoredKey,

    /// <summary>The same key appears twice in one section; the later value is used.</summary>
    DuplicateKey,

    /// <summary>A section other than [DEFAULT] and [SESSION]; its keys are not used.</summary>
    UnknownSection,

    /// <summary>A second [DEFAULT] section; its keys are merged into the first.</summary>
    RepeatedDefaultSection,

    /// <summary>A line that is neither a comment, a section header nor key=value, or a key=value outside any section.</summary>
    StrayLine,

    /// <summary>A key that another key of the session overrides (StartTime with NonStopSession=Y, as QuickFIX/J accepts it); it has no effect.</summary>
    OverriddenKey,
}

/// <summary>One warning found while loading a settings file.</summary>
/// <param name="Kind">What is wrong.</param>
/// <param name="FilePath">The file (or source name) it was found in.</param>
/// <param name="Line">1-based line number.</param>
/// <param name="Section">The section header, e.g. "[SESSION] #2", or null outside any section.</param>
/// <param name="Key">The key concerned, when there is one.</param>
/// <param name="Message">A sentence for the log.</param>
public sealed record SettingsWarning(
    SettingsWarningKind Kind,
    string FilePath,
    int Line,
    string? Section,
    string? Key,
    string Message)
{
    /// <summary>The warning as "file(line): text", the way compilers print theirs.</summary>
    public override string ToString() =>
        $"{FilePath}({Line}): warning {Kind}{(Section is null ? "" : " in " + Section)}: {Message}";
}
