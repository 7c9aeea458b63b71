using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using RapidFix.Engine.Sessions;
using RapidFix.Hosting;

// The hosting tests' child: args[0] is a settings file. "READY" once the engine runs, "STOPPED" after a clean stop.
var builder = Host.CreateApplicationBuilder();
builder.Logging.ClearProviders();
builder.Services.AddRapidFix(args[0], new FixApplicationBase(), options => options.LogoutTimeout = TimeSpan.FromSeconds(15));
builder.Services.Configure<HostOptions>(options => options.ShutdownTimeout = TimeSpan.FromSeconds(30));
using var host = builder.Build();
host.Start();
Console.WriteLine("READY");
host.WaitForShutdown();
Console.WriteLine("STOPPED");
return 0;
