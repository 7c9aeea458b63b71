using System.Text.RegularExpressions;
using RapidFix.Engine.Configuration;

namespace RapidFix.MatchingService;

/// <summary>How the matching service runs (its command line; the sessions come from the settings file).</summary>
public sealed partial record ServiceOptions
{
    /// <summary>The QuickFIX-style settings file: one acceptor [SESSION] per participant.</summary>
    public required string SettingsPath { get; init; }

    /// <summary>The static-data directory (CSV files, docs/matching.md).</summary>
    public required string StaticDataPath { get; init; }

    /// <summary>Overrides SocketAcceptPort of every session (0: as the file says).</summary>
    public int Port { get; init; }

    /// <summary>Overrides FileStorePath of every session and holds the input journal (null: as the file says).</summary>
    public string? DataDirectory { get; init; }

    /// <summary>
    /// Bytes of the ring between the connection threads and the matcher thread. 128 MiB: each entry carries the
    /// connection thread's <see cref="ReadInput"/> (344 bytes) after the message, so this holds as many inputs as
    /// 64 MiB did before (about 190,000 of the trade driver's); with 64 MiB a run at 100,000/s filled it in half the time.
    /// </summary>
    public int InputRingBytes { get; init; } = 128 << 20;

    /// <summary>Inputs the input journal holds (the day's capacity; a full journal refuses further inputs, counted).</summary>
    public int MaxInputs { get; init; } = 4_000_000;

    /// <summary>
    /// Bytes of the input journal's in-memory write window (appended, not yet durable), allocated and committed at
    /// startup and reused once durable; the journal file is bounded by the disk and <see cref="MaxInputs"/>, not by this.
    /// </summary>
    public int InputJournalBytes { get; init; } = 64 << 20;

    /// <summary>Bytes of answers that may wait per participant while it is not logged on.</summary>
    public int PendingBytesPerParticipant { get; init; } = 16 << 20;

    /// <summary>Answers that may wait per participant while it is not logged on.</summary>
    public int PendingMessagesPerParticipant { get; init; } = 100_000;

    /// <summary>The business date (yyyymmdd) of a new input journal; 0: today (UTC). A journal keeps its own.</summary>
    public int BusinessDate { get; init; }

    /// <summary>
    /// The time of day (UTC) the business date ends: the service then rolls to the next business day (Monday to
    /// Friday) and expires what stayed open <see cref="ExpiryBusinessDays"/> business days. Null: no automatic roll.
    /// </summary>
    public TimeSpan? RollTime { get; init; }

    /// <summary>
    /// Business days a trade may stay open before it expires into the exception queue (the seed used 3). A journal
    /// must be replayed with the value it was written with.
    /// </summary>
    public int ExpiryBusinessDays { get; init; } = 3;

    /// <summary>
    /// Trades the matcher holds open at once (its tables are sized for it at startup: cleared trades a quarter of it,
    /// message rows eight a trade). A trade that finds the table full is an exception to its sender (TABLE-FULL),
    /// counted. Size it for the trades that stay open until they expire: incomplete and cancelled trades stay for
    /// <see cref="ExpiryBusinessDays"/> business days.
    /// </summary>
    public int OpenTrades { get; init; } = DefaultOpenTrades;

    /// <summary>The default of <see cref="OpenTrades"/> (and of <c>--open-trades</c>).</summary>
    public const int DefaultOpenTrades = 65_536;

    /// <summary>Run the warm-up (synthetic trades through a scratch matcher) before the continuous phase.</summary>
    public bool WarmUp { get; init; } = true;

    /// <summary>
    /// Wait up to this long at startup for every participant to log on before the continuous phase (connection
    /// set-up allocates: a measured run connects everyone first). Zero: do not wait.
    /// </summary>
    public TimeSpan WaitForLogons { get; init; }

    /// <summary>Where the engine's log goes (null: standard output).</summary>
    public string? LogPath { get; init; }

    /// <summary>The engine host's name in the trace's phase markers (the warm-up's scratch service has its own).</summary>
    internal string HostName { get; init; } = "matching-service";

    /// <summary>Further "Key=value" overrides of every session's settings (the warm-up's scratch service: small stores).</summary>
    internal IReadOnlyList<(string Key, string Value)> SettingOverrides { get; init; } = [];

    /// <summary>
    /// The service's own defaults for settings its file does not give (docs/matching-service.md): a received
    /// message's sequence record starts no store flush of its own (the service journals every input itself and
    /// ignores a resend of one it holds, so the session stores flush once per batch of answers, not continuously while
    /// inputs arrive), and a connection waits 1 ms after a read that brought data, so a burst comes in one read (one
    /// poll and one receive per millisecond and participant under load, not per message or two).
    /// </summary>
    internal static readonly (string Key, string Value)[] ServiceDefaults =
    [
        (SettingKeys.StoreDeferTargetSeqNum, "Y"),
        (SettingKeys.SocketReceiveCoalesceMilliseconds, "1"),
    ];

    /// <summary>The settings with the command line's overrides applied (startup).</summary>
    public SettingsFile LoadSettings()
    {
        string text = File.ReadAllText(SettingsPath);
        if (Port != 0)
        {
            text = Override(text, SettingKeys.SocketAcceptPort, Port.ToString(System.Globalization.CultureInfo.InvariantCulture));
        }

        if (DataDirectory is not null)
        {
            text = Override(text, SettingKeys.FileStorePath, DataDirectory);
        }

        foreach (var (key, value) in SettingOverrides)
        {
            text = Override(text, key, value);
        }

        foreach (var (key, value) in ServiceDefaults)
        {
            if (!Regex.IsMatch(text, "^\\s*" + key + "\\s*=", RegexOptions.Multiline | RegexOptions.IgnoreCase))
            {
                text = Override(text, key, value);
            }
        }

        return SettingsFile.Parse(text, SettingsPath);
    }

    // Every "Key=..." line of the file gets the value; a [DEFAULT] line is added when the file has none.
    private static string Override(string text, string key, string value)
    {
        var line = new Regex("^(\\s*" + Regex.Escape(key) + "\\s*=).*$", RegexOptions.Multiline | RegexOptions.IgnoreCase);
        if (line.IsMatch(text))
        {
            return line.Replace(text, m => m.Groups[1].Value + value);
        }

        var defaults = new Regex("^\\s*\\[DEFAULT\\]\\s*$", RegexOptions.Multiline | RegexOptions.IgnoreCase);
        var header = defaults.Match(text);
        return header.Success
            ? text.Insert(header.Index + header.Length, "\n" + key + "=" + value)
            : "[DEFAULT]\n" + key + "=" + value + "\n" + text;
    }
}
