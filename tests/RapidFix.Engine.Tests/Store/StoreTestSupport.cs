using System.Text;
using RapidFix.Engine.Store;

namespace RapidFix.Engine.Tests.Store;

/// <summary>Collects what a range read hands over (test only: it allocates).</summary>
internal struct CollectingHandler : IStoredMessageHandler
{
    public List<(int SeqNum, byte[] Bytes)> Messages;
    public int StopAfter;

    public static CollectingHandler Create(int stopAfter = int.MaxValue) => new() { Messages = [], StopAfter = stopAfter };

    public bool OnMessage(int seqNum, ReadOnlySpan<byte> message)
    {
        Messages.Add((seqNum, message.ToArray()));
        return Messages.Count < StopAfter;
    }
}

/// <summary>Sums what a range read hands over without allocating.</summary>
internal struct SummingHandler : IStoredMessageHandler
{
    public long Bytes;
    public long SeqNumSum;

    public bool OnMessage(int seqNum, ReadOnlySpan<byte> message)
    {
        Bytes += message.Length;
        SeqNumSum += seqNum;
        return true;
    }
}

/// <summary>A temporary directory removed at dispose.</summary>
internal sealed class TempDirectory : IDisposable
{
    public TempDirectory()
    {
        Path = System.IO.Path.Combine(System.IO.Path.GetTempPath(), "rapidfix-store-" + Guid.NewGuid().ToString("N"));
        Directory.CreateDirectory(Path);
    }

    public string Path { get; }

    public string File(string name) => System.IO.Path.Combine(Path, name);

    public void Dispose()
    {
        try
        {
            Directory.Delete(Path, recursive: true);
        }
        catch (IOException)
        {
            // Best effort: a leftover temp directory is harmless.
        }
    }
}

internal static class StoreTestData
{
    public static readonly DateTime Created = new(2025, 3, 14, 9, 26, 53, DateTimeKind.Utc);

    /// <summary>A FIX-like message whose bytes depend on the sequence number and vary in length.</summary>
    public static byte[] Message(int seqNum) =>
        Encoding.ASCII.GetBytes($"8=FIX.4.4\u00019=000\u000135=D\u000134={seqNum}\u000111=ORDER-{seqNum}\u000158={new string((char)('a' + (seqNum % 26)), seqNum % 97)}\u000110=000\u0001");
}
