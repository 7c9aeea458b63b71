using System.Collections.Frozen;
using static RapidFix.Engine.Configuration.SettingKeys;

namespace RapidFix.Engine.Configuration;

/// <summary>
/// Every settings key the engine understands: the QuickFIX/n vocabulary (so its users bring their files unchanged)
/// and RapidFix's own keys. Keys are matched ignoring case, as QuickFIX/n does.
/// </summary>
public static class SettingsCatalogue
{
    private static readonly TimeSpan Second = TimeSpan.FromSeconds(1);
    private static readonly TimeSpan Millisecond = TimeSpan.FromMilliseconds(1);
    private static readonly TimeSpan Microsecond = TimeSpan.FromTicks(10);

    /// <summary>The BeginString values a session may use.</summary>
    public static readonly IReadOnlyList<string> BeginStrings =
        ["FIX.4.0", "FIX.4.1", "FIX.4.2", "FIX.4.3", "FIX.4.4", "FIXT.1.1"];

    /// <summary>DefaultApplVerID values: a BeginString-style name or the ApplVerID(1128) enumeration.</summary>
    public static readonly IReadOnlyList<string> ApplVerIds =
        ["FIX.2.7", "FIX.3.0", "FIX.4.0", "FIX.4.1", "FIX.4.2", "FIX.4.3", "FIX.4.4", "FIX.5.0", "FIX.5.0SP1", "FIX.5.0SP2",
         "0", "1", "2", "3", "4", "5", "6", "7", "8", "9"];

    /// <summary>All definitions, in catalogue order.</summary>
    public static IReadOnlyList<SettingDefinition> All { get; } = Build();

    private static readonly FrozenDictionary<string, SettingDefinition> ByKey =
        All.ToFrozenDictionary(d => d.Key, StringComparer.OrdinalIgnoreCase);

    /// <summary>
    /// Finds the definition of <paramref name="key"/>, ignoring case; indexed keys (SocketConnectHost1) resolve to
    /// their base definition.
    /// </summary>
    public static SettingDefinition? Find(string key)
    {
        ArgumentNullException.ThrowIfNull(key);
        if (ByKey.TryGetValue(key, out var definition))
        {
            return definition;
        }

        int end = key.Length;
        while (end > 0 && char.IsAsciiDigit(key[end - 1]))
        {
            end--;
        }

        if (end < key.Length && end > 0 && ByKey.TryGetValue(key[..end], out definition) && definition.Indexed)
        {
            return definition;
        }

        return null;
    }

    /// <summary>The closest known key to an unknown one (for "did you mean" hints), or null when none is close.</summary>
    public static string? Suggest(string unknownKey)
    {
        string? best = null;
        int bestDistance = int.MaxValue;
        foreach (var definition in All)
        {
            int distance = EditDistance(unknownKey.ToUpperInvariant(), definition.Key.ToUpperInvariant());
            if (distance < bestDistance)
            {
                bestDistance = distance;
                best = definition.Key;
            }
        }

        return bestDistance <= Math.Max(2, unknownKey.Length / 5) ? best : null;
    }

    private static int EditDistance(string a, string b)
    {
        var previous = new int[b.Length + 1];
        var current = new int[b.Length + 1];
        for (int j = 0; j <= b.Length; j++)
        {
            previous[j] = j;
        }

        for (int i = 1; i <= a.Length; i++)
        {
            current[0] = i;
            for (int j = 1; j <= b.Length; j++)
            {
                int cost = a[i - 1] == b[j - 1] ? 0 : 1;
                current[j] = Math.Min(Math.Min(current[j - 1] + 1, previous[j] + 1), previous[j - 1] + cost);
            }

            (previous, current) = (current, previous);
        }

        return previous[b.Length];
    }

    private static SettingDefinition S(string key, string description, string? defaultValue = null) =>
        new() { Key = key, Type = SettingType.String, Description = description, DefaultValue = defaultValue };

    private static SettingDefinition P(string key, string description) =>
        new() { Key = key, Type = SettingType.Path, Description = description };

