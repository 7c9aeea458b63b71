using System.Net;
using System.Net.Sockets;
using RapidFix.Engine.Codec;
using RapidFix.Engine.Configuration;
using RapidFix.Engine.Fields;
using RapidFix.Engine.Hosting;
using RapidFix.Engine.Sessions;
using RapidFix.Tests.Shared;

namespace RapidFix.Engine.Tests.Sessions;

/// <summary>RapidFix acceptors and initiators on loopback, configured with QuickFIX-style settings text.</summary>
internal static class SessionHarness
{
    /// <summary>Set RAPIDFIX_TEST_LOG to a file to see the engines' logs of these tests.</summary>
    public static readonly RapidFix.Engine.Diagnostics.EngineLog Log =
        Environment.GetEnvironmentVariable("RAPIDFIX_TEST_LOG") is { Length: > 0 } path
            ? new RapidFix.Engine.Diagnostics.EngineLog(File.Create(path), 65536, RapidFix.Engine.Diagnostics.LogLevel.Debug)
            : RapidFix.Engine.Diagnostics.EngineLog.Null;

    public static int FreePort()
    {
        using var probe = new TcpListener(IPAddress.Loopback, 0);
        probe.Start();
        return ((IPEndPoint)probe.LocalEndpoint).Port;
    }

    public static FixEngine Acceptor(IFixApplication application, int port = 0, string extra = "", RapidFix.Engine.Diagnostics.EngineLog? log = null)
    {
        var settings = SettingsFile.Parse($"""
            [DEFAULT]
            ConnectionType=acceptor
            SocketAcceptHost=127.0.0.1
            SocketAcceptPort={port}
            StartTime=00:00:00
            EndTime=00:00:00
            StoreType=express
            {extra}
            [SESSION]
            BeginString=FIX.4.4
            SenderCompID=EXEC
            TargetCompID=CLIENT
            """, "acceptor.cfg");
        var engine = FixEngine.Create(settings, _ => application, log ?? Log);
        engine.Start();
        return engine;
    }

    public static FixEngine Initiator(IFixApplication application, string endpoints, string extra = "", RapidFix.Engine.Diagnostics.EngineLog? log = null)
    {
        var settings = SettingsFile.Parse($"""
            [DEFAULT]
            ConnectionType=initiator
            {endpoints}
            ReconnectInterval=1
            HeartBtInt=30
            StartTime=00:00:00
            EndTime=00:00:00
            StoreType=express
            {extra}
            [SESSION]
            BeginString=FIX.4.4
            SenderCompID=CLIENT
            TargetCompID=EXEC
            """, "initiator.cfg");
        var engine = FixEngine.Create(settings, _ => application, log ?? Log);
        engine.Start();
        return engine;
    }

    public static string Endpoint(int port) => $"SocketConnectHost=127.0.0.1\nSocketConnectPort={port}";

    /// <summary>True when the server ends the connection (orderly close or reset) within the time given; reads past what it sends.</summary>
    public static bool ClosedByServer(Socket socket, TimeSpan within)
    {
        socket.ReceiveTimeout = (int)within.TotalMilliseconds;
        var buffer = new byte[4096];
        try
        {
            while (socket.Receive(buffer) > 0)
            {
            }

            return true;
        }
        catch (SocketException e) when (e.SocketErrorCode == SocketError.ConnectionReset)
        {
            return true;
        }
        catch (SocketException e) when (e.SocketErrorCode == SocketError.TimedOut)
        {
            return false;
        }
    }

    /// <summary>A FIX.4.4 header from <paramref name="sender"/> to <paramref name="target"/>, ready for body fields.</summary>
    public static FixEncoder RawHeader(int seq, ReadOnlySpan<byte> msgType, string sender, string target)
    {
        var encoder = new FixEncoder();
        encoder.Begin(new byte[1024], 0, 1024, "FIX.4.4"u8, msgType);
        encoder.Add(Tags.MsgSeqNum, (long)seq);
        encoder.Add(Tags.SenderCompID, System.Text.Encoding.ASCII.GetBytes(sender));
        encoder.AddTimestamp(Tags.SendingTime, RapidFix.Engine.Time.EngineClock.Shared.UtcNowNanos);
        encoder.Add(Tags.TargetCompID, System.Text.Encoding.ASCII.GetBytes(target));
        return encoder;
    }

