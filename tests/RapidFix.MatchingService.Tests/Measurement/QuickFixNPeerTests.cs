using RapidFix.TradeDriver.Measure;

namespace RapidFix.MatchingService.Tests.Measurement;

/// <summary>
/// <c>--quickfixn</c>: every outcome that gives no peer (no option, not a checkout, a failed build) is one clear line,
/// and the measured run goes on without the peer.
/// </summary>
public sealed class QuickFixNPeerTests : IDisposable
{
    private readonly string _directory = Directory.CreateTempSubdirectory("rapidfix-qfn-").FullName;

    [Fact]
    public void Without_the_option_the_peer_is_skipped_with_one_line()
    {
        var output = new StringWriter();

        Assert.Null(QuickFixNPeer.Prepare(null, _directory, output, TimeSpan.FromMinutes(1)));

        Assert.Equal("QuickFIX/n side by side: skipped (no --quickfixn <path to a QuickFIX/n source checkout> given)", output.ToString().TrimEnd());
    }

    [Fact]
    public void A_path_that_is_not_a_checkout_is_named_in_one_line()
    {
        var output = new StringWriter();

        Assert.Null(QuickFixNPeer.Prepare(_directory, Path.Combine(_directory, "out"), output, TimeSpan.FromMinutes(1)));

        string line = Assert.Single(output.ToString().Split('\n', StringSplitOptions.RemoveEmptyEntries));
        Assert.Equal($"QuickFIX/n side by side: skipped ({_directory} is not a QuickFIX/n source checkout: no QuickFIXn/QuickFix.csproj)", line.TrimEnd());
    }

    [Fact]
    public void A_checkout_that_does_not_build_is_one_line_with_the_error_and_the_log_kept()
    {
        string checkout = Path.Combine(_directory, "quickfixn");
        Directory.CreateDirectory(Path.Combine(checkout, "QuickFIXn"));
        File.WriteAllText(Path.Combine(checkout, QuickFixNPeer.CoreProject), "<Project Sdk=\"Microsoft.NET.Sdk\"><PropertyGroup><TargetFramework>net10.0</TargetFramework></PropertyGroup></Project>");
        File.WriteAllText(Path.Combine(checkout, "QuickFIXn", "Broken.cs"), "this is not C#");
        var output = new StringWriter();

        Assert.Null(QuickFixNPeer.Prepare(checkout, Path.Combine(_directory, "out"), output, TimeSpan.FromMinutes(5)));

        string line = Assert.Single(output.ToString().Split('\n', StringSplitOptions.RemoveEmptyEntries));
        Assert.StartsWith($"QuickFIX/n side by side: skipped (the build of {Path.Combine(checkout, QuickFixNPeer.CoreProject)} failed: ", line, StringComparison.Ordinal);
        Assert.Contains("error", line, StringComparison.Ordinal);
        Assert.True(File.Exists(Path.Combine(_directory, "out", "quickfixn", "build.log")));
    }

    public void Dispose()
    {
        try
        {
            Directory.Delete(_directory, recursive: true);
        }
        catch (IOException)
        {
            // the build server may still hold a file: the temp folder is cleaned by the machine
        }
    }
}
