using RapidFix.AcceptanceRunner.Hosting;
using RapidFix.AcceptanceRunner.Running;

namespace RapidFix.AcceptanceRunner;

public static class Program
{
    public static int Main(string[] args) =>
        RunnerCommandLine.Run(args, Console.Out, Console.Error, InProcessAcceptors.Default);
}
