#if QUICKFIXN
using QuickFix;
using QuickFix.Fields;

namespace RapidFix.Benchmarks.Sessions;

/// <summary>QuickFIX/n initiator and acceptor in this process, memory stores, no logs, FIX 4.4 validation on.</summary>
public sealed class QuickFixRoundTrip : IRoundTrip
{
    private readonly ThreadedSocketAcceptor _acceptor;
    private readonly QuickFix.Transport.SocketInitiator _initiator;
    private readonly Client _client = new();
    private readonly SessionID _session = new("FIX.4.4", "CLIENT", "EXEC");
    private readonly string _dictionary;
    private long _next;

    public QuickFixRoundTrip()
    {
        // The same FIX 4.4 dictionary RapidFix has built in, written where QuickFIX/n can read it.
        _dictionary = Path.Combine(Path.GetTempPath(), "rapidfix-bench-FIX44.xml");
        using (var resource = typeof(RapidFix.Engine.Dictionary.DataDictionary).Assembly.GetManifestResourceStream("RapidFix.Dictionaries.FIX44.xml")!)
        using (var file = File.Create(_dictionary))
        {
            resource.CopyTo(file);
        }

        int port;
        using (var probe = new System.Net.Sockets.TcpListener(System.Net.IPAddress.Loopback, 0))
        {
            probe.Start();
            port = ((System.Net.IPEndPoint)probe.LocalEndpoint).Port;
        }

        var acceptorSettings = new SessionSettings(new StringReader($"""
            [DEFAULT]
            ConnectionType=acceptor
            SocketAcceptHost=127.0.0.1
            SocketAcceptPort={port}
            StartTime=00:00:00
            EndTime=00:00:00
            UseDataDictionary=Y
            DataDictionary={_dictionary}
            [SESSION]
            BeginString=FIX.4.4
            SenderCompID=EXEC
            TargetCompID=CLIENT
            """));
        var initiatorSettings = new SessionSettings(new StringReader($"""
            [DEFAULT]
            ConnectionType=initiator
            SocketConnectHost=127.0.0.1
            SocketConnectPort={port}
            HeartBtInt=30
            ReconnectInterval=1
            StartTime=00:00:00
            EndTime=00:00:00
            UseDataDictionary=Y
            DataDictionary={_dictionary}
            [SESSION]
            BeginString=FIX.4.4
            SenderCompID=CLIENT
            TargetCompID=EXEC
            """));
        _acceptor = new ThreadedSocketAcceptor(new Executor(), new QuickFix.Store.MemoryStoreFactory(), acceptorSettings, new QuickFix.Logger.NullLogFactory());
        _acceptor.Start();
        _initiator = new QuickFix.Transport.SocketInitiator(_client, new QuickFix.Store.MemoryStoreFactory(), initiatorSettings, new QuickFix.Logger.NullLogFactory());
        _initiator.Start();
        var deadline = DateTime.UtcNow.AddSeconds(15);
        while (!_client.LoggedOn)
        {
            if (DateTime.UtcNow > deadline)
            {
                throw new InvalidOperationException("QuickFIX/n sessions did not log on");
            }

            Thread.Sleep(10);
        }
    }

    public string Name => "QuickFIX/n";

    public void RoundTrip()
    {
        long id = ++_next;
        var order = new Message();
        order.Header.SetField(new MsgType("D"));
        order.SetField(new ClOrdID(id.ToString(System.Globalization.CultureInfo.InvariantCulture)));
        order.SetField(new HandlInst('1'));
        order.SetField(new Symbol("MSFT"));
        order.SetField(new Side('1'));
        order.SetField(new TransactTime(DateTime.UtcNow));
        order.SetField(new OrderQty(100m));
        order.SetField(new OrdType('2'));
        order.SetField(new Price(412.37m));
        Session.SendToTarget(order, _session);
        var spin = new SpinWait();
        while (_client.Executed < id)
        {
            spin.SpinOnce(sleep1Threshold: -1);
        }
    }

    public void Dispose()
    {
        _initiator.Stop(true);
        _acceptor.Stop(true);
        File.Delete(_dictionary);
    }

    private class Application : IApplication
    {
        public virtual void ToAdmin(Message message, SessionID sessionID)
        {
        }

        public virtual void FromAdmin(Message message, SessionID sessionID)
        {
        }

        public virtual void ToApp(Message message, SessionID sessionID)
        {
        }

        public virtual void FromApp(Message message, SessionID sessionID)
        {
        }

        public virtual void OnCreate(SessionID sessionID)
        {
        }

        public virtual void OnLogout(SessionID sessionID)
        {
        }

        public virtual void OnLogon(SessionID sessionID)
        {
        }
    }

    private sealed class Client : Application
    {
        private long _executed;

        public volatile bool LoggedOn;

        public long Executed => Interlocked.Read(ref _executed);

        public override void OnLogon(SessionID sessionID) => LoggedOn = true;

        public override void FromApp(Message message, SessionID sessionID) => Interlocked.Increment(ref _executed);
    }

    private sealed class Executor : Application
    {
        public override void FromApp(Message message, SessionID sessionID)
        {
            var report = new Message();
            report.Header.SetField(new MsgType("8"));
            string clOrdId = message.GetString(Tags.ClOrdID);
            decimal qty = message.GetDecimal(Tags.OrderQty);
            decimal price = message.GetDecimal(Tags.Price);
            report.SetField(new OrderID(clOrdId));
            report.SetField(new ClOrdID(clOrdId));
            report.SetField(new ExecID(clOrdId));
            report.SetField(new ExecType('F'));
            report.SetField(new OrdStatus('2'));
            report.SetField(new Symbol(message.GetString(Tags.Symbol)));
            report.SetField(new Side(message.GetChar(Tags.Side)));
            report.SetField(new OrderQty(qty));
            report.SetField(new LastQty(qty));
            report.SetField(new LastPx(price));
            report.SetField(new LeavesQty(0m));
            report.SetField(new CumQty(qty));
            report.SetField(new AvgPx(price));
            Session.SendToTarget(report, sessionID);
        }
    }
}
#endif
