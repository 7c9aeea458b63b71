using System.Text;
using RapidFix.Engine.Codec;
using RapidFix.Engine.Configuration;
using RapidFix.Engine.Dictionary;
using RapidFix.Engine.Fields;
using RapidFix.Engine.Sessions.Scheduling;
using RapidFix.Engine.Transport;
using RapidFix.Engine.Validation;

namespace RapidFix.Engine.Sessions;

/// <summary>
/// Everything a <see cref="FixSession"/> needs to know about itself, resolved once at startup from a settings
/// section (<see cref="FromSettings"/>) or set in code. Defaults are QuickFIX's.
/// </summary>
public sealed partial class FixSessionOptions
{
    /// <summary>Options for the session <paramref name="id"/>, with QuickFIX's defaults; set the rest with initializers.</summary>
    public FixSessionOptions(SessionId id)
    {
        ArgumentNullException.ThrowIfNull(id);
        Id = id;
        BeginStringBytes = Encoding.ASCII.GetBytes(id.BeginString);
        SenderCompId = Encoding.ASCII.GetBytes(id.SenderCompId);
        TargetCompId = Encoding.ASCII.GetBytes(id.TargetCompId);
        SenderSubId = Encoding.ASCII.GetBytes(id.SenderSubId);
        SenderLocationId = Encoding.ASCII.GetBytes(id.SenderLocationId);
        TargetSubId = Encoding.ASCII.GetBytes(id.TargetSubId);
        TargetLocationId = Encoding.ASCII.GetBytes(id.TargetLocationId);
        Version = FixVersionOf(id.BeginString);
    }

    /// <summary>The session's identity.</summary>
    public SessionId Id { get; }

    internal byte[] BeginStringBytes { get; }

    internal byte[] SenderCompId { get; }

    internal byte[] TargetCompId { get; }

    internal byte[] SenderSubId { get; }

    internal byte[] SenderLocationId { get; }

    internal byte[] TargetSubId { get; }

    internal byte[] TargetLocationId { get; }

    /// <summary>40, 41, 42, 43, 44 for FIX 4.x; 50 for FIXT.1.1 (reject and resend rules depend on it).</summary>
    public int Version { get; }

    /// <summary>True for an initiator (it sends the first Logon), false for an acceptor.</summary>
    public bool IsInitiator { get; init; }

    /// <summary>The dictionary used to parse and validate (for FIXT, transport and application combined).</summary>
    public DataDictionary Dictionary { get; init; } = null!;

    /// <summary>
    /// The dictionary session-level messages are validated with: for FIXT sessions the transport dictionary alone
    /// (as QuickFIX does: a tag the application version defines is still unknown in a Heartbeat), otherwise
    /// <see cref="Dictionary"/>.
    /// </summary>
    public Dictionary.DataDictionary AdminDictionary
    {
        get => _adminDictionary ?? Dictionary;
        init => _adminDictionary = value;
    }

    private readonly Dictionary.DataDictionary? _adminDictionary;

    /// <summary>The dictionary to parse a message of this MsgType with (null when UseDataDictionary=N).</summary>
    public Dictionary.DataDictionary? DictionaryFor(ReadOnlySpan<byte> msgType)
    {
        if (!UseDataDictionary)
        {
            return null;
        }

        return msgType.Length == 1 && msgType[0] is (byte)'0' or (byte)'1' or (byte)'2' or (byte)'3' or (byte)'4' or (byte)'5' or (byte)'A' or (byte)'n'
            ? AdminDictionary
            : Dictionary;
    }

    /// <summary>UseDataDictionary: when false, only the session-level checks run.</summary>
    public bool UseDataDictionary { get; init; } = true;

    /// <summary>The QuickFIX validation settings (ValidateFieldsOutOfOrder, ValidateUserDefinedFields, ...).</summary>
    public ValidationOptions Validation { get; init; } = ValidationOptions.Default;

    /// <summary>When the session is up, and when a new session (sequence numbers from 1) begins.</summary>
    public SessionSchedule Schedule { get; init; } = SessionSchedule.NonStop;

