using RapidFix.Engine.Configuration;

namespace RapidFix.Engine.Store;

/// <summary>Opens the message store a session's settings ask for (startup work).</summary>
public static class MessageStoreFactory
{
    /// <summary>The journal file of a session: FileStorePath/&lt;SessionId.ToFileName()&gt;.journal.</summary>
    public static string JournalPath(SessionSettings settings)
    {
        ArgumentNullException.ThrowIfNull(settings);
        if (!settings.Has(SettingKeys.FileStorePath))
        {
            throw settings.Missing(SettingKeys.FileStorePath, "the journal store needs a directory");
        }

        return Path.Combine(settings.GetString(SettingKeys.FileStorePath), settings.SessionId.ToFileName() + ".journal");
    }

    /// <summary>The journal options the settings give (StoreFlushPolicy, StoreFlushMaxBatch, StoreFlushMaxDelayMicroseconds, StoreMaxMessages, StoreMaxBytes, StoreWindowBytes, MaxMessageSize, StoreCommitMemory, StoreDeferTargetSeqNum, StorePageCacheBytes).</summary>
    public static JournalOptions JournalOptions(SessionSettings settings)
    {
        ArgumentNullException.ThrowIfNull(settings);
        long maxBytes = settings.GetLong(SettingKeys.StoreMaxBytes);
        return new()
        {
            FilePath = JournalPath(settings),
            FlushPolicy = Enum.Parse<FlushPolicy>(settings.GetChoice(SettingKeys.StoreFlushPolicy)),
            MaxBatch = settings.GetInt(SettingKeys.StoreFlushMaxBatch),
            MaxDelay = settings.GetTimeSpan(SettingKeys.StoreFlushMaxDelayMicroseconds),
            MaxMessages = settings.GetInt(SettingKeys.StoreMaxMessages),
            MaxBytes = (int)Math.Min(maxBytes, int.MaxValue),
            MaxGenerationBytes = maxBytes,
            WindowBytes = settings.GetInt(SettingKeys.StoreWindowBytes),
            MaxMessageBytes = settings.GetInt(SettingKeys.MaxMessageSize),
            CommitMemory = settings.GetBool(SettingKeys.StoreCommitMemory),
            DeferTargetSeqNum = settings.GetBool(SettingKeys.StoreDeferTargetSeqNum),
            PageCacheLimitBytes = settings.GetLong(SettingKeys.StorePageCacheBytes),
        };
    }

    /// <summary>
    /// The store for a session: a journal when StoreType=journal, or when StoreType is absent and FileStorePath is
    /// set (as QuickFIX uses a file store then); the express store otherwise. A relative FileStorePath is relative to
    /// the current directory, as in QuickFIX.
    /// </summary>
    public static IMessageStore Open(SessionSettings settings, DateTime creationTimeUtc)
    {
        ArgumentNullException.ThrowIfNull(settings);
        bool journal = settings.Has(SettingKeys.StoreType)
            ? settings.GetChoice(SettingKeys.StoreType) == "journal"
            : settings.Has(SettingKeys.FileStorePath);
        if (journal)
        {
            return JournalMessageStore.Open(JournalOptions(settings), creationTimeUtc);
        }

        // The express store keeps its generation in one array: StoreMaxBytes is its memory, at most the largest array.
        long bytes = settings.GetLong(SettingKeys.StoreMaxBytes);
        if (bytes > Array.MaxLength && settings.TryGetValue(SettingKeys.StoreMaxBytes, out var value))
        {
            throw settings.Error(SettingKeys.StoreMaxBytes, value, $"is more than the express store can hold in memory ({Array.MaxLength} bytes, the largest array .NET allocates); the journal store (FileStorePath) keeps only StoreWindowBytes in memory");
        }

        return new MemoryMessageStore(settings.GetInt(SettingKeys.StoreMaxMessages), (int)bytes, creationTimeUtc);
    }
}
