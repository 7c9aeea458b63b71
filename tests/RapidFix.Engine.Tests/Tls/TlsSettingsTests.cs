using System.Security.Authentication;
using RapidFix.Engine.Configuration;
using RapidFix.Engine.Hosting;
using RapidFix.Engine.Sessions;
using RapidFix.Engine.Transport.Tls;

namespace RapidFix.Engine.Tests.Tls;

/// <summary>
/// Fail closed at startup: every SSL setting the engine cannot honour is a located <see cref="ConfigurationException"/>
/// when the engine is created, never a warning and a plaintext socket; the password never appears in the error.
/// </summary>
public sealed class TlsSettingsTests(TlsCertificates certificates) : IClassFixture<TlsCertificates>
{
    private static SettingsFile Settings(string connectionType, string ssl, string sessions = "") => SettingsFile.Parse($"""
        [DEFAULT]
        ConnectionType={connectionType}
        SocketAcceptHost=127.0.0.1
        SocketAcceptPort=0
        SocketConnectHost=127.0.0.1
        SocketConnectPort=9
        HeartBtInt=30
        StartTime=00:00:00
        EndTime=00:00:00
        StoreType=express
        {ssl}
        [SESSION]
        BeginString=FIX.4.4
        SenderCompID=EXEC
        TargetCompID=CLIENT
        {sessions}
        """, "tls.cfg");

    private static ConfigurationException Refused(string connectionType, string ssl, string sessions = "")
    {
        var settings = Settings(connectionType, ssl, sessions);
        return Assert.Throws<ConfigurationException>(() => FixEngine.Create(settings, _ => new FixApplicationBase()).Dispose());
    }

    [Fact]
    public void Ssl_settings_load_without_warnings_and_give_the_session_tls_options()
    {
        var settings = Settings("acceptor", certificates.Acceptor("SSLProtocols=Tls13\nSSLRequireClientCertificate=N"));
        Assert.DoesNotContain(settings.Warnings, w => w.ToString().Contains("SSL", StringComparison.Ordinal));
        var options = FixSessionOptions.FromSettings(settings.Sessions[0]);
        Assert.NotNull(options.Tls);
        Assert.Equal(SslProtocols.Tls13, options.Tls!.Protocols);
        Assert.False(options.Tls.RequireClientCertificate);
        Assert.False(options.Tls.CheckRevocation);
        Assert.True(options.Tls.Certificate!.HasPrivateKey);
        Assert.Equal("CN=RapidFix Test CA", options.Tls.CaCertificate!.Subject);
    }

    [Fact]
    public void Without_ssl_enable_the_session_is_plaintext()
    {
        var options = FixSessionOptions.FromSettings(Settings("acceptor", "").Sessions[0]);
        Assert.Null(options.Tls);
    }

    [Fact]
    public void Defaults_are_tls12_and_tls13_with_every_check_on()
    {
        var options = FixSessionOptions.FromSettings(Settings("acceptor", $"SSLEnable=Y\nSSLCertificate={certificates.ServerPfx}\nSSLCertificatePassword={TlsCertificates.Password}").Sessions[0]).Tls!;
        Assert.Equal(SslProtocols.Tls12 | SslProtocols.Tls13, options.Protocols);
        Assert.True(options.ValidateCertificates);
        Assert.True(options.CheckRevocation);
        Assert.True(options.RequireClientCertificate);
        Assert.Null(options.CaCertificate);
    }

    [Fact]
    public void An_acceptor_without_a_certificate_is_an_error()
    {
        var e = Refused("acceptor", "SSLEnable=Y");
        Assert.Equal(SettingKeys.SslCertificate, e.Key);
        Assert.Contains("server certificate", e.Message);
    }

    [Fact]
    public void A_missing_certificate_file_is_an_error()
    {
        var e = Refused("acceptor", $"SSLEnable=Y\nSSLCertificate={certificates.Folder}/nope.pfx");
        Assert.Equal(SettingKeys.SslCertificate, e.Key);
        Assert.Contains("does not exist", e.Message);
        Assert.Equal(12, e.Line);
    }

    [Fact]
    public void A_wrong_password_is_an_error_that_does_not_show_the_password()
    {
        var e = Refused("acceptor", $"SSLEnable=Y\nSSLCertificate={certificates.ServerPfx}\nSSLCertificatePassword=wrong-Passw0rd");
        Assert.Equal(SettingKeys.SslCertificate, e.Key);
        Assert.Contains("cannot be loaded", e.Message);
        Assert.DoesNotContain("wrong-Passw0rd", e.Message);
    }

