using System.Globalization;

namespace RapidFix.Samples.FixLoad;

/// <summary>The command line of the load.</summary>
internal sealed record LoadOptions
{
    public double Seconds { get; init; } = 60;

    public int Rate { get; init; } = 10_000;

    public int Port { get; init; }

    public bool AllocatingHandler { get; init; }

    public long NoGcRegionBytes { get; init; }

    public int WarmUpBurst { get; init; } = 2_000;

    public string? LogPath { get; init; }

    public const string Usage =
        "usage: FixLoad [--seconds N] [--rate MSG_PER_S] [--port N] [--warmup-burst N] [--no-gc-region BYTES] [--allocating-handler] [--log FILE]\n" +
        "  --seconds N           length of the continuous phase (default 60)\n" +
        "  --rate N              NewOrderSingle messages per second, paced each millisecond (default 10000)\n" +
        "  --port N              loopback port of the acceptor (default: a free one)\n" +
        "  --warmup-burst N      orders per warm-up round (default 2000)\n" +
        "  --no-gc-region BYTES  run the continuous phase inside a no-GC region of this budget (the tripwire)\n" +
        "  --allocating-handler  make the acceptor's order handler allocate in the continuous phase (to prove the gate fails)\n" +
        "  --log FILE            write the engine's log (logons, rejects, disconnections) to FILE";

    /// <summary>Parses <paramref name="args"/>; on a mistake returns null and says what is wrong in <paramref name="error"/>.</summary>
    public static LoadOptions? Parse(string[] args, out string? error)
    {
        var options = new LoadOptions();
        error = null;
        for (int i = 0; i < args.Length; i++)
        {
            string arg = args[i];
            string? Next()
            {
                if (i + 1 >= args.Length)
                {
                    return null;
                }

                return args[++i];
            }

            switch (arg)
            {
                case "--seconds":
                    if (!double.TryParse(Next(), NumberStyles.Float, CultureInfo.InvariantCulture, out double seconds) || seconds <= 0 || seconds > 7 * 24 * 3600)
                    {
                        error = "--seconds needs a positive number of seconds";
                        return null;
                    }

                    options = options with { Seconds = seconds };
                    break;
                case "--rate":
                    if (!int.TryParse(Next(), NumberStyles.None, CultureInfo.InvariantCulture, out int rate) || rate <= 0 || rate > 1_000_000)
                    {
                        error = "--rate needs a number of messages per second between 1 and 1000000";
                        return null;
                    }

                    options = options with { Rate = rate };
                    break;
                case "--port":
                    if (!int.TryParse(Next(), NumberStyles.None, CultureInfo.InvariantCulture, out int port) || port is < 1 or > 65535)
                    {
                        error = "--port needs a TCP port number (1-65535)";
                        return null;
                    }

                    options = options with { Port = port };
                    break;
                case "--warmup-burst":
                    if (!int.TryParse(Next(), NumberStyles.None, CultureInfo.InvariantCulture, out int burst) || burst <= 0)
                    {
                        error = "--warmup-burst needs a positive number of orders";
                        return null;
                    }

                    options = options with { WarmUpBurst = burst };
                    break;
                case "--no-gc-region":
                    if (!long.TryParse(Next(), NumberStyles.None, CultureInfo.InvariantCulture, out long bytes) || bytes <= 0)
                    {
                        error = "--no-gc-region needs a positive number of bytes";
                        return null;
                    }

                    options = options with { NoGcRegionBytes = bytes };
                    break;
                case "--allocating-handler":
                    options = options with { AllocatingHandler = true };
                    break;
                case "--log":
                    string? path = Next();
                    if (string.IsNullOrWhiteSpace(path))
                    {
                        error = "--log needs a file name";
                        return null;
                    }

                    options = options with { LogPath = path };
                    break;
                case "-h" or "--help":
                    error = "";
                    return null;
                default:
                    error = $"unknown argument '{arg}'";
                    return null;
            }
        }

        return options;
    }
}
