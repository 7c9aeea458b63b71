using System.Buffers;
using RapidFix.Pools.Phases;

namespace RapidFix.Pools.Buffers;

/// <summary>
/// A <see cref="MemoryPool{T}"/> over a <see cref="BufferPool"/>, for System.IO.Pipelines and other APIs that rent
/// <see cref="IMemoryOwner{T}"/>. Every block has the same size (<see cref="MaxBufferSize"/>).
/// </summary>
/// <remarks>
/// <see cref="MemoryPool{T}.Rent"/> has no way to say "no", so an exhausted pool (or a request larger than a block)
/// throws <see cref="PoolExhaustedException"/> after counting the failure. Size the pool, and the pipe's pause
/// thresholds, so that this cannot happen in normal operation: the pipe applies back-pressure long before.
/// </remarks>
public sealed class SlabMemoryPool : MemoryPool<byte>
{
    private readonly BufferPool _buffers;

    /// <summary>A pool of <paramref name="blockCount"/> blocks of <paramref name="blockSize"/> bytes, created now (startup); registered with <paramref name="phases"/> when given.</summary>
    public SlabMemoryPool(string name, int blockSize, int blockCount, PhaseController? phases = null)
    {
        _buffers = new BufferPool(name, blockSize, blockCount, pinned: true, phases);
    }

    /// <summary>The underlying buffers and their counters.</summary>
    public BufferPool Buffers => _buffers;

    private long _oversizeRequests;

    /// <summary>Requests larger than a block (refused and counted here, not in the pool's rent failures).</summary>
    public long OversizeRequests => Interlocked.Read(ref _oversizeRequests);

    /// <summary>The block size: no rent can be larger.</summary>
    public override int MaxBufferSize => _buffers.BufferSize;

    /// <summary>A block; <see cref="PoolExhaustedException"/> (counted) when none is free or <paramref name="minBufferSize"/> exceeds the block size, since a memory pool cannot say no.</summary>
    public override IMemoryOwner<byte> Rent(int minBufferSize = -1)
    {
        if (minBufferSize > _buffers.BufferSize)
        {
            Interlocked.Increment(ref _oversizeRequests);
            throw new PoolExhaustedException(_buffers.Name, $"a block of {minBufferSize} bytes was requested; blocks are {_buffers.BufferSize} bytes");
        }

        if (!_buffers.TryRent(out var buffer))
        {
            throw new PoolExhaustedException(_buffers.Name, $"all {_buffers.Capacity} blocks are in use");
        }

        return buffer;
    }

    /// <inheritdoc/>
    protected override void Dispose(bool disposing)
    {
        // The slabs are released with the pool object itself; nothing to do eagerly.
    }
}
