namespace RapidFix.Engine.Configuration;

/// <summary>Names of the settings keys (see <see cref="SettingsCatalogue"/> for their types and meaning).</summary>
public static class SettingKeys
{
    // Session identity.
    /// <summary>BeginString: FIX version of the session's transport: FIX.4.0 to FIX.4.4, or FIXT.1.1 for FIX 5.x.</summary>
    public const string BeginString = "BeginString";
    /// <summary>SenderCompID: Our CompID (tag 49 on messages we send).</summary>
    public const string SenderCompId = "SenderCompID";
    /// <summary>SenderSubID: Our SubID (tag 50), part of the session identity when set.</summary>
    public const string SenderSubId = "SenderSubID";
    /// <summary>SenderLocationID: Our LocationID (tag 142), part of the session identity when set.</summary>
    public const string SenderLocationId = "SenderLocationID";
    /// <summary>TargetCompID: The counterparty's CompID (tag 56 on messages we send).</summary>
    public const string TargetCompId = "TargetCompID";
    /// <summary>TargetSubID: The counterparty's SubID (tag 57), part of the session identity when set.</summary>
    public const string TargetSubId = "TargetSubID";
    /// <summary>TargetLocationID: The counterparty's LocationID (tag 143), part of the session identity when set.</summary>
    public const string TargetLocationId = "TargetLocationID";
    /// <summary>SessionQualifier: Distinguishes sessions that are otherwise identical.</summary>
    public const string SessionQualifier = "SessionQualifier";
    /// <summary>DefaultApplVerID: Required for FIXT.1.1: the application version (FIX.5.0SP2 or the ApplVerID enumeration).</summary>
    public const string DefaultApplVerId = "DefaultApplVerID";
    /// <summary>ConnectionType: Whether we accept or initiate the connection.</summary>
    public const string ConnectionType = "ConnectionType";

    // Schedule.
    /// <summary>StartTime: Time of day the session starts (in TimeZone, UTC by default).</summary>
    public const string StartTime = "StartTime";
    /// <summary>EndTime: Time of day the session ends; at or before StartTime means it ends on the next day.</summary>
    public const string EndTime = "EndTime";
    /// <summary>StartDay: For weekly sessions: the day StartTime applies to.</summary>
    public const string StartDay = "StartDay";
    /// <summary>EndDay: For weekly sessions: the day EndTime applies to.</summary>
    public const string EndDay = "EndDay";
    /// <summary>Weekdays: Daily sessions only on these days (the day each session starts), e.g. Mon,Tue,Wed,Thu,Fri.</summary>
    public const string Weekdays = "Weekdays";
    /// <summary>TimeZone: the time zone of StartTime and EndTime (an IANA or Windows id; UTC by default).</summary>
    public const string TimeZone = "TimeZone";
    /// <summary>UseLocalTime: StartTime/EndTime are in the machine's local time zone.</summary>
    public const string UseLocalTime = "UseLocalTime";
    /// <summary>NonStopSession: The session never ends: no schedule, no daily reset.</summary>
    public const string NonStopSession = "NonStopSession";

    // Transport.
    /// <summary>SocketAcceptHost: Address the acceptor listens on (all addresses when absent).</summary>
    public const string SocketAcceptHost = "SocketAcceptHost";
    /// <summary>SocketAcceptPort: Port the acceptor listens on.</summary>
    public const string SocketAcceptPort = "SocketAcceptPort";
    /// <summary>SocketConnectHost: Host the initiator connects to; SocketConnectHost1, 2, ... are failover hosts.</summary>
    public const string SocketConnectHost = "SocketConnectHost";
    /// <summary>SocketConnectPort: Port the initiator connects to; SocketConnectPort1, 2, ... pair with the failover hosts.</summary>
    public const string SocketConnectPort = "SocketConnectPort";
    /// <summary>ReconnectInterval: Seconds between reconnection attempts of an initiator.</summary>
    public const string ReconnectInterval = "ReconnectInterval";
    /// <summary>SocketNodelay: Disable Nagle's algorithm (TCP_NODELAY).</summary>
    public const string SocketNodelay = "SocketNodelay";
    /// <summary>SocketReuseAddress: Set SO_REUSEADDR on the listening socket.</summary>
    public const string SocketReuseAddress = "SocketReuseAddress";
    /// <summary>SocketSendBufferSize: Socket send buffer size in bytes (0 leaves the OS default).</summary>
    public const string SocketSendBufferSize = "SocketSendBufferSize";
    /// <summary>SocketReceiveBufferSize: Socket receive buffer size in bytes (0 leaves the OS default).</summary>
    public const string SocketReceiveBufferSize = "SocketReceiveBufferSize";
    /// <summary>SocketReceiveCoalesceMilliseconds: After a read that brought data, the connection's thread waits this long before it reads again, so a burst comes in one read (0: at once).</summary>
    public const string SocketReceiveCoalesceMilliseconds = "SocketReceiveCoalesceMilliseconds";
    /// <summary>SocketSendTimeout: Socket send timeout in milliseconds (0 for none).</summary>
    public const string SocketSendTimeout = "SocketSendTimeout";
    /// <summary>SocketReceiveTimeout: Socket receive timeout in milliseconds (0 for none).</summary>
    public const string SocketReceiveTimeout = "SocketReceiveTimeout";

