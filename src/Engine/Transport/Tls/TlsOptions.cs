using System.Net.Security;
using System.Security.Authentication;
using System.Security.Cryptography;
using System.Security.Cryptography.X509Certificates;
using RapidFix.Engine.Configuration;

namespace RapidFix.Engine.Transport.Tls;

/// <summary>
/// What a session's connections need to speak TLS (the QuickFIX/n SSL* settings): certificates loaded and checked
/// at startup, so that a setting the engine cannot honour fails there with one clear line instead of a plaintext
/// connection later. Null options (SSLEnable=N) mean plaintext.
/// </summary>
/// <remarks>
/// Built once per session at startup (it allocates and reads files); each connection then builds its
/// <see cref="SslStream"/> options from it at connection set-up.
/// </remarks>
public sealed class TlsOptions
{
    /// <summary>The protocols used when SSLProtocols is not set.</summary>
    public const SslProtocols DefaultProtocols = SslProtocols.Tls12 | SslProtocols.Tls13;

    /// <summary>Our certificate, with its private key: required for an acceptor, optional for an initiator (its client certificate).</summary>
    public X509Certificate2? Certificate { get; init; }

    /// <summary>The certificate authority the peer's chain must end at; null trusts the system's roots.</summary>
    public X509Certificate2? CaCertificate { get; init; }

    /// <summary>TLS versions offered and accepted (TLS 1.2 and 1.3 only).</summary>
    public SslProtocols Protocols { get; init; } = DefaultProtocols;

    /// <summary>Whether the peer's certificate is checked at all (SSLValidateCertificates; N accepts any peer).</summary>
    public bool ValidateCertificates { get; init; } = true;

    /// <summary>Whether revocation is checked (online) for the peer's chain (SSLCheckCertificateRevocation).</summary>
    public bool CheckRevocation { get; init; } = true;

    /// <summary>Acceptor: whether a client certificate is required (SSLRequireClientCertificate).</summary>
    public bool RequireClientCertificate { get; init; } = true;

    /// <summary>Initiator: the name the server's certificate must carry (SSLServerName; defaults to the host connected to).</summary>
    public string? ServerName { get; init; }

    /// <summary>Longest time the TLS handshake may take at connection set-up.</summary>
    public TimeSpan HandshakeTimeout { get; init; } = TimeSpan.FromSeconds(10);

    private SslStreamCertificateContext? _serverContext;

    /// <summary>
    /// Reads the SSL settings of a session. Null when SSLEnable=N. Throws <see cref="ConfigurationException"/>
    /// (file, line, key and reason; never the password) for anything that cannot be honoured.
    /// </summary>
    public static TlsOptions? FromSettings(SessionSettings settings)
    {
        ArgumentNullException.ThrowIfNull(settings);
        if (!settings.GetBool(SettingKeys.SslEnable))
        {
            return null;
        }

        if (!SslSupported())
        {
            settings.TryGetValue(SettingKeys.SslEnable, out var enable);
            throw settings.Error(SettingKeys.SslEnable, enable, "TLS is not available on this platform");
        }

        bool acceptor = settings.IsAcceptor;
        var certificate = LoadOwnCertificate(settings, required: acceptor);
        X509Certificate2? ca = null;
        if (settings.TryGetValue(SettingKeys.SslCaCertificate, out var caValue))
        {
            ca = LoadPublicCertificate(settings, SettingKeys.SslCaCertificate, caValue);
        }

        return new TlsOptions
        {
            Certificate = certificate,
            CaCertificate = ca,
            Protocols = ParseProtocols(settings),
            ValidateCertificates = settings.GetBool(SettingKeys.SslValidateCertificates),
            CheckRevocation = settings.GetBool(SettingKeys.SslCheckCertificateRevocation),
            RequireClientCertificate = settings.GetBool(SettingKeys.SslRequireClientCertificate),
            ServerName = settings.GetStringOrNull(SettingKeys.SslServerName) is { Length: > 0 } name ? name : null,
            HandshakeTimeout = settings.GetTimeSpan(SettingKeys.LogonTimeout),
        };
    }

    /// <summary>
    /// Parses an SSLProtocols value: Tls12 and Tls13, separated by commas, spaces or '|', any case. Older protocols
    /// (Ssl2, Ssl3, Tls, Tls11) are refused as insecure, anything else as unknown. Null when the value is fine.
    /// </summary>
    public static string? TryParseProtocols(string value, out SslProtocols protocols)
    {
        protocols = SslProtocols.None;
        foreach (var part in value.Split([',', ' ', '|', ';'], StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries))
        {
            switch (part.ToUpperInvariant())
            {
                case "TLS12" or "TLS1.2" or "TLSV1.2":
                    protocols |= SslProtocols.Tls12;
                    break;
                case "TLS13" or "TLS1.3" or "TLSV1.3":
                    protocols |= SslProtocols.Tls13;
                    break;
                case "SSL2" or "SSL3" or "TLS" or "TLS10" or "TLS1.0" or "TLS11" or "TLS1.1" or "DEFAULT":
                    return $"'{part}' is an insecure protocol and is refused (use Tls12 and/or Tls13)";
                default:
                    return $"'{part}' is not a TLS protocol RapidFix knows (use Tls12 and/or Tls13)";
            }
        }

        return protocols == SslProtocols.None ? "no protocol given (use Tls12 and/or Tls13)" : null;
    }

