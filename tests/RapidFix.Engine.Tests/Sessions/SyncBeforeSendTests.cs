using RapidFix.Engine.Configuration;
using RapidFix.Engine.Dictionary;
using RapidFix.Engine.Sessions;
using RapidFix.Engine.Store;

namespace RapidFix.Engine.Tests.Sessions;

/// <summary>
/// StoreSyncBeforeSend=Y: nothing goes on the wire with a MsgSeqNum a crash could take back. Found by the kill -9
/// campaign (seed 3795477, 100 points): a session message (here the Logon) used to go out while the record of its
/// sequence number still waited for the group commit; killed then, the side restarted on the same number, the
/// counterparty logged it out with "MsgSeqNum too low" and dropped the application message that reused it.
/// </summary>
public sealed class SyncBeforeSendTests : IDisposable
{
    private readonly string _journal = Path.Combine(Path.GetTempPath(), "rapidfix-sync-" + Guid.NewGuid().ToString("N") + ".journal");

    public void Dispose() => File.Delete(_journal);

    [Fact]
    public void A_session_message_goes_on_the_wire_only_once_its_sequence_number_is_durable()
    {
        // Group commit that waits for a batch: a write becomes durable only after the delay, unless someone waits for it.
        using var store = JournalMessageStore.Open(new JournalOptions { FilePath = _journal, MaxBatch = 1000, MaxDelay = TimeSpan.FromMilliseconds(300) }, DateTime.UtcNow);
        var options = new FixSessionOptions(new SessionId("FIX.4.4", "CLIENT", "EXEC"))
        {
            IsInitiator = true,
            Dictionary = StandardDictionaries.Load("FIX44"),
            SyncBeforeSend = true,
        };
        var session = new FixSession(options, store, new FixApplicationBase());
        var wire = new DurabilityProbe(store);

        Assert.True(session.OnConnected(wire));

        Assert.Equal(1, wire.Messages);
        Assert.True(wire.NotDurableAtSend == 0,
            $"the Logon (MsgSeqNum 1) went on the wire before the store had its sequence number on disk (durable {store.DurablePosition} of {store.WrittenPosition} when sent)");
        Assert.Equal(2, store.NextSenderMsgSeqNum);
    }

    /// <summary>A transport that notes, for each message, whether everything the store had written was durable when it was sent.</summary>
    private sealed class DurabilityProbe(IMessageStore store) : ISessionTransport
    {
        public int Messages { get; private set; }

        public int NotDurableAtSend { get; private set; }

        public System.Net.EndPoint? RemoteEndPoint => null;

        public bool Send(ReadOnlySpan<byte> message)
        {
            Messages++;
            if (store.DurablePosition < store.WrittenPosition)
            {
                NotDurableAtSend++;
            }

            return true;
        }

        public void Disconnect(DisconnectReason reason)
        {
        }
    }
}
