using System.Net.Sockets;

namespace RapidFix.Engine.Diagnostics;

/// <summary>
/// What a socket error means, as the log's UTF-8 text: <see cref="SocketError"/>'s numbers are Windows' (10061 for a
/// refused connection on every platform), which tell a reader nothing.
/// </summary>
internal static class SocketErrorText
{
    /// <summary>The meaning of <paramref name="code"/> (a <see cref="SocketError"/>), or empty for one not named here.</summary>
    public static ReadOnlySpan<byte> Of(long code) => (SocketError)code switch
    {
        SocketError.ConnectionRefused => "refused, nothing listens at that address"u8,
        SocketError.TimedOut => "timed out"u8,
        SocketError.HostUnreachable => "host unreachable"u8,
        SocketError.NetworkUnreachable => "network unreachable"u8,
        SocketError.HostNotFound => "host not found"u8,
        SocketError.TryAgain => "host name lookup failed for now"u8,
        SocketError.NoData => "the host name has no address"u8,
        SocketError.ConnectionReset => "connection reset by the peer"u8,
        SocketError.AddressNotAvailable => "address not available on this machine"u8,
        SocketError.AccessDenied => "access denied"u8,
        _ => default,
    };
}
