using System.Globalization;
using System.Text;
using RapidFix.Matching.StaticData;

namespace RapidFix.Matching.Tests;

/// <summary>
/// The big tables themselves: message IDs spread over the ID index (no clusters for the probes to walk), and the
/// allocator that puts large tables on huge pages (zeroed, advised where the system has transparent huge pages).
/// </summary>
public sealed class TablesTests
{
    [Fact]
    public void Message_ids_that_differ_in_a_few_digits_do_not_cluster_in_the_id_index()
    {
        // IDs as participants number them (a prefix and a counter, here the benchmark's resident NOEs from a
        // hundred brokers): the index takes the probe start from the hash's low bits, which must differ as much as
        // the high ones.
        const int ids = 1_000_000;
        var hashes = new uint[ids];
        var index = new HashIndex(ids, ids, row => hashes[row]);
        for (int i = 0; i < ids; i++)
        {
            byte[] sender = Encoding.ASCII.GetBytes("EB" + (i / 100 % 100).ToString("D3", CultureInfo.InvariantCulture));
            byte[] id = Encoding.ASCII.GetBytes("NR" + i.ToString(CultureInfo.InvariantCulture));
            hashes[i] = Matcher.IdHash(MessageKind.Noe, sender, id);
            index.Add(hashes[i], i);
        }

        // 1,000,000 entries in 4,194,304 (load 0.24): a spread hash gives about 0.16 (0.46 at the load of 0.48 this
        // index had with 8-byte entries; the hash before the sixth round gave 6.5 there).
        double displacement = index.MeanDisplacement();
        Assert.True(displacement < 0.3, $"mean displacement {displacement:F2}");
    }

    [Fact]
    public void A_large_table_is_zeroed_and_advised_onto_huge_pages_where_the_system_has_them()
    {
        int before = LargeTables.Advised;
        var table = LargeTables.Allocate<ulong>((int)(LargeTables.MinimumBytes / sizeof(ulong)) * 2);
        Assert.Equal(LargeTables.MinimumBytes * 2, table.LongLength * sizeof(ulong));
        Assert.True(table.AsSpan().IndexOfAnyExcept(0UL) < 0, "the table is not zeroed");
        const string thp = "/sys/kernel/mm/transparent_hugepage/enabled";
        if (OperatingSystem.IsLinux() && File.Exists(thp) && !File.ReadAllText(thp).Contains("[never]", StringComparison.Ordinal))
        {
            Assert.True(LargeTables.Advised > before, "the table was not advised onto huge pages");
        }

        var small = LargeTables.Allocate<ulong>(16);
        Assert.Equal(16, small.Length);
    }

    [Theory]
    [InlineData("SG", 100_000)] // ISIN-like: two letters, nine digits, a check character
    [InlineData("IM", 5_000)]   // participant-like: a prefix and a counter
    public void Static_data_keys_stay_one_probe_away_and_are_all_found(string prefix, int count)
    {
        // The generator writes many more securities than the demo set: the lookup must stay O(1), which needs
        // the keys spread over the table, not piled up behind one another.
        var map = new Dictionary<Key16, int>();
        for (int i = 0; i < count; i++)
        {
            Assert.True(Key16.TryCreate(Key(prefix, i), out var key));
            map.Add(key, i);
        }

        var table = new KeyTable(map);
        Assert.True(table.MeanDisplacement() < 1.0, $"mean displacement {table.MeanDisplacement():F2}");
        for (int i = 0; i < count; i++)
        {
            Assert.Equal(i, table.Find(Key(prefix, i)));
        }

        // With a payload a value: the lookup gives both.
        var withPayload = new KeyTable(map, v => 3 * v + 1);
        for (int i = 0; i < count; i += 7)
        {
            Assert.Equal(i, withPayload.Find(Key(prefix, i), out int payload));
            Assert.Equal(3 * i + 1, payload);
        }

        Assert.Equal(-1, withPayload.Find(Key(prefix, count), out int missing));
        Assert.Equal(0, missing);

        Assert.Equal(-1, table.Find(Key(prefix, count)));
        Assert.Equal(-1, table.Find(Key(prefix, count + 1)[..^1]));
        Assert.Equal(-1, table.Find(default));
        Assert.Equal(-1, table.Find(new byte[17]));
    }

    private static byte[] Key(string prefix, int i) => Encoding.ASCII.GetBytes(prefix == "SG"
        ? prefix + (100_000_000 + i).ToString(CultureInfo.InvariantCulture) + (char)('0' + (i % 10))
        : prefix + i.ToString("D4", CultureInfo.InvariantCulture));
}
