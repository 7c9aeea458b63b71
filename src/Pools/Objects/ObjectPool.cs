using System.Diagnostics.CodeAnalysis;
using System.Numerics;
using System.Runtime.CompilerServices;
using RapidFix.Pools.Diagnostics;
using RapidFix.Pools.Phases;

namespace RapidFix.Pools.Objects;

/// <summary>
/// A fixed-capacity pool of pre-created objects that any number of threads may rent from and return to.
/// </summary>
/// <remarks>
/// Every item is created by the factory in the constructor; the pool never creates another. An empty pool makes
/// <see cref="TryRent"/> return false and counts a rent failure: the caller decides how to push back (drop, reject,
/// slow the producer). The storage is a bounded multi-producer multi-consumer ring (one sequence number per cell,
/// as in Dmitry Vyukov's bounded queue), so rent and return are one CAS each and never allocate. A thread
/// preempted between claiming a cell and publishing it makes the others spin briefly on that cell; it never makes
/// them report a false empty or full pool.
/// For items used by a single thread, <see cref="LocalObjectPool{T}"/> avoids the interlocked operations.
/// </remarks>
public sealed class ObjectPool<T> : IPoolStatistics where T : class
{
    private static readonly bool ResetsOnReturn = typeof(IPooledObject).IsAssignableFrom(typeof(T));

    private readonly Cell[] _cells;
    private readonly int _mask;
    private PaddedLong _enqueuePos;
    private PaddedLong _dequeuePos;
    private long _rentFailures;
    private long _returnFailures;
    private int _highWater;

    /// <summary>Creates the pool and all <paramref name="capacity"/> items.</summary>
    /// <param name="name">Name for counters and logs.</param>
    /// <param name="capacity">Number of items; the ring is rounded up to a power of two internally.</param>
    /// <param name="factory">Creates one item; called <paramref name="capacity"/> times, now.</param>
    /// <param name="phases">If given, creation is refused outside startup and the pool registers its counters there.</param>
    public ObjectPool(string name, int capacity, Func<T> factory, PhaseController? phases = null)
    {
        ArgumentNullException.ThrowIfNull(name);
        ArgumentNullException.ThrowIfNull(factory);
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(capacity);
        phases?.EnsureStartup($"create the object pool '{name}'");

        Name = name;
        Capacity = capacity;
        int ringSize = (int)BitOperations.RoundUpToPowerOf2((uint)capacity);
        _cells = new Cell[ringSize];
        _mask = ringSize - 1;
        for (int i = 0; i < _cells.Length; i++)
        {
            _cells[i].Sequence = i;
        }

        for (int i = 0; i < capacity; i++)
        {
            var item = factory() ?? throw new InvalidOperationException($"The factory of pool '{name}' returned null.");
            if (!TryEnqueue(item))
            {
                throw new InvalidOperationException("Pool ring smaller than its capacity.");
            }
        }

        phases?.Pools.Register(this);
    }

    /// <inheritdoc/>
    public string Name { get; }

    /// <inheritdoc/>
    public int Capacity { get; }

    /// <summary>Items available to rent now (approximate under concurrency).</summary>
    public int Available
    {
        get
        {
            long n = Volatile.Read(ref _enqueuePos.Value) - Volatile.Read(ref _dequeuePos.Value);
            return (int)Math.Clamp(n, 0, Capacity);
        }
    }

    /// <inheritdoc/>
    public int InUse => Capacity - Available;

    /// <inheritdoc/>
    public int HighWater => Volatile.Read(ref _highWater);

    /// <inheritdoc/>
    public long RentFailures => Interlocked.Read(ref _rentFailures);

    /// <inheritdoc/>
    public long ReturnFailures => Interlocked.Read(ref _returnFailures);

    /// <summary>Takes an item, or returns false (and counts a rent failure) when the pool is empty.</summary>
    public bool TryRent([MaybeNullWhen(false)] out T item)
    {
        if (TryDequeue(out item))
        {
            int inUse = InUse;
            if (inUse > _highWater)
            {
                Volatile.Write(ref _highWater, inUse);
            }

            return true;
        }

        Interlocked.Increment(ref _rentFailures);
        return false;
    }

    /// <summary>Gives an item back. Returns false (and counts it) when the pool is already full.</summary>
    public bool Return(T item)
    {
        if (item is null)
        {
            Interlocked.Increment(ref _returnFailures);
            return false;
        }

        if (ResetsOnReturn)
        {
            Unsafe.As<IPooledObject>(item).ResetForReuse();
        }

        if (TryEnqueue(item))
        {
            return true;
        }

        Interlocked.Increment(ref _returnFailures);
        return false;
    }

    private bool TryEnqueue(T item)
    {
        var cells = _cells;
        SpinWait spinner = default;
        long pos = Volatile.Read(ref _enqueuePos.Value);
        while (true)
        {
            if (pos - Volatile.Read(ref _dequeuePos.Value) >= Capacity)
            {
                return false; // holds every item it ever had: a double or foreign return
            }

            ref Cell cell = ref cells[pos & _mask];
            long seq = Volatile.Read(ref cell.Sequence);
            long diff = seq - pos;
            if (diff == 0)
            {
                if (Interlocked.CompareExchange(ref _enqueuePos.Value, pos + 1, pos) == pos)
                {
                    cell.Item = item;
                    Volatile.Write(ref cell.Sequence, pos + 1);
                    return true;
                }
            }
            else if (diff < 0)
            {
                // A renter has claimed this cell a lap ago and not released it yet (it may be preempted): wait
                // for it rather than report a full pool that is not full.
                spinner.SpinOnce(sleep1Threshold: -1);
            }

            pos = Volatile.Read(ref _enqueuePos.Value);
        }
    }

    private bool TryDequeue([MaybeNullWhen(false)] out T item)
    {
        var cells = _cells;
        SpinWait spinner = default;
        long pos = Volatile.Read(ref _dequeuePos.Value);
        while (true)
        {
            ref Cell cell = ref cells[pos & _mask];
            long seq = Volatile.Read(ref cell.Sequence);
            long diff = seq - (pos + 1);
            if (diff == 0)
            {
                if (Interlocked.CompareExchange(ref _dequeuePos.Value, pos + 1, pos) == pos)
                {
                    item = cell.Item!;
                    cell.Item = null;
                    Volatile.Write(ref cell.Sequence, pos + _mask + 1);
                    return true;
                }
            }
            else if (diff < 0)
            {
                if (Volatile.Read(ref _enqueuePos.Value) <= pos)
                {
                    item = null;
                    return false; // empty
                }

                // A returner has claimed this cell and not published its item yet: wait for it.
                spinner.SpinOnce(sleep1Threshold: -1);
            }

            pos = Volatile.Read(ref _dequeuePos.Value);
        }
    }

    private struct Cell
    {
        public long Sequence;
        public T? Item;
    }
}
