using RapidFix.Engine.Codec;
using RapidFix.Engine.Configuration;
using RapidFix.Engine.Fields;
using RapidFix.Engine.Hosting;
using RapidFix.Engine.Sessions;
using RapidFix.Tests.Shared;

// Usage: RapidFix.SessionCrashHost <port> <journal folder>
// Prints "READY" once listening, then executes orders until the process is killed.
// Or: RapidFix.SessionCrashHost campaign acceptor|initiator <port> <folder>: one side of the kill -9 campaign.
if (args.Length > 0 && args[0] == "campaign")
{
    CampaignChild.Run(args[1..]);
    return;
}

int port = int.Parse(args[0], System.Globalization.CultureInfo.InvariantCulture);
string journal = args[1];
var settings = SettingsFile.Parse($"""
    [DEFAULT]
    ConnectionType=acceptor
    SocketAcceptHost=127.0.0.1
    SocketAcceptPort={port}
    StartTime=00:00:00
    EndTime=00:00:00
    FileStorePath={journal}
    StoreType=journal
    StoreFlushPolicy=GroupCommit
    StoreSyncBeforeSend=Y
    [SESSION]
    BeginString=FIX.4.4
    SenderCompID=EXEC
    TargetCompID=CLIENT
    """, "crash-host.cfg");
using var engine = FixEngine.Create(settings, _ => new Executor());
engine.Start();
Console.WriteLine("READY");
Console.Out.Flush();
Thread.Sleep(Timeout.Infinite);

/// <summary>One ExecutionReport per order, with the order's ClOrdID.</summary>
internal sealed class Executor : FixApplicationBase
{
    private readonly byte[] _body = new byte[1024];

    public override MessageDisposition FromApp(FixSession session, FixMessage message)
    {
        if (!message.MsgType.SequenceEqual("D"u8))
        {
            return MessageDisposition.UnsupportedMessageType;
        }

        var body = new FixBodyWriter(_body);
        FixSampleEncoding.WriteFill(ref body, message);
        session.Send("8"u8, body.Written);
        return MessageDisposition.Accept;
    }
}
