using RapidFix.TradeDriver.Measure;

namespace RapidFix.MatchingService.Tests.Measurement;

/// <summary>
/// A persister build left from an earlier checkout (its persistence library not the driver's) is not used as it is:
/// one built at 14:55 refused the schema the driver had migrated to (version 6 against its 5), and a whole MST search
/// read as "persister lag grew" down to 250 messages/s.
/// </summary>
public sealed class PersisterBuildTests : IDisposable
{
    private readonly string _dir = Directory.CreateTempSubdirectory("rapidfix-persister-build-").FullName;

    public void Dispose() => Directory.Delete(_dir, recursive: true);

    private string Persister(byte[]? library)
    {
        string persister = Path.Combine(_dir, "RapidFix.Persister.dll");
        File.WriteAllBytes(persister, [1]);
        if (library is not null)
        {
            File.WriteAllBytes(Path.Combine(_dir, "RapidFix.Persistence.dll"), library);
        }

        return persister;
    }

    private static byte[] Ours() => File.ReadAllBytes(Path.Combine(AppContext.BaseDirectory, "RapidFix.Persistence.dll"));

    [Fact]
    public void A_build_with_the_driver_s_persistence_library_is_used()
    {
        Assert.Null(PersisterRun.StaleBuild(Persister(Ours())));
    }

    [Fact]
    public void A_build_with_another_persistence_library_is_named_stale()
    {
        byte[] other = Ours();
        other[^1] ^= 0xFF;
        string? why = PersisterRun.StaleBuild(Persister(other));
        Assert.NotNull(why);
        Assert.Contains("RapidFix.Persistence.dll differs", why, StringComparison.Ordinal);
        Assert.Contains(_dir, why, StringComparison.Ordinal);
    }

    [Fact]
    public void A_build_whose_library_cannot_be_found_is_not_judged()
    {
        Assert.Null(PersisterRun.StaleBuild(Persister(null)));
    }
}