    /// <summary>HeartBtInt an initiator asks for in its Logon (an acceptor uses the counterparty's).</summary>
    public int HeartBtInt { get; init; } = 30;

    /// <summary>ResetOnLogon: sequence numbers start again from 1 at every Logon.</summary>
    public bool ResetOnLogon { get; init; }

    /// <summary>ResetOnLogout: sequence numbers start again from 1 after a Logout.</summary>
    public bool ResetOnLogout { get; init; }

    /// <summary>ResetOnDisconnect: sequence numbers start again from 1 after a disconnection.</summary>
    public bool ResetOnDisconnect { get; init; }

    /// <summary>PersistMessages: sent application messages are stored for resends; when false, a resend is a gap fill.</summary>
    public bool PersistMessages { get; init; } = true;

    /// <summary>StoreSyncBeforeSend: a stored message goes on the wire only once the store says it is durable.</summary>
    public bool SyncBeforeSend { get; init; }

    /// <summary>
    /// SocketReceiveCoalesceMilliseconds: after a socket read that brought data, the connection's thread waits this
    /// long before it looks again, so the messages that arrive meanwhile come in one read (one poll and one receive
    /// for a burst, not for every message or two); 0 (the default) looks again at once. Adds up to that much latency
    /// to a message that arrives while the thread waits, none to the first of a quiet spell.
    /// </summary>
    public int SocketReceiveCoalesceMilliseconds { get; init; }

    /// <summary>How long a send waits for durability before the session gives up on the store (and disconnects).</summary>
    public TimeSpan SyncTimeout { get; init; } = TimeSpan.FromSeconds(5);

    /// <summary>LogonTimeout: how long to wait for the counterparty's Logon.</summary>
    public TimeSpan LogonTimeout { get; init; } = TimeSpan.FromSeconds(10);

    /// <summary>LogoutTimeout: how long to wait for the counterparty's Logout before disconnecting.</summary>
    public TimeSpan LogoutTimeout { get; init; } = TimeSpan.FromSeconds(2);

    /// <summary>CheckLatency: reject a message whose SendingTime is further than <see cref="MaxLatency"/> from our clock.</summary>
    public bool CheckLatency { get; init; } = true;

    /// <summary>MaxLatency: the largest SendingTime difference accepted when <see cref="CheckLatency"/> is on.</summary>
    public TimeSpan MaxLatency { get; init; } = TimeSpan.FromSeconds(120);

    /// <summary>CheckCompID: reject a message whose CompIDs are not this session's.</summary>
    public bool CheckCompId { get; init; } = true;

    /// <summary>0: one ResendRequest for the whole gap; otherwise the largest chunk asked for at once.</summary>
    public int MaxMessagesInResendRequest { get; init; }

    /// <summary>SendRedundantResendRequests: ask again for a range already asked for.</summary>
    public bool SendRedundantResendRequests { get; init; }

    /// <summary>ResendSessionLevelRejects: resend stored session Rejects instead of gap-filling over them.</summary>
    public bool ResendSessionLevelRejects { get; init; }

    /// <summary>IgnorePossDupResendRequests: ignore a ResendRequest marked PossDupFlag=Y.</summary>
    public bool IgnorePossDupResendRequests { get; init; }

    /// <summary>RequiresOrigSendingTime: reject a PossDup message without OrigSendingTime(122).</summary>
    public bool RequiresOrigSendingTime { get; init; } = true;

    /// <summary>SendLogoutBeforeDisconnectFromTimeout: send a Logout before closing a connection that timed out.</summary>
    public bool SendLogoutBeforeDisconnectFromTimeout { get; init; }

    /// <summary>EnableLastMsgSeqNumProcessed: put LastMsgSeqNumProcessed(369) on every message sent.</summary>
    public bool EnableLastMsgSeqNumProcessed { get; init; }

    /// <summary>
    /// NextExpectedMsgSeqNum(789) on Logon (FIX.4.4 and FIXT.1.1): each side says what it expects next, and each
    /// resends what the other missed at once instead of waiting for a ResendRequest.
    /// </summary>
    public bool EnableNextExpectedMsgSeqNum { get; init; }

