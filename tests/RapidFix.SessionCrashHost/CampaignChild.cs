using System.Globalization;
using System.Text;
using RapidFix.Engine.Codec;
using RapidFix.Engine.Configuration;
using RapidFix.Engine.Fields;
using RapidFix.Engine.Hosting;
using RapidFix.Engine.Sessions;

/// <summary>
/// One side of the kill -9 campaign (tests/RapidFix.Engine.Tests/Sessions/CrashCampaignTests.cs): an acceptor that
/// executes every order, or an initiator that sends orders while logged on, both with a journal store
/// (StoreSyncBeforeSend=Y), both writing what they did to an event file that outlives every incarnation.
/// </summary>
/// <remarks>
/// Event lines, each written to the OS before the next step (a SIGKILL loses nothing already written):
/// <c>I n</c> an incarnation started; <c>ON</c> logged on; <c>S id</c> an application message was sent (Send said
/// Sent: with StoreSyncBeforeSend it is durable in the journal); <c>R seq id possdup</c> an application message was
/// received, with its MsgSeqNum; <c>L text</c> a Logout with a text was received. Ids carry the incarnation
/// (<c>O3-17</c>: the initiator's 17th order of its third life), so a sequence number reused for a new message is seen
/// by the receiver as one number with two ids.
/// </remarks>
internal static class CampaignChild
{
    /// <summary>Usage: campaign acceptor|initiator &lt;port&gt; &lt;folder&gt;. Runs until killed (the initiator stops sending when &lt;folder&gt;/stop exists).</summary>
    public static void Run(string[] args)
    {
        string role = args[0];
        int port = int.Parse(args[1], CultureInfo.InvariantCulture);
        string folder = args[2];
        bool acceptor = role == "acceptor";
        using var events = new EventFile(Path.Combine(folder, role + ".events"));
        var application = new CampaignApplication(events, acceptor ? 'E' : 'O');
        string store = Path.Combine(folder, role + "-store");
        string connection = acceptor
            ? $"ConnectionType=acceptor\nSocketAcceptHost=127.0.0.1\nSocketAcceptPort={port}\nSenderCompID=EXEC\nTargetCompID=CLIENT"
            : $"ConnectionType=initiator\nSocketConnectHost=127.0.0.1\nSocketConnectPort={port}\nReconnectInterval=1\nHeartBtInt=5\nSenderCompID=CLIENT\nTargetCompID=EXEC";
        var settings = SettingsFile.Parse($"""
            [DEFAULT]
            NonStopSession=Y
            FileStorePath={store}
            StoreType=journal
            StoreFlushPolicy=GroupCommit
            StoreSyncBeforeSend=Y
            [SESSION]
            BeginString=FIX.4.4
            {connection}
            """, $"campaign-{role}.cfg");
        using var engine = FixEngine.Create(settings, _ => application);
        engine.Start();
        Console.WriteLine("READY");
        Console.Out.Flush();
        if (acceptor)
        {
            Thread.Sleep(Timeout.Infinite);
        }

        // The initiator: an order every couple of milliseconds while logged on, until told to stop.
        var session = engine.Sessions[0];
        string stop = Path.Combine(folder, "stop");
        while (!File.Exists(stop))
        {
            if (session.IsLoggedOn)
            {
                application.SendOrder(session);
            }

            Thread.Sleep(2);
        }

        Thread.Sleep(Timeout.Infinite);
    }

    /// <summary>Records every step; the acceptor answers each order with an ExecutionReport of its own id.</summary>
    private sealed class CampaignApplication(EventFile events, char prefix) : FixApplicationBase
    {
        private readonly object _gate = new();
        private readonly byte[] _body = new byte[1024];
        private int _next;

        public override void OnLogon(FixSession session) => events.Write("ON");

        public override void FromAdmin(FixSession session, FixMessage message)
        {
            if (message.MsgType.SequenceEqual("5"u8) && message.TryGetValue(Tags.Text, out var text))
            {
                events.Write("L " + Encoding.ASCII.GetString(text));
            }
        }

        public override MessageDisposition FromApp(FixSession session, FixMessage message)
        {
            int idTag = prefix == 'E' ? Tags.ClOrdID : Tags.ExecID;
            message.TryGetInt(Tags.MsgSeqNum, out int seq);
            bool possDup = message.TryGetBool(Tags.PossDupFlag, out bool pd) && pd;
            events.Write($"R {seq} {Encoding.ASCII.GetString(message.GetValue(idTag))} {(possDup ? 'Y' : 'N')}");
            if (prefix == 'E' && message.MsgType.SequenceEqual("D"u8))
            {
                Execute(session, message);
            }

            return MessageDisposition.Accept;
        }

        public void SendOrder(FixSession session)
        {
            lock (_gate)
            {
                string id = NextId();
                var body = new FixBodyWriter(_body);
                RapidFix.Tests.Shared.FixSampleEncoding.WriteMarketOrder(ref body, Encoding.ASCII.GetBytes(id));
                Sent(session.Send("D"u8, body.Written), id);
            }
        }

        private void Execute(FixSession session, FixMessage order)
        {
            lock (_gate)
            {
                string id = NextId();
                var body = new FixBodyWriter(_body);
                body.Add(Tags.OrderID, order.GetValue(Tags.ClOrdID));
                body.Add(Tags.ClOrdID, order.GetValue(Tags.ClOrdID));
                body.Add(Tags.ExecID, Encoding.ASCII.GetBytes(id));
                body.AddChar(150, (byte)'F');
                body.AddChar(Tags.OrdStatus, (byte)'2');
                body.Add(Tags.Symbol, order.GetValue(Tags.Symbol));
                body.Add(Tags.Side, order.GetValue(Tags.Side));
                body.Add(151, 0L);
                body.Add(14, 100L);
                body.Add(6, new FixDecimal(10025, -2));
                Sent(session.Send("8"u8, body.Written), id);
            }
        }

        private string NextId() => $"{prefix}{events.Incarnation}-{++_next}";

        private void Sent(SendResult result, string id)
        {
            if (result == SendResult.Sent)
            {
                events.Write("S " + id);
            }
        }
    }

    /// <summary>An append-only event file shared by every incarnation: a line cut by a kill is dropped at the next start.</summary>
    private sealed class EventFile : IDisposable
    {
        private readonly FileStream _file;

        public EventFile(string path)
        {
            _file = new FileStream(path, FileMode.OpenOrCreate, FileAccess.ReadWrite, FileShare.Read);
            var text = new byte[_file.Length];
            _file.ReadExactly(text);
            int end = Array.LastIndexOf(text, (byte)'\n') + 1;
            _file.SetLength(end);
            _file.Position = end;
            Incarnation = 1;
            foreach (var line in Encoding.ASCII.GetString(text, 0, end).Split('\n'))
            {
                if (line.StartsWith("I ", StringComparison.Ordinal))
                {
                    Incarnation++;
                }
            }

            Write($"I {Incarnation}");
        }

        public int Incarnation { get; }

        public void Write(string line)
        {
            var bytes = Encoding.ASCII.GetBytes(line + "\n");
            lock (_file)
            {
                _file.Write(bytes);
                _file.Flush(); // to the OS: a SIGKILL cannot take it back
            }
        }

        public void Dispose() => _file.Dispose();
    }
}
