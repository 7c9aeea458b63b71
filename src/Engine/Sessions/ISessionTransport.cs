namespace RapidFix.Engine.Sessions;

/// <summary>What a session needs from the connection it is bound to. Implementations must not allocate per call.</summary>
public interface ISessionTransport
{
    /// <summary>
    /// Sends (or queues, within the configured bound) a whole message. Returns false when the connection is closed
    /// or its outbound buffer is full; the session then disconnects.
    /// </summary>
    bool Send(ReadOnlySpan<byte> message);

    /// <summary>Closes the connection. <paramref name="reason"/> is logged.</summary>
    void Disconnect(DisconnectReason reason);

    /// <summary>
    /// The counterparty's address (captured once when the connection was set up), or null when the transport has
    /// none (an in-memory transport). Logged with every refusal and offered to the logon hook.
    /// </summary>
    System.Net.EndPoint? RemoteEndPoint { get; }
}

/// <summary>Why a connection was closed (logged and counted without building strings).</summary>
public enum DisconnectReason : byte
{
    None,
    LogoutExchanged,
    LogoutTimeout,
    LogonTimeout,
    HeartbeatTimeout,
    InvalidLogon,
    LogonRefused,
    NotLogonFirst,
    UnknownSession,
    AlreadyLoggedOn,
    MsgSeqNumTooLow,
    OutOfSessionTime,
    GarbledBeforeLogon,
    SendFailed,
    OutboundBufferFull,
    MessageTooLarge,
    PeerClosed,
    SocketError,
    Shutdown,
    Application,

    /// <summary>An exception escaped the connection's work (an application callback that threw, a bug): logged, then closed.</summary>
    EngineFault,

    /// <summary>A message without a usable MsgSeqNum (missing, not a number, beyond the largest sequence number).</summary>
    InvalidMsgSeqNum,
    /// <summary>The TLS handshake failed (a plaintext peer, a refused certificate, a timeout): logged with the address and reason.</summary>
    TlsHandshakeFailed,

    /// <summary>TLS refused a record after the handshake (corrupt, forged or truncated).</summary>
    TlsError,
}
