using System.Diagnostics;
using System.Globalization;
using System.Net;
using System.Net.Sockets;
using System.Runtime.CompilerServices;
using RapidFix.Engine.Codec;
using RapidFix.Engine.Configuration;
using RapidFix.Engine.Fields;
using RapidFix.Engine.Hosting;
using RapidFix.Engine.Sessions;

namespace RapidFix.Engine.Tests.Hosting;

/// <summary>
/// An engine host with two FIX 4.4 sessions talking to each other over loopback: the initiator sends orders, the
/// acceptor answers each with an ExecutionReport. Bodies are written into pre-allocated buffers.
/// </summary>
internal sealed class LoopbackEngine : IDisposable
{
    public LoopbackEngine(EngineHostOptions options)
    {
        int port = FreePort();
        var settings = SettingsFile.Parse(string.Create(CultureInfo.InvariantCulture, $"""
            [DEFAULT]
            BeginString=FIX.4.4
            StartTime=00:00:00
            EndTime=00:00:00
            HeartBtInt=30
            ResetOnLogon=Y
            StoreType=express
            StoreMaxMessages=2000000
            StoreMaxBytes=400000000
            MaxMessageSize=4096
            BufferPoolSize=8
            [SESSION]
            ConnectionType=acceptor
            SenderCompID=SELL
            TargetCompID=BUY
            SocketAcceptHost=127.0.0.1
            SocketAcceptPort={port}
            [SESSION]
            ConnectionType=initiator
            SenderCompID=BUY
            TargetCompID=SELL
            SocketConnectHost=127.0.0.1
            SocketConnectPort={port}
            ReconnectInterval=1
            """), "loopback test");
        Host = EngineHost.Start(settings, s => s.IsAcceptor ? Seller : Buyer, options);
        if (!Host.WaitForLogons(TimeSpan.FromSeconds(10)))
        {
            Host.Dispose();
            throw new TimeoutException("the loopback sessions did not log on");
        }
    }

    public EngineHost Host { get; }

    public Buyer Buyer { get; } = new();

    public Seller Seller { get; } = new();

    /// <summary>Sends <paramref name="count"/> orders and waits for their answers.</summary>
    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    public void Exchange(int count)
    {
        for (int i = 0; i < count; i++)
        {
            while (Buyer.Sent - Buyer.Filled >= 128)
            {
                Thread.Yield();
            }

            if (!Buyer.SendOrder())
            {
                throw new InvalidOperationException("order refused");
            }
        }

        long deadline = Stopwatch.GetTimestamp() + 10 * Stopwatch.Frequency;
        while (Buyer.Filled < Buyer.Sent)
        {
            if (Stopwatch.GetTimestamp() > deadline)
            {
                throw new TimeoutException($"{Buyer.Sent - Buyer.Filled} orders unanswered");
            }

            Thread.Yield();
        }
    }

    public void Dispose() => Host.Dispose();

    private static int FreePort()
    {
        using var probe = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        probe.Bind(new IPEndPoint(IPAddress.Loopback, 0));
        return ((IPEndPoint)probe.LocalEndPoint!).Port;
    }
}

internal sealed class Buyer : FixApplicationBase
{
    private readonly byte[] _body = new byte[512];
    private FixSession? _session;
    private long _sent;
    private long _filled;

    public long Sent => Volatile.Read(ref _sent);

    public long Filled => Volatile.Read(ref _filled);

    public FixSession Session => _session!;

    public override void OnCreate(FixSession session) => _session = session;

    public bool SendOrder()
    {
        var body = new FixBodyWriter(_body);
        body.Add(Tags.ClOrdID, _sent + 1);
        body.Add(Tags.Symbol, "MSFT"u8);
        body.AddChar(Tags.Side, (byte)'1');
        body.AddTimestamp(60, Time.EngineClock.Shared.UtcNowNanos);
        body.Add(Tags.OrderQty, 100L);
        body.AddChar(40, (byte)'1');
        if (Session.Send("D"u8, body.Written) != SendResult.Sent)
        {
            return false;
        }

        Volatile.Write(ref _sent, _sent + 1);
        return true;
    }

    public override MessageDisposition FromApp(FixSession session, FixMessage message)
    {
        Volatile.Write(ref _filled, _filled + 1);
        return MessageDisposition.Accept;
    }
}

internal sealed class Seller : FixApplicationBase
{
    private readonly byte[] _body = new byte[512];
    private long _executions;

    public override MessageDisposition FromApp(FixSession session, FixMessage message)
    {
        if (!message.TryGetValue(Tags.ClOrdID, out var clOrdId) || !message.TryGetLong(Tags.OrderQty, out long quantity))
        {
            return MessageDisposition.BusinessReject(5);
        }

        var body = new FixBodyWriter(_body);
        body.Add(Tags.OrderID, ++_executions);
        body.Add(Tags.ClOrdID, clOrdId);
        body.Add(Tags.ExecID, _executions);
        body.AddChar(150, (byte)'F');
        body.AddChar(39, (byte)'2');
        body.Add(Tags.Symbol, "MSFT"u8);
        body.AddChar(Tags.Side, (byte)'1');
        body.Add(151, 0L);
        body.Add(14, quantity);
        body.Add(6, 0L);
        session.Send("8"u8, body.Written);
        return MessageDisposition.Accept;
    }
}
