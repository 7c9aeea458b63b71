using RapidFix.Engine.Sessions;
using RapidFix.Engine.Transport;
using RapidFix.Tests.Shared;

namespace RapidFix.Engine.Tests.Sessions;

/// <summary>The continuous phase of a logged-on initiator/acceptor pair, measured (plaintext or TLS alike).</summary>
internal static class SteadyState
{
    /// <summary>
    /// Order/execution round trips in batches of 100: 10,000 to warm every path up (tiered compilation promotes it),
    /// then 20,000 measured, during which the sending thread and both connection threads must allocate nothing.
    /// Three threads are counted: a window that counted bytes while a collection ran or a method was compiled is
    /// repeated (see <see cref="Allocations.WindowOnOtherThreads"/>); real allocation recurs.
    /// </summary>
    public static void AssertRoundTripsAllocateNothing(OrderingApplication client, FixSession session, ExecutingApplication executor,
        FixSocketConnection initiatorConnection, Func<long> acceptorAllocated)
    {
        long next = 1;
        void RoundTrips(int count)
        {
            for (int batch = 0; batch < count / 100; batch++)
            {
                for (int i = 0; i < 100; i++)
                {
                    client.SendOrder(session, next++);
                }

                long target = next - 1;
                var spin = new SpinWait();
                while (client.Executions < target)
                {
                    spin.SpinOnce(sleep1Threshold: -1);
                }
            }
        }

        RoundTrips(5_000);
        Thread.Sleep(300);
        RoundTrips(5_000);
        Thread.Sleep(300);

        long senderBytes = 0, initiatorBytes = 0, acceptorBytes = 0;
        var window = Allocations.WindowOnOtherThreads(() =>
        {
            long initiatorThread = initiatorConnection.ThreadAllocatedBytes;
            long acceptorThread = acceptorAllocated();
            long sender = GC.GetAllocatedBytesForCurrentThread();

            RoundTrips(20_000);
            Thread.Sleep(200); // let both connection threads pass their sampling point again

            senderBytes = GC.GetAllocatedBytesForCurrentThread() - sender;
            initiatorBytes = initiatorConnection.ThreadAllocatedBytes - initiatorThread;
            acceptorBytes = acceptorAllocated() - acceptorThread;
            return senderBytes + initiatorBytes + acceptorBytes;
        });

        string context = $"window {window.Window}, {window.Collections} collections and {window.MethodsJitted} methods compiled during it";
        Assert.True(senderBytes == 0, $"sender thread allocated {senderBytes} bytes ({context})");
        Assert.True(initiatorBytes == 0, $"initiator connection thread allocated {initiatorBytes} bytes ({context})");
        Assert.True(acceptorBytes == 0, $"acceptor connection thread allocated {acceptorBytes} bytes ({context})");
        Assert.Equal(next - 1, executor.Orders);
    }
}
