using System.Diagnostics;
using RapidFix.Tests.Shared;

namespace RapidFix.MatchingService.Tests.Measurement;

/// <summary>
/// tools/tune-host.sh, the host's writeback setting for soaks (docs/measurement.md "The host's writeback"), run against
/// a folder that stands in for /proc/sys/vm: --apply sets the background threshold and saves what it replaced (once:
/// a second --apply keeps the host's own values), --restore puts them back and forgets them, and what it cannot do is
/// exit code 2 with the reason. The show mode reads the real /proc/sys/vm.
/// </summary>
public sealed class TuneHostScriptTests : IDisposable
{
    private readonly string _work = Directory.CreateTempSubdirectory("rapidfix-tune-host-").FullName;

    private string Vm => Path.Combine(_work, "vm");

    private string Saved => Path.Combine(_work, "saved");

    public TuneHostScriptTests()
    {
        Directory.CreateDirectory(Vm);
        Write("dirty_background_bytes", "0");
        Write("dirty_background_ratio", "10");
        Write("dirty_bytes", "0");
        Write("dirty_ratio", "20");
        Write("dirty_expire_centisecs", "3000");
        Write("dirty_writeback_centisecs", "500");
    }

    [Fact]
    public void Apply_sets_the_threshold_and_restore_puts_the_host_s_ratio_back()
    {
        var (exit, output) = Run("--apply");
        Assert.True(exit == 0, output);
        Assert.Equal("33554432", Read("dirty_background_bytes"));
        Assert.Equal("dirty_background_bytes=0\ndirty_background_ratio=10\n", File.ReadAllText(Saved));
        Assert.Contains("background writeback starts at 33554432 bytes: as recommended", output, StringComparison.Ordinal);

        // A second --apply with another value changes the setting but not what --restore will put back.
        (exit, output) = Run("--apply", "16777216");
        Assert.True(exit == 0, output);
        Assert.Equal("16777216", Read("dirty_background_bytes"));
        Assert.Equal("dirty_background_bytes=0\ndirty_background_ratio=10\n", File.ReadAllText(Saved));

        Write("dirty_background_ratio", "0"); // as the kernel leaves it once the bytes are set
        (exit, output) = Run("--restore");
        Assert.True(exit == 0, output);
        Assert.Equal("10", Read("dirty_background_ratio")); // the kernel then zeroes the bytes itself
        Assert.False(File.Exists(Saved));

        (exit, output) = Run("--restore");
        Assert.Equal(2, exit);
        Assert.Contains("nothing to restore", output, StringComparison.Ordinal);
    }

    [Fact]
    public void A_host_that_had_a_byte_threshold_gets_that_threshold_back()
    {
        Write("dirty_background_bytes", "50000000");
        Write("dirty_background_ratio", "0");
        Assert.Equal(0, Run("--apply").Exit);
        Assert.Equal("33554432", Read("dirty_background_bytes"));

        Assert.Equal(0, Run("--restore").Exit);
        Assert.Equal("50000000", Read("dirty_background_bytes"));
        Assert.Equal("0", Read("dirty_background_ratio"));
    }

    [Theory]
    [InlineData("--apply", "1000", "at least 4096")]
    [InlineData("--apply", "lots", "whole number of bytes")]
    [InlineData("--bogus", "", "unknown argument")]
    public void What_it_cannot_do_is_exit_code_2_with_the_reason_and_nothing_changed(string verb, string value, string reason)
    {
        var (exit, output) = value.Length == 0 ? Run(verb) : Run(verb, value);
        Assert.Equal(2, exit);
        Assert.Contains(reason, output, StringComparison.Ordinal);
        Assert.Equal("0", Read("dirty_background_bytes"));
        Assert.False(File.Exists(Saved));
    }

    [HostVmFact]
    public void Show_prints_the_host_s_own_settings_and_changes_nothing()
    {
        const string real = HostVmFactAttribute.Ratio;
        string before = File.ReadAllText(real).Trim();
        var (exit, output) = Run(useRealVm: true);
        Assert.True(exit == 0, output);
        Assert.Contains($"vm.dirty_background_ratio     {before}\n", output, StringComparison.Ordinal);
        Assert.Equal(before, File.ReadAllText(real).Trim());
    }

    /// <summary>Skipped, saying why, where the host has no /proc/sys/vm (the script is for Linux hosts).</summary>
    private sealed class HostVmFactAttribute : FactAttribute
    {
        public const string Ratio = "/proc/sys/vm/dirty_background_ratio";

        public HostVmFactAttribute()
        {
            if (!File.Exists(Ratio))
            {
                Skip = $"no {Ratio} on this machine: the show mode reads a Linux host's settings";
            }
        }
    }

    public void Dispose() => Directory.Delete(_work, recursive: true);

    private void Write(string key, string value) => File.WriteAllText(Path.Combine(Vm, key), value + "\n");

    private string Read(string key) => File.ReadAllText(Path.Combine(Vm, key)).Trim();

    private (int Exit, string Output) Run(params string[] arguments) => Run(false, arguments);

    private (int Exit, string Output) Run(bool useRealVm, params string[] arguments)
    {
        string root = SharedData.RepositoryRoot() ?? throw new InvalidOperationException("the repository root is not found");
        var start = new ProcessStartInfo("bash") { RedirectStandardOutput = true, RedirectStandardError = true };
        start.ArgumentList.Add(Path.Combine(root, "tools", "tune-host.sh"));
        foreach (var argument in arguments)
        {
            start.ArgumentList.Add(argument);
        }

        if (!useRealVm)
        {
            start.Environment["TUNE_HOST_VM"] = Vm;
        }

        start.Environment["TUNE_HOST_SAVED"] = Saved;
        using var process = Process.Start(start)!;
        var error = process.StandardError.ReadToEndAsync();
        string output = process.StandardOutput.ReadToEnd();
        process.WaitForExit();
        return (process.ExitCode, output + error.Result);
    }
}
