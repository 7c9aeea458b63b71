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
    /// <summary>Not closed (or no reason recorded).</summary>
    None,
    /// <summary>Logouts exchanged.</summary>
    LogoutExchanged,
    /// <summary>Our Logout got no answer within LogoutTimeout.</summary>
    LogoutTimeout,
    /// <summary>No Logon within LogonTimeout.</summary>
    LogonTimeout,
    /// <summary>Nothing received for the heartbeat interval after a TestRequest.</summary>
    HeartbeatTimeout,
    /// <summary>A Logon that breaks the rules (HeartBtInt, CompIDs, sequence, BeginString).</summary>
    InvalidLogon,
    /// <summary>The application refused the Logon (<see cref="IFixApplication.OnLogonRequest"/>).</summary>
    LogonRefused,
    /// <summary>The first message was not a Logon.</summary>
    NotLogonFirst,
    /// <summary>A Logon for a session this engine does not have.</summary>
    UnknownSession,
    /// <summary>A Logon for a session already logged on over another connection.</summary>
    AlreadyLoggedOn,
    /// <summary>A MsgSeqNum lower than expected without PossDupFlag: FIX says logout.</summary>
    MsgSeqNumTooLow,
    /// <summary>Outside the session's schedule.</summary>
    OutOfSessionTime,
    /// <summary>Garbled bytes before any Logon.</summary>
    GarbledBeforeLogon,
    /// <summary>A send to the socket failed.</summary>
    SendFailed,
    /// <summary>The counterparty does not read: the bounded outbound buffer filled up.</summary>
    OutboundBufferFull,
    /// <summary>A message longer than MaxMessageSize arrived.</summary>
    MessageTooLarge,
    /// <summary>The counterparty closed the connection.</summary>
    PeerClosed,
    /// <summary>The socket reported an error.</summary>
    SocketError,
    /// <summary>The engine is stopping.</summary>
    Shutdown,
    /// <summary>The application asked for it (<see cref="FixSession.Disconnect"/>).</summary>
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
