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

    public string Name { get; }

    public int Capacity => _items.Length;

    public int Available => Volatile.Read(ref _count);

    public int InUse => Capacity - Available;

    public int HighWater => Volatile.Read(ref _highWater);

    public long RentFailures => Volatile.Read(ref _rentFailures);

    public long ReturnFailures => Volatile.Read(ref _returnFailures);

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
