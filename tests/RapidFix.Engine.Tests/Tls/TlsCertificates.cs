using System.Net;
using System.Security.Cryptography;
using System.Security.Cryptography.X509Certificates;

namespace RapidFix.Engine.Tests.Tls;

/// <summary>
/// Certificates made at run time for the TLS tests, in a temporary folder: a CA with a server certificate (names
/// localhost and 127.0.0.1) and a client certificate, a second CA unrelated to the first with its own server and
/// client certificates, and the same server certificate as PEM (certificate and key files).
/// </summary>
public sealed class TlsCertificates : IDisposable
{
    public const string Password = "s3cret-Pfx!";

    public TlsCertificates()
    {
        Directory.CreateDirectory(Folder);
        using var ca = CreateCa("RapidFix Test CA");
        using var otherCa = CreateCa("Some Other CA");
        File.WriteAllText(CaFile, ca.ExportCertificatePem());
        File.WriteAllText(OtherCaFile, otherCa.ExportCertificatePem());
        Write(Issue(ca, "localhost", server: true), ServerPfx);
        ClientCertificate = Issue(ca, "client", server: false);
        File.WriteAllBytes(ClientPfx, ClientCertificate.Export(X509ContentType.Pfx, Password));
        Write(Issue(otherCa, "localhost", server: true), OtherServerPfx);
        Write(Issue(otherCa, "client", server: false), OtherClientPfx);

        using var pem = Issue(ca, "localhost", server: true);
        File.WriteAllText(ServerPem, pem.ExportCertificatePem());
        using var key = pem.GetECDsaPrivateKey()!;
        File.WriteAllText(ServerKeyPem, key.ExportPkcs8PrivateKeyPem());
    }

    /// <summary>The client certificate of <see cref="ClientPfx"/>, with its key, for hand-made TLS clients.</summary>
    public X509Certificate2 ClientCertificate { get; }

    public string Folder { get; } = Path.Combine(Path.GetTempPath(), "rapidfix-tls-" + Guid.NewGuid().ToString("N"));

    public string CaFile => Path.Combine(Folder, "ca.crt");

    public string OtherCaFile => Path.Combine(Folder, "other-ca.crt");

    public string ServerPfx => Path.Combine(Folder, "server.pfx");

    public string ClientPfx => Path.Combine(Folder, "client.pfx");

    public string OtherServerPfx => Path.Combine(Folder, "other-server.pfx");

    public string OtherClientPfx => Path.Combine(Folder, "other-client.pfx");

    public string ServerPem => Path.Combine(Folder, "server.pem");

    public string ServerKeyPem => Path.Combine(Folder, "server.key");

    /// <summary>Acceptor settings: our server certificate, client certificates checked against our CA.</summary>
    public string Acceptor(string extra = "") => $"""
        SSLEnable=Y
        SSLCertificate={ServerPfx}
        SSLCertificatePassword={Password}
        SSLCACertificate={CaFile}
        SSLCheckCertificateRevocation=N
        {extra}
        """;

    /// <summary>Initiator settings: our client certificate, the server checked against our CA and named localhost.</summary>
    public string Initiator(string extra = "", string? clientPfx = null, string? caFile = null) => $"""
        SSLEnable=Y
        SSLCertificate={clientPfx ?? ClientPfx}
        SSLCertificatePassword={Password}
        SSLCACertificate={caFile ?? CaFile}
        SSLCheckCertificateRevocation=N
        {extra}
        """;

    public void Dispose()
    {
        ClientCertificate.Dispose();
        if (Directory.Exists(Folder))
        {
            Directory.Delete(Folder, recursive: true);
        }
    }

    private static void Write(X509Certificate2 certificate, string path)
    {
        using (certificate)
        {
            File.WriteAllBytes(path, certificate.Export(X509ContentType.Pfx, Password));
        }
    }

    private static X509Certificate2 CreateCa(string name)
    {
        using var key = ECDsa.Create(ECCurve.NamedCurves.nistP256);
        var request = new CertificateRequest($"CN={name}", key, HashAlgorithmName.SHA256);
        request.CertificateExtensions.Add(new X509BasicConstraintsExtension(true, false, 0, true));
        request.CertificateExtensions.Add(new X509KeyUsageExtension(X509KeyUsageFlags.KeyCertSign | X509KeyUsageFlags.CrlSign, true));
        request.CertificateExtensions.Add(new X509SubjectKeyIdentifierExtension(request.PublicKey, false));
        return request.CreateSelfSigned(DateTimeOffset.UtcNow.AddDays(-1), DateTimeOffset.UtcNow.AddDays(30));
    }

    private static X509Certificate2 Issue(X509Certificate2 ca, string name, bool server)
    {
        using var key = ECDsa.Create(ECCurve.NamedCurves.nistP256);
        var request = new CertificateRequest($"CN={name}", key, HashAlgorithmName.SHA256);
        request.CertificateExtensions.Add(new X509BasicConstraintsExtension(false, false, 0, true));
        request.CertificateExtensions.Add(new X509KeyUsageExtension(X509KeyUsageFlags.DigitalSignature, true));
        request.CertificateExtensions.Add(new X509EnhancedKeyUsageExtension(
            [new Oid(server ? "1.3.6.1.5.5.7.3.1" : "1.3.6.1.5.5.7.3.2")], false));
        request.CertificateExtensions.Add(X509AuthorityKeyIdentifierExtension.CreateFromCertificate(ca, true, false));
        if (server)
        {
            var names = new SubjectAlternativeNameBuilder();
            names.AddDnsName("localhost");
            names.AddIpAddress(IPAddress.Loopback);
            request.CertificateExtensions.Add(names.Build());
        }

        var serial = new byte[12];
        RandomNumberGenerator.Fill(serial);
        serial[0] &= 0x7F;
        using var issued = request.Create(ca, DateTimeOffset.UtcNow.AddHours(-1), DateTimeOffset.UtcNow.AddDays(20), serial);
        return issued.CopyWithPrivateKey(key);
    }
}
