using RapidFix.Engine.Codec;
using RapidFix.Engine.Sessions;
using RapidFix.Messages.Fix44;
using RapidFix.Tests.Shared;

namespace RapidFix.Messages.Tests;

/// <summary>The generated cracker calls the handler's method for the message's type, and the defaults answer as QuickFIX/n.</summary>
public class CrackerTests
{
    [Fact]
    public void Each_message_goes_to_the_method_of_its_type()
    {
        var handler = new OrderHandler();

        var order = MessageCracker.Crack(handler, Fix44Views.Parse(FixSamples.NewOrderSingle), null!);
        var snapshot = MessageCracker.Crack(handler, Fix44Views.Parse(FixSamples.MarketDataSnapshot), null!);

        Assert.Equal(MessageDisposition.Accept, order);
        Assert.Equal(MessageDisposition.Accept, snapshot);
        Assert.Equal(1, handler.Orders);
        Assert.Equal(1, handler.Snapshots);
        Assert.Equal(1500, handler.LastQuantity);
        Assert.Equal(10, handler.LastEntries);
    }

    [Fact]
    public void A_type_the_handler_does_not_implement_is_an_unsupported_message_type()
    {
        var handler = new OrderHandler();

        var answer = MessageCracker.Crack(handler, Fix44Views.Parse(FixSamples.ExecutionReport), null!);

        Assert.Equal(MessageDisposition.UnsupportedMessageType, answer);
        Assert.Equal(0, handler.Orders);
    }

    [Fact]
    public void A_type_the_dictionary_does_not_define_goes_to_OnUnknownMessage()
    {
        var handler = new OrderHandler();
        var wire = FixSamples.Wire("8=FIX.4.4|35=ZZ|34=3|49=CLIENT01|52=20261121-21:30:15.123|56=BROKER01|58=hello|");
        var message = new FixMessage();
        message.Parse(wire, 0, wire.Length);

        var answer = MessageCracker.Crack(handler, message, null!);

        Assert.Equal(MessageDisposition.UnsupportedMessageType, answer);
        Assert.Equal(1, handler.Unknown);
    }

    [Fact]
    public void An_application_that_cracks_answers_an_unhandled_type_with_a_BusinessMessageReject()
    {
        var application = new CrackingApplication();
        var fixture = new SessionFixture(application);

        fixture.Receive("D", 2, "11=ORD-1|21=1|55=MSFT|54=1|60=20261121-21:30:15.120|38=100|40=1|");
        Assert.Equal(1, application.Orders);
        long sendsAfterOrder = fixture.Transport.Sends;

        fixture.Receive("C", 3, "164=T1|94=0|147=hi|33=1|58=hello|");
        Assert.Equal(sendsAfterOrder + 1, fixture.Transport.Sends);
        var reject = fixture.LastSent();
        Assert.True(reject.MsgType.SequenceEqual("j"u8));
        Assert.True(reject.TryGetInt(FieldTags.BusinessRejectReason, out int reason));
        Assert.Equal(Values.BusinessRejectReason.UnsupportedMessageType, reason);
        Assert.True(reject.TryGetInt(FieldTags.RefSeqNum, out int refSeq) && refSeq == 3);
    }

    [Fact]
    public void Cracking_allocates_nothing()
    {
        var state = (Handler: new OrderHandler(), Order: Fix44Views.Parse(FixSamples.NewOrderSingle), Report: Fix44Views.Parse(FixSamples.ExecutionReport));
        long bytes = Allocations.Measure(state, static s =>
        {
            MessageCracker.Crack(s.Handler, s.Order, null!);
            MessageCracker.Crack(s.Handler, s.Report, null!);
        }, iterations: 10_000);

        Assert.Equal(0, bytes);
    }


    private sealed class OrderHandler : IMessageHandler
    {
        public int Orders { get; private set; }

        public int Snapshots { get; private set; }

        public int Unknown { get; private set; }

        public long LastQuantity { get; private set; }

        public int LastEntries { get; private set; }

        public MessageDisposition OnMessage(NewOrderSingle message, FixSession session)
        {
            Orders++;
            LastQuantity = message.OrderQty.Mantissa;
            return MessageDisposition.Accept;
        }

        public MessageDisposition OnMessage(MarketDataSnapshotFullRefresh message, FixSession session)
        {
            Snapshots++;
            LastEntries = message.NoMDEntries.Count;
            return MessageDisposition.Accept;
        }

        public MessageDisposition OnUnknownMessage(FixMessage message, FixSession session)
        {
            Unknown++;
            return MessageDisposition.UnsupportedMessageType;
        }
    }

    /// <summary>An application written as a QuickFIX/n user writes one: FromApp cracks, one method per handled type.</summary>
    private sealed class CrackingApplication : FixApplicationBase, IMessageHandler
    {
        public int Orders { get; private set; }

        public override MessageDisposition FromApp(FixSession session, FixMessage message) => MessageCracker.Crack(this, message, session);

        public MessageDisposition OnMessage(NewOrderSingle message, FixSession session)
        {
            Orders++;
            return MessageDisposition.Accept;
        }
    }
}
