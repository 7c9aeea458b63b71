using System.Diagnostics;
using BenchmarkDotNet.Attributes;
using RapidFix.Engine.Codec;
using RapidFix.Engine.Configuration;
using RapidFix.Engine.Fields;
using RapidFix.Engine.Hosting;
using RapidFix.Engine.Sessions;
using RapidFix.Engine.Transport;

namespace RapidFix.Benchmarks.Sessions;

/// <summary>
/// One NewOrderSingle from an initiator to an acceptor over loopback TCP, answered by one ExecutionReport, one in
/// flight at a time: the whole engine on both ends (framing, parsing, validation against FIX 4.4, session checks,
/// the store, sockets). RapidFix on both ends, and QuickFIX/n on both ends when it is compiled in.
/// </summary>
public interface IRoundTrip : IDisposable
{
    string Name { get; }

    /// <summary>Sends one order and waits for its execution.</summary>
    void RoundTrip();
}

/// <summary>RapidFix initiator and acceptor in this process, express stores, validation on, both on one transport.</summary>
public sealed class RapidFixRoundTrip : IRoundTrip
{
    private readonly string _name;
    private readonly FixEngine _acceptor;
    private readonly FixEngine _initiator;
    private readonly FixSession _session;
    private readonly Client _client = new();
    private long _next;

    /// <param name="transport">The connection kind on both ends.</param>
    /// <param name="acceptorExtra">More [DEFAULT] lines for the acceptor (TLS, for instance).</param>
    /// <param name="initiatorExtra">More [DEFAULT] lines for the initiator.</param>
    /// <param name="variant">What the extra settings make of it, for the engine's name.</param>
    public RapidFixRoundTrip(SocketTransport transport = SocketTransport.Pipelines, string acceptorExtra = "", string initiatorExtra = "", string? variant = null)
    {
        _name = variant is null ? $"RapidFix, {transport}" : $"RapidFix, {transport}, {variant}";
        var acceptorSettings = SettingsFile.Parse($"""
            [DEFAULT]
            ConnectionType=acceptor
            SocketAcceptHost=127.0.0.1
            SocketAcceptPort=0
            StartTime=00:00:00
            EndTime=00:00:00
            StoreType=express
            SocketTransport={transport}
            {acceptorExtra}
            [SESSION]
            BeginString=FIX.4.4
            SenderCompID=EXEC
            TargetCompID=CLIENT
            """, "bench-acceptor.cfg");
        _acceptor = FixEngine.Create(acceptorSettings, _ => new Executor());
        _acceptor.Start();
        var initiatorSettings = SettingsFile.Parse($"""
            [DEFAULT]
            ConnectionType=initiator
            SocketConnectHost=127.0.0.1
            SocketConnectPort={_acceptor.Acceptors[0].LocalEndPoint.Port}
            HeartBtInt=30
            ReconnectInterval=1
            StartTime=00:00:00
            EndTime=00:00:00
            StoreType=express
            SocketTransport={transport}
            {initiatorExtra}
            [SESSION]
            BeginString=FIX.4.4
            SenderCompID=CLIENT
            TargetCompID=EXEC
            """, "bench-initiator.cfg");
        _initiator = FixEngine.Create(initiatorSettings, _ => _client);
        _initiator.Start();
        _session = _initiator.Sessions[0];
        var deadline = DateTime.UtcNow.AddSeconds(10);
        while (!_session.IsLoggedOn || !_acceptor.Sessions[0].IsLoggedOn)
        {
            if (DateTime.UtcNow > deadline)
            {
                throw new InvalidOperationException("RapidFix sessions did not log on");
            }

            Thread.Sleep(10);
        }
    }

    public string Name => _name;

    public void RoundTrip()
    {
        long id = ++_next;
        _client.SendOrder(_session, id);
        var spin = new SpinWait();
        while (_client.Executed < id)
        {
            spin.SpinOnce(sleep1Threshold: -1);
        }
    }

    public void Dispose()
    {
        _initiator.Dispose();
        _acceptor.Dispose();
    }

    private sealed class Client : FixApplicationBase
    {
        private readonly byte[] _body = new byte[512];
        private readonly byte[] _id = new byte[24];
        private long _executed;

        public long Executed => Volatile.Read(ref _executed);

        public override MessageDisposition FromApp(FixSession session, FixMessage message)
        {
            Interlocked.Increment(ref _executed);
            return MessageDisposition.Accept;
        }

        public void SendOrder(FixSession session, long id)
        {
            int n = FixValue.FormatLong(id, _id);
            var body = new FixBodyWriter(_body);
            body.Add(Tags.ClOrdID, _id.AsSpan(0, n));
            body.AddChar(21, (byte)'1');
            body.Add(Tags.Symbol, "MSFT"u8);
            body.AddChar(Tags.Side, (byte)'1');
            body.AddTimestamp(Tags.TransactTime, Engine.Time.EngineClock.Shared.UtcNowNanos);
            body.Add(Tags.OrderQty, 100L);
            body.AddChar(Tags.OrdType, (byte)'2');
            body.Add(Tags.Price, new FixDecimal(41237, -2));
            session.Send("D"u8, body.Written);
        }
    }

    private sealed class Executor : FixApplicationBase
    {
        private readonly byte[] _body = new byte[1024];