    // TLS (QuickFIX/n's SSL* keys, and RapidFix's SSLCertificatePasswordVariable and SSLPrivateKey).
    /// <summary>SSLEnable: Speak TLS on this session's connections (an acceptor port's sessions must agree on every SSL setting).</summary>
    public const string SslEnable = "SSLEnable";
    /// <summary>SSLServerName: Initiator: the name the server's certificate must carry (defaults to the host connected to).</summary>
    public const string SslServerName = "SSLServerName";
    /// <summary>SSLProtocols: TLS versions: Tls12 and/or Tls13 (comma-separated); older protocols are refused at startup.</summary>
    public const string SslProtocols = "SSLProtocols";
    /// <summary>SSLValidateCertificates: Check the peer's certificate (chain to SSLCACertificate or the system roots, server name). N accepts any peer: for tests only.</summary>
    public const string SslValidateCertificates = "SSLValidateCertificates";
    /// <summary>SSLCheckCertificateRevocation: Check the revocation of the peer's chain online (needs CRL or OCSP reachable from the certificates).</summary>
    public const string SslCheckCertificateRevocation = "SSLCheckCertificateRevocation";
    /// <summary>SSLCertificate: Our certificate with its private key: PKCS#12 (.pfx/.p12) or PEM (key in the file or in SSLPrivateKey). Required for an acceptor; an initiator's client certificate.</summary>
    public const string SslCertificate = "SSLCertificate";
    /// <summary>SSLCertificatePassword: Password of SSLCertificate (PKCS#12, or an encrypted PEM key). Never logged.</summary>
    public const string SslCertificatePassword = "SSLCertificatePassword";
    /// <summary>SSLCertificatePasswordVariable: Name of an environment variable holding SSLCertificate's password, instead of writing it in the file.</summary>
    public const string SslCertificatePasswordVariable = "SSLCertificatePasswordVariable";
    /// <summary>SSLPrivateKey: PEM private key of SSLCertificate when it is not in the certificate's file.</summary>
    public const string SslPrivateKey = "SSLPrivateKey";
    /// <summary>SSLRequireClientCertificate: Acceptor: require a client certificate (checked like the server's).</summary>
    public const string SslRequireClientCertificate = "SSLRequireClientCertificate";
    /// <summary>SSLCACertificate: The CA the peer's certificate must chain to (PEM or DER); without it the system's trusted roots.</summary>
    public const string SslCaCertificate = "SSLCACertificate";

