using System.Diagnostics;
using RapidFix.Engine.Transport;

namespace RapidFix.Engine.Tests.Transport;

/// <summary>
/// An acceptor's connection threads report "settled" only once every thread its starter started has come to run and
/// parked (a measured run waits for it after its logons: a thread's start allocates, and must not fall into the
/// continuous phase).
/// </summary>
public sealed class ConnectionThreadsSettledTests
{
    [Fact]
    public void Settled_only_when_every_started_thread_has_parked_and_the_spares_are_there()
    {
        using var threads = new ConnectionThreads("settled-test", capacity: 6, spares: 3);
        var deadline = Stopwatch.StartNew();
        bool settled = false;
        while (deadline.Elapsed < TimeSpan.FromSeconds(30))
        {
            // Read in this order: a thread that parks between the reads only makes Parked larger than Started was.
            int started = threads.Started;
            if (threads.Settled)
            {
                int parked = threads.Parked;
                Assert.True(parked >= 3, $"settled with {parked} threads parked, fewer than the 3 spares");
                Assert.True(parked >= started, $"settled while {started - parked} of {started} started threads had not come to run");
                settled = true;
                break;
            }

            Thread.Yield();
        }

        Assert.True(settled, "the pool never settled");
    }
}
