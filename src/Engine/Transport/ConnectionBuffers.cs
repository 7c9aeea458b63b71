using System.Buffers;
using System.IO.Pipelines;
using System.Runtime.CompilerServices;
using RapidFix.Engine.Codec;
using RapidFix.Engine.Sessions;
using RapidFix.Pools.Buffers;

namespace RapidFix.Engine.Transport;

/// <summary>
/// The full-size buffers of a session's connection (the outbound buffer with its Logout reserve, and the receive
/// buffers of its kind: the pipe with its block pool and assembly buffer, or the flat buffer), owned by the session
/// and made once, when the session is created (startup): each connection the session binds uses them in turn, so a
/// logon or a reconnect in the continuous phase allocates nothing of their size (64 MiB with OutboundQueueDepth=65536).
/// </summary>
/// <remarks>
/// One set per session, lent to one connection at a time (<see cref="TryTake"/>, <see cref="Release"/>). A connection
/// that ends keeps them until its thread has finished with them: a close may still be draining the outbound buffer
/// (up to <see cref="FixSocketConnection.CloseDrainTimeout"/>) while the counterparty's next connection is already
/// routed to the session. That next connection waits for the old one to give them back, rather than take a second set:
/// two sets per session would double the memory of every session for the rare reconnect inside a drain, and the
/// wait is bounded by the drain's deadline (a new connection still waiting after <see cref="TakeTimeout"/> is closed
/// as a second connection for the session).
/// </remarks>
internal sealed class ConnectionBuffers
{
    /// <summary>Receive blocks of the pipe (bytes).</summary>
    internal const int BlockSize = 16 * 1024;

    /// <summary>A read starts a new block rather than fill the last few bytes of one: fewer reads and fewer split messages.</summary>
    internal const int ReadSizeHint = 2048;

    /// <summary>How long a new connection waits for the session's previous connection to give the buffers back.</summary>
    internal static readonly TimeSpan TakeTimeout = FixSocketConnection.CloseDrainTimeout + TimeSpan.FromSeconds(3);

    private readonly object _sync = new();
    private object? _owner;

    /// <param name="transport">The kind of connection (which receive buffers).</param>
    /// <param name="maxMessageSize">Largest message read: sizes the receive buffers (<see cref="ReceiveLimitFor"/>).</param>
    /// <param name="outboundBufferBytes">Bytes that may wait for a slow counterparty (plus the Logout reserve).</param>
    /// <param name="viewOptions">The session's view limits (<see cref="FixSessionOptions.MessageOptions"/>).</param>
    /// <param name="refusalOnly">
    /// The set of a session made only to refuse its Logon with a Logout: it serves that one connection whatever the
    /// port's sizes (<see cref="Fits"/>).
    /// </param>
    public ConnectionBuffers(SocketTransport transport, int maxMessageSize, int outboundBufferBytes, FixMessageOptions viewOptions, bool refusalOnly = false)
    {
        RefusalOnly = refusalOnly;
        View = new FixMessage(viewOptions with { MaxMessageSize = maxMessageSize });
        Transport = transport;
        MaxMessageSize = maxMessageSize;
        OutboundBufferBytes = outboundBufferBytes;
        ReceiveLimit = ReceiveLimitFor(maxMessageSize);
        Outbound = GC.AllocateUninitializedArray<byte>(outboundBufferBytes + FixSocketConnection.FinalMessageReserve, pinned: true);
        if (transport == SocketTransport.Pipelines)
        {
            // Unframed bytes (below ReceiveLimit) over blocks each filled to at least BlockSize - ReadSizeHint, plus a
            // partly consumed first block, the block being written and the one a read may start.
            int blocks = ReceiveLimit / (BlockSize - ReadSizeHint) + 4;
            Pool = new SlabMemoryPool("connection-receive", BlockSize, blocks);
            Pipe = new Pipe(new PipeOptions(
                pool: Pool,
                readerScheduler: PipeScheduler.Inline,
                writerScheduler: PipeScheduler.Inline,
                pauseWriterThreshold: ReceiveLimit + 1,
                resumeWriterThreshold: ReceiveLimit,
                minimumSegmentSize: BlockSize,
                useSynchronizationContext: false));
            Receive = GC.AllocateUninitializedArray<byte>(maxMessageSize + 1024, pinned: true); // the assembly buffer
            PrimeSegments(Pipe, blocks);
            // The receive path's optimized (tier-1) code initialises ReadOnlySequence<byte> and ArraySegment<byte>
            // (Deliver: FirstSpan, MemoryMarshal.TryGetArray) when it is compiled, not when it runs: the JIT runs a
            // beforefieldinit type's class constructor eagerly, and these box their static Empty (40 and 32 bytes, on
            // the tiered-compilation thread). Tier-0 code never touched them, so the bytes fell into the continuous
            // phase of any process whose receive path tiered up after startup (the gateway's, which has no warm-up:
            // tools/zero-gc-gateway.sh). Run here, in startup; a second run is free.
            RuntimeHelpers.RunClassConstructor(typeof(ReadOnlySequence<byte>).TypeHandle);
            RuntimeHelpers.RunClassConstructor(typeof(ArraySegment<byte>).TypeHandle);
        }
        else
        {
            Receive = GC.AllocateUninitializedArray<byte>(ReceiveLimit, pinned: true);
        }
    }