    /// <summary>True when <see cref="EnableNextExpectedMsgSeqNum"/> is set and the version has the field.</summary>
    internal bool UsesNextExpectedMsgSeqNum => EnableNextExpectedMsgSeqNum && Version >= 44;

    /// <summary>TimeStampPrecision: the precision of SendingTime and the other timestamps the session writes.</summary>
    public FixTimePrecision TimeStampPrecision { get; init; } = FixTimePrecision.Milliseconds;

    /// <summary>DefaultApplVerID (FIXT sessions), as the ApplVerID enumeration value ("9" for FIX.5.0SP2).</summary>
    public string DefaultApplVerId { get; init; } = "9";

    /// <summary>Largest message read or written.</summary>
    public int MaxMessageSize { get; init; } = 64 * 1024;

    /// <summary>Most fields (all levels) in a received message (setting MaxFieldsPerMessage); more is rejected.</summary>
    public int MaxFieldsPerMessage { get; init; } = FixMessageOptions.Default.MaxFields;

    /// <summary>Most repeating-group entries (all groups) in a received message (setting MaxGroupEntries); more is rejected.</summary>
    public int MaxGroupEntries { get; init; } = FixMessageOptions.Default.MaxGroupEntries;

    /// <summary>The table sizes of a view that reads this session's messages (<see cref="MaxMessageSize"/> bytes).</summary>
    public FixMessageOptions MessageOptions => _messageOptions ??= new FixMessageOptions
    {
        MaxMessageSize = MaxMessageSize,
        MaxFields = MaxFieldsPerMessage,
        MaxGroupEntries = MaxGroupEntries,
    };

    private FixMessageOptions? _messageOptions;

    /// <summary>Bytes that may wait in the outbound buffer for a slow counterparty before the session gives up on it.</summary>
    public int OutboundBufferBytes { get; init; } = 4 * 1024 * 1024;

    /// <summary>How the connection buffers what it receives (setting SocketTransport).</summary>
    public SocketTransport SocketTransport { get; init; } = SocketTransport.Pipelines;

    /// <summary>Acceptor: the smallest HeartBtInt a counterparty's Logon may carry (0 admits "no heartbeats").</summary>
    public int MinHeartBtInt { get; init; } = 1;

    /// <summary>Acceptor: the largest HeartBtInt a counterparty's Logon may carry.</summary>
    public int MaxHeartBtInt { get; init; } = 300;

    /// <summary>Acceptor: the Username(553) the counterparty's Logon must carry (null: not checked); initiator: sent in our Logon.</summary>
    public string? Username
    {
        get => _username;
        init
        {
            _username = value;
            UsernameBytes = string.IsNullOrEmpty(value) ? [] : Encoding.UTF8.GetBytes(value);
        }
    }

    /// <summary>
    /// Acceptor: the Password(554) the counterparty's Logon must carry (null: not checked); initiator: sent in our
    /// Logon. Never logged; compared in constant time.
    /// </summary>
    public string? Password
    {
        get => _password;
        init
        {
            _password = value;
            PasswordBytes = string.IsNullOrEmpty(value) ? [] : Encoding.UTF8.GetBytes(value);
        }
    }

    private readonly string? _username;
    private readonly string? _password;

    internal byte[] UsernameBytes { get; private init; } = [];

    internal byte[] PasswordBytes { get; private init; } = [];

    /// <summary>Acceptor: the addresses a Logon may come from (null: any).</summary>
    public RemoteAddressFilter? AllowedRemoteAddresses { get; init; }

    /// <summary>
    /// Answer as the QuickFIX acceptance scripts pin it (older QuickFIX): a Logon with ResetSeqNumFlag=Y answered
    /// without the flag, a Reject of a too-low NewSeqNo without RefTagID, a Logon with a bad SendingTime closed
    /// without a Logout. Off by default (QuickFIX/J and the FIX session specification).
    /// </summary>
    public bool AcceptanceScriptCompatibility { get; init; }
    /// <summary>TLS settings (SSLEnable=Y and the SSL* keys); null for plaintext.</summary>
    public Transport.Tls.TlsOptions? Tls { get; init; }

