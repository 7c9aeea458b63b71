using System.Text;

namespace RapidFix.StoreCrashHost;

/// <summary>The message stream of the crash test, shared by the writer process and the test that checks it.</summary>
public static class CrashStream
{
    /// <summary>The bytes of message <paramref name="seqNum"/>: deterministic, FIX-like, of varying length.</summary>
    public static byte[] Message(int seqNum) =>
        Encoding.ASCII.GetBytes(
            $"8=FIX.4.4\u00019=000\u000135=8\u000134={seqNum}\u000149=ISLD\u000156=TW\u000137=EXEC-{seqNum}\u000158={new string((char)('A' + (seqNum % 26)), 10 + (seqNum * 7919 % 300))}\u000110=000\u0001");

    /// <summary>The target sequence number the writer records after sending message <paramref name="seqNum"/>.</summary>
    public static int TargetAfter(int seqNum) => (seqNum / 2) + 1;
}
