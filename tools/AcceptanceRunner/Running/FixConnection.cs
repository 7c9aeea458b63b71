using System.Net.Sockets;
using System.Text;

namespace RapidFix.AcceptanceRunner.Running;

/// <summary>What waiting on a connection produced.</summary>
public enum ReceiveOutcome
{
    Message,
    Closed,
    TimedOut,
}

/// <summary>
/// A client connection that sends raw bytes and reads FIX messages framed by BodyLength(9): 8=...|9=N|, N bytes,
/// then 10=nnn|. Bytes are chars (Latin-1), as in the scripts.
/// </summary>
public sealed class FixConnection : IDisposable
{
    private readonly Socket _socket;
    private readonly byte[] _chunk = new byte[64 * 1024];
    private readonly StringBuilder _pending = new();
    private bool _closedByPeer;
    private bool _disposed;

    /// <summary>Wraps a connected socket (the runner's tests use it for their fake acceptor's side).</summary>
    public FixConnection(Socket socket) => _socket = socket;

    public static FixConnection Connect(string host, int port, TimeSpan timeout)
    {
        var socket = new Socket(SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
        try
        {
            using var cancel = new CancellationTokenSource(timeout);
            socket.ConnectAsync(host, port, cancel.Token).AsTask().GetAwaiter().GetResult();
            return new FixConnection(socket);
        }
        catch
        {
            socket.Dispose();
            throw;
        }
    }

    public void Send(string message)
    {
        byte[] bytes = Encoding.Latin1.GetBytes(message);
        int sent = 0;
        while (sent < bytes.Length)
        {
            sent += _socket.Send(bytes, sent, bytes.Length - sent, SocketFlags.None);
        }
    }

    /// <summary>Waits for the next complete message, the peer closing the connection, or the timeout.</summary>
    public ReceiveOutcome Receive(TimeSpan timeout, out string message)
    {
        var deadline = DateTime.UtcNow + timeout;
        while (true)
        {
            if (TryTakeMessage(out message))
            {
                return ReceiveOutcome.Message;
            }

            if (_closedByPeer)
            {
                message = _pending.ToString();
                _pending.Clear();
                return message.Length > 0 ? ReceiveOutcome.Message : ReceiveOutcome.Closed;
            }

            var remaining = deadline - DateTime.UtcNow;
            if (remaining <= TimeSpan.Zero)
            {
                message = "";
                return ReceiveOutcome.TimedOut;
            }

            if (!_socket.Poll(remaining, SelectMode.SelectRead))
            {
                continue; // Poll can wake a little early: the deadline decides
            }

            int read;
            try
            {
                read = _socket.Receive(_chunk);
            }
            catch (SocketException e) when (e.SocketErrorCode is SocketError.ConnectionReset or SocketError.ConnectionAborted)
            {
                read = 0;
            }

            if (read == 0)
            {
                _closedByPeer = true;
            }
            else
            {
                _pending.Append(Encoding.Latin1.GetString(_chunk, 0, read));
            }
        }
    }

    public void Dispose()
    {
        if (_disposed)
        {
            return;
        }

        _disposed = true;
        try
        {
            _socket.Shutdown(SocketShutdown.Both);
        }
        catch (SocketException)
        {
            // Already closed by the peer.
        }

        _socket.Dispose();
    }

    /// <summary>Takes one framed message off the front of the pending bytes, when complete.</summary>
    private bool TryTakeMessage(out string message)
    {
        message = "";
        string text = _pending.ToString();
        int lengthField = text.IndexOf("\u00019=", StringComparison.Ordinal);
        if (!text.StartsWith("8=", StringComparison.Ordinal) || lengthField < 0)
        {
            return false;
        }

        int lengthEnd = text.IndexOf('\u0001', lengthField + 1);
        if (lengthEnd < 0 || !int.TryParse(text.AsSpan(lengthField + 3, lengthEnd - lengthField - 3), out int bodyLength))
        {
            return false;
        }

        int checksumStart = lengthEnd + 1 + bodyLength;
        int end = text.IndexOf('\u0001', Math.Min(checksumStart, text.Length));
        if (checksumStart > text.Length || end < 0)
        {
            return false;
        }

        message = text[..(end + 1)];
        _pending.Remove(0, end + 1);
        return true;
    }
}