    /// <summary>Messages received ahead of a gap that are kept until the gap is filled (more are dropped and re-requested).</summary>
    public int InboundQueueCapacity { get; init; } = 64;

    /// <summary>Most application messages one ResendRequest may make us resend before the rest is gap-filled as unavailable.</summary>
    public int ResendBatchLimit { get; init; } = 1_000_000;

    /// <summary>
    /// Builds the options of one [SESSION] of a QuickFIX-style settings file. Dictionaries are found with
    /// <paramref name="dictionaries"/> (a path or name from DataDictionary / TransportDataDictionary /
    /// AppDataDictionary, or null for the built-in one of the session's version).
    /// </summary>
    public static FixSessionOptions FromSettings(SessionSettings settings, Func<string?, string, DataDictionary>? dictionaries = null)
    {
        ArgumentNullException.ThrowIfNull(settings);
        dictionaries ??= DefaultDictionaryLoader;
        var id = settings.SessionId;
        DataDictionary dictionary;
        DataDictionary? adminDictionary = null;
        if (id.IsFixt)
        {
            string appVersion = ApplVerIdToVersion(settings.GetStringOrNull(SettingKeys.DefaultApplVerId) ?? "FIX.5.0SP2");
            var transport = dictionaries(settings.GetStringOrNull(SettingKeys.TransportDataDictionary), "FIXT.1.1");
            var application = dictionaries(settings.GetStringOrNull(SettingKeys.AppDataDictionary), appVersion);
            dictionary = DataDictionary.Combine(transport, application);
            adminDictionary = transport;
        }
        else
        {
            dictionary = dictionaries(settings.GetStringOrNull(SettingKeys.DataDictionary), id.BeginString);
        }

        var precision = settings.Has(SettingKeys.TimeStampPrecision)
            ? settings.GetChoice(SettingKeys.TimeStampPrecision) switch
            {
                "Second" => FixTimePrecision.Seconds,
                "Microsecond" => FixTimePrecision.Microseconds,
                "Nanosecond" => FixTimePrecision.Nanoseconds,
                _ => FixTimePrecision.Milliseconds,
            }
            : settings.GetBool(SettingKeys.MillisecondsInTimeStamp) ? FixTimePrecision.Milliseconds : FixTimePrecision.Seconds;

        var (minHeartBtInt, maxHeartBtInt) = HeartBtIntBounds(settings);
        return new FixSessionOptions(id)
        {
            IsInitiator = !settings.IsAcceptor,
            Dictionary = dictionary,
            AdminDictionary = adminDictionary ?? dictionary,
            UseDataDictionary = settings.GetBool(SettingKeys.UseDataDictionary),
            Validation = new ValidationOptions
            {
                CheckFieldsOutOfOrder = settings.GetBool(SettingKeys.ValidateFieldsOutOfOrder),
                CheckFieldsHaveValues = settings.GetBool(SettingKeys.ValidateFieldsHaveValues),
                CheckUserDefinedFields = settings.GetBool(SettingKeys.ValidateUserDefinedFields),
                AllowUnknownMessageFields = settings.GetBool(SettingKeys.AllowUnknownMsgFields),
                AllowUnknownEnumValues = settings.GetBool(SettingKeys.AllowUnknownEnumValues),
                CheckUnorderedGroupFields = settings.GetBool(SettingKeys.ValidateUnorderedGroupFields),
            },
            Schedule = SessionSchedule.FromSettings(settings),
            HeartBtInt = settings.Has(SettingKeys.HeartBtInt) ? (int)settings.GetTimeSpan(SettingKeys.HeartBtInt).TotalSeconds
                : settings.IsAcceptor ? 30 : throw settings.Missing(SettingKeys.HeartBtInt, "an initiator sends it in its Logon"),
            ResetOnLogon = settings.GetBool(SettingKeys.ResetOnLogon),
            ResetOnLogout = settings.GetBool(SettingKeys.ResetOnLogout),
            ResetOnDisconnect = settings.GetBool(SettingKeys.ResetOnDisconnect),
            PersistMessages = settings.GetBool(SettingKeys.PersistMessages),
            SendWhileNotLoggedOn = SendWhileNotLoggedOnSetting(settings),
            SyncBeforeSend = settings.GetBool(SettingKeys.StoreSyncBeforeSend),
            SocketReceiveCoalesceMilliseconds = settings.GetInt(SettingKeys.SocketReceiveCoalesceMilliseconds),
            LogonTimeout = settings.GetTimeSpan(SettingKeys.LogonTimeout),
            LogoutTimeout = settings.GetTimeSpan(SettingKeys.LogoutTimeout),
            CheckLatency = settings.GetBool(SettingKeys.CheckLatency),
            MaxLatency = settings.GetTimeSpan(SettingKeys.MaxLatency),
            CheckCompId = settings.GetBool(SettingKeys.CheckCompId),
            MaxMessagesInResendRequest = settings.GetInt(SettingKeys.MaxMessagesInResendRequest),
            SendRedundantResendRequests = settings.GetBool(SettingKeys.SendRedundantResendRequests),
            ResendSessionLevelRejects = settings.GetBool(SettingKeys.ResendSessionLevelRejects),
            IgnorePossDupResendRequests = settings.GetBool(SettingKeys.IgnorePossDupResendRequests),
            RequiresOrigSendingTime = settings.GetBool(SettingKeys.RequiresOrigSendingTime),
            SendLogoutBeforeDisconnectFromTimeout = settings.GetBool(SettingKeys.SendLogoutBeforeDisconnectFromTimeout),
            EnableLastMsgSeqNumProcessed = settings.GetBool(SettingKeys.EnableLastMsgSeqNumProcessed),
            EnableNextExpectedMsgSeqNum = NextExpectedSetting(settings),
            TimeStampPrecision = precision,
            DefaultApplVerId = ApplVerIdEnum(settings.GetStringOrNull(SettingKeys.DefaultApplVerId) ?? "FIX.5.0SP2"),
            MaxMessageSize = settings.GetInt(SettingKeys.MaxMessageSize),
            MaxFieldsPerMessage = settings.GetInt(SettingKeys.MaxFieldsPerMessage),
            MaxGroupEntries = settings.GetInt(SettingKeys.MaxGroupEntries),
            OutboundBufferBytes = (int)Math.Min(int.MaxValue / 2, (long)settings.GetInt(SettingKeys.OutboundQueueDepth) * 1024),
            SocketTransport = Enum.Parse<SocketTransport>(settings.GetChoice(SettingKeys.SocketTransport)),
            InboundQueueCapacity = settings.GetInt(SettingKeys.InboundQueueCapacity),
            MinHeartBtInt = minHeartBtInt,
            MaxHeartBtInt = maxHeartBtInt,
            Username = settings.GetStringOrNull(SettingKeys.Username),
            Password = PasswordSetting(settings),
            AllowedRemoteAddresses = AllowedAddressesSetting(settings),
            AcceptanceScriptCompatibility = settings.GetBool(SettingKeys.AcceptanceScriptCompatibility),
            Tls = Transport.Tls.TlsOptions.FromSettings(settings),
        };
    }

