using System.Buffers;

namespace RapidFix.Pools.Buffers;

/// <summary>
/// One fixed-size slice of a <see cref="BufferPool"/> slab. The object itself is created once, at startup, and
/// recycled with its slice; <see cref="Dispose"/> gives it back to its pool.
/// </summary>
public sealed class PooledBuffer : IMemoryOwner<byte>
{
    private const int Free = 0;
    private const int Rented = 1;

    private readonly BufferPool _owner;
    private int _state;

    internal PooledBuffer(BufferPool owner, byte[] array, int offset, int capacity, int index)
    {
        _owner = owner;
        Array = array;
        Offset = offset;
        Capacity = capacity;
        Index = index;
    }

    /// <summary>The slab this buffer lives in (shared with other buffers: stay within <see cref="Offset"/>..+<see cref="Capacity"/>).</summary>
    public byte[] Array { get; }

    /// <summary>Start of this buffer in <see cref="Array"/>.</summary>
    public int Offset { get; }

    /// <summary>Size of this buffer in bytes.</summary>
    public int Capacity { get; }

    /// <summary>Position of this buffer in its pool (stable for the pool's life; useful as a slot id).</summary>
    public int Index { get; }

    /// <summary>Bytes in use, set by the writer; the pool resets it to 0 on return.</summary>
    public int Length { get; set; }

    /// <summary>The whole buffer.</summary>
    public Span<byte> Span => new(Array, Offset, Capacity);

    /// <summary>The bytes in use (<see cref="Length"/> of them).</summary>
    public Span<byte> Written => new(Array, Offset, Length);

    /// <summary>The whole buffer as memory.</summary>
    public Memory<byte> Memory => new(Array, Offset, Capacity);

    /// <summary>The pool that owns this buffer.</summary>
    public BufferPool Owner => _owner;

    /// <summary>Returns the buffer to its pool. Returning twice is detected and counted, not corrupting.</summary>
    public void Dispose() => _owner.Return(this);

    internal bool MarkRented() => Interlocked.Exchange(ref _state, Rented) == Free;

    internal bool MarkFree() => Interlocked.Exchange(ref _state, Free) == Rented;
}
