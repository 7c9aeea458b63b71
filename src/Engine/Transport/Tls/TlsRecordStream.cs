using System.Net.Sockets;

namespace RapidFix.Engine.Transport.Tls;

/// <summary>
/// The ciphertext side of a TLS connection: what <see cref="System.Net.Security.SslStream"/> reads from and writes to,
/// over the connection's non-blocking socket.
/// </summary>
/// <remarks>
/// Reads hand over at most one TLS record per call (bytes up to the end of the record being read): SslStream then
/// never holds undecrypted bytes of a later record, so "the socket is readable or this stream or the channel holds
/// bytes" says exactly when there is something to decrypt, and the connection thread can go on polling its socket
/// with the session timer's timeout. Bytes come from the socket in bulk into one pre-allocated buffer. When a read
/// must wait for the rest of a record, it polls the socket and, between polls, lets the connection run its timer and
/// drain its outbound buffer: a peer that sends half a record stalls nothing. Writes go to the connection's
/// non-blocking send path (what the kernel does not take waits in the bounded outbound buffer).
/// Nothing here allocates after <see cref="Bind"/> (an acceptor's connection reads its handshake and Logon through a
/// small buffer until then).
/// </remarks>
internal sealed class TlsRecordStream : Stream
{
    private const int HeaderLength = 5;

    // Largest TLS record: 2^14 bytes of plaintext plus 2048 of expansion (TLS 1.2's limit; TLS 1.3's is lower).
    private const int MaxRecordLength = (1 << 14) + 2048 + HeaderLength;
    private const int PollMicros = 50_000;

    private readonly Socket _socket;
    private readonly ITlsConnection _connection;
    // Until the connection is bound, the handshake and a Logon read through a small buffer (reads are just more
    // frequent); Bind gives it the full size.
    private const int UnboundBufferLength = 4096;

    private byte[] _buffer = GC.AllocateUninitializedArray<byte>(UnboundBufferLength, pinned: true);
    private readonly byte[] _header = new byte[HeaderLength];
    private int _start;
    private int _end;
    private int _headerSeen;
    private int _bodyLeft;

    public TlsRecordStream(Socket socket, ITlsConnection connection)
    {
        _socket = socket;
        _connection = connection;
    }

    /// <summary>The full-size buffer (connection set-up: allocates), keeping what is buffered.</summary>
    public void Bind()
    {
        if (_buffer.Length >= 2 * MaxRecordLength)
        {
            return;
        }

        var full = GC.AllocateUninitializedArray<byte>(2 * MaxRecordLength, pinned: true);
        _buffer.AsSpan(_start, _end - _start).CopyTo(full);
        _end -= _start;
        _start = 0;
        _buffer = full;
    }

    /// <summary>While the handshake runs: the Stopwatch timestamp at which waiting for the peer fails; 0 afterwards.</summary>
    public long HandshakeDeadline { get; set; }

    /// <summary>
    /// The handshake has waited for the peer's bytes at least once: SslStream's state for it exists by then, so what
    /// a connection awaiting its handshake holds is all allocated (what a memory measurement of a flood waits for).
    /// </summary>
    public bool HandshakeWaitedForPeer => _handshakeWaited;

    private volatile bool _handshakeWaited;

    /// <summary>Received ciphertext not yet handed to SslStream.</summary>
    public bool HasBuffered => _end > _start;

    public override bool CanRead => true;

    public override bool CanSeek => false;

    public override bool CanWrite => true;

    public override long Length => throw new NotSupportedException();

    public override long Position { get => throw new NotSupportedException(); set => throw new NotSupportedException(); }

    public override int Read(byte[] buffer, int offset, int count) => Read(buffer.AsSpan(offset, count));

    /// <summary>Up to the end of the current record; waits (running the connection's timer) when nothing is buffered. 0 at end of stream.</summary>
    public override int Read(Span<byte> destination)
    {
        if (destination.IsEmpty)
        {
            return 0;
        }

        if (_end == _start && !Fill())
        {
            return 0;
        }

        int n = 0;
        while (n < destination.Length && _start < _end)
        {
            int available = _end - _start;
            int take;
            if (_headerSeen < HeaderLength)
            {
                take = Math.Min(Math.Min(HeaderLength - _headerSeen, destination.Length - n), available);
                _buffer.AsSpan(_start, take).CopyTo(_header.AsSpan(_headerSeen));
                _headerSeen += take;
                if (_headerSeen == HeaderLength)
                {
                    _bodyLeft = (_header[3] << 8) | _header[4];
                }
            }
            else
            {
                take = Math.Min(Math.Min(_bodyLeft, destination.Length - n), available);
                _bodyLeft -= take;
            }

            _buffer.AsSpan(_start, take).CopyTo(destination.Slice(n));
            _start += take;
            n += take;
            if (_headerSeen == HeaderLength && _bodyLeft == 0)
            {
                // The record is complete: the next one waits for the next call.
                _headerSeen = 0;
                break;
            }
        }

        return n;
    }

    /// <summary>Waits until the socket gives bytes. False at end of stream or when the connection closed.</summary>
    private bool Fill()
    {
        _start = _end = 0;
        while (true)
        {
            if (_connection.IsClosed)
            {
                return false;
            }

            int n = _socket.Receive(_buffer.AsSpan(_end), SocketFlags.None, out var error);
            if (error == SocketError.Success)
            {
                _end += n;
                return n > 0;
            }

            if (error != SocketError.WouldBlock)
            {
                return false;
            }

            if (HandshakeDeadline != 0)
            {
                long left = HandshakeDeadline - System.Diagnostics.Stopwatch.GetTimestamp();
                if (left <= 0)
                {
                    throw new TimeoutException("the TLS handshake did not complete in time");
                }

                long micros = left * 1_000_000 / System.Diagnostics.Stopwatch.Frequency;
                _handshakeWaited = true;
                _connection.FlushOutbound();
                _socket.Poll((int)Math.Min(micros + 1, PollMicros), SelectMode.SelectRead);
            }
            else if (!_socket.Poll(_connection.HasOutbound ? 1_000 : PollMicros, SelectMode.SelectRead))
            {
                _connection.OnWaiting();
            }
        }
    }

    public override void Write(byte[] buffer, int offset, int count) => Write(buffer.AsSpan(offset, count));

    public override void Write(ReadOnlySpan<byte> buffer)
    {
        if (!_connection.SendCiphertext(buffer))
        {
            throw new IOException("the connection is closed");
        }
    }

    public override void Flush()
    {
    }

    public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();

    public override void SetLength(long value) => throw new NotSupportedException();
}

/// <summary>What the TLS layer needs from the connection it runs on.</summary>
internal interface ITlsConnection
{
    /// <summary>True once the connection is closed: waits end.</summary>
    bool IsClosed { get; }

    /// <summary>True when bytes wait in the outbound buffer.</summary>
    bool HasOutbound { get; }

    /// <summary>Sends ciphertext on the plain socket path (non-blocking, bounded outbound buffer). False when closed.</summary>
    bool SendCiphertext(ReadOnlySpan<byte> ciphertext);

    /// <summary>Drains the outbound buffer as far as the socket takes it.</summary>
    void FlushOutbound();

    /// <summary>Called between polls while a read waits for the rest of a record: the session timer, the outbound buffer.</summary>
    void OnWaiting();
}