    // Session protocol behaviour.
    /// <summary>HeartBtInt: Heartbeat interval in seconds (an initiator sends it in its Logon).</summary>
    public const string HeartBtInt = "HeartBtInt";
    /// <summary>ResetOnLogon: Reset sequence numbers when a Logon is received or sent.</summary>
    public const string ResetOnLogon = "ResetOnLogon";
    /// <summary>ResetOnLogout: Reset sequence numbers after a Logout.</summary>
    public const string ResetOnLogout = "ResetOnLogout";
    /// <summary>ResetOnDisconnect: Reset sequence numbers after a disconnection.</summary>
    public const string ResetOnDisconnect = "ResetOnDisconnect";
    /// <summary>RefreshOnLogon: Reload the message store from disk at Logon.</summary>
    public const string RefreshOnLogon = "RefreshOnLogon";
    /// <summary>PersistMessages: Keep sent messages for resending; when N, resends are answered with gap fills.</summary>
    public const string PersistMessages = "PersistMessages";
    /// <summary>SendWhileNotLoggedOn: Refuse (the default) or Store (QuickFIX/n): what Send does with an application message while the session is not logged on.</summary>
    public const string SendWhileNotLoggedOn = "SendWhileNotLoggedOn";
    /// <summary>LogonTimeout: Seconds to wait for the Logon reply.</summary>
    public const string LogonTimeout = "LogonTimeout";
    /// <summary>LogoutTimeout: Seconds to wait for the Logout reply.</summary>
    public const string LogoutTimeout = "LogoutTimeout";
    /// <summary>CheckLatency: Reject messages whose SendingTime is more than MaxLatency away from our clock.</summary>
    public const string CheckLatency = "CheckLatency";
    /// <summary>MaxLatency: Seconds of SendingTime skew tolerated when CheckLatency=Y.</summary>
    public const string MaxLatency = "MaxLatency";
    /// <summary>CheckCompID: Reject messages whose CompIDs do not match the session.</summary>
    public const string CheckCompId = "CheckCompID";
    /// <summary>SendRedundantResendRequests: Send a ResendRequest even when one for the same range is outstanding.</summary>
    public const string SendRedundantResendRequests = "SendRedundantResendRequests";
    /// <summary>ResendSessionLevelRejects: Resend session-level Reject messages instead of gap-filling over them.</summary>
    public const string ResendSessionLevelRejects = "ResendSessionLevelRejects";
    /// <summary>MillisecondsInTimeStamp: QuickFIX: milliseconds in SendingTime (superseded by TimeStampPrecision).</summary>
    public const string MillisecondsInTimeStamp = "MillisecondsInTimeStamp";
    /// <summary>TimeStampPrecision: Precision of the timestamps we send.</summary>
    public const string TimeStampPrecision = "TimeStampPrecision";
    /// <summary>EnableLastMsgSeqNumProcessed: Put LastMsgSeqNumProcessed(369) on every message sent.</summary>
    public const string EnableLastMsgSeqNumProcessed = "EnableLastMsgSeqNumProcessed";
    /// <summary>EnableNextExpectedMsgSeqNum: QuickFIX/J: exchange NextExpectedMsgSeqNum(789) in the Logons and resend what the counterparty missed without waiting for a ResendRequest (FIX.4.4, FIXT.1.1).</summary>
    public const string EnableNextExpectedMsgSeqNum = "EnableNextExpectedMsgSeqNum";
    /// <summary>MaxMessagesInResendRequest: Largest range asked for in one ResendRequest (0 for no limit).</summary>
    public const string MaxMessagesInResendRequest = "MaxMessagesInResendRequest";
    /// <summary>SendLogoutBeforeDisconnectFromTimeout: Send a Logout before disconnecting on a heartbeat timeout.</summary>
    public const string SendLogoutBeforeDisconnectFromTimeout = "SendLogoutBeforeDisconnectFromTimeout";
    /// <summary>IgnorePossDupResendRequests: Ignore ResendRequests that carry PossDupFlag=Y.</summary>
    public const string IgnorePossDupResendRequests = "IgnorePossDupResendRequests";
    /// <summary>RequiresOrigSendingTime: Reject PossDup messages without OrigSendingTime(122).</summary>
    public const string RequiresOrigSendingTime = "RequiresOrigSendingTime";
    /// <summary>ValidateLengthAndChecksum: Reject messages with a wrong BodyLength or CheckSum.</summary>
    public const string ValidateLengthAndChecksum = "ValidateLengthAndChecksum";
    /// <summary>MinHeartBtInt: Acceptor: the smallest HeartBtInt(108) a counterparty may ask for, in seconds; a Logon below it is refused with a Logout naming the limit. 0 admits HeartBtInt=0 (no heartbeats, no liveness check).</summary>
    public const string MinHeartBtInt = "MinHeartBtInt";
    /// <summary>MaxHeartBtInt: Acceptor: the largest HeartBtInt(108) a counterparty may ask for, in seconds; a Logon above it is refused with a Logout naming the limit.</summary>
    public const string MaxHeartBtInt = "MaxHeartBtInt";
    /// <summary>Username: Acceptor: the Username(553) the counterparty's Logon must carry; initiator: sent in our Logon.</summary>
    public const string Username = "Username";
    /// <summary>Password: Acceptor: the Password(554) the counterparty's Logon must carry; initiator: sent in our Logon. Never logged. Prefer PasswordEnvironmentVariable.</summary>
    public const string Password = "Password";
    /// <summary>PasswordEnvironmentVariable: Name of the environment variable holding the Password (read once at startup; an error when it is not set).</summary>
    public const string PasswordEnvironmentVariable = "PasswordEnvironmentVariable";
    /// <summary>AllowedRemoteAddresses: Acceptor: comma-separated addresses and CIDR ranges (10.1.0.0/16, 192.0.2.7, 2001:db8::/32) a Logon may come from; empty admits any address.</summary>
    public const string AllowedRemoteAddresses = "AllowedRemoteAddresses";
    /// <summary>AcceptanceScriptCompatibility: Answer as the QuickFIX acceptance scripts of the conformance suite pin it (older QuickFIX): a Logon with ResetSeqNumFlag=Y answered without the flag, a Reject of a too-low NewSeqNo without RefTagID, a Logon with a bad SendingTime closed without a Logout. N (the default) follows QuickFIX/J and the FIX session specification.</summary>
    public const string AcceptanceScriptCompatibility = "AcceptanceScriptCompatibility";
    /// <summary>InboundQueueCapacity: Messages received ahead of a sequence gap that are kept (copied into views of MaxMessageSize pre-allocated at startup) until the gap is filled; more are dropped and asked for again once it is.</summary>
    public const string InboundQueueCapacity = "InboundQueueCapacity";