    /// <summary>Outbound bytes of a set made only to refuse a Logon: the Logout that answers it.</summary>
    internal const int RefusalOutboundBytes = 4096;

    /// <summary>See the constructor.</summary>
    public bool RefusalOnly { get; }

    /// <summary>Unframed bytes a connection may hold before it gives up on them: a whole message plus a read's worth.</summary>
    public static int ReceiveLimitFor(int maxMessageSize) => maxMessageSize * 2 + 4096;

    /// <summary>The kind of connection these buffers serve.</summary>
    public SocketTransport Transport { get; }

    /// <summary>The largest message they were sized for.</summary>
    public int MaxMessageSize { get; }

    /// <summary>The outbound buffer's configured size (without the reserve).</summary>
    public int OutboundBufferBytes { get; }

    /// <summary>See <see cref="ReceiveLimitFor"/>.</summary>
    public int ReceiveLimit { get; }

    /// <summary>The outbound buffer: <see cref="OutboundBufferBytes"/> plus <see cref="FixSocketConnection.FinalMessageReserve"/>.</summary>
    public byte[] Outbound { get; }

    /// <summary>The flat receive buffer (DedicatedThread), or the buffer a message split across blocks is assembled in (Pipelines).</summary>
    public byte[] Receive { get; }

    /// <summary>The full-size view the connection's messages are parsed in (sized to the session's limits).</summary>
    public FixMessage View { get; }

    /// <summary>The receive pipe (Pipelines only): reset, with its segments pooled, between connections.</summary>
    public Pipe? Pipe { get; }

    /// <summary>The pipe's blocks (Pipelines only).</summary>
    public SlabMemoryPool? Pool { get; }

    /// <summary>True when a connection of <paramref name="transport"/> with these limits can use these buffers.</summary>
    public bool Fits(SocketTransport transport, int maxMessageSize, int outboundBufferBytes) =>
        Transport == transport && MaxMessageSize >= maxMessageSize && (RefusalOnly || OutboundBufferBytes >= outboundBufferBytes);

    /// <summary>
    /// The buffers of <paramref name="session"/> for a connection of <paramref name="transport"/> that reads messages
    /// up to <paramref name="maxMessageSize"/> and lets <paramref name="outbound"/> bytes wait: made now if the
    /// session has none that fit (startup: the acceptor or initiator serving the session is created; or connection
    /// set-up for a session nobody reserved them for), kept by the session for every later connection.
    /// </summary>
    public static ConnectionBuffers Reserve(FixSession session, SocketTransport transport, int maxMessageSize, int outbound)
    {
        ArgumentNullException.ThrowIfNull(session);
        var buffers = session.ConnectionBuffers;
        if (buffers is not null && buffers.Fits(transport, maxMessageSize, outbound))
        {
            return buffers;
        }

        var made = new ConnectionBuffers(transport, maxMessageSize, outbound, session.Options.MessageOptions);
        // A set still lent to a connection stays with it (the connection holds its own reference) and goes with it.
        var installed = session.ExchangeConnectionBuffers(buffers, made);
        return installed.Fits(transport, maxMessageSize, outbound) ? installed : made;
    }

    /// <summary>
    /// Lends the buffers to <paramref name="connection"/>, waiting up to <paramref name="timeout"/> for the previous
    /// holder to release them. False when it did not.
    /// </summary>
    public bool TryTake(object connection, TimeSpan timeout)
    {
        long deadline = Environment.TickCount64 + (long)timeout.TotalMilliseconds;
        lock (_sync)
        {
            while (_owner is not null && !ReferenceEquals(_owner, connection))
            {
                long left = deadline - Environment.TickCount64;
                if (left <= 0)
                {
                    return false;
                }

                Monitor.Wait(_sync, (int)Math.Min(left, int.MaxValue));
            }

            _owner = connection;
            return true;
        }
    }

    /// <summary>
    /// <paramref name="connection"/> is done with the buffers (its thread ended; no sender can reach them): the pipe,
    /// whose reader and writer the connection completed, is reset for the next one.
    /// </summary>
    public void Release(object connection)
    {
        lock (_sync)
        {
            if (!ReferenceEquals(_owner, connection))
            {
                return;
            }

            if (Pipe is not null)
            {
                // Completed by the connection already (idempotent): Reset needs both ends completed.
                Pipe.Writer.Complete();
                Pipe.Reader.Complete();
                Pipe.Reset();
            }

            _owner = null;
            Monitor.PulseAll(_sync);
        }
    }

    /// <summary>True while a connection holds the buffers.</summary>
    public bool IsLent
    {
        get
        {
            lock (_sync)
            {
                return _owner is not null;
            }
        }
    }

    /// <summary>
    /// The pipe creates its segment objects the first time it needs that many at once: have it need every block
    /// now, so that a burst in the continuous phase finds them all pooled and allocates nothing.
    /// </summary>
    private static void PrimeSegments(Pipe pipe, int blocks)
    {
        var writer = pipe.Writer;
        for (int i = 0; i < blocks; i++)
        {
            writer.GetMemory(BlockSize); // the last block has less than BlockSize left: a new segment
            writer.Advance(1);
        }

        if (!writer.FlushAsync().IsCompletedSuccessfully || !pipe.Reader.TryRead(out var read))
        {
            throw new InvalidOperationException("The receive pipe did not accept its priming bytes.");
        }

        pipe.Reader.AdvanceTo(read.Buffer.End);
    }
}
