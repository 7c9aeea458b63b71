using RapidFix.Engine.Store;
using RapidFix.StoreCrashHost;

// Usage: RapidFix.StoreCrashHost <journal file> <flush policy> [window bytes]
// Appends messages first.. (with a target sequence update after each) to a journal store forever, and prints
// "DURABLE <n>" once message n and its target update are durable. The test kills it with SIGKILL mid-stream.
if (args.Length < 2)
{
    Console.Error.WriteLine("usage: RapidFix.StoreCrashHost <journal file> <EveryMessage|GroupCommit|OsOnly> [window bytes]");
    return 2;
}

var policy = Enum.Parse<FlushPolicy>(args[1]);
using var store = JournalMessageStore.Open(
    new JournalOptions
    {
        FilePath = args[0], FlushPolicy = policy, MaxMessages = 4_000_000, MaxBytes = 1 << 30,
        WindowBytes = args.Length > 2 ? int.Parse(args[2], System.Globalization.CultureInfo.InvariantCulture) : JournalOptions.DefaultWindowBytes,
    },
    DateTime.UtcNow);
int seq = store.NextSenderMsgSeqNum;
Console.WriteLine($"READY {seq}");

var pending = new Queue<(int SeqNum, long Position)>();
while (true)
{
    if (store.Append(seq, CrashStream.Message(seq)) != StoreWriteStatus.Ok ||
        store.SetNextTargetMsgSeqNum(CrashStream.TargetAfter(seq)) != StoreWriteStatus.Ok)
    {
        Console.WriteLine($"REFUSED {seq}");
        return 1;
    }

    pending.Enqueue((seq, store.WrittenPosition));
    long durable = store.DurablePosition;
    while (pending.Count > 0 && pending.Peek().Position <= durable)
    {
        Console.WriteLine($"DURABLE {pending.Dequeue().SeqNum}");
    }

    seq++;
    if (seq % 64 == 0)
    {
        Thread.Sleep(1); // keep the stream going for a while rather than filling the disk
    }
}
