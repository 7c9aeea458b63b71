using System.Net;
using System.Net.Sockets;
using System.Text.RegularExpressions;

namespace RapidFix.Samples.Tests;

/// <summary>
/// The README's quickstart as a new user meets it: the libraries packed into a local feed, a new console project per
/// program with the packages added from that feed (and the machine's own source), the code copied from README.md as
/// written, built, run: the initiator logs on to the acceptor, sends an order and gets its execution.
/// </summary>
public sealed partial class QuickstartTests : IDisposable
{
    private static readonly TimeSpan DotNetStep = TimeSpan.FromMinutes(6);
    private readonly string _directory = Directory.CreateTempSubdirectory("rapidfix-quickstart-").FullName;
    private readonly string _version = $"0.0.0-quickstart.{DateTime.UtcNow:yyyyMMddHHmmss}.{Environment.ProcessId}";

    [Fact]
    public void The_readme_quickstart_builds_from_the_packages_and_the_two_programs_exchange_an_order()
    {
        string readme = File.ReadAllText(Path.Combine(Programs.Root, "README.md"));
        string acceptorCode = Block(readme, "acceptor");
        string initiatorCode = Block(readme, "initiator");
        Assert.True(acceptorCode.Split('\n').Length < 40, "the README's acceptor is meant to stay under 40 lines");
        Assert.True(initiatorCode.Split('\n').Length < 40, "the README's initiator is meant to stay under 40 lines");

        string feed = PackIntoFeed("src/Fast/RapidFix.Fast.csproj", "src/Matching/RapidFix.Matching.csproj", "src/Messages/RapidFix.Messages.Fix44/RapidFix.Messages.Fix44.csproj");
        Assert.Contains($"RapidFix.Engine.{_version}.nupkg", Directory.GetFiles(feed).Select(Path.GetFileName));
        Assert.Contains($"RapidFix.Engine.{_version}.snupkg", Directory.GetFiles(feed).Select(Path.GetFileName));
        AssertPackagesAcceptable(feed, "RapidFix.Telemetry", "RapidFix.Fields", "RapidFix.Pools", "RapidFix.Engine", "RapidFix.Fast", "RapidFix.Matching", "RapidFix.Messages.Fix44");

        string acceptor = NewConsoleProject("QuickAcceptor", acceptorCode, "RapidFix.Engine", "RapidFix.Messages.Fix44");
        string initiator = NewConsoleProject("QuickInitiator", initiatorCode, "RapidFix.Engine", "RapidFix.Messages.Fix44");

        string port = FreePort().ToString(System.Globalization.CultureInfo.InvariantCulture);
        using var acceptorProcess = ChildProcess.StartProgram(acceptor, port);
        Assert.True(acceptorProcess.WaitForOutput("listening on", TimeSpan.FromMinutes(1)), $"the acceptor did not start\n{acceptorProcess.Output}\n{acceptorProcess.Error}");
        using var initiatorProcess = ChildProcess.StartProgram(initiator, port);
        int exit = initiatorProcess.WaitForExit(TimeSpan.FromMinutes(2));

        Assert.True(exit == 0, $"initiator exit {exit}\n{initiatorProcess.Output}\n{initiatorProcess.Error}\nacceptor:\n{acceptorProcess.Output}\n{acceptorProcess.Error}");
        Assert.Contains("order: Sent", initiatorProcess.Output, StringComparison.Ordinal);
        Assert.Contains("execution: 100 filled", initiatorProcess.Output, StringComparison.Ordinal);
        Assert.Contains("EXEC->CLIENT logged on", acceptorProcess.Output, StringComparison.Ordinal);
    }

    public void Dispose()
    {
        try
        {
            Directory.Delete(_directory, recursive: true);
        }
        catch (IOException)
        {
            // a child still closing its files: the temp folder is cleaned by the machine
        }

        // This run's packages, extracted into the machine's package cache by the restores.
        string cache = Environment.GetEnvironmentVariable("NUGET_PACKAGES") is { Length: > 0 } configured
            ? configured
            : Path.Combine(Environment.GetFolderPath(Environment.SpecialFolder.UserProfile), ".nuget", "packages");
        foreach (var id in new[] { "rapidfix.telemetry", "rapidfix.fields", "rapidfix.pools", "rapidfix.engine", "rapidfix.fast", "rapidfix.matching", "rapidfix.messages.fix44", "rapidfix.generators" })
        {
            string folder = Path.Combine(cache, id, _version);
            if (Directory.Exists(folder))
            {
                Directory.Delete(folder, recursive: true);
            }
        }
    }

