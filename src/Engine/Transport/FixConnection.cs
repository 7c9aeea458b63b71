using System.Net.Sockets;
using RapidFix.Engine.Codec;
using RapidFix.Engine.Diagnostics;
using RapidFix.Engine.Sessions;

namespace RapidFix.Engine.Transport;

/// <summary>
/// The flat-buffer connection (SocketTransport=DedicatedThread): its thread reads into one pinned receive buffer,
/// frames the messages in place and moves the unfinished tail to the front after each read.
/// </summary>
public sealed class FixConnection : FixSocketConnection
{
    private byte[] _receive = [];
    private int _filled;

    /// <inheritdoc cref="FixSocketConnection(Socket, FixSession?, Func{FixMessage, FixSession?}?, int, int, EngineLog?, TimeSpan?, int)"/>
    public FixConnection(Socket socket, FixSession? session, Func<FixMessage, FixSession?>? router, int maxMessageSize, int outboundBufferBytes, EngineLog? log = null, TimeSpan? logonTimeout = null,
        int logonBufferBytes = 0)
        : base(socket, session, router, maxMessageSize, outboundBufferBytes, log, logonTimeout, logonBufferBytes)
    {
    }

    /// <inheritdoc/>
    public override SocketTransport Transport => SocketTransport.DedicatedThread;

    private protected override bool Receive()
    {
        int n = ReadSocket(_receive.AsSpan(_filled));
        if (n <= 0)
        {
            return n == 0;
        }

        _filled += n;
        return Process();
    }

    /// <summary>The session's flat receive buffer (<see cref="ConnectionBuffers"/>, made at startup).</summary>
    private protected override void UseReceiveBuffers(ConnectionBuffers buffers)
    {
        _receive = buffers.Receive;
        _filled = 0;
    }

    private protected override bool Adopt(ReadOnlySpan<byte> bytes)
    {
        bytes.CopyTo(_receive);
        _filled = bytes.Length;
        return Process();
    }

    private bool Process()
    {
        FrameAndDeliver(_receive, ref _filled);
        if (_filled == _receive.Length)
        {
            CloseTooLarge(_filled);
            return false;
        }

        return !Closed;
    }
}
