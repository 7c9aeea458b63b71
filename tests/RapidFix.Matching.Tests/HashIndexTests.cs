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

    [Theory]
    [InlineData(1)] // hashes spread over the table
    [InlineData(2)] // every hash on one of 4 starts: long runs, saturated distances, dead entries among them
    public void A_sweep_removes_the_entries_of_rows_numbered_outside_the_live_window_and_nothing_else(int seed)
    {
        // Rows 0..99 are plain rows (always live); rows 100..163 are numbered 0..63 cyclically, and the live ones are
        // a window of at most 16 numbers that moves on as the matcher's cleared-ID ring does. A dead row's entry stays
        // until a sweep reaches it; its hash is never asked for (the number may serve another row by then).
        const int plain = 100, span = 64, window = 16;
        var hashes = new uint[plain + span];
        int start = 0, count = 0; // the live window of numbers
        var index = new HashIndex(plain + window, plain + span, row =>
            row < plain || !new RowWindow(plain, span, start, count).IsDead(row)
                ? hashes[row]
                : throw new InvalidOperationException($"the hash of dead row {row} was asked for"),
            rowIsDead: row => new RowWindow(plain, span, start, count).IsDead(row));
        Assert.Equal(512, index.Size);
        var rng = new Random(seed);
        uint Hash() => seed == 1
            ? (uint)rng.Next() ^ ((uint)rng.Next() << 16)
            : (uint)(rng.Next() & ~(index.Size - 1)) | (uint)(rng.Next(4) * (index.Size / 4));
        var plainRows = new List<int>();
        var freePlain = new Stack<int>(Enumerable.Range(0, plain));
        int cursor = 0;
        for (int step = 0; step < 20_000; step++)
        {
            int op = rng.Next(6);
            if (op == 0 && freePlain.Count > 0)
            {
                int row = freePlain.Pop();
                hashes[row] = Hash();
                index.Add(hashes[row], row);
                plainRows.Add(row);
            }
            else if (op == 1 && plainRows.Count > 0)
            {
                int i = rng.Next(plainRows.Count);
                Assert.True(index.Remove(hashes[plainRows[i]], plainRows[i]));
                freePlain.Push(plainRows[i]);
                plainRows.RemoveAt(i);
            }
            else if (op == 2 && count < window)
            {
                // The next number enters the window (a row cleared into the ring).
                int row = plain + (start + count) % span;
                hashes[row] = Hash();
                index.Add(hashes[row], row);
                count++;
            }
            else if (op == 3 && count > 0)
            {
                // The oldest numbers leave it (a trade dropped): entries stay, dead.
                int dropped = Math.Min(count, 1 + rng.Next(3));
                start = (start + dropped) % span;
                count -= dropped;
                // Sixteen entries a number dropped: a whole pass (512 entries) takes 32 numbers, fewer than the 48 a
                // dropped number needs to come round into the window again (the matcher's ClearedIdNumbers rule).
                int entries = 16 * dropped;
                int next = index.Sweep(cursor, entries, new RowWindow(plain, span, start, count));
                Assert.Equal((cursor + entries) % index.Size, next);
                cursor = next;
            }

            if (step % 89 == 0)
            {
                Assert.Null(index.Inconsistency());
                var live = plainRows.Concat(Enumerable.Range(0, count).Select(k => plain + (start + k) % span)).ToList();
                Assert.Equal(live.Count, index.Count());
                foreach (int row in live)
                {
                    Assert.Contains(row, Rows(index, hashes[row]));
                }
            }

            // Only the numbers dropped during the current pass can have dead entries left.
            Assert.True(index.DeadCount() <= index.Size / 16 + 3, $"{index.DeadCount()} dead entries at step {step}");
        }

        // A sweep of the whole index leaves no dead entry and every live row where a lookup finds it.
        start = (start + count) % span;
        count = 0;
        index.Sweep(cursor, index.Size, new RowWindow(plain, span, start, count));
        Assert.Equal(0, index.DeadCount());
        Assert.Equal(plainRows.Count, index.Count());
        Assert.Null(index.Inconsistency());
        foreach (int row in plainRows)
        {
            Assert.Contains(row, Rows(index, hashes[row]));
        }
    }

    [Fact]
    public void Dropped_cleared_ids_are_swept_from_the_id_index_as_their_numbers_wrap_many_times()
    {
        // Four cleared trades retained: every trade after the fourth drops one (seven IDs). The ring's IDs are
        // numbered modulo a few ring lengths; 600 trades wrap the numbers more than three times, so a dropped ID's
        // number is reused by later IDs: an entry the sweep missed would then look live. Lookups must tell the
        // retained IDs (duplicates) from the dropped ones (new again) throughout.
        var matcher = Demo.NewMatcher(openTrades: 64, clearedTrades: 4);
        var index = matcher.IdIndex;
        Assert.True(600 * 7 - 4 * 7 > 3 * matcher.ClearedIdNumberCount, $"{matcher.ClearedIdNumberCount} numbers");
        var sink = new RecordingSink();
        int maxDead = 0;
        for (int n = 0; n < 600; n++)
        {
            var trade = Trades.Documented("-" + n.ToString(System.Globalization.CultureInfo.InvariantCulture));
            foreach (var name in Trades.Seven)
            {
                Trades.Send(matcher, trade[name], ref sink);
                Assert.Equal(AckStatus.Accepted, sink.LastAck.Status);
            }

            // The retained trades' IDs are live entries; dropped ones at most a sweep's pass of IDs behind.
            Assert.Equal(7 * Math.Min(n + 1, 4), index.Count());
            maxDead = Math.Max(maxDead, index.DeadCount());
            Assert.True(index.DeadCount() <= ((index.Size + Matcher.SweepBatch) / matcher.SweepPerClearedId) + 7, $"{index.DeadCount()} dead entries after trade {n}");
            if (n % 50 == 0)
            {
                Assert.Null(index.Inconsistency());
            }
        }

        Assert.True(maxDead > 7, "no entry waited for the sweep (the test would not see a missed one)");
        Assert.Equal(600, sink.Cleared.Count);
        Assert.Equal(596, matcher.Counters.ClearedEvicted);
        for (int n = 0; n < 600; n += n < 590 ? 37 : 1)
        {
            string noe = Trades.Documented("-" + n.ToString(System.Globalization.CultureInfo.InvariantCulture))["NOE"];
            Trades.Send(matcher, noe, ref sink);
            Assert.Equal(n >= 596 ? AckStatus.Duplicate : AckStatus.Accepted, sink.LastAck.Status);
        }

        Assert.Null(index.Inconsistency());
    }

    private static List<int> Rows(HashIndex index, uint hash)
    {
        var rows = new List<int>();
        int position = index.Start(hash);
        for (int r = index.Next(hash, ref position); r >= 0; r = index.Next(hash, ref position))
        {
            rows.Add(r);
        }

        return rows;
    }

    private static uint NoeHash(string suffix) =>
        Matcher.IdHash(MessageKind.Noe, "EB1"u8, Encoding.ASCII.GetBytes("NOE-1001" + suffix));
}
