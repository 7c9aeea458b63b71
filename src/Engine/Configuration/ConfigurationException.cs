namespace RapidFix.Engine.Configuration;

/// <summary>
/// A settings file (or a value in it) that the engine cannot use. The message names the file, the line, the
/// section and the key, so the user can go straight to the fault.
/// </summary>
public sealed class ConfigurationException : Exception
{
    /// <summary>A settings error: <paramref name="message"/> says what is wrong; the file, line and key say where, when known.</summary>
    public ConfigurationException(string message, string? filePath = null, int line = 0, string? key = null)
        : base(Format(message, filePath, line, key))
    {
        FilePath = filePath;
        Line = line;
        Key = key;
        Reason = message;
    }

    /// <summary>The settings file, or the name given to text parsed from memory; null when not tied to a file.</summary>
    public string? FilePath { get; }

    /// <summary>1-based line of the offending entry (or of the section header for a missing key); 0 when unknown.</summary>
    public int Line { get; }

    /// <summary>The key concerned, when there is one.</summary>
    public string? Key { get; }

    /// <summary>The message without the location prefix.</summary>
    public string Reason { get; }

    private static string Format(string message, string? filePath, int line, string? key)
    {
        string location = filePath is null ? "" : line > 0 ? $"{filePath}({line}): " : $"{filePath}: ";
        string keyPart = key is null ? "" : $"{key}: ";
        return location + keyPart + message;
    }
}
