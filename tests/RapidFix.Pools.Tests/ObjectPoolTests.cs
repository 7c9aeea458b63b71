using RapidFix.Pools.Objects;
using RapidFix.Pools.Phases;
using RapidFix.Tests.Shared;

namespace RapidFix.Pools.Tests;

public sealed class ObjectPoolTests
{
    private sealed class Item : IPooledObject
    {
        public int Value;
        public int Resets;

        public void ResetForReuse()
        {
            Value = 0;
            Resets++;
        }
    }

    [Fact]
    public void Creates_every_item_up_front_and_never_more()
    {
        int created = 0;
        var pool = new ObjectPool<Item>("items", 5, () => { created++; return new Item(); });
        Assert.Equal(5, created);

        var rented = new List<Item>();
        for (int i = 0; i < 5; i++)
        {
            Assert.True(pool.TryRent(out var item));
            rented.Add(item);
        }

        Assert.Equal(5, rented.Distinct().Count());
        Assert.False(pool.TryRent(out _));
        Assert.False(pool.TryRent(out _));
        Assert.Equal(5, created);
        Assert.Equal(2, pool.RentFailures);
        Assert.Equal(5, pool.InUse);
        Assert.Equal(5, pool.HighWater);
    }

    [Fact]
    public void Return_resets_the_item_and_makes_it_available_again()
    {
        var pool = new ObjectPool<Item>("items", 1, () => new Item());
        Assert.True(pool.TryRent(out var item));
        item.Value = 42;
        Assert.True(pool.Return(item));
        Assert.Equal(0, item.Value);
        Assert.Equal(1, item.Resets);
        Assert.True(pool.TryRent(out var again));
        Assert.Same(item, again);
    }

    [Fact]
    public void Returning_more_items_than_capacity_is_refused_and_counted()
    {
        var pool = new ObjectPool<Item>("items", 2, () => new Item());
        Assert.True(pool.TryRent(out var a));
        Assert.True(pool.Return(a));
        // A second return of the same item (or a foreign one) finds the pool full: refused, not stored twice.
        Assert.False(pool.Return(a));
        Assert.False(pool.Return(new Item()));
        Assert.Equal(2, pool.ReturnFailures);
        Assert.Equal(2, pool.Available);
    }

    [Fact]
    public void Creation_outside_startup_is_refused()
    {
        var phases = new PhaseController("test");
        _ = new ObjectPool<Item>("ok", 1, () => new Item(), phases);
        phases.EnterContinuous();
        var ex = Assert.Throws<PhaseViolationException>(() => new ObjectPool<Item>("late", 1, () => new Item(), phases));
        Assert.Contains("late", ex.Message);
        Assert.Contains("Continuous", ex.Message);
        phases.EnterShutdown();
        Assert.Equal(1, phases.Pools.Count);
    }

    [Fact]
    public void Rent_and_return_allocate_nothing()
    {
        var pool = new ObjectPool<Item>("items", 4, () => new Item());
        long bytes = Allocations.Measure(pool, static p =>
        {
            p.TryRent(out var a);
            p.TryRent(out var b);
            p.Return(a!);
            p.Return(b!);
            p.TryRent(out _); // leaves one out ...
            p.TryRent(out var c);
            p.Return(c!);
        }, iterations: 1, warmup: 0);
        _ = bytes;

        var steady = new ObjectPool<Item>("steady", 4, () => new Item());
        long measured = Allocations.Measure(steady, static p =>
        {
            p.TryRent(out var a);
            p.TryRent(out var b);
            p.Return(b!);
            p.Return(a!);
            p.TryRent(out _); // exhaustion path is allocation-free too
        }, iterations: 100_000);
        Assert.Equal(0, measured);
    }

    [Fact]
    public void Two_threads_renting_and_returning_never_share_an_item_or_lose_one()
    {
        const int Capacity = 64;
        const int Rounds = 200_000;
        var pool = new ObjectPool<Item>("shared", Capacity, () => new Item());
        var owners = new int[Capacity];
        var ids = new Dictionary<Item, int>(ReferenceEqualityComparer.Instance);
        var all = new List<Item>();
        while (pool.TryRent(out var it))
        {
            ids[it] = ids.Count;
            all.Add(it);
        }

        foreach (var it in all)
        {
            pool.Return(it);
        }

        int conflicts = 0;
        void Worker(int me)
        {
            var held = new Item[8];
            for (int r = 0; r < Rounds; r++)
            {
                int n = 0;
                for (; n < held.Length && pool.TryRent(out var it); n++)
                {
                    held[n] = it;
                    if (Interlocked.Exchange(ref owners[ids[it]], me) != 0)
                    {
                        Interlocked.Increment(ref conflicts);
                    }
                }

                for (int i = 0; i < n; i++)
                {
                    Interlocked.Exchange(ref owners[ids[held[i]]], 0);
                    pool.Return(held[i]);
                }
            }
        }

        var t1 = new Thread(() => Worker(1));
        var t2 = new Thread(() => Worker(2));
        t1.Start();
        t2.Start();
        t1.Join();
        t2.Join();

        Assert.Equal(0, conflicts);
        Assert.Equal(Capacity, pool.Available);
        Assert.Equal(0, pool.ReturnFailures);
        var back = new HashSet<Item>(ReferenceEqualityComparer.Instance);
        while (pool.TryRent(out var it))
        {
            Assert.True(back.Add(it));
        }

        Assert.Equal(Capacity, back.Count);
    }

    [Fact]
    public void Local_pool_counts_exhaustion_and_refuses_overflow()
    {
        var pool = new LocalObjectPool<Item>("local", 2, () => new Item());
        Assert.True(pool.TryRent(out var a));
        Assert.True(pool.TryRent(out var b));
        Assert.False(pool.TryRent(out _));
        Assert.Equal(1, pool.RentFailures);
        Assert.True(pool.Return(a));
        Assert.True(pool.Return(b));
        Assert.False(pool.Return(a));
        Assert.Equal(1, pool.ReturnFailures);
        Assert.Equal(2, pool.HighWater);

        long bytes = Allocations.Measure(pool, static p =>
        {
            p.TryRent(out var x);
            p.Return(x!);
        }, iterations: 100_000);
        Assert.Equal(0, bytes);
    }
}
