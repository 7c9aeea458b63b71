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
    private readonly byte[] _receive;
    private int _filled;

    /// <inheritdoc cref="FixSocketConnection(Socket, FixSession?, Func{FixMessage, FixSession?}?, int, int, EngineLog?, TimeSpan?)"/>
    public FixConnection(Socket socket, FixSession? session, Func<FixMessage, FixSession?>? router, int maxMessageSize, int outboundBufferBytes, EngineLog? log = null, TimeSpan? logonTimeout = null)
        : base(socket, session, router, maxMessageSize, outboundBufferBytes, log, logonTimeout)
    {
        _receive = GC.AllocateUninitializedArray<byte>(ReceiveLimit, pinned: true);
    }

    public override SocketTransport Transport => SocketTransport.DedicatedThread;

    private protected override bool Receive()
    {
        int n = ReadSocket(_receive.AsSpan(_filled));
        if (n <= 0)
        {
            return n == 0;
        }

        _filled += n;
        int offset = 0;
        while (offset < _filled && !Closed)
        {
            var frame = Framer.Frame(new ReadOnlySpan<byte>(_receive, offset, _filled - offset));
            if (frame.Status == FrameStatus.NeedMoreData)
            {
                offset += frame.Consumed;
                break;
            }

            if (frame.Status == FrameStatus.Complete)
            {
                Deliver(_receive, offset + frame.Start, frame.Length);
            }
            else
            {
                Reject(frame);
            }

            offset += frame.Consumed;
        }

        if (offset > 0)
        {
            _receive.AsSpan(offset, _filled - offset).CopyTo(_receive);
            _filled -= offset;
        }

        if (_filled == _receive.Length)
        {
            CloseTooLarge(_filled);
            return false;
        }

        return !Closed;
    }
}
