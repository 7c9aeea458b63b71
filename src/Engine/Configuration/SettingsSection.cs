namespace RapidFix.Engine.Configuration;

/// <summary>One key=value line of a settings file.</summary>
/// <param name="Key">The key as written.</param>
/// <param name="Value">The value, trimmed.</param>
/// <param name="Line">1-based line number.</param>
public readonly record struct SettingEntry(string Key, string Value, int Line);

/// <summary>A [DEFAULT] or [SESSION] section as written in the file.</summary>
public sealed class SettingsSection
{
    private readonly Dictionary<string, SettingEntry> _byKey = new(StringComparer.OrdinalIgnoreCase);
    private readonly List<SettingEntry> _entries = [];

    internal SettingsSection(string name, int headerLine, int sessionNumber)
    {
        Name = name;
        HeaderLine = headerLine;
        SessionNumber = sessionNumber;
    }

    /// <summary>The name between the brackets, as written.</summary>
    public string Name { get; }

    /// <summary>1-based line of the section header (0 for an implicit, empty [DEFAULT]).</summary>
    public int HeaderLine { get; }

    /// <summary>For [SESSION] sections, the 1-based position among the sessions of the file; 0 otherwise.</summary>
    public int SessionNumber { get; }

    /// <summary>The entries in file order (a repeated key appears twice; lookups use the later one).</summary>
    public IReadOnlyList<SettingEntry> Entries => _entries;

    /// <summary>A name for messages: "[DEFAULT]" or "[SESSION] #2".</summary>
    public string DisplayName => SessionNumber > 0 ? $"[{Name}] #{SessionNumber}" : $"[{Name}]";

    /// <summary>The entry for <paramref name="key"/> written in this section (not inherited from [DEFAULT]); false when absent.</summary>
    public bool TryGet(string key, out SettingEntry entry) => _byKey.TryGetValue(key, out entry);

    /// <summary>Adds an entry; returns the earlier entry with the same key, if any.</summary>
    internal SettingEntry? Add(SettingEntry entry)
    {
        SettingEntry? previous = _byKey.TryGetValue(entry.Key, out var existing) ? existing : null;
        _entries.Add(entry);
        _byKey[entry.Key] = entry;
        return previous;
    }
}
