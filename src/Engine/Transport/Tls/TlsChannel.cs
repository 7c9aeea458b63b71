using System.Net.Security;
using System.Security.Authentication;
using System.Security.Cryptography.X509Certificates;

namespace RapidFix.Engine.Transport.Tls;

/// <summary>
/// The TLS layer of one connection: an <see cref="SslStream"/> over a <see cref="TlsRecordStream"/>, with a
/// pre-allocated plaintext buffer on each side. The handshake (at connection set-up, on the connection's thread)
/// allocates; reading and writing afterwards do not.
/// </summary>
/// <remarks>
/// Reads run on the connection's thread only. Writes come from any sender's thread and must be serialised by the
/// caller (the connection's send lock): SslStream allows one read and one write at a time. Plaintext is read into
/// a buffer of a whole record's size, so SslStream never keeps decrypted bytes back; what does not fit the
/// caller's span stays here, and <see cref="HasBuffered"/> tells the connection to read again without polling.
/// Sends are copied into a pre-allocated array first: the array overloads are the ones measured allocation-free
/// (Stream's default span overloads rent and copy where a stream does not override them).
/// </remarks>
internal sealed class TlsChannel : IDisposable
{
    private const int PlaintextRecord = 1 << 14;

    private readonly TlsOptions _options;
    private readonly TlsRecordStream _records;
    private readonly SslStream _ssl;
    private readonly bool _server;
    private readonly string _host;
    private readonly byte[] _plainIn = GC.AllocateUninitializedArray<byte>(PlaintextRecord + 1024, pinned: true);
    private byte[] _plainOut = [];
    private int _inStart;
    private int _inEnd;
    private string? _rejection;

    /// <param name="socket">The connection's (non-blocking) socket.</param>
    /// <param name="connection">The connection the channel runs on.</param>
    /// <param name="options">The session's TLS settings.</param>
    /// <param name="server">True on an acceptor's connection.</param>
    /// <param name="host">Initiator: the host connected to (the expected server name unless SSLServerName says otherwise).</param>
    /// <remarks>
    /// An acceptor's channel holds only what the handshake and a Logon need until <see cref="Bind"/>: a small
    /// ciphertext buffer and the plaintext record buffer, no send buffer (nothing is sent before the Logon binds it).
    /// </remarks>
    public TlsChannel(System.Net.Sockets.Socket socket, ITlsConnection connection, TlsOptions options, bool server, string? host)
    {
        _options = options;
        _server = server;
        _host = host ?? "";
        _records = new TlsRecordStream(socket, connection);
        _ssl = new SslStream(_records, leaveInnerStreamOpen: true);
    }

    /// <summary>
    /// The most bytes the records of <paramref name="plaintext"/> bytes of messages take: each record of up to 16 KB
    /// of plaintext adds its header, the content type, padding and the authentication tag (well under 256 bytes in
    /// TLS 1.2 and 1.3).
    /// </summary>
    public static int CiphertextBound(int plaintext) => plaintext + (plaintext / PlaintextRecord + 1) * 256;

    /// <summary>
    /// The connection is bound to its session (connection set-up: allocates): the send buffer, sized to the largest
    /// message, and the full-size ciphertext buffer.
    /// </summary>
    /// <param name="maxMessageSize">Largest message sent: the size of the send buffer.</param>
    public void Bind(int maxMessageSize)
    {
        _plainOut = GC.AllocateUninitializedArray<byte>(Math.Max(maxMessageSize, PlaintextRecord), pinned: true);
        _records.Bind();
    }

    /// <summary>Decrypted or undecrypted bytes wait here: read again before polling the socket.</summary>
    public bool HasBuffered => _inEnd > _inStart || _records.HasBuffered;

    /// <summary>The handshake has waited for the peer at least once (see <see cref="TlsRecordStream.HandshakeWaitedForPeer"/>).</summary>
    public bool HandshakeWaitedForPeer => _records.HandshakeWaitedForPeer;

    /// <summary>The negotiated protocol (after the handshake).</summary>
    public SslProtocols Protocol => _ssl.SslProtocol;