    [Fact]
    public void An_unreadable_certificate_is_an_error()
    {
        string garbage = Path.Combine(certificates.Folder, "garbage.pfx");
        File.WriteAllText(garbage, "not a certificate");
        var e = Refused("acceptor", $"SSLEnable=Y\nSSLCertificate={garbage}\nSSLCertificatePassword=x");
        Assert.Equal(SettingKeys.SslCertificate, e.Key);
        Assert.Contains("cannot be loaded", e.Message);
    }

    [Theory]
    [InlineData("Tls11", "insecure")]
    [InlineData("Tls12,Ssl3", "insecure")]
    [InlineData("Tls", "insecure")]
    [InlineData("Tls14", "not a TLS protocol")]
    [InlineData(",", "no protocol")]
    public void Old_or_unknown_protocols_are_errors(string protocols, string reason)
    {
        var e = Refused("acceptor", certificates.Acceptor($"SSLProtocols={protocols}"));
        Assert.Equal(SettingKeys.SslProtocols, e.Key);
        Assert.Contains(reason, e.Message);
    }

    [Fact]
    public void A_missing_ca_file_is_an_error()
    {
        var e = Refused("initiator", $"SSLEnable=Y\nSSLCACertificate={certificates.Folder}/none.crt");
        Assert.Equal(SettingKeys.SslCaCertificate, e.Key);
    }

    [Fact]
    public void The_password_may_come_from_an_environment_variable()
    {
        string variable = "RAPIDFIX_TEST_PFX_" + Guid.NewGuid().ToString("N");
        string ssl = $"SSLEnable=Y\nSSLCertificate={certificates.ServerPfx}\nSSLCertificatePasswordVariable={variable}";
        var missing = Refused("acceptor", ssl);
        Assert.Equal(SettingKeys.SslCertificatePasswordVariable, missing.Key);
        Assert.Contains("is not set", missing.Message);

        Environment.SetEnvironmentVariable(variable, TlsCertificates.Password);
        try
        {
            var options = FixSessionOptions.FromSettings(Settings("acceptor", ssl).Sessions[0]);
            Assert.True(options.Tls!.Certificate!.HasPrivateKey);
        }
        finally
        {
            Environment.SetEnvironmentVariable(variable, null);
        }
    }

    [Fact]
    public void A_pem_certificate_loads_with_its_key_file_and_without_it_is_an_error()
    {
        var options = FixSessionOptions.FromSettings(Settings("acceptor", $"SSLEnable=Y\nSSLCertificate={certificates.ServerPem}\nSSLPrivateKey={certificates.ServerKeyPem}").Sessions[0]);
        Assert.True(options.Tls!.Certificate!.HasPrivateKey);

        var e = Refused("acceptor", $"SSLEnable=Y\nSSLCertificate={certificates.ServerPem}");
        Assert.Equal(SettingKeys.SslCertificate, e.Key);
    }

    [Fact]
    public void Sessions_of_one_acceptor_port_must_agree_on_tls()
    {
        var settings = SettingsFile.Parse($"""
            [DEFAULT]
            ConnectionType=acceptor
            SocketAcceptHost=127.0.0.1
            SocketAcceptPort=0
            StartTime=00:00:00
            EndTime=00:00:00
            StoreType=express
            [SESSION]
            BeginString=FIX.4.4
            SenderCompID=EXEC
            TargetCompID=CLIENT
            {certificates.Acceptor()}
            [SESSION]
            BeginString=FIX.4.4
            SenderCompID=EXEC
            TargetCompID=OTHER
            """, "mixed.cfg");
        var e = Assert.Throws<ConfigurationException>(() => FixEngine.Create(settings, _ => new FixApplicationBase()).Dispose());
        Assert.Equal(SettingKeys.SslEnable, e.Key);
        Assert.Contains("same SSL settings", e.Message);
    }

    [Fact]
    public void Tls_protocol_names_parse_as_documented()
    {
        Assert.Null(TlsOptions.TryParseProtocols("tls12 | TLS13", out var both));
        Assert.Equal(SslProtocols.Tls12 | SslProtocols.Tls13, both);
        Assert.Null(TlsOptions.TryParseProtocols("Tls1.3", out var tls13));
        Assert.Equal(SslProtocols.Tls13, tls13);
    }
}
