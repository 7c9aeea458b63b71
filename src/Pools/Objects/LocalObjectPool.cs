using System.Diagnostics.CodeAnalysis;
using System.Runtime.CompilerServices;
using RapidFix.Pools.Diagnostics;
using RapidFix.Pools.Phases;

namespace RapidFix.Pools.Objects;

/// <summary>
/// A fixed-capacity pool for one thread (for example a session's own message objects): a plain array stack,
/// no interlocked operations. Not thread-safe; use <see cref="ObjectPool{T}"/> when items cross threads.
/// </summary>
public sealed class LocalObjectPool<T> : IPoolStatistics where T : class
{
    private static readonly bool ResetsOnReturn = typeof(IPooledObject).IsAssignableFrom(typeof(T));

    private readonly T?[] _items;
    private int _count;
    private int _highWater;
    private long _rentFailures;
    private long _returnFailures;

    /// <summary>A pool of <paramref name="capacity"/> items, every one made by <paramref name="factory"/> now (startup); registered with <paramref name="phases"/> when given.</summary>
    public LocalObjectPool(string name, int capacity, Func<T> factory, PhaseController? phases = null)
    {
        ArgumentNullException.ThrowIfNull(name);
        ArgumentNullException.ThrowIfNull(factory);
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(capacity);
        phases?.EnsureStartup($"create the object pool '{name}'");
        Name = name;
        _items = new T?[capacity];
        for (int i = 0; i < capacity; i++)
        {
            _items[i] = factory() ?? throw new InvalidOperationException($"The factory of pool '{name}' returned null.");
        }

        _count = capacity;
        phases?.Pools.Register(this);
    }

    /// <inheritdoc/>
    public string Name { get; }

    /// <inheritdoc/>
    public int Capacity => _items.Length;

    /// <inheritdoc/>
    public int Available => Volatile.Read(ref _count);

    /// <inheritdoc/>
    public int InUse => Capacity - Available;

    /// <inheritdoc/>
    public int HighWater => Volatile.Read(ref _highWater);

    /// <inheritdoc/>
    public long RentFailures => Volatile.Read(ref _rentFailures);

    /// <inheritdoc/>
    public long ReturnFailures => Volatile.Read(ref _returnFailures);

    /// <summary>Takes an item; false (counted in <see cref="RentFailures"/>) when the pool is empty: it never grows.</summary>
    public bool TryRent([MaybeNullWhen(false)] out T item)
    {
        int n = _count;
        if (n == 0)
        {
            _rentFailures++;
            item = null;
            return false;
        }

        n--;
        item = _items[n]!;
        _items[n] = null;
        _count = n;
        int inUse = _items.Length - n;
        if (inUse > _highWater)
        {
            _highWater = inUse;
        }

        return true;
    }

    /// <summary>Gives an item back; false (counted) when it is null or the pool is already full (an item returned twice, or not its own).</summary>
    public bool Return(T item)
    {
        int n = _count;
        if (item is null || n == _items.Length)
        {
            _returnFailures++;
            return false;
        }

        if (ResetsOnReturn)
        {
            Unsafe.As<IPooledObject>(item).ResetForReuse();
        }

        _items[n] = item;
        _count = n + 1;
        return true;
    }
}
