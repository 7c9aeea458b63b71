using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using RapidFix.Engine.Sessions;

namespace RapidFix.Hosting;

/// <summary>Registers RapidFix in a generic host's services.</summary>
public static class RapidFixServiceCollectionExtensions
{
    /// <summary>
    /// Runs the sessions of <paramref name="settingsPath"/>, every one served by <paramref name="application"/>, as a
    /// hosted service (<see cref="RapidFixHostedService"/>); <paramref name="configure"/> adjusts the rest.
    /// </summary>
    public static IServiceCollection AddRapidFix(this IServiceCollection services, string settingsPath, IFixApplication application,
        Action<RapidFixHostingOptions>? configure = null)
    {
        ArgumentNullException.ThrowIfNull(application);
        return services.AddRapidFix(settingsPath, options =>
        {
            options.Applications = _ => application;
            configure?.Invoke(options);
        });
    }

    /// <summary>Runs the sessions of <paramref name="settingsPath"/> as a hosted service, configured by <paramref name="configure"/> (set <see cref="RapidFixHostingOptions.Applications"/>).</summary>
    public static IServiceCollection AddRapidFix(this IServiceCollection services, string settingsPath, Action<RapidFixHostingOptions> configure)
    {
        ArgumentNullException.ThrowIfNull(services);
        ArgumentException.ThrowIfNullOrEmpty(settingsPath);
        ArgumentNullException.ThrowIfNull(configure);
        services.AddOptions<RapidFixHostingOptions>().Configure(options =>
        {
            options.SettingsPath = settingsPath;
            configure(options);
        });
        services.AddSingleton<RapidFixHostedService>();
        services.AddSingleton<IHostedService>(provider => provider.GetRequiredService<RapidFixHostedService>());
        return services;
    }
}
