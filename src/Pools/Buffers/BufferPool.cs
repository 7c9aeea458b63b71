using System.Diagnostics.CodeAnalysis;
using RapidFix.Pools.Diagnostics;
using RapidFix.Pools.Objects;
using RapidFix.Pools.Phases;

namespace RapidFix.Pools.Buffers;

/// <summary>
/// A fixed number of equal-size byte buffers carved out of large slabs allocated once at startup.
/// </summary>
/// <remarks>
/// Slabs are optionally allocated on the pinned object heap so the buffers can be handed to sockets and native
/// I/O without pinning per call and without fragmenting the GC heap. A slab holds at most 1 GiB; larger pools use
/// several. Renting from an empty pool returns false and counts a failure; the pool never grows.
/// </remarks>
public sealed class BufferPool : IPoolStatistics
{
    private const int MaxSlabBytes = 1 << 30;

    private readonly ObjectPool<PooledBuffer> _free;
    private readonly byte[][] _slabs;

    /// <param name="name">Name for counters and logs.</param>
    /// <param name="bufferSize">Bytes per buffer.</param>
    /// <param name="count">Number of buffers.</param>
    /// <param name="pinned">Allocate the slabs on the pinned object heap.</param>
    /// <param name="phases">If given, creation is refused outside startup and the pool registers its counters there.</param>
    public BufferPool(string name, int bufferSize, int count, bool pinned = true, PhaseController? phases = null)
    {
        ArgumentNullException.ThrowIfNull(name);
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(bufferSize);
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(count);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(bufferSize, MaxSlabBytes);
        phases?.EnsureStartup($"create the buffer pool '{name}'");

        Name = name;
        BufferSize = bufferSize;
        Pinned = pinned;

        int perSlab = MaxSlabBytes / bufferSize;
        int slabCount = (count + perSlab - 1) / perSlab;
        _slabs = new byte[slabCount][];
        var buffers = new PooledBuffer[count];
        int created = 0;
        for (int s = 0; s < slabCount; s++)
        {
            int inThisSlab = Math.Min(perSlab, count - created);
            var slab = GC.AllocateUninitializedArray<byte>(inThisSlab * bufferSize, pinned);
            _slabs[s] = slab;
            for (int i = 0; i < inThisSlab; i++, created++)
            {
                buffers[created] = new PooledBuffer(this, slab, i * bufferSize, bufferSize, created);
            }
        }

        int next = 0;
        _free = new ObjectPool<PooledBuffer>(name, count, () => buffers[next++]);
        phases?.Pools.Register(this);
    }

    /// <inheritdoc/>
    public string Name { get; }

    /// <summary>Bytes per buffer.</summary>
    public int BufferSize { get; }

    /// <summary>Whether the slabs live on the pinned object heap.</summary>
    public bool Pinned { get; }

    /// <inheritdoc/>
    public int Capacity => _free.Capacity;

    /// <inheritdoc/>
    public int Available => _free.Available;

    /// <inheritdoc/>
    public int InUse => _free.InUse;

    /// <inheritdoc/>
    public int HighWater => _free.HighWater;

    /// <inheritdoc/>
    public long RentFailures => _free.RentFailures;

    /// <inheritdoc/>
    public long ReturnFailures => _free.ReturnFailures + Interlocked.Read(ref _doubleReturns);

    private long _doubleReturns;

    /// <summary>Takes a buffer (with <see cref="PooledBuffer.Length"/> 0), or returns false when none is free.</summary>
    public bool TryRent([MaybeNullWhen(false)] out PooledBuffer buffer)
    {
        if (_free.TryRent(out buffer))
        {
            buffer.MarkRented();
            return true;
        }

        return false;
    }

    /// <summary>Gives a buffer back. A buffer of another pool, or one already returned, is refused and counted.</summary>
    public bool Return(PooledBuffer buffer)
    {
        if (buffer is null || !ReferenceEquals(buffer.Owner, this) || !buffer.MarkFree())
        {
            Interlocked.Increment(ref _doubleReturns);
            return false;
        }

        buffer.Length = 0;
        return _free.Return(buffer);
    }
}