    private static SslProtocols ParseProtocols(SessionSettings settings)
    {
        if (!settings.TryGetValue(SettingKeys.SslProtocols, out var value))
        {
            return DefaultProtocols;
        }

        string? error = TryParseProtocols(value.Value, out var protocols);
        return error is null ? protocols : throw settings.Error(SettingKeys.SslProtocols, value, error);
    }

    private static bool SslSupported() => !OperatingSystem.IsBrowser() && !OperatingSystem.IsWasi();

    /// <summary>SSLCertificate (PKCS#12 .pfx/.p12, or PEM with the key in the file or in SSLPrivateKey) with its password.</summary>
    private static X509Certificate2? LoadOwnCertificate(SessionSettings settings, bool required)
    {
        if (!settings.TryGetValue(SettingKeys.SslCertificate, out var path) || path.Value.Length == 0)
        {
            if (required)
            {
                throw settings.Missing(SettingKeys.SslCertificate, "an acceptor with SSLEnable=Y needs its server certificate");
            }

            if (settings.Has(SettingKeys.SslPrivateKey))
            {
                settings.TryGetValue(SettingKeys.SslPrivateKey, out var key);
                throw settings.Error(SettingKeys.SslPrivateKey, key, "is set without SSLCertificate");
            }

            return null;
        }

        string? password = Password(settings);
        string file = ResolvePath(settings, path.Value);
        if (!File.Exists(file))
        {
            throw settings.Error(SettingKeys.SslCertificate, path, $"certificate file '{file}' does not exist");
        }

        X509Certificate2 certificate;
        try
        {
            certificate = IsPkcs12(file)
                ? LoadPkcs12(file, password)
                : LoadPem(settings, file, password);
        }
        catch (Exception e) when (e is CryptographicException or IOException or UnauthorizedAccessException or ArgumentException)
        {
            // The runtime's message says what is wrong (bad password, not a certificate) and never holds the password.
            throw settings.Error(SettingKeys.SslCertificate, path, $"certificate '{file}' cannot be loaded: {e.Message}");
        }

        if (!certificate.HasPrivateKey)
        {
            throw settings.Error(SettingKeys.SslCertificate, path, $"certificate '{file}' has no private key (a PEM certificate needs its key in the file or in SSLPrivateKey)");
        }

        if (certificate.NotAfter.ToUniversalTime() < DateTime.UtcNow)
        {
            throw settings.Error(SettingKeys.SslCertificate, path, $"certificate '{file}' expired on {certificate.NotAfter.ToUniversalTime():yyyy-MM-dd HH:mm:ss} UTC");
        }

        return certificate;
    }

    private static bool IsPkcs12(string file) =>
        file.EndsWith(".pfx", StringComparison.OrdinalIgnoreCase) || file.EndsWith(".p12", StringComparison.OrdinalIgnoreCase);

    private static X509Certificate2 LoadPkcs12(string file, string? password)
    {
#if NET9_0_OR_GREATER
        return X509CertificateLoader.LoadPkcs12FromFile(file, password);
#else
        return new X509Certificate2(file, password);
#endif
    }

    private static X509Certificate2 LoadPem(SessionSettings settings, string file, string? password)
    {
        string? keyFile = null;
        if (settings.TryGetValue(SettingKeys.SslPrivateKey, out var key) && key.Value.Length > 0)
        {
            keyFile = ResolvePath(settings, key.Value);
            if (!File.Exists(keyFile))
            {
                throw settings.Error(SettingKeys.SslPrivateKey, key, $"private key file '{keyFile}' does not exist");
            }
        }

        var pem = password is null
            ? X509Certificate2.CreateFromPemFile(file, keyFile)
            : X509Certificate2.CreateFromEncryptedPemFile(file, password, keyFile);

        // A key read from PEM is ephemeral, which some platforms' TLS cannot use: carry it through PKCS#12 once.
        using (pem)
        {
            byte[] pkcs12 = pem.Export(X509ContentType.Pkcs12);
#if NET9_0_OR_GREATER
            return X509CertificateLoader.LoadPkcs12(pkcs12, null);
#else
            return new X509Certificate2(pkcs12);
#endif
        }
    }