    /// <summary>True when both sides presented a certificate that was checked.</summary>
    public bool IsMutuallyAuthenticated => _ssl.IsMutuallyAuthenticated;

    /// <summary>
    /// Runs the handshake within the options' timeout. Null on success, else why it failed (for the log line with the
    /// peer's address): the certificate check's verdict when that is what refused the peer, else the runtime's reason.
    /// </summary>
    public string? Handshake()
    {
        _records.HandshakeDeadline = System.Diagnostics.Stopwatch.GetTimestamp() +
            (long)(_options.HandshakeTimeout.TotalSeconds * System.Diagnostics.Stopwatch.Frequency);
        try
        {
            if (_server)
            {
                _ssl.AuthenticateAsServer(_options.ServerOptions(Validate));
            }
            else
            {
                _ssl.AuthenticateAsClient(_options.ClientOptions(_host, Validate));
            }

            return null;
        }
        catch (Exception e) when (e is AuthenticationException or IOException or TimeoutException or System.ComponentModel.Win32Exception)
        {
            return _rejection ?? Reason(e);
        }
        finally
        {
            _records.HandshakeDeadline = 0;
        }
    }

    private static string Reason(Exception e)
    {
        var message = e.Message;
        for (var inner = e.InnerException; inner is not null; inner = inner.InnerException)
        {
            message += ": " + inner.Message;
        }

        return message;
    }

    /// <summary>
    /// The peer-certificate check, for both roles: the chain policy (our CA, or the system's roots) and the server
    /// name were applied by SslStream; this decides on its verdict and keeps the reason of a refusal.
    /// </summary>
    private bool Validate(object sender, X509Certificate? certificate, X509Chain? chain, SslPolicyErrors errors)
    {
        if (!_options.ValidateCertificates)
        {
            return true;
        }

        if (_server && !_options.RequireClientCertificate && certificate is null)
        {
            errors &= ~SslPolicyErrors.RemoteCertificateNotAvailable;
        }

        if (errors == SslPolicyErrors.None)
        {
            return true;
        }

        string detail = "";
        if ((errors & SslPolicyErrors.RemoteCertificateChainErrors) != 0 && chain is not null)
        {
            foreach (var status in chain.ChainStatus)
            {
                detail += $" [{status.Status}: {status.StatusInformation.Trim()}]";
            }
        }

        _rejection = errors switch
        {
            SslPolicyErrors.RemoteCertificateNotAvailable => "the peer presented no certificate",
            SslPolicyErrors.RemoteCertificateNameMismatch => $"the server certificate ({certificate?.Subject}) does not name '{_options.ServerName ?? _host}'",
            _ => $"the peer's certificate ({certificate?.Subject}) was refused: {errors}{detail}",
        };
        return false;
    }

    /// <summary>
    /// Reads decrypted bytes into <paramref name="into"/>: from this channel's buffer, else one record from the
    /// socket (waiting for the rest of it if need be). The byte count, or -1 when the stream ended.
    /// </summary>
    /// <exception cref="IOException">The peer sent something TLS refuses (a corrupt or forged record).</exception>
    public int Read(Span<byte> into)
    {
        if (_inEnd == _inStart)
        {
            int n = _ssl.Read(_plainIn, 0, _plainIn.Length);
            if (n <= 0)
            {
                return -1;
            }

            _inStart = 0;
            _inEnd = n;
        }

        int take = Math.Min(into.Length, _inEnd - _inStart);
        _plainIn.AsSpan(_inStart, take).CopyTo(into);
        _inStart += take;
        return take;
    }

    /// <summary>Encrypts and sends a message. The caller holds the connection's send lock.</summary>
    /// <exception cref="IOException">The connection closed under the write.</exception>
    public void Write(ReadOnlySpan<byte> message)
    {
        while (!message.IsEmpty)
        {
            int n = Math.Min(message.Length, _plainOut.Length);
            message.Slice(0, n).CopyTo(_plainOut);
            _ssl.Write(_plainOut, 0, n);
            message = message.Slice(n);
        }
    }

    public void Dispose() => _ssl.Dispose();
}
