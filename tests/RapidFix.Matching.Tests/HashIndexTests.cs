using System.Text;

namespace RapidFix.Matching.Tests;

/// <summary>
/// The matcher's hash index (4-byte entries: row, distance from the probe's start, the hash's top bits as a tag):
/// against a model of what it must give, including the rows far enough from their start that the distance field
/// cannot hold it (the owner is asked for the row's hash), and inside a matcher whose IDs pile up on one start.
/// </summary>
public sealed class HashIndexTests
{
    [Theory]
    [InlineData(1, 8)]     // hashes spread over the table
    [InlineData(2, 8)]     // every hash on one of 8 starts: long runs, most distances saturated
    [InlineData(3, 8)]     // few distinct hashes: many rows under one hash, and tags that collide
    public void Lookups_adds_replaces_and_removes_agree_with_a_model(int seed, int starts)
    {
        const int rows = 200;
        var hashes = new uint[2 * rows]; // by row (a replaced row takes its old row's hash)
        var index = new HashIndex(rows, hashes.Length, row => hashes[row]);
        var rng = new Random(seed);
        var model = new List<(uint Hash, int Row)>(); // insertion order
        var free = new Stack<int>(Enumerable.Range(0, hashes.Length).Reverse());
        uint[] distinct = [.. Enumerable.Range(0, 12).Select(_ => (uint)rng.Next())];
        for (int step = 0; step < 20_000; step++)
        {
            int op = rng.Next(10);
            if (model.Count < rows && (op < 5 || model.Count == 0))
            {
                uint hash = seed switch
                {
                    1 => (uint)rng.Next() ^ ((uint)rng.Next() << 16),
                    2 => (uint)(rng.Next() & ~(index.Size - 1)) | (uint)(rng.Next(starts) * (index.Size / starts)),
                    _ => distinct[rng.Next(distinct.Length)],
                };
                int row = free.Pop();
                hashes[row] = hash;
                index.Add(hash, row);
                model.Add((hash, row));
            }
            else if (op < 8)
            {
                int i = rng.Next(model.Count);
                var (hash, row) = model[i];
                Assert.True(index.Remove(hash, row));
                model.RemoveAt(i);
                free.Push(row);
                Assert.False(index.Remove(hash, row));
            }
            else
            {
                // A row's entry pointed at another row of the same hash, in place (as a cleared message's ID is
                // pointed at the cleared-ID ring).
                int i = rng.Next(model.Count);
                var (hash, row) = model[i];
                int newRow = free.Pop();
                hashes[newRow] = hash;
                Assert.True(index.Replace(hash, row, newRow));
                model[i] = (hash, newRow);
                free.Push(row);
            }

            if (step % 97 == 0)
            {
                Assert.Null(index.Inconsistency());
                foreach (uint hash in model.Select(m => m.Hash).Distinct())
                {
                    // Every row of the hash, oldest first; others only when their tag and start agree.
                    var expected = model.Where(m => m.Hash == hash).Select(m => m.Row).ToList();
                    var found = new List<int>();
                    int position = index.Start(hash);
                    for (int r = index.Next(hash, ref position); r >= 0; r = index.Next(hash, ref position))
                    {
                        if (hashes[r] == hash)
                        {
                            found.Add(r);
                        }
                        else
                        {
                            Assert.Equal(index.Start(hash), index.Start(hashes[r]));
                        }
                    }

                    Assert.Equal(expected, found);
                }
            }
        }

        Assert.Null(index.Inconsistency());
    }

    [Fact]
    public void The_index_is_sparse_and_its_entries_are_four_bytes()
    {
        // A probe that ends at its first entry is what makes a lookup cheap with a million rows (docs/matching.md,
        // tenth round): at most one row in four entries, each entry a 32-bit word.
        var index = new HashIndex(1_000_000, 1_000_001, _ => 0);
        Assert.True(index.Size >= 4 * 1_000_000, $"{index.Size} entries for a million rows");
        Assert.True(typeof(HashIndex).GetField("_entries", System.Reflection.BindingFlags.NonPublic | System.Reflection.BindingFlags.Instance)!.FieldType == typeof(uint[]));

        // In a matcher: the ID index for its message rows and cleared-ID ring, the trade-key index (one row a trade)
        // twice as sparse.
        var matcher = Demo.NewMatcher(openTrades: 1000, clearedTrades: 250, messages: 10_000);
        Assert.True(matcher.IdIndex.Size >= 4 * (10_000 + 1 + Matcher.ClearedIdCapacity(250)), $"ID index {matcher.IdIndex.Size}");
        Assert.True(matcher.TradeIndex.Size >= 8 * 1000, $"trade-key index {matcher.TradeIndex.Size}");

        // An owner may choose another density, never under two entries a row (a probe must find an empty entry).
        Assert.InRange(new HashIndex(1_000_000, 1_000_001, _ => 0, entriesPerRow: 2).Size, 2 * 1_000_000, 4 * 1_000_000);
        Assert.Throws<ArgumentOutOfRangeException>(() => new HashIndex(1_000, 1_000, _ => 0, entriesPerRow: 1));
    }

    [Fact]
    public void Ids_piled_on_one_probe_start_are_found_pointed_at_the_ring_and_dropped()
    {
        // Twenty-four trades whose NOE IDs all start their probe at the same entry of the ID index: the run of
        // entries there is longer than the distance field holds, so removals ask the matcher for the hash of the
        // row (a message row or a cleared-ID ring position). Each trade clears (its IDs pointed at the ring in
        // place), four are retained, the older ones dropped (their entries removed with backward shifts).
        var matcher = Demo.NewMatcher(openTrades: 64, clearedTrades: 4);
        var index = matcher.IdIndex;
        int target = index.Start(NoeHash(""));
        var suffixes = new List<string>();
        for (int n = 0; suffixes.Count < 24; n++)
        {
            string suffix = "-" + n.ToString(System.Globalization.CultureInfo.InvariantCulture);
            if (index.Start(NoeHash(suffix)) == target)
            {
                suffixes.Add(suffix);
            }
        }

        var sink = new RecordingSink();
        foreach (var suffix in suffixes)
        {
            var trade = Trades.Documented(suffix);
            foreach (var name in Trades.Seven)
            {
                Trades.Send(matcher, trade[name], ref sink);
                Assert.Equal(AckStatus.Accepted, sink.LastAck.Status);
            }
        }

        Assert.Equal(24, sink.Cleared.Count);
        Assert.Equal(20, matcher.Counters.ClearedEvicted);
        Assert.Null(index.Inconsistency());

        // The four retained: their NOEs are duplicates. The dropped: new again (each opens a trade), then duplicates.
        for (int i = 0; i < suffixes.Count; i++)
        {
            string noe = Trades.Documented(suffixes[i])["NOE"];
            Trades.Send(matcher, noe, ref sink);
            Assert.Equal(i >= 20 ? AckStatus.Duplicate : AckStatus.Accepted, sink.LastAck.Status);
            Trades.Send(matcher, noe, ref sink);
            Assert.Equal(AckStatus.Duplicate, sink.LastAck.Status);
        }

        Assert.Equal(20, matcher.OpenTrades);
        Assert.Null(index.Inconsistency());
    }

    private static uint NoeHash(string suffix) =>
        Matcher.IdHash(MessageKind.Noe, "EB1"u8, Encoding.ASCII.GetBytes("NOE-1001" + suffix));
}