    /// <summary>The code block after <c>&lt;!-- quickstart:NAME --&gt;</c> in the README.</summary>
    private static string Block(string readme, string name)
    {
        var match = Regex.Match(readme, $@"<!-- quickstart:{name} -->\s*```csharp\r?\n(?<code>.*?)\r?\n```", RegexOptions.Singleline);
        Assert.True(match.Success, $"README.md has no code block marked <!-- quickstart:{name} -->");
        return match.Groups["code"].Value;
    }

    /// <summary>
    /// The libraries built for every target framework (up to date after a solution build), then Telemetry, Fields, Pools, Engine and
    /// <paramref name="projects"/> packed with a version of this run's own (the machine's package cache keeps
    /// versions) into a local feed, which the NuGet.config of the test's folder lists first; returns the feed.
    /// </summary>
    private string PackIntoFeed(params string[] projects)
    {
        foreach (var project in projects)
        {
            DotNet(Programs.Root, "build", Path.Combine(Programs.Root, project), "-c", Programs.Configuration, "-nologo");
        }

        string feed = Path.Combine(_directory, "feed");
        foreach (var project in new[] { "src/Telemetry/RapidFix.Telemetry.csproj", "src/Fields/RapidFix.Fields.csproj", "src/Pools/RapidFix.Pools.csproj", "src/Engine/RapidFix.Engine.csproj" }.Concat(projects))
        {
            DotNet(Programs.Root, "pack", Path.Combine(Programs.Root, project), "-c", Programs.Configuration, "--no-build", "-o", feed,
                "-p:MinVerSkip=true", $"-p:PackageVersion={_version}");
        }

        File.WriteAllText(Path.Combine(_directory, "NuGet.config"), NuGetConfig(feed));
        return feed;
    }

    /// <summary>A new console project with <paramref name="code"/> and <paramref name="packages"/> from the feed; returns its built program.</summary>
    private string NewConsoleProject(string name, string code, params string[] packages) => NewConsoleProject(name, code, _ => { }, packages);

    /// <summary>As above, <paramref name="prepare"/> given the project's folder before the build.</summary>
    private string NewConsoleProject(string name, string code, Action<string> prepare, params string[] packages)
    {
        string folder = Path.Combine(_directory, name);
        DotNet(_directory, "new", "console", "--framework", "net10.0", "--output", folder, "--name", name);
        File.WriteAllText(Path.Combine(folder, "Program.cs"), code);
        foreach (var package in packages)
        {
            DotNet(folder, "add", "package", package, "--version", _version);
        }

        prepare(folder);
        DotNet(folder, "build", "-c", "Release", "-nologo");
        string program = Path.Combine(folder, "bin", "Release", "net10.0", name + ".dll");
        Assert.True(File.Exists(program), $"{program} was not built");
        return program;
    }

    /// <summary>
    /// The local feed first, then the sources the repository restores from (its NuGet.config), so that the
    /// packages' own dependencies restore as they do for the repository.
    /// </summary>
    private static string NuGetConfig(string feed)
    {
        string repository = File.ReadAllText(Path.Combine(Programs.Root, "NuGet.config"));
        var sources = SourceLines().Matches(repository).Select(m => m.Value.Trim());
        return $"""
            <?xml version="1.0" encoding="utf-8"?>
            <configuration>
              <packageSources>
                <clear />
                <add key="rapidfix-local" value="{feed}" />
                {string.Join("\n    ", sources)}
              </packageSources>
            </configuration>
            """;
    }

    private static void DotNet(string workingDirectory, params string[] arguments)
    {
        using var child = ChildProcess.StartDotNet(workingDirectory, null, arguments);
        int exit = child.WaitForExit(DotNetStep);
        Assert.True(exit == 0, $"dotnet {string.Join(' ', arguments)} exited with {exit}\n{child.Output}\n{child.Error}");
    }

    private static int FreePort()
    {
        using var listener = new TcpListener(IPAddress.Loopback, 0);
        listener.Start();
        return ((IPEndPoint)listener.LocalEndpoint).Port;
    }

    [GeneratedRegex(@"<add\s+key=""[^""]*""\s+value=""[^""]*""\s*/>")]
    private static partial Regex SourceLines();
}