    // Data dictionary and validation.
    /// <summary>UseDataDictionary: Validate messages against the data dictionary.</summary>
    public const string UseDataDictionary = "UseDataDictionary";
    /// <summary>DataDictionary: Data dictionary (FIX 4.x).</summary>
    public const string DataDictionary = "DataDictionary";
    /// <summary>TransportDataDictionary: Transport data dictionary (FIXT.1.1).</summary>
    public const string TransportDataDictionary = "TransportDataDictionary";
    /// <summary>AppDataDictionary: Application data dictionary (FIX 5.x over FIXT.1.1).</summary>
    public const string AppDataDictionary = "AppDataDictionary";
    /// <summary>ValidateFieldsOutOfOrder: Reject header, body or trailer fields out of order.</summary>
    public const string ValidateFieldsOutOfOrder = "ValidateFieldsOutOfOrder";
    /// <summary>ValidateFieldsHaveValues: Reject fields with empty values.</summary>
    public const string ValidateFieldsHaveValues = "ValidateFieldsHaveValues";
    /// <summary>ValidateUserDefinedFields: Validate user-defined fields (tag 5000 and above) against the dictionary.</summary>
    public const string ValidateUserDefinedFields = "ValidateUserDefinedFields";
    /// <summary>AllowUnknownMsgFields: Accept fields the dictionary does not define for the message.</summary>
    public const string AllowUnknownMsgFields = "AllowUnknownMsgFields";
    /// <summary>AllowUnknownEnumValues: Accept enumerated fields with values the dictionary does not list.</summary>
    public const string AllowUnknownEnumValues = "AllowUnknownEnumValues";
    /// <summary>ValidateUnorderedGroupFields: QuickFIX/J: reject a repeating-group entry whose fields are not in the dictionary's order (SessionRejectReason 15).</summary>
    public const string ValidateUnorderedGroupFields = "ValidateUnorderedGroupFields";

    // Storage and logging.
    /// <summary>FileStorePath: Directory of the recoverable message store (one journal per session).</summary>
    public const string FileStorePath = "FileStorePath";
    /// <summary>FileLogPath: Directory of the message and event logs.</summary>
    public const string FileLogPath = "FileLogPath";
    /// <summary>FileLogBufferSize: Bytes of messages that may wait for the message log's writer, per session; one that does not fit is dropped and counted.</summary>
    public const string FileLogBufferSize = "FileLogBufferSize";
    /// <summary>AcceptorTemplate: This acceptor section is a template: a Logon matching its wildcard (*) identifiers creates a session.</summary>
    public const string AcceptorTemplate = "AcceptorTemplate";
    /// <summary>MaxDynamicSessions: Most sessions one acceptor template may have created at once.</summary>
    public const string MaxDynamicSessions = "MaxDynamicSessions";
    /// <summary>DynamicSessionCapacity: Run-time sessions of an acceptor template whose connection buffers are made at startup.</summary>
    public const string DynamicSessionCapacity = "DynamicSessionCapacity";

