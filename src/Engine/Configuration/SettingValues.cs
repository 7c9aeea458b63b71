using System.Globalization;

namespace RapidFix.Engine.Configuration;

/// <summary>Parses and checks setting values. Each Try method returns null on success, or why the text is invalid.</summary>
public static class SettingValues
{
    private static readonly string[] TimeFormats =
        ["HH:mm:ss", "H:mm:ss", "HH:mm", "H:mm", "HH:mm:ss.FFFFFFF", "H:mm:ss.FFFFFFF"];

    private static readonly string[] DayNames =
        ["SUNDAY", "MONDAY", "TUESDAY", "WEDNESDAY", "THURSDAY", "FRIDAY", "SATURDAY"];

    // Windows ids QuickFIX/n users write, for runtimes that cannot convert them (invariant globalization has no ICU).
    private static readonly Dictionary<string, string> WindowsToIana = new(StringComparer.OrdinalIgnoreCase)
    {
        ["UTC"] = "Etc/UTC",
        ["GMT Standard Time"] = "Europe/London",
        ["Greenwich Standard Time"] = "Atlantic/Reykjavik",
        ["W. Europe Standard Time"] = "Europe/Berlin",
        ["Central Europe Standard Time"] = "Europe/Budapest",
        ["Central European Standard Time"] = "Europe/Warsaw",
        ["Romance Standard Time"] = "Europe/Paris",
        ["E. Europe Standard Time"] = "Europe/Chisinau",
        ["GTB Standard Time"] = "Europe/Bucharest",
        ["FLE Standard Time"] = "Europe/Kiev",
        ["Russian Standard Time"] = "Europe/Moscow",
        ["Eastern Standard Time"] = "America/New_York",
        ["Central Standard Time"] = "America/Chicago",
        ["Mountain Standard Time"] = "America/Denver",
        ["Pacific Standard Time"] = "America/Los_Angeles",
        ["E. South America Standard Time"] = "America/Sao_Paulo",
        ["Tokyo Standard Time"] = "Asia/Tokyo",
        ["China Standard Time"] = "Asia/Shanghai",
        ["Singapore Standard Time"] = "Asia/Singapore",
        ["India Standard Time"] = "Asia/Kolkata",
        ["Arabian Standard Time"] = "Asia/Dubai",
        ["Korea Standard Time"] = "Asia/Seoul",
        ["AUS Eastern Standard Time"] = "Australia/Sydney",
        ["New Zealand Standard Time"] = "Pacific/Auckland",
        ["South Africa Standard Time"] = "Africa/Johannesburg",
    };

    /// <summary>Parses Y or N; returns null when it parses, else what is wrong.</summary>
    public static string? TryParseBool(string text, out bool value)
    {
        value = text == "Y";
        return text is "Y" or "N" ? null : $"'{text}' is not a boolean: write Y or N";
    }

    /// <summary>Parses a whole number between <paramref name="min"/> and <paramref name="max"/>; returns null when it parses, else what is wrong.</summary>
    public static string? TryParseInteger(string text, long min, long max, out long value)
    {
        if (!long.TryParse(text, NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out value))
        {
            return $"'{text}' is not a whole number";
        }

        return value < min || value > max ? $"{value} is out of range: it must be between {min} and {max}" : null;
    }

    /// <summary>Parses a time of day (HH:MM:SS); returns null when it parses, else what is wrong.</summary>
    public static string? TryParseTimeOfDay(string text, out TimeOnly value)
    {
        return TimeOnly.TryParseExact(text, TimeFormats, CultureInfo.InvariantCulture, DateTimeStyles.None, out value)
            ? null
            : $"'{text}' is not a time of day: write HH:mm:ss (00:00:00 to 23:59:59)";
    }

    /// <summary>Accepts a day name or any prefix of it of two letters or more, ignoring case (Mo, Mon, Monday).</summary>
    public static string? TryParseDayOfWeek(string text, out DayOfWeek value)
    {
        value = default;
        string upper = text.Trim().ToUpperInvariant();
        if (upper.Length >= 2)
        {
            for (int d = 0; d < DayNames.Length; d++)
            {
                if (DayNames[d].StartsWith(upper, StringComparison.Ordinal))
                {
                    value = (DayOfWeek)d;
                    return null;
                }
            }
        }

        return $"'{text}' is not a day of the week: write Monday, Mon or Mo";
    }

    /// <summary>Parses a comma-separated list of day names; returns null when it parses, else what is wrong.</summary>
    public static string? TryParseDayList(string text, out IReadOnlyList<DayOfWeek> days)
    {
        var result = new List<DayOfWeek>();
        days = result;
        foreach (var part in text.Split(','))
        {
            if (TryParseDayOfWeek(part, out var day) is { } error)
            {
                return error + " (in a comma-separated list of days)";
            }

            if (!result.Contains(day))
            {
                result.Add(day);
            }
        }

        return null;
    }

    /// <summary>Parses one of <paramref name="allowed"/> (ignoring case) into its canonical spelling; returns null when it parses, else what is wrong.</summary>
    public static string? TryParseChoice(string text, IReadOnlyList<string> allowed, out string canonical)
    {
        foreach (var candidate in allowed)
        {
            if (string.Equals(candidate, text, StringComparison.OrdinalIgnoreCase))
            {
                canonical = candidate;
                return null;
            }
        }

        canonical = "";
        return $"'{text}' is not one of: {string.Join(", ", allowed)}";
    }

    /// <summary>Resolves an IANA id, or a Windows id the runtime knows or the built-in table maps.</summary>
    public static string? TryResolveTimeZone(string text, out TimeZoneInfo? zone)
    {
        zone = null;
        if (TryFind(text, out zone))
        {
            return null;
        }

        if (WindowsToIana.TryGetValue(text, out var iana) && TryFind(iana, out zone))
        {
            return null;
        }

        return $"'{text}' is not a time zone known to this system: use an IANA id such as America/New_York or Europe/London";

        static bool TryFind(string id, out TimeZoneInfo? found)
        {
            try
            {
                found = TimeZoneInfo.FindSystemTimeZoneById(id);
                return true;
            }
            catch (Exception e) when (e is TimeZoneNotFoundException or InvalidTimeZoneException or ArgumentException)
            {
                found = null;
                return false;
            }
        }
    }

    /// <summary>Checks <paramref name="text"/> against a definition; null when valid.</summary>
    public static string? Validate(SettingDefinition definition, string text)
    {
        if (text.Length == 0 && definition.Type is not (SettingType.String or SettingType.Path))
        {
            return "the value is empty";
        }

        return definition.Type switch
        {
            SettingType.String or SettingType.Path => null,
            SettingType.Integer or SettingType.Duration => TryParseInteger(text, definition.Min, definition.Max, out _),
            SettingType.Port => TryParseInteger(text, 0, 65535, out _),
            SettingType.Boolean => TryParseBool(text, out _),
            SettingType.TimeOfDay => TryParseTimeOfDay(text, out _),
            SettingType.DayOfWeek => TryParseDayOfWeek(text, out _),
            SettingType.DayList => TryParseDayList(text, out _),
            SettingType.Choice => TryParseChoice(text, definition.AllowedValues, out _),
            SettingType.TimeZone => TryResolveTimeZone(text, out _),
            _ => throw new InvalidOperationException($"Unhandled setting type {definition.Type}."),
        };
    }
}
