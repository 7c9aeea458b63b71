using RapidFix.Pools.Buffers;
using RapidFix.Pools.Phases;
using RapidFix.Tests.Shared;

namespace RapidFix.Pools.Tests;

public sealed class BufferPoolTests
{
    [Fact]
    public void Buffers_are_disjoint_slices_of_one_pinned_slab()
    {
        var pool = new BufferPool("buffers", 256, 8, pinned: true);
        var rented = new List<PooledBuffer>();
        while (pool.TryRent(out var b))
        {
            rented.Add(b);
        }

        Assert.Equal(8, rented.Count);
        Assert.Single(rented.Select(b => b.Array).Distinct());
        Assert.Equal(Enumerable.Range(0, 8).Select(i => i * 256), rented.Select(b => b.Offset).OrderBy(o => o));
        for (int i = 0; i < rented.Count; i++)
        {
            rented[i].Span.Fill((byte)i);
        }

        for (int i = 0; i < rented.Count; i++)
        {
            Assert.All(rented[i].Span.ToArray(), v => Assert.Equal((byte)i, v));
        }

        Assert.Equal(1, pool.RentFailures);
    }

    [Fact]
    public void Double_return_and_foreign_buffers_are_refused_and_counted()
    {
        var pool = new BufferPool("a", 64, 2);
        var other = new BufferPool("b", 64, 1);
        Assert.True(pool.TryRent(out var buf));
        buf.Length = 10;
        Assert.True(pool.Return(buf));
        Assert.Equal(0, buf.Length);
        Assert.False(pool.Return(buf));
        Assert.True(other.TryRent(out var foreign));
        Assert.False(pool.Return(foreign));
        Assert.Equal(2, pool.ReturnFailures);
        Assert.Equal(2, pool.Available);
    }

    [Fact]
    public void Rent_and_return_allocate_nothing()
    {
        var pool = new BufferPool("buffers", 128, 4);
        long bytes = Allocations.Measure(pool, static p =>
        {
            p.TryRent(out var a);
            a!.Span[0] = 1;
            a.Length = 1;
            p.Return(a);
        }, iterations: 100_000);
        Assert.Equal(0, bytes);
    }

    [Fact]
    public void Memory_pool_serves_blocks_and_reports_exhaustion_explicitly()
    {
        var phases = new PhaseController("pipes");
        var pool = new SlabMemoryPool("pipe-blocks", 4096, 2, phases);
        using var a = pool.Rent(100);
        using var b = pool.Rent();
        Assert.Equal(4096, a.Memory.Length);
        var ex = Assert.Throws<PoolExhaustedException>(() => pool.Rent());
        Assert.Equal("pipe-blocks", ex.Pool);
        Assert.Equal(1, pool.Buffers.RentFailures);
        Assert.Throws<PoolExhaustedException>(() => pool.Rent(8192));
        Assert.Equal(1, pool.OversizeRequests);
        Assert.Equal(1, phases.Pools.Count);
    }
}