    private static (int Min, int Max) HeartBtIntBounds(SessionSettings settings)
    {
        int min = settings.GetInt(SettingKeys.MinHeartBtInt);
        int max = settings.GetInt(SettingKeys.MaxHeartBtInt);
        if (min > max)
        {
            string key = settings.Has(SettingKeys.MinHeartBtInt) ? SettingKeys.MinHeartBtInt : SettingKeys.MaxHeartBtInt;
            settings.TryGetValue(key, out var value);
            throw settings.Error(key, value, $"MinHeartBtInt {min} is above MaxHeartBtInt {max}");
        }

        return (min, max);
    }

    /// <summary>Password, or the variable PasswordEnvironmentVariable names (read now: a missing variable is a startup error).</summary>
    private static string? PasswordSetting(SessionSettings settings)
    {
        string? password = settings.GetStringOrNull(SettingKeys.Password);
        if (!settings.TryGetValue(SettingKeys.PasswordEnvironmentVariable, out var variable) || variable.Value.Length == 0)
        {
            return password;
        }

        if (password is not null)
        {
            throw settings.Error(SettingKeys.PasswordEnvironmentVariable, variable, "set Password or PasswordEnvironmentVariable, not both");
        }

        return Environment.GetEnvironmentVariable(variable.Value) is { Length: > 0 } fromEnvironment
            ? fromEnvironment
            : throw settings.Error(SettingKeys.PasswordEnvironmentVariable, variable, $"the environment variable '{variable.Value}' is not set");
    }