    private static SettingDefinition B(string key, string description, string? defaultValue) =>
        new() { Key = key, Type = SettingType.Boolean, Description = description, DefaultValue = defaultValue };

    private static SettingDefinition I(string key, string description, string? defaultValue, long min, long max) =>
        new() { Key = key, Type = SettingType.Integer, Description = description, DefaultValue = defaultValue, Min = min, Max = max };

    private static SettingDefinition D(string key, string description, string? defaultValue, TimeSpan unit, long min, long max) =>
        new() { Key = key, Type = SettingType.Duration, Description = description, DefaultValue = defaultValue, Unit = unit, Min = min, Max = max };

    private static SettingDefinition C(string key, string description, string? defaultValue, params string[] values) =>
        new() { Key = key, Type = SettingType.Choice, Description = description, DefaultValue = defaultValue, AllowedValues = values };

    private static SettingDefinition[] Build()
    {
        const int MaxInt = int.MaxValue;
        SettingDefinition rapid(SettingDefinition d) => d with { Origin = SettingOrigin.RapidFix };
        SettingDefinition unsupported(SettingDefinition d) => d with { Support = SettingSupport.Unsupported };
        SettingDefinition ignored(SettingDefinition d) => d with { Support = SettingSupport.Ignored };

        return
        [
            // Session identity.
            new() { Key = BeginString, Type = SettingType.Choice, AllowedValues = BeginStrings, Description = "FIX version of the session's transport: FIX.4.0 to FIX.4.4, or FIXT.1.1 for FIX 5.x." },
            S(SenderCompId, "Our CompID (tag 49 on messages we send)."),
            S(SenderSubId, "Our SubID (tag 50), part of the session identity when set."),
            S(SenderLocationId, "Our LocationID (tag 142), part of the session identity when set."),
            S(TargetCompId, "The counterparty's CompID (tag 56 on messages we send)."),
            S(TargetSubId, "The counterparty's SubID (tag 57), part of the session identity when set."),
            S(TargetLocationId, "The counterparty's LocationID (tag 143), part of the session identity when set."),
            S(SessionQualifier, "Distinguishes sessions that are otherwise identical."),
            new() { Key = DefaultApplVerId, Type = SettingType.Choice, AllowedValues = ApplVerIds, Description = "Required for FIXT.1.1: the application version (FIX.5.0SP2 or the ApplVerID enumeration)." },
            C(ConnectionType, "Whether we accept or initiate the connection.", null, "acceptor", "initiator"),

            // Schedule.
            new() { Key = StartTime, Type = SettingType.TimeOfDay, Description = "Time of day the session starts (in TimeZone, UTC by default)." },
            new() { Key = EndTime, Type = SettingType.TimeOfDay, Description = "Time of day the session ends; at or before StartTime means it ends on the next day." },
            new() { Key = StartDay, Type = SettingType.DayOfWeek, Description = "For weekly sessions: the day StartTime applies to." },
            new() { Key = EndDay, Type = SettingType.DayOfWeek, Description = "For weekly sessions: the day EndTime applies to." },
            new() { Key = Weekdays, Type = SettingType.DayList, Description = "Daily sessions only on these days (the day each session starts), e.g. Mon,Tue,Wed,Thu,Fri." },
            new() { Key = SettingKeys.TimeZone, Type = SettingType.TimeZone, Description = "Time zone of StartTime/EndTime (IANA id, or a common Windows id)." },
            B(UseLocalTime, "StartTime/EndTime are in the machine's local time zone.", "N"),
            B(NonStopSession, "The session never ends: no schedule, no daily reset.", "N"),

            // Transport.
            S(SocketAcceptHost, "Address the acceptor listens on (all addresses when absent)."),
            new() { Key = SocketAcceptPort, Type = SettingType.Port, Description = "Port the acceptor listens on." },
            S(SocketConnectHost, "Host the initiator connects to; SocketConnectHost1, 2, ... are failover hosts.") with { Indexed = true },
            new() { Key = SocketConnectPort, Type = SettingType.Port, Indexed = true, Description = "Port the initiator connects to; SocketConnectPort1, 2, ... pair with the failover hosts." },
            D(ReconnectInterval, "Seconds between reconnection attempts of an initiator.", "30", Second, 1, MaxInt),
            B(SocketNodelay, "Disable Nagle's algorithm (TCP_NODELAY).", "Y"),
            B(SocketReuseAddress, "Set SO_REUSEADDR on the listening socket.", "Y"),
            I(SocketSendBufferSize, "Socket send buffer size in bytes (0 leaves the OS default).", "0", 0, MaxInt),
            I(SocketReceiveBufferSize, "Socket receive buffer size in bytes (0 leaves the OS default).", "0", 0, MaxInt),
            rapid(I(SocketReceiveCoalesceMilliseconds, "After a socket read that brought data, the connection's thread waits this long before it reads again, so the messages of a burst come in one read instead of one read for every message or two (adds up to that much latency under load, none to the first message of a quiet spell). 0 reads again at once.", "0", 0, 100)),
            D(SocketSendTimeout, "Socket send timeout in milliseconds (0 for none).", "0", Millisecond, 0, MaxInt),
            D(SocketReceiveTimeout, "Socket receive timeout in milliseconds (0 for none).", "0", Millisecond, 0, MaxInt),
            unsupported(B("SocketIgnoreProxy", "QuickFIX/n: bypass the system proxy.", "N")),

            // TLS (docs/tls.md). Checked when the engine is created: a setting that cannot be honoured is an error, never plaintext.
            B(SslEnable, "Speak TLS on this session's connections (an acceptor port's sessions must agree on every SSL setting).", "N"),
            S(SslServerName, "Initiator: the name the server's certificate must carry (defaults to the host connected to)."),
            S(SslProtocols, "TLS versions: Tls12 and/or Tls13 (comma-separated); older protocols are refused at startup.", "Tls12,Tls13"),
            B(SslValidateCertificates, "Check the peer's certificate (chain to SSLCACertificate or the system roots, server name). N accepts any peer: for tests only.", "Y"),
            B(SslCheckCertificateRevocation, "Check the revocation of the peer's chain online (needs CRL or OCSP reachable from the certificates).", "Y"),
            P(SslCertificate, "Our certificate with its private key: PKCS#12 (.pfx/.p12) or PEM (key in the file or in SSLPrivateKey). Required for an acceptor; an initiator's client certificate."),
            S(SslCertificatePassword, "Password of SSLCertificate (PKCS#12, or an encrypted PEM key). Never logged."),
            rapid(S(SslCertificatePasswordVariable, "Name of an environment variable holding SSLCertificate's password, instead of writing it in the file.")),
            rapid(P(SslPrivateKey, "PEM private key of SSLCertificate when it is not in the certificate's file.")),
            B(SslRequireClientCertificate, "Acceptor: require a client certificate (checked like the server's).", "Y"),
            P(SslCaCertificate, "The CA the peer's certificate must chain to (PEM or DER); without it the system's trusted roots."),

            // Session protocol behaviour.
            D(HeartBtInt, "Heartbeat interval in seconds (an initiator sends it in its Logon).", null, Second, 0, MaxInt),
            B(ResetOnLogon, "Reset sequence numbers when a Logon is received or sent.", "N"),
            B(ResetOnLogout, "Reset sequence numbers after a Logout.", "N"),
            B(ResetOnDisconnect, "Reset sequence numbers after a disconnection.", "N"),
            B(RefreshOnLogon, "Reload the message store from disk at Logon.", "N"),
            B(PersistMessages, "Keep sent messages for resending; when N, resends are answered with gap fills.", "Y"),
            rapid(C(SendWhileNotLoggedOn, "What an application message sent while the session is not logged on becomes: Store (as QuickFIX/n: its MsgSeqNum is used, it is stored and goes out on the resend the counterparty asks for after logon; needs PersistMessages=Y) or Refuse (the default: nothing stored, no MsgSeqNum used, the caller keeps the message).", "Refuse", "Store", "Refuse")),
            D(LogonTimeout, "Seconds to wait for the Logon reply.", "10", Second, 1, MaxInt),
            D(LogoutTimeout, "Seconds to wait for the Logout reply.", "2", Second, 1, MaxInt),
            B(CheckLatency, "Reject messages whose SendingTime is more than MaxLatency away from our clock.", "Y"),
            D(MaxLatency, "Seconds of SendingTime skew tolerated when CheckLatency=Y.", "120", Second, 1, MaxInt),
            B(CheckCompId, "Reject messages whose CompIDs do not match the session.", "Y"),
            B(SendRedundantResendRequests, "Send a ResendRequest even when one for the same range is outstanding.", "N"),
            B(ResendSessionLevelRejects, "Resend session-level Reject messages instead of gap-filling over them.", "N"),
            B(MillisecondsInTimeStamp, "QuickFIX: milliseconds in SendingTime (superseded by TimeStampPrecision).", "Y"),
            C(TimeStampPrecision, "Precision of the timestamps we send.", "Millisecond", "Second", "Millisecond", "Microsecond", "Nanosecond"),
            B(EnableLastMsgSeqNumProcessed, "Put LastMsgSeqNumProcessed(369) on every message sent.", "N"),
            B(EnableNextExpectedMsgSeqNum, "QuickFIX/J: exchange NextExpectedMsgSeqNum(789) in the Logons and resend what the counterparty missed without waiting for a ResendRequest (FIX.4.4, FIXT.1.1).", "N"),
            I(MaxMessagesInResendRequest, "Largest range asked for in one ResendRequest (0 for no limit).", "0", 0, MaxInt),
            B(SendLogoutBeforeDisconnectFromTimeout, "Send a Logout before disconnecting on a heartbeat timeout.", "N"),
            B(IgnorePossDupResendRequests, "Ignore ResendRequests that carry PossDupFlag=Y.", "N"),
            B(RequiresOrigSendingTime, "Reject PossDup messages without OrigSendingTime(122).", "Y"),
            B(ValidateLengthAndChecksum, "Reject messages with a wrong BodyLength or CheckSum.", "Y"),

            // Logon checks (RapidFix): what a counterparty's Logon must satisfy before anything else happens.
            rapid(I(MinHeartBtInt, "Acceptor: the smallest HeartBtInt(108) a counterparty may ask for, in seconds; a Logon below it is refused with a Logout naming the limit. 0 admits HeartBtInt=0 (no heartbeats, no liveness check).", "1", 0, MaxInt)),
            rapid(I(MaxHeartBtInt, "Acceptor: the largest HeartBtInt(108) a counterparty may ask for, in seconds; a Logon above it is refused with a Logout naming the limit.", "300", 0, MaxInt)),
            rapid(S(Username, "Acceptor: the Username(553) the counterparty's Logon must carry; initiator: sent in our Logon.")),
            rapid(S(Password, "Acceptor: the Password(554) the counterparty's Logon must carry; initiator: sent in our Logon. Never logged. Prefer PasswordEnvironmentVariable.")),
            rapid(S(PasswordEnvironmentVariable, "Name of the environment variable holding the Password (read once at startup; an error when it is not set).")),
            rapid(S(AllowedRemoteAddresses, "Acceptor: comma-separated addresses and CIDR ranges (10.1.0.0/16, 192.0.2.7, 2001:db8::/32) a Logon may come from; empty admits any address.")),
            rapid(I(InboundQueueCapacity, "Messages received ahead of a sequence gap that are kept (copied into views of MaxMessageSize pre-allocated at startup) until the gap is filled; more are dropped and asked for again once it is.", "64", 1, 1 << 16)),
            rapid(B(AcceptanceScriptCompatibility, "Answer as the QuickFIX acceptance scripts of the conformance suite pin it (older QuickFIX): a Logon with ResetSeqNumFlag=Y answered without the flag, a Reject of a too-low NewSeqNo without RefTagID, a Logon with a bad SendingTime closed without a Logout. N (the default) follows QuickFIX/J and the FIX session specification.", "N")),

            // Data dictionary and validation.
            B(UseDataDictionary, "Validate messages against the data dictionary.", "Y"),
            P(DataDictionary, "Data dictionary (FIX 4.x)."),
            P(TransportDataDictionary, "Transport data dictionary (FIXT.1.1)."),
            P(AppDataDictionary, "Application data dictionary (FIX 5.x over FIXT.1.1)."),
            B(ValidateFieldsOutOfOrder, "Reject header, body or trailer fields out of order.", "Y"),
            B(ValidateFieldsHaveValues, "Reject fields with empty values.", "Y"),
            B(ValidateUserDefinedFields, "Validate user-defined fields (tag 5000 and above) against the dictionary.", "Y"),
            B(AllowUnknownMsgFields, "Accept fields the dictionary does not define for the message.", "N"),
            B(AllowUnknownEnumValues, "Accept enumerated fields with values the dictionary does not list.", "N"),
            B(ValidateUnorderedGroupFields, "QuickFIX/J: reject a repeating-group entry whose fields are not in the dictionary's order (SessionRejectReason 15).", "Y"),

            // Storage and logging.
            P(FileStorePath, "Directory of the recoverable message store (one journal per session)."),
            P(FileLogPath, "Directory of the message and event logs: per session <prefix>.messages.current.log (every message received and sent) and <prefix>.event.current.log, written off the session's thread (docs/hosting.md)."),
            rapid(I(FileLogBufferSize, "Bytes of messages that may wait for the message log's writer per session (FileLogPath); a message that does not fit is dropped, counted and reported in the event log, never waited for.", "4194304", 4096, 1 << 30)),
            unsupported(P("DebugFileLogPath", "QuickFIX/n: debug log directory.")),
            ignored(B("ScreenLogShowIncoming", "QuickFIX/n screen log: show incoming messages.", "N")),
            ignored(B("ScreenLogShowOutgoing", "QuickFIX/n screen log: show outgoing messages.", "N")),
            ignored(B("ScreenLogShowEvents", "QuickFIX/n screen log: show events.", "N")),
            ignored(B("Verbose", "QuickFIX test settings: verbose logging.", "N")),
            unsupported(S("Encoding", "QuickFIX/n: character encoding of string fields (RapidFix works on bytes).")),
            unsupported(B("CmeEnhancedResend", "QuickFIX/n: CME enhanced resend handling.", "N")),
            unsupported(S("RedactFieldsInLogs", "QuickFIX/n: fields to redact in logs.")),
            unsupported(S("RedactionLogText", "QuickFIX/n: text replacing redacted values.")),

            // RapidFix's own settings.
            rapid(I(MaxMessageSize, "Largest message, in bytes, the engine reads or writes.", "65536", 256, 64 << 20)),
            rapid(I(MaxFieldsPerMessage, "Most fields (all levels) a received message may have; one with more is rejected (its MsgSeqNum consumed).", "1024", 4, 1 << 20)),
            rapid(I(MaxGroupEntries, "Most repeating-group entries (all groups, all levels) a received message may have; one with more is rejected.", "1024", 1, 1 << 20)),
            rapid(I(MessagePoolSize, "Message objects pre-allocated per session at startup.", "1024", 1, 1 << 24)),
            rapid(I(BufferPoolSize, "Message buffers (of MaxMessageSize) pre-allocated per session at startup.", "256", 1, 1 << 24)),
            rapid(I(OutboundQueueDepth, "Messages that may wait to be sent before senders are refused.", "4096", 1, 1 << 24)),
            rapid(C(SocketTransport, "How a connection buffers what it receives, both on one dedicated thread per connection: Pipelines (a System.IO.Pipelines pipe over a pre-sized per-connection pool) or DedicatedThread (one flat buffer). Sessions sharing an acceptor port must agree. Pipelines is the default: the design's choice, and DedicatedThread measured no faster side by side (docs/performance.md).", "Pipelines", "Pipelines", "DedicatedThread")),
            rapid(C(StoreType, "Message store: journal (on disk, recoverable) or express (memory only). Defaults to journal when FileStorePath is set.", null, "journal", "express")),
            rapid(C(StoreFlushPolicy, "When journal writes reach the disk: EveryMessage (write+fsync per message), GroupCommit (a flusher thread batches writes into one write+fsync), OsOnly (written to the OS, never fsynced).", "GroupCommit", "EveryMessage", "GroupCommit", "OsOnly")),
            rapid(B(StoreSyncBeforeSend, "Hold every stored message until the journal says it is durable before it goes on the wire: the counterparty never sees a message a crash could lose (adds the flush latency to each send).", "N")),
            rapid(I(StoreFlushMaxBatch, "GroupCommit: flush as soon as this many records are pending.", "64", 1, 1 << 20)),
            rapid(D(StoreFlushMaxDelayMicroseconds, "GroupCommit: longest time, in microseconds, the flusher waits for a batch to fill (0 flushes at once).", "0", Microsecond, 0, 1_000_000)),
            rapid(I(StoreMaxMessages, "Sent messages the store holds per generation (between resets): the express store's index; for the journal store a count (IndexFull past it), its memory index holds the most recent ones.", "1000000", 16, Array.MaxLength)),
            rapid(I(StoreMaxBytes, "Bytes of journal (messages and sequence records) the store holds per generation: the express store's memory (at most 2147483591, the largest array .NET allocates), the journal store's file (up to 2^48; its memory is StoreWindowBytes).", "268435456", 4096, 1L << 48)),
            rapid(I(StoreWindowBytes, "Journal store: bytes of the journal kept in memory (a write window of its last bytes, pinned, at most StoreMaxBytes), which serves recent resends; older messages are read from the file. Records not yet on disk never take more than this.", "16777216", 65536, Array.MaxLength)),
            rapid(I(StorePageCacheBytes, "Journal store: bytes of the journal file's end left in the operating system's page cache (Linux): after each fsync the older written pages are dropped, so the cache the journal takes stays bounded and its pages are reused instead of each new page of the growing file taking fresh memory. 0: no limit (the OS decides). Not applied under StoreFlushPolicy=OsOnly.", "268435456", 0, 1L << 48)),
            rapid(B(StoreCommitMemory, "Commit the journal store's memory (touch every page of its window, index and read buffer) when it is opened, so resident memory is reached at startup instead of growing to the window as the store fills.", "N")),
            rapid(B(StoreDeferTargetSeqNum, "The journal store's record of each received message's sequence number starts no flush of its own: it reaches the disk with the next flush of a sent message, or within 100 ms. A crash can lose up to that much of the received sequence (the counterparty is asked to resend it). For applications that journal their inputs themselves (the matching service).", "N")),
            rapid(I(SocketAcceptBacklog, "Acceptor: connections the kernel may hold completed but not yet accepted (the listen backlog; the OS may cap it). The sessions of a port must agree.", "1024", 1, 65535)),
            rapid(I(MaxPendingLogons, "Acceptor: connections of the port awaiting their Logon at once; one beyond is closed at once and logged. The sessions of a port must agree.", "256", 1, 1 << 20)),
            B(AcceptorTemplate, "QuickFIX/J, QuickFIX/n: this acceptor section is a template: a Logon whose identity matches it (a * in SenderCompID, TargetCompID, a SubID or a LocationID matches any value) creates a session with these settings, kept once the application's OnLogonRequest accepts it (docs/hosting.md).", "N"),
            rapid(I(MaxDynamicSessions, "Acceptor template: most sessions it may create; a Logon beyond is refused with a Logout naming the limit, and logged.", "256", 1, 1 << 20)),
            rapid(I(DynamicSessionCapacity, "Acceptor template: sessions it may have at once whose connection buffers (outbound, receive, parsed view) are made at startup; a Logon when all are taken is refused with a Logout naming the limit, and logged with the peer's address. A session gives its slot back when it is removed or its Logon refused.", "4", 0, 1 << 16)),
            rapid(I(MaxPendingLogonsPerAddress, "Acceptor: connections from one IP address awaiting their Logon at once; one beyond is closed at once and logged. The sessions of a port must agree.", "32", 1, 1 << 20)),
        ];
    }
}