    /// <summary>A certificate without key (SSLCACertificate): PEM or DER.</summary>
    private static X509Certificate2 LoadPublicCertificate(SessionSettings settings, string key, SettingValue value)
    {
        string file = ResolvePath(settings, value.Value);
        if (!File.Exists(file))
        {
            throw settings.Error(key, value, $"certificate file '{file}' does not exist");
        }

        try
        {
#if NET9_0_OR_GREATER
            return X509CertificateLoader.LoadCertificateFromFile(file);
#else
            return new X509Certificate2(file);
#endif
        }
        catch (CryptographicException e)
        {
            throw settings.Error(key, value, $"certificate '{file}' cannot be loaded: {e.Message}");
        }
    }

    /// <summary>
    /// SSLCertificatePassword, or the environment variable SSLCertificatePasswordVariable names (so the password
    /// need not be written in the file). Both set, or a named variable that is not set, is an error.
    /// </summary>
    private static string? Password(SessionSettings settings)
    {
        bool inFile = settings.TryGetValue(SettingKeys.SslCertificatePassword, out var direct);
        if (!settings.TryGetValue(SettingKeys.SslCertificatePasswordVariable, out var variable) || variable.Value.Length == 0)
        {
            return inFile ? direct.Value : null;
        }

        if (inFile)
        {
            throw settings.Error(SettingKeys.SslCertificatePasswordVariable, variable, "is set together with SSLCertificatePassword: give the password one way");
        }

        return Environment.GetEnvironmentVariable(variable.Value)
            ?? throw settings.Error(SettingKeys.SslCertificatePasswordVariable, variable, $"environment variable '{variable.Value}' is not set");
    }

    /// <summary>A path as written, else relative to the settings file's folder (as dictionaries are found).</summary>
    private static string ResolvePath(SessionSettings settings, string path)
    {
        string normalized = path.Replace('\\', Path.DirectorySeparatorChar);
        if (Path.IsPathRooted(normalized) || File.Exists(normalized))
        {
            return normalized;
        }

        string? folder = Path.GetDirectoryName(Path.GetFullPath(settings.FilePath));
        return folder is null ? normalized : Path.Combine(folder, normalized);
    }

    /// <summary>True when two sessions' options would make the same listener (the sessions of one acceptor port must agree).</summary>
    public bool SameListener(TlsOptions? other) =>
        other is not null && Certificate?.Thumbprint == other.Certificate?.Thumbprint && CaCertificate?.Thumbprint == other.CaCertificate?.Thumbprint &&
        Protocols == other.Protocols && ValidateCertificates == other.ValidateCertificates && CheckRevocation == other.CheckRevocation &&
        RequireClientCertificate == other.RequireClientCertificate;

    /// <summary>The acceptor side's handshake options (connection set-up: allocates).</summary>
    internal SslServerAuthenticationOptions ServerOptions(RemoteCertificateValidationCallback validate)
    {
        _serverContext ??= SslStreamCertificateContext.Create(
            Certificate ?? throw new InvalidOperationException("A TLS acceptor needs a certificate."), null, offline: true);
        return new SslServerAuthenticationOptions
        {
            ServerCertificateContext = _serverContext,
            ClientCertificateRequired = RequireClientCertificate,
            EnabledSslProtocols = Protocols,
            CertificateRevocationCheckMode = RevocationMode,
            CertificateChainPolicy = ChainPolicy(),
            RemoteCertificateValidationCallback = validate,
            AllowRenegotiation = false,
        };
    }

    /// <summary>The initiator side's handshake options for a connection to <paramref name="host"/> (allocates).</summary>
    internal SslClientAuthenticationOptions ClientOptions(string host, RemoteCertificateValidationCallback validate) => new()
    {
        TargetHost = ServerName ?? host,
        ClientCertificates = Certificate is null ? null : new X509CertificateCollection { Certificate },
        EnabledSslProtocols = Protocols,
        CertificateRevocationCheckMode = RevocationMode,
        CertificateChainPolicy = ChainPolicy(),
        RemoteCertificateValidationCallback = validate,
        AllowRenegotiation = false,
    };

    private X509RevocationMode RevocationMode => CheckRevocation ? X509RevocationMode.Online : X509RevocationMode.NoCheck;

    /// <summary>With SSLCACertificate, the peer's chain must end at that CA and at nothing else.</summary>
    private X509ChainPolicy? ChainPolicy()
    {
        if (CaCertificate is null)
        {
            return null;
        }

        var policy = new X509ChainPolicy
        {
            TrustMode = X509ChainTrustMode.CustomRootTrust,
            RevocationMode = RevocationMode,
            RevocationFlag = X509RevocationFlag.ExcludeRoot,
        };
        policy.CustomTrustStore.Add(CaCertificate);
        return policy;
    }
}
