using System.CommandLine;
using System.Net.Sockets;
using RapidFix.Engine.Configuration;
using RapidFix.Engine.Dictionary;
using RapidFix.Engine.Store;

namespace RapidFix.Samples;

/// <summary>
/// The command line of every sample: System.CommandLine parses it (<c>--help</c> everywhere); a mistake in the
/// arguments, in the settings or in the environment (a journal in use, a port taken, a file missing) is one line
/// on standard error and exit code 2, never a stack trace.
/// </summary>
internal static class SampleCommand
{
    /// <summary>The exit code of a usage, settings or environment error.</summary>
    public const int ExitError = 2;

    /// <summary>Parses <paramref name="args"/> and runs the chosen command's action.</summary>
    public static int Invoke(RootCommand root, string[] args)
    {
        string name = root.Name;
        ParseResult parse = root.Parse(args);
        if (parse.Errors.Count > 0)
        {
            foreach (var error in parse.Errors)
            {
                Console.Error.WriteLine($"{name}: {error.Message}");
            }

            Console.Error.WriteLine($"{name}: --help lists the options");
            return ExitError;
        }

        return parse.Invoke();
    }

    /// <summary>
    /// Runs <paramref name="run"/>; what a user or the machine got wrong becomes one line and
    /// <see cref="ExitError"/> (a defect in the program still shows its stack trace).
    /// </summary>
    public static int Guarded(string name, Func<int> run)
    {
        try
        {
            return run();
        }
        catch (Exception ex) when (IsUserOrEnvironmentError(ex))
        {
            Console.Error.WriteLine($"{name}: {Describe(ex)}");
            return ExitError;
        }
    }

    /// <summary>True for the exceptions a user's input or the machine's state causes, not a defect.</summary>
    public static bool IsUserOrEnvironmentError(Exception ex) =>
        ex is ConfigurationException or StoreException or DictionaryLoadException or IOException or UnauthorizedAccessException
            or SocketException or InvalidDataException or FormatException;

    /// <summary>One line for <paramref name="ex"/>: a socket error by its meaning, not its number.</summary>
    public static string Describe(Exception ex) => ex switch
    {
        SocketException { SocketErrorCode: SocketError.AddressAlreadyInUse } => $"the address is already in use: another process listens on that port ({ex.Message})",
        SocketException { SocketErrorCode: SocketError.ConnectionRefused } => $"connection refused: nothing listens at that address ({ex.Message})",
        SocketException s => $"socket error {s.SocketErrorCode}: {ex.Message}",
        _ => ex.Message,
    };
}