    // RapidFix's own settings.
    /// <summary>MaxMessageSize: Largest message, in bytes, the engine reads or writes.</summary>
    public const string MaxMessageSize = "MaxMessageSize";
    /// <summary>MaxFieldsPerMessage: Most fields (all levels) a received message may have; one with more is rejected (its MsgSeqNum consumed).</summary>
    public const string MaxFieldsPerMessage = "MaxFieldsPerMessage";
    /// <summary>MaxGroupEntries: Most repeating-group entries (all groups, all levels) a received message may have; one with more is rejected.</summary>
    public const string MaxGroupEntries = "MaxGroupEntries";
    /// <summary>MessagePoolSize: Message objects pre-allocated per session at startup.</summary>
    public const string MessagePoolSize = "MessagePoolSize";
    /// <summary>BufferPoolSize: Message buffers (of MaxMessageSize) pre-allocated per session at startup.</summary>
    public const string BufferPoolSize = "BufferPoolSize";
    /// <summary>OutboundQueueDepth: Messages that may wait to be sent before senders are refused.</summary>
    public const string OutboundQueueDepth = "OutboundQueueDepth";
    /// <summary>SocketTransport: How a connection buffers what it receives, both on one dedicated thread per connection: Pipelines (a System.IO.Pipelines pipe over a pre-sized per-connection pool) or DedicatedThread (one flat buffer). Sessions sharing an acceptor port must agree. Pipelines is the default: the design's choice, and DedicatedThread measured no faster side by side (docs/performance.md).</summary>
    public const string SocketTransport = "SocketTransport";
    /// <summary>StoreType: Message store: journal (on disk, recoverable) or express (memory only). Defaults to journal when FileStorePath is set.</summary>
    public const string StoreType = "StoreType";
    /// <summary>StoreFlushPolicy: When journal writes reach the disk: EveryMessage (write+fsync per message), GroupCommit (a flusher thread batches writes into one write+fsync), OsOnly (written to the OS, never fsynced).</summary>
    public const string StoreFlushPolicy = "StoreFlushPolicy";
    /// <summary>StoreFlushMaxBatch: GroupCommit: flush as soon as this many records are pending.</summary>
    public const string StoreFlushMaxBatch = "StoreFlushMaxBatch";
    /// <summary>StoreFlushMaxDelayMicroseconds: GroupCommit: longest time, in microseconds, the flusher waits for a batch to fill (0 flushes at once).</summary>
    public const string StoreFlushMaxDelayMicroseconds = "StoreFlushMaxDelayMicroseconds";
    /// <summary>StoreMaxMessages: Sent messages the store indexes per generation (between resets).</summary>
    public const string StoreMaxMessages = "StoreMaxMessages";
    /// <summary>StoreMaxBytes: Bytes of journal (messages and sequence records) the store holds per generation: the express store's memory (at most 2147483591), the journal store's file (its memory is StoreWindowBytes).</summary>
    public const string StoreMaxBytes = "StoreMaxBytes";
    /// <summary>StoreWindowBytes: Journal store: bytes of the journal kept in memory (a write window of its last bytes, at most StoreMaxBytes), which serves recent resends; older messages are read from the file.</summary>
    public const string StoreWindowBytes = "StoreWindowBytes";
    /// <summary>StorePageCacheBytes: Journal store: bytes of the journal file's end left in the operating system's page cache (Linux): after each fsync the older written pages are dropped, so the cache the journal takes stays bounded and its pages are reused instead of each new page of the growing file taking fresh memory. 0: no limit (the OS decides). Not applied under StoreFlushPolicy=OsOnly.</summary>
    public const string StorePageCacheBytes = "StorePageCacheBytes";
    /// <summary>StoreCommitMemory: Commit the journal store's memory (touch every page of its window, index and read buffer) when it is opened, so resident memory is reached at startup instead of growing to the window as the store fills.</summary>
    public const string StoreCommitMemory = "StoreCommitMemory";
    /// <summary>StoreDeferTargetSeqNum: The journal store's record of each received message's sequence number starts no flush of its own: it reaches the disk with the next flush of a sent message, or within 100 ms. A crash can lose up to that much of the received sequence (the counterparty is asked to resend it). For applications that journal their inputs themselves (the matching service).</summary>
    public const string StoreDeferTargetSeqNum = "StoreDeferTargetSeqNum";
    /// <summary>StoreSyncBeforeSend: Hold every stored message until the journal says it is durable before it goes on the wire: the counterparty never sees a message a crash could lose (adds the flush latency to each send).</summary>
    public const string StoreSyncBeforeSend = "StoreSyncBeforeSend";
    /// <summary>SocketAcceptBacklog: Acceptor: connections the kernel may hold completed but not yet accepted (the listen backlog; the OS may cap it). The sessions of a port must agree.</summary>
    public const string SocketAcceptBacklog = "SocketAcceptBacklog";
    /// <summary>MaxPendingLogons: Acceptor: connections of the port awaiting their Logon at once; one beyond is closed at once and logged. The sessions of a port must agree.</summary>
    public const string MaxPendingLogons = "MaxPendingLogons";
    /// <summary>MaxPendingLogonsPerAddress: Acceptor: connections from one IP address awaiting their Logon at once; one beyond is closed at once and logged. The sessions of a port must agree.</summary>
    public const string MaxPendingLogonsPerAddress = "MaxPendingLogonsPerAddress";
}
