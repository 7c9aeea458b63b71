using System.Net;
using RapidFix.Engine.Codec;
using RapidFix.Engine.Configuration;
using RapidFix.Engine.Dictionary;
using RapidFix.Engine.Sessions;
using RapidFix.Engine.Store;
using RapidFix.Tests.Shared;

namespace RapidFix.Messages.Tests;

/// <summary>
/// A logged-on FIX.4.4 acceptor session (BROKER01, counterparty CLIENT01) over a transport that keeps the last
/// message sent in a buffer of its own (no allocation per send), for the writer's tests.
/// </summary>
internal sealed class SessionFixture
{
    public SessionFixture(IFixApplication? application = null, string beginString = "FIX.4.4", string settingsLines = "")
    {
        var settings = SettingsFile.Parse($"""
            [DEFAULT]
            ConnectionType=acceptor
            SocketAcceptPort=0
            StartTime=00:00:00
            EndTime=00:00:00
            [SESSION]
            BeginString={beginString}
            SenderCompID=BROKER01
            TargetCompID=CLIENT01
            {settingsLines}
            """, "typed.cfg");
        Options = FixSessionOptions.FromSettings(settings.Sessions[0]);
        Store = new MemoryMessageStore(10_000, 1 << 24, DateTime.UtcNow);
        Session = new FixSession(Options, Store, application ?? new FixApplicationBase());
        Assert.True(Session.TryAttach(Transport));
        Receive("A", 1, "98=0|108=30|");
        Assert.True(Session.IsLoggedOn);
    }

    /// <summary>The counterparty disconnects: the session is no longer logged on.</summary>
    public void Disconnect()
    {
        Session.OnDisconnected(Transport, DisconnectReason.PeerClosed);
        Assert.False(Session.IsLoggedOn);
    }

    /// <summary>The counterparty connects again and logs on with <paramref name="seq"/>.</summary>
    public void Reconnect(int seq)
    {
        Assert.True(Session.TryAttach(Transport));
        Receive("A", seq, "98=0|108=30|");
        Assert.True(Session.IsLoggedOn);
    }

    public FixSessionOptions Options { get; }

    public MemoryMessageStore Store { get; }

    public FixSession Session { get; }

    public LastMessageTransport Transport { get; } = new();

    /// <summary>The counterparty sends <paramref name="msgType"/> with <paramref name="body"/> ("tag=value|...|").</summary>
    public void Receive(string msgType, int seq, string body)
    {
        var wire = FixSamples.Wire($"8={Options.Id.BeginString}|35={msgType}|34={seq}|49=CLIENT01|52={DateTime.UtcNow:yyyyMMdd-HH:mm:ss.fff}|56=BROKER01|{body}");
        var view = new FixMessage();
        Assert.Equal(FixParseError.None, view.Parse(wire, 0, wire.Length, Options.Dictionary));
        Session.OnMessage(view);
    }

    /// <summary>The last message sent, parsed with the session's dictionary.</summary>
    public FixMessage LastSent()
    {
        var view = new FixMessage();
        Assert.Equal(FixParseError.None, view.ParseCopy(Transport.Last, Options.Dictionary));
        return view;
    }
}

/// <summary>Keeps a copy of the last message sent (in a buffer allocated once) and counts sends.</summary>
internal sealed class LastMessageTransport : ISessionTransport
{
    private readonly byte[] _last = new byte[64 * 1024];
    private int _length;

    public EndPoint? RemoteEndPoint { get; } = new IPEndPoint(IPAddress.Loopback, 40_000);

    public long Sends { get; private set; }

    public ReadOnlySpan<byte> Last => _last.AsSpan(0, _length);

    public bool Send(ReadOnlySpan<byte> message)
    {
        message.CopyTo(_last);
        _length = message.Length;
        Sends++;
        return true;
    }

    public void Disconnect(DisconnectReason reason)
    {
    }
}
