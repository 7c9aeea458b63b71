using System.Buffers;
using System.IO.Pipelines;
using System.Net.Sockets;
using System.Runtime.InteropServices;
using RapidFix.Engine.Codec;
using RapidFix.Engine.Diagnostics;
using RapidFix.Engine.Sessions;
using RapidFix.Pools.Buffers;

namespace RapidFix.Engine.Transport;

/// <summary>
/// The System.IO.Pipelines connection (SocketTransport=Pipelines): received bytes go into a <see cref="Pipe"/> whose
/// segments come from a slab pool sized for this connection at construction; messages are framed over the pipe's
/// <see cref="ReadOnlySequence{T}"/> (in place when a message lies in one segment, copied once when it crosses two).
/// </summary>
/// <remarks>
/// No thread-pool hop: the connection's own thread is both the pipe's writer and its reader. It reads the socket
/// into <see cref="PipeWriter.GetMemory"/>, flushes (inline schedulers and no awaiting reader, so the flush
/// completes synchronously), then <see cref="PipeReader.TryRead"/>s and frames at once. Async socket reads would
/// complete on the thread pool on Linux (unless inline completions are forced process-wide), so they are not used.
/// Each read is capped so that the unframed bytes never pass the same limit as the flat-buffer connection's buffer:
/// the writer's pause threshold lies beyond it and is never reached, and the pool never runs dry.
/// </remarks>
public sealed class PipeConnection : FixSocketConnection
{
    private const int ReadSizeHint = ConnectionBuffers.ReadSizeHint;

    private SlabMemoryPool? _pool;
    private Pipe? _pipe;
    private byte[] _assembly = [];
    private int _buffered;
    private long _splitMessages;

    /// <inheritdoc cref="FixSocketConnection(Socket, FixSession?, Func{FixMessage, FixSession?}?, int, int, EngineLog?, TimeSpan?, int)"/>
    public PipeConnection(Socket socket, FixSession? session, Func<FixMessage, FixSession?>? router, int maxMessageSize, int outboundBufferBytes, EngineLog? log = null, TimeSpan? logonTimeout = null,
        int logonBufferBytes = 0)
        : base(socket, session, router, maxMessageSize, outboundBufferBytes, log, logonTimeout, logonBufferBytes)
    {
    }

    /// <summary>
    /// The session's pipe, its pool and the assembly buffer (<see cref="ConnectionBuffers"/>, made at startup): at an
    /// initiator's start, at an acceptor connection's Logon. The pipe was reset when the previous connection ended.
    /// </summary>
    private protected override void UseReceiveBuffers(ConnectionBuffers buffers)
    {
        _pool = buffers.Pool;
        _pipe = buffers.Pipe;
        _assembly = buffers.Receive;
    }

    /// <inheritdoc/>
    public override SocketTransport Transport => SocketTransport.Pipelines;

    /// <summary>The receive blocks and their counters (rent failures must stay 0), the session's; null until the connection is bound.</summary>
    public SlabMemoryPool? Pool => _pool;

    /// <summary>Messages that crossed a segment boundary and were assembled by copying (the slow path).</summary>
    public long SplitMessages => Volatile.Read(ref _splitMessages);

    private protected override bool Receive()
    {
        var writer = _pipe!.Writer;
        Memory<byte> memory;
        try
        {
            memory = writer.GetMemory(ReadSizeHint);
        }
        catch (PoolExhaustedException)
        {
            // Not expected with the pool sized for ReceiveLimit; a closed connection beats a dead thread.
            CloseTooLarge(_buffered);
            return false;
        }

        int n = ReadSocket(memory.Span.Slice(0, Math.Min(memory.Length, ReceiveLimit - _buffered)));
        if (n <= 0)
        {
            return n == 0;
        }

        writer.Advance(n);
        return Process(writer, n);
    }

    private protected override bool Adopt(ReadOnlySpan<byte> bytes)
    {
        // Fewer bytes than a Logon buffer: one block takes them.
        var writer = _pipe!.Writer;
        bytes.CopyTo(writer.GetSpan(bytes.Length));
        writer.Advance(bytes.Length);
        return Process(writer, bytes.Length);
    }

    /// <summary>Publishes the <paramref name="added"/> bytes just written and processes every whole message in the pipe.</summary>
    private bool Process(PipeWriter writer, int added)
    {
        if (!writer.FlushAsync().IsCompletedSuccessfully)
        {
            // Unreachable while reads are capped below the pause threshold; never wait on it.
            CloseTooLarge(_buffered + added);
            return false;
        }

        var reader = _pipe!.Reader;
        if (!reader.TryRead(out var read))
        {
            return true;
        }

        var buffer = read.Buffer;
        while (!buffer.IsEmpty && !Closed)
        {
            var frame = Framer.Frame(buffer, out var contiguous);
            if (frame.Status == FrameStatus.NeedMoreData)
            {
                buffer = buffer.Slice(frame.Consumed);
                break;
            }

            if (frame.Status == FrameStatus.Complete)
            {
                Deliver(buffer, frame, contiguous);
            }
            else
            {
                Reject(frame);
            }

            buffer = buffer.Slice(frame.Consumed);
        }

        reader.AdvanceTo(buffer.Start, read.Buffer.End);
        _buffered = (int)buffer.Length;
        if (_buffered >= ReceiveLimit)
        {
            CloseTooLarge(_buffered);
            return false;
        }

        return !Closed;
    }

    private void Deliver(in ReadOnlySequence<byte> buffer, in FrameResult frame, ReadOnlySpan<byte> contiguous)
    {
        // In the first segment: parse in place. Across segments the framer assembled it in its scratch, which
        // the next frame call reuses: keep a copy of our own for the parsed view.
        if (contiguous.Overlaps(buffer.FirstSpan) && MemoryMarshal.TryGetArray(buffer.First, out var segment))
        {
            Deliver(segment.Array!, segment.Offset + frame.Start, frame.Length);
        }
        else
        {
            Volatile.Write(ref _splitMessages, _splitMessages + 1);
            contiguous.CopyTo(_assembly);
            Deliver(_assembly, 0, contiguous.Length);
        }
    }

    private protected override void OnClosed()
    {
        // Gives the blocks back to the pool (the session's buffers reset the pipe for its next connection).
        _pipe?.Writer.Complete();
        _pipe?.Reader.Complete();
    }
}