    /// <summary>A whole FIX.4.4 Logon (HeartBtInt 30) as bytes.</summary>
    public static byte[] RawLogon(int seq, string sender, string target)
    {
        var encoder = RawHeader(seq, "A"u8, sender, target);
        encoder.AddChar(Tags.EncryptMethod, (byte)'0');
        encoder.Add(Tags.HeartBtInt, 30L);
        return RawFinish(encoder);
    }

    public static byte[] RawFinish(FixEncoder encoder)
    {
        if (!encoder.Finish(out var message))
        {
            throw new InvalidOperationException("the test message did not fit");
        }

        return message.Span.ToArray();
    }

    public static void WaitUntil(Func<bool> condition, string what, int seconds = 15)
    {
        var deadline = DateTime.UtcNow.AddSeconds(seconds);
        while (!condition())
        {
            if (DateTime.UtcNow > deadline)
            {
                throw new TimeoutException($"timed out waiting for: {what}");
            }

            Thread.Sleep(5);
        }
    }
}

/// <summary>Fills every order with one ExecutionReport, allocation-free; can refuse logons.</summary>
internal sealed class ExecutingApplication : FixApplicationBase
{
    private readonly byte[] _body = new byte[1024];
    private long _orders;
    private long _logons;

    public Func<FixMessage, LogonDecision>? LogonPolicy { get; init; }

    public long Orders => Interlocked.Read(ref _orders);

    public long Logons => Interlocked.Read(ref _logons);

    public override LogonDecision OnLogonRequest(FixSession session, FixMessage logon) =>
        LogonPolicy?.Invoke(logon) ?? LogonDecision.Accept;

    public override void OnLogon(FixSession session) => Interlocked.Increment(ref _logons);

    /// <summary>When set, the next order makes <see cref="FromApp"/> throw (once), as a faulty application would.</summary>
    public bool ThrowOnNextOrder { get; set; }

    public override MessageDisposition FromApp(FixSession session, FixMessage message)
    {
        if (!message.MsgType.SequenceEqual("D"u8))
        {
            return MessageDisposition.UnsupportedMessageType;
        }

        if (ThrowOnNextOrder)
        {
            ThrowOnNextOrder = false;
            throw new InvalidOperationException("test: the application failed");
        }

        var body = new FixBodyWriter(_body);
        FixSampleEncoding.WriteFill(ref body, message);
        session.Send("8"u8, body.Written);
        Interlocked.Increment(ref _orders);
        return MessageDisposition.Accept;
    }
}

/// <summary>Counts executions and remembers the last ClOrdID seen, allocation-free.</summary>
internal sealed class OrderingApplication : FixApplicationBase
{
    private readonly byte[] _body = new byte[1024];
    private readonly byte[] _id = new byte[24];
    private long _executions;
    private long _lastExecuted;

    public long Executions => Interlocked.Read(ref _executions);

    public long LastExecuted => Interlocked.Read(ref _lastExecuted);

    public string? LogoutText { get; private set; }

    public override void FromAdmin(FixSession session, FixMessage message)
    {
        if (message.MsgType.SequenceEqual("5"u8) && message.TryGetValue(Tags.Text, out var text))
        {
            LogoutText = System.Text.Encoding.ASCII.GetString(text);
        }
    }

    public override MessageDisposition FromApp(FixSession session, FixMessage message)
    {
        if (message.MsgType.SequenceEqual("8"u8))
        {
            if (message.TryGetLong(Tags.ClOrdID, out long id))
            {
                Interlocked.Exchange(ref _lastExecuted, id);
            }

            Interlocked.Increment(ref _executions);
            return MessageDisposition.Accept;
        }

        return MessageDisposition.UnsupportedMessageType;
    }

    /// <summary>Sends order number <paramref name="id"/> (its ClOrdID is the number).</summary>
    public SendResult SendOrder(FixSession session, long id, long quantity = 100)
    {
        int n = FixValue.FormatLong(id, _id);
        var body = new FixBodyWriter(_body);
        body.Add(Tags.ClOrdID, _id.AsSpan(0, n));
        body.AddChar(21, (byte)'1');
        body.Add(Tags.Symbol, "MSFT"u8);
        body.AddChar(Tags.Side, (byte)'1');
        body.AddTimestamp(Tags.TransactTime, RapidFix.Engine.Time.EngineClock.Shared.UtcNowNanos);
        body.Add(Tags.OrderQty, quantity);
        body.AddChar(Tags.OrdType, (byte)'1');
        return session.Send("D"u8, body.Written);
    }
}
