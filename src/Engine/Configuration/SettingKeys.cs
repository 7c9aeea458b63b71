namespace RapidFix.Engine.Configuration;

/// <summary>Names of the settings keys (see <see cref="SettingsCatalogue"/> for their types and meaning).</summary>
public static class SettingKeys
{
    // Session identity.
    public const string BeginString = "BeginString";
    public const string SenderCompId = "SenderCompID";
    public const string SenderSubId = "SenderSubID";
    public const string SenderLocationId = "SenderLocationID";
    public const string TargetCompId = "TargetCompID";
    public const string TargetSubId = "TargetSubID";
    public const string TargetLocationId = "TargetLocationID";
    public const string SessionQualifier = "SessionQualifier";
    public const string DefaultApplVerId = "DefaultApplVerID";
    public const string ConnectionType = "ConnectionType";

    // Schedule.
    public const string StartTime = "StartTime";
    public const string EndTime = "EndTime";
    public const string StartDay = "StartDay";
    public const string EndDay = "EndDay";
    public const string Weekdays = "Weekdays";
    public const string TimeZone = "TimeZone";
    public const string UseLocalTime = "UseLocalTime";
    public const string NonStopSession = "NonStopSession";

    // Transport.
    public const string SocketAcceptHost = "SocketAcceptHost";
    public const string SocketAcceptPort = "SocketAcceptPort";
    public const string SocketConnectHost = "SocketConnectHost";
    public const string SocketConnectPort = "SocketConnectPort";
    public const string ReconnectInterval = "ReconnectInterval";
    public const string SocketNodelay = "SocketNodelay";
    public const string SocketReuseAddress = "SocketReuseAddress";
    public const string SocketSendBufferSize = "SocketSendBufferSize";
    public const string SocketReceiveBufferSize = "SocketReceiveBufferSize";
    public const string SocketSendTimeout = "SocketSendTimeout";
    public const string SocketReceiveTimeout = "SocketReceiveTimeout";

    // TLS (QuickFIX/n's SSL* keys, and RapidFix's SSLCertificatePasswordVariable and SSLPrivateKey).
    public const string SslEnable = "SSLEnable";
    public const string SslServerName = "SSLServerName";
    public const string SslProtocols = "SSLProtocols";
    public const string SslValidateCertificates = "SSLValidateCertificates";
    public const string SslCheckCertificateRevocation = "SSLCheckCertificateRevocation";
    public const string SslCertificate = "SSLCertificate";
    public const string SslCertificatePassword = "SSLCertificatePassword";
    public const string SslCertificatePasswordVariable = "SSLCertificatePasswordVariable";
    public const string SslPrivateKey = "SSLPrivateKey";
    public const string SslRequireClientCertificate = "SSLRequireClientCertificate";
    public const string SslCaCertificate = "SSLCACertificate";

    // Session protocol behaviour.
    public const string HeartBtInt = "HeartBtInt";
    public const string ResetOnLogon = "ResetOnLogon";
    public const string ResetOnLogout = "ResetOnLogout";
    public const string ResetOnDisconnect = "ResetOnDisconnect";
    public const string RefreshOnLogon = "RefreshOnLogon";
    public const string PersistMessages = "PersistMessages";
    public const string SendWhileNotLoggedOn = "SendWhileNotLoggedOn";
    public const string LogonTimeout = "LogonTimeout";
    public const string LogoutTimeout = "LogoutTimeout";
    public const string CheckLatency = "CheckLatency";
    public const string MaxLatency = "MaxLatency";
    public const string CheckCompId = "CheckCompID";
    public const string SendRedundantResendRequests = "SendRedundantResendRequests";
    public const string ResendSessionLevelRejects = "ResendSessionLevelRejects";
    public const string MillisecondsInTimeStamp = "MillisecondsInTimeStamp";
    public const string TimeStampPrecision = "TimeStampPrecision";
    public const string EnableLastMsgSeqNumProcessed = "EnableLastMsgSeqNumProcessed";
    public const string EnableNextExpectedMsgSeqNum = "EnableNextExpectedMsgSeqNum";
    public const string MaxMessagesInResendRequest = "MaxMessagesInResendRequest";
    public const string SendLogoutBeforeDisconnectFromTimeout = "SendLogoutBeforeDisconnectFromTimeout";
    public const string IgnorePossDupResendRequests = "IgnorePossDupResendRequests";
    public const string RequiresOrigSendingTime = "RequiresOrigSendingTime";
    public const string ValidateLengthAndChecksum = "ValidateLengthAndChecksum";
    public const string MinHeartBtInt = "MinHeartBtInt";
    public const string MaxHeartBtInt = "MaxHeartBtInt";
    public const string Username = "Username";
    public const string Password = "Password";
    public const string PasswordEnvironmentVariable = "PasswordEnvironmentVariable";
    public const string AllowedRemoteAddresses = "AllowedRemoteAddresses";
    public const string AcceptanceScriptCompatibility = "AcceptanceScriptCompatibility";
    public const string InboundQueueCapacity = "InboundQueueCapacity";

    // Data dictionary and validation.
    public const string UseDataDictionary = "UseDataDictionary";
    public const string DataDictionary = "DataDictionary";
    public const string TransportDataDictionary = "TransportDataDictionary";
    public const string AppDataDictionary = "AppDataDictionary";
    public const string ValidateFieldsOutOfOrder = "ValidateFieldsOutOfOrder";
    public const string ValidateFieldsHaveValues = "ValidateFieldsHaveValues";
    public const string ValidateUserDefinedFields = "ValidateUserDefinedFields";
    public const string AllowUnknownMsgFields = "AllowUnknownMsgFields";
    public const string AllowUnknownEnumValues = "AllowUnknownEnumValues";
    public const string ValidateUnorderedGroupFields = "ValidateUnorderedGroupFields";

    // Storage and logging.
    public const string FileStorePath = "FileStorePath";
    public const string FileLogPath = "FileLogPath";
    public const string FileLogBufferSize = "FileLogBufferSize";
    public const string AcceptorTemplate = "AcceptorTemplate";
    public const string MaxDynamicSessions = "MaxDynamicSessions";

    // RapidFix's own settings.
    public const string MaxMessageSize = "MaxMessageSize";
    public const string MaxFieldsPerMessage = "MaxFieldsPerMessage";
    public const string MaxGroupEntries = "MaxGroupEntries";
    public const string MessagePoolSize = "MessagePoolSize";
    public const string BufferPoolSize = "BufferPoolSize";
    public const string OutboundQueueDepth = "OutboundQueueDepth";
    public const string SocketTransport = "SocketTransport";
    public const string StoreType = "StoreType";
    public const string StoreFlushPolicy = "StoreFlushPolicy";
    public const string StoreFlushMaxBatch = "StoreFlushMaxBatch";
    public const string StoreFlushMaxDelayMicroseconds = "StoreFlushMaxDelayMicroseconds";
    public const string StoreMaxMessages = "StoreMaxMessages";
    public const string StoreMaxBytes = "StoreMaxBytes";
    public const string StoreSyncBeforeSend = "StoreSyncBeforeSend";
    public const string SocketAcceptBacklog = "SocketAcceptBacklog";
    public const string MaxPendingLogons = "MaxPendingLogons";
    public const string MaxPendingLogonsPerAddress = "MaxPendingLogonsPerAddress";
}
