using BenchmarkDotNet.Attributes;
using RapidFix.Pools.Buffers;
using RapidFix.Pools.Objects;

namespace RapidFix.Benchmarks.Pools;

/// <summary>One rent and one return, per pool kind, on one thread.</summary>
public class PoolBenchmarks
{
    private readonly ObjectPool<object> _shared = new("shared", 1024, () => new object());
    private readonly LocalObjectPool<object> _local = new("local", 1024, () => new object());
    private readonly BufferPool _buffers = new("buffers", 4096, 1024);

    [Benchmark(Baseline = true, Description = "ObjectPool (MPMC) rent+return")]
    public bool SharedRentReturn() => _shared.TryRent(out var o) && _shared.Return(o);

    [Benchmark(Description = "LocalObjectPool rent+return")]
    public bool LocalRentReturn() => _local.TryRent(out var o) && _local.Return(o);

    [Benchmark(Description = "BufferPool rent+return")]
    public bool BufferRentReturn() => _buffers.TryRent(out var b) && _buffers.Return(b);
}

/// <summary>Two threads renting from and returning to one pool at full speed: the contended cost per operation pair.</summary>
public class PoolContentionBenchmarks
{
    private const int OperationsPerThread = 100_000;
    private readonly ObjectPool<object> _pool = new("contended", 256, () => new object());
    private Thread? _other;
    private volatile bool _run;
    private readonly ManualResetEventSlim _go = new();
    private readonly ManualResetEventSlim _done = new();

    [GlobalSetup]
    public void Setup()
    {
        _run = true;
        _other = new Thread(() =>
        {
            while (true)
            {
                _go.Wait();
                _go.Reset();
                if (!_run)
                {
                    return;
                }

                Loop();
                _done.Set();
            }
        })
        { IsBackground = true };
        _other.Start();
    }

    [GlobalCleanup]
    public void Cleanup()
    {
        _run = false;
        _go.Set();
        _other?.Join();
    }

    [Benchmark(OperationsPerInvoke = OperationsPerThread * 2, Description = "ObjectPool rent+return, 2 threads")]
    public void TwoThreads()
    {
        _done.Reset();
        _go.Set();
        Loop();
        _done.Wait();
    }

    private void Loop()
    {
        for (int i = 0; i < OperationsPerThread; i++)
        {
            if (_pool.TryRent(out var o))
            {
                _pool.Return(o);
            }
        }
    }
}