    private static RemoteAddressFilter? AllowedAddressesSetting(SessionSettings settings)
    {
        if (!settings.TryGetValue(SettingKeys.AllowedRemoteAddresses, out var value) || value.Value.Length == 0)
        {
            return null;
        }

        try
        {
            return RemoteAddressFilter.Parse(value.Value);
        }
        catch (FormatException e)
        {
            throw settings.Error(SettingKeys.AllowedRemoteAddresses, value, e.Message);
        }
    }

    /// <summary>
    /// Loads a dictionary named in settings: a file path as given (QuickFIX files often write it with '\'), else the
    /// same path relative to the settings file's folder; null means the built-in dictionary of the version.
    /// </summary>
    public static DataDictionary DefaultDictionaryLoader(string? path, string version)
    {
        if (string.IsNullOrEmpty(path))
        {
            return StandardDictionaries.Load(version);
        }

        string normalized = path.Replace('\\', Path.DirectorySeparatorChar);
        if (File.Exists(normalized))
        {
            return DataDictionary.Load(normalized);
        }

        // "spec\fix\FIX44.xml" as in QuickFIX's own files: fall back to the built-in copy of that file.
        string name = Path.GetFileNameWithoutExtension(normalized);
        return StandardDictionaries.Names.Contains(name, StringComparer.OrdinalIgnoreCase)
            ? StandardDictionaries.Load(name)
            : throw new FileNotFoundException($"Dictionary '{path}' not found (and it is not one of the built-in {string.Join(", ", StandardDictionaries.Names)}).", normalized);
    }

    private static bool NextExpectedSetting(SessionSettings settings)
    {
        bool enabled = settings.GetBool(SettingKeys.EnableNextExpectedMsgSeqNum);
        if (enabled && FixVersionOf(settings.SessionId.BeginString) < 44 && settings.TryGetValue(SettingKeys.EnableNextExpectedMsgSeqNum, out var value))
        {
            throw settings.Error(SettingKeys.EnableNextExpectedMsgSeqNum, value,
                $"NextExpectedMsgSeqNum(789) exists from FIX.4.4 and FIXT.1.1 on; this session is {settings.SessionId.BeginString}");
        }

        return enabled;
    }

    private static int FixVersionOf(string beginString) => beginString switch
    {
        "FIX.4.0" => 40,
        "FIX.4.1" => 41,
        "FIX.4.2" => 42,
        "FIX.4.3" => 43,
        "FIX.4.4" => 44,
        _ => 50,
    };

    /// <summary>"FIX.5.0SP2" or "9" → "FIX.5.0SP2".</summary>
    internal static string ApplVerIdToVersion(string value) => value switch
    {
        "2" => "FIX.4.0",
        "3" => "FIX.4.1",
        "4" => "FIX.4.2",
        "5" => "FIX.4.3",
        "6" => "FIX.4.4",
        "7" => "FIX.5.0",
        "8" => "FIX.5.0SP1",
        "9" => "FIX.5.0SP2",
        _ => value,
    };

    /// <summary>"FIX.5.0SP2" or "9" → "9".</summary>
    internal static string ApplVerIdEnum(string value) => value switch
    {
        "FIX.4.0" => "2",
        "FIX.4.1" => "3",
        "FIX.4.2" => "4",
        "FIX.4.3" => "5",
        "FIX.4.4" => "6",
        "FIX.5.0" => "7",
        "FIX.5.0SP1" => "8",
        "FIX.5.0SP2" => "9",
        _ => value,
    };
}
