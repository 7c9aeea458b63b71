using BenchmarkDotNet.Attributes;
using RapidFix.Engine.Tests.Tls;

namespace RapidFix.Benchmarks.Sessions;

/// <summary>
/// The NOS->ER round trip of <see cref="RoundTripBenchmarks"/> over TLS (mutual authentication, certificates made
/// at setup), beside the same round trip in plaintext: what encryption costs per round trip, and that it allocates
/// nothing (the memory diagnoser's column must read 0 for both).
/// </summary>
public class TlsRoundTripBenchmarks
{
    private TlsCertificates _certificates = null!;
    private IRoundTrip _plain = null!;
    private IRoundTrip _tls = null!;

    /// <summary>The TLS version both ends speak.</summary>
    [Params("Tls13", "Tls12")]
    public string Protocol { get; set; } = "Tls13";

    [GlobalSetup]
    public void Setup()
    {
        _certificates = new TlsCertificates();
        _plain = new RapidFixRoundTrip();
        _tls = new RapidFixRoundTrip(
            acceptorExtra: _certificates.Acceptor($"SSLProtocols={Protocol}"),
            initiatorExtra: _certificates.Initiator($"SSLServerName=localhost\nSSLProtocols={Protocol}"),
            variant: Protocol);
    }

    [GlobalCleanup]
    public void Cleanup()
    {
        _tls.Dispose();
        _plain.Dispose();
        _certificates.Dispose();
    }

    [Benchmark(Baseline = true, Description = "plaintext NOS->ER round trip")]
    public void Plaintext() => _plain.RoundTrip();

    [Benchmark(Description = "TLS NOS->ER round trip")]
    public void Tls() => _tls.RoundTrip();
}