        public override MessageDisposition FromApp(FixSession session, FixMessage message)
        {
            var body = new FixBodyWriter(_body);
            body.Add(Tags.OrderID, message.GetValue(Tags.ClOrdID));
            body.Add(Tags.ClOrdID, message.GetValue(Tags.ClOrdID));
            body.Add(Tags.ExecID, message.GetValue(Tags.ClOrdID));
            body.AddChar(150, (byte)'F');
            body.AddChar(Tags.OrdStatus, (byte)'2');
            body.Add(Tags.Symbol, message.GetValue(Tags.Symbol));
            body.Add(Tags.Side, message.GetValue(Tags.Side));
            message.TryGetLong(Tags.OrderQty, out long qty);
            message.TryGetDecimal(Tags.Price, out var price);
            body.Add(Tags.OrderQty, qty);
            body.Add(32, qty);
            body.Add(31, price);
            body.Add(151, 0L);
            body.Add(14, qty);
            body.Add(6, price);
            session.Send("8"u8, body.Written);
            return MessageDisposition.Accept;
        }
    }
}

/// <summary>BenchmarkDotNet view of the round trip: time and bytes allocated per round trip (two messages).</summary>
public class RoundTripBenchmarks
{
    private IRoundTrip _rapidFix = null!;

    /// <summary>The RapidFix connection kind on both ends.</summary>
    [Params(SocketTransport.Pipelines, SocketTransport.DedicatedThread)]
    public SocketTransport Transport { get; set; }
#if QUICKFIXN
    private IRoundTrip _quickFix = null!;
#endif

    [GlobalSetup]
    public void Setup()
    {
        _rapidFix = new RapidFixRoundTrip(Transport);
#if QUICKFIXN
        _quickFix = new QuickFixRoundTrip();
#endif
    }

    [GlobalCleanup]
    public void Cleanup()
    {
        _rapidFix.Dispose();
#if QUICKFIXN
        _quickFix.Dispose();
#endif
    }

    [Benchmark(Baseline = true, Description = "RapidFix NOS->ER round trip")]
    public void RapidFix() => _rapidFix.RoundTrip();

#if QUICKFIXN
    [Benchmark(Description = "QuickFIX/n NOS->ER round trip")]
    public void QuickFix() => _quickFix.RoundTrip();
#endif
}

/// <summary>
/// The percentile view: many round trips one at a time, each timed, then p50 / p99 / p99.9 / max and the bytes the
/// whole process allocated per message. Run with <c>-- --roundtrip [count]</c>. Every engine (RapidFix on each
/// transport, QuickFIX/n when compiled in) is started and warmed up first, then they take turns in blocks of 1,000
/// round trips (the first turn rotating), so that noise from the rest of the machine falls on all of them alike.
/// </summary>
public static class RoundTripLatency
{
    private const int Block = 1_000;

    public static int Run(int count, TextWriter output)
    {
        var creators = new List<Func<IRoundTrip>>
        {
            () => new RapidFixRoundTrip(SocketTransport.Pipelines),
            () => new RapidFixRoundTrip(SocketTransport.DedicatedThread),
        };
#if QUICKFIXN
        creators.Add(() => new QuickFixRoundTrip());
#endif
        count = Math.Max(Block, count / Block * Block);
        output.WriteLine($"round trips: {count} per engine in turns of {Block}, one in flight, loopback TCP, FIX 4.4 validation on both ends; {Environment.ProcessorCount} cores, .NET {Environment.Version}");
        output.WriteLine("| engine | p50 us | p90 us | p99 us | p99.9 us | max us | mean us | allocated B/message |");
        output.WriteLine("|---|---:|---:|---:|---:|---:|---:|---:|");
        var engines = creators.Select(create => create()).ToArray();
        try
        {
            foreach (var engine in engines)
            {
                for (int i = 0; i < Math.Min(20_000, count); i++)
                {
                    engine.RoundTrip(); // warm-up: tier-1 code everywhere
                }
            }

            Thread.Sleep(300);
            var samples = engines.Select(_ => new long[count]).ToArray();
            var allocated = new long[engines.Length];
            for (int block = 0; block < count / Block; block++)
            {
                for (int turn = 0; turn < engines.Length; turn++)
                {
                    // Who goes first rotates, so that no engine always follows the same one.
                    int e = (block + turn) % engines.Length;
                    var engine = engines[e];
                    var times = samples[e];
                    long before = GC.GetTotalAllocatedBytes(precise: true);
                    for (int i = block * Block; i < (block + 1) * Block; i++)
                    {
                        long start = Stopwatch.GetTimestamp();
                        engine.RoundTrip();
                        times[i] = Stopwatch.GetTimestamp() - start;
                    }

                    allocated[e] += GC.GetTotalAllocatedBytes(precise: true) - before;
                }
            }

            for (int e = 0; e < engines.Length; e++)
            {
                var times = samples[e];
                Array.Sort(times);
                double Us(double q) => times[Math.Min(count - 1, (int)(q * count))] * 1e6 / Stopwatch.Frequency;
                double mean = times.Average() * 1e6 / Stopwatch.Frequency;
                output.WriteLine($"| {engines[e].Name} | {Us(0.50):F1} | {Us(0.90):F1} | {Us(0.99):F1} | {Us(0.999):F1} | {times[^1] * 1e6 / Stopwatch.Frequency:F1} | {mean:F1} | {allocated[e] / (2.0 * count):F1} |");
            }
        }
        finally
        {
            foreach (var engine in engines)
            {
                engine.Dispose();
            }
        }

        return 0;
    }
}
