using System.Diagnostics;
using System.Net;
using System.Net.Sockets;
using System.Security.Cryptography;
using Npgsql;

namespace RapidFix.Persistence;

/// <summary>
/// A throwaway PostgreSQL cluster: <c>initdb</c> in a temporary folder, a free port on 127.0.0.1, the unix socket in
/// the same folder, started with <c>pg_ctl</c>, stopped and deleted on dispose. For tests, the figures and the demo;
/// never a shared server. PostgreSQL refuses to run as root, so when this process is root the server runs as the
/// <c>postgres</c> system user (or <c>nobody</c>) through <c>runuser</c>, and the folder is given to that user.
/// </summary>
public sealed class PgCluster : IDisposable
{
    private readonly string _bin;
    private readonly string? _runAs;
    private bool _disposed;

    private PgCluster(string bin, string root, string? runAs, int port, string superPassword)
    {
        _bin = bin;
        Root = root;
        _runAs = runAs;
        Port = port;
        SuperuserPassword = superPassword;
    }

    /// <summary>The temporary folder (data directory, socket, server log).</summary>
    public string Root { get; }

    /// <summary>The TCP port on 127.0.0.1.</summary>
    public int Port { get; private set; }

    /// <summary>The superuser's (<c>postgres</c>) password, random per cluster.</summary>
    public string SuperuserPassword { get; }

    /// <summary>The data directory.</summary>
    public string DataDirectory => Path.Combine(Root, "data");

    /// <summary>The server's log file.</summary>
    public string LogFile => Path.Combine(Root, "server.log");

    /// <summary>Whether the server is running (between <see cref="Start"/> and <see cref="Stop"/>).</summary>
    public bool IsRunning { get; private set; }

    /// <summary>
    /// The folder of the server binaries: <c>initdb</c> on the PATH, else the newest <c>/usr/lib/postgresql/*/bin</c>
    /// (Debian's packages); null when there is none.
    /// </summary>
    public static string? FindBinaries()
    {
        foreach (var dir in (Environment.GetEnvironmentVariable("PATH") ?? "").Split(Path.PathSeparator, StringSplitOptions.RemoveEmptyEntries))
        {
            if (File.Exists(Path.Combine(dir, "initdb")) && File.Exists(Path.Combine(dir, "pg_ctl")))
            {
                // A symbolic link (/usr/local/bin/initdb -> /usr/lib/postgresql/15/bin/initdb) points at the real set.
                var target = new FileInfo(Path.Combine(dir, "initdb")).ResolveLinkTarget(returnFinalTarget: true);
                return target is null ? dir : Path.GetDirectoryName(target.FullName);
            }
        }

        const string debian = "/usr/lib/postgresql";
        if (Directory.Exists(debian))
        {
            return Directory.GetDirectories(debian)
                .Select(d => Path.Combine(d, "bin"))
                .Where(d => File.Exists(Path.Combine(d, "initdb")))
                .OrderByDescending(d => int.TryParse(Path.GetFileName(Path.GetDirectoryName(d)), out int v) ? v : 0)
                .FirstOrDefault();
        }

        return null;
    }

    /// <summary>Why a cluster cannot be started here, or null when it can.</summary>
    public static string? Unavailable()
    {
        if (!OperatingSystem.IsLinux() && !OperatingSystem.IsMacOS())
        {
            return "the throwaway PostgreSQL cluster runs on Linux and macOS only";
        }

        if (FindBinaries() is null)
        {
            return "no PostgreSQL server binaries (initdb, pg_ctl on the PATH or under /usr/lib/postgresql/*/bin; apt-get install postgresql)";
        }

        if (IsRoot() && RunAsUser() is null)
        {
            return "this process is root, PostgreSQL refuses to run as root, and neither the postgres nor the nobody user exists";
        }

        return null;
    }

    /// <summary>Creates and starts a cluster (initdb, start, wait until it answers). Throws with the server's log on failure.</summary>
    public static PgCluster Create(bool durable = false) => Create(durable, firstPort: null);

    /// <summary>
    /// <see cref="Create(bool)"/>, trying <paramref name="firstPort"/> first when given (a test takes a port it holds).
    /// A port is free when chosen but the server binds it a moment later, and another program (one of the tests
    /// running beside it, say) can take it meanwhile: the server is then started again on another port, up to five
    /// times.
    /// </summary>
    internal static PgCluster Create(bool durable, int? firstPort)
    {
        if (Unavailable() is { } why)
        {
            throw new InvalidOperationException(why);
        }

        string bin = FindBinaries()!;
        string root = Path.Combine(Path.GetTempPath(), "rapidfix-pg-" + Guid.NewGuid().ToString("N")[..12]);
        Directory.CreateDirectory(root);
        string? runAs = IsRoot() ? RunAsUser() : null;
        string password = Convert.ToHexString(RandomNumberGenerator.GetBytes(16));
        var cluster = new PgCluster(bin, root, runAs, firstPort ?? FreePort(), password);
        try
        {
            string pwfile = Path.Combine(root, "pwfile");
            File.WriteAllText(pwfile, password + "\n");
            if (runAs is not null)
            {
                cluster.Run("chown", $"-R {runAs} {root}", asServerUser: false);
            }

            // scram for TCP (the persister's roles log in with passwords), trust on the private unix socket only.
            cluster.Run(Path.Combine(bin, "initdb"),
                $"-D {cluster.DataDirectory} -U postgres --pwfile={pwfile} --auth-host=scram-sha-256 --auth-local=trust -E UTF8 --locale=C --no-sync",
                asServerUser: true);
            File.Delete(pwfile);
            // A statement over a daily table locks every day partition and each of its indexes: the default lock table
            // (64 a connection) runs out ("53200 out of shared memory") after a few months of days, as a whole-path
            // run's check over a generated year of trade dates did.
            // Tests and the demo need no crash safety of the server itself; the figures (tools/Persister, the
            // measuring driver) run with durable: true. Durable ones get the settings docs/persistence.md recommends
            // for the persister's server: compressed full-page images, checkpoints (each followed by a full-page image
            // of every page touched) far apart, and backends that hand their writes to the disk as they go
            // (backend_flush_after) instead of leaving them to the kernel's 30-s writeback, whose bursts stalled the
            // service's journal fsyncs on the same disk.
            string extra = durable
                ? "\nwal_compression = on\nmax_wal_size = 8GB\ncheckpoint_timeout = 30min\nwal_buffers = 64MB\nshared_buffers = 512MB\nbackend_flush_after = 256kB"
                : "\nfsync = off\nsynchronous_commit = off\nfull_page_writes = off";
            string conf = Path.Combine(cluster.DataDirectory, "postgresql.conf");
            File.AppendAllText(conf,
                $"\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = '{root}'\nmax_connections = 50\nshared_buffers = 128MB\nmax_locks_per_transaction = 1024{extra}\n");
            for (int attempt = 1; ; attempt++)
            {
                File.AppendAllText(conf, $"port = {cluster.Port}\n"); // the last setting of a name wins
                try
                {
                    cluster.Start();
                    return cluster;
                }
                catch (InvalidOperationException ex) when (attempt < 5 && ex.Message.Contains("Address already in use", StringComparison.Ordinal))
                {
                    File.Delete(cluster.LogFile);
                    cluster.Port = FreePort();
                }
            }
        }
        catch
        {
            cluster.Dispose();
            throw;
        }
    }

    /// <summary>Starts the server again on the same data directory (after <see cref="Stop"/>).</summary>
    public void Start()
    {
        Run(Path.Combine(_bin, "pg_ctl"), $"-D {DataDirectory} -l {LogFile} -w -t 120 start", asServerUser: true);
        IsRunning = true;
    }

    /// <summary>Stops the server (fast shutdown: open connections are cut, as when an operator stops it).</summary>
    public void Stop()
    {
        if (IsRunning)
        {
            IsRunning = false;
            Run(Path.Combine(_bin, "pg_ctl"), $"-D {DataDirectory} -m fast -w -t 120 stop", asServerUser: true);
        }
    }

    /// <summary>A connection string for <paramref name="user"/> on <paramref name="database"/> over TCP.</summary>
    public string ConnectionString(string database = "postgres", string user = "postgres", string? password = null) =>
        new NpgsqlConnectionStringBuilder
        {
            Host = "127.0.0.1",
            Port = Port,
            Database = database,
            Username = user,
            Password = password ?? (user == "postgres" ? SuperuserPassword : null),
            Pooling = false,
            Timeout = 15,
            CommandTimeout = 300,
        }.ConnectionString;

    /// <summary>Creates a database (as the superuser).</summary>
    public void CreateDatabase(string name)
    {
        using var connection = new NpgsqlConnection(ConnectionString());
        connection.Open();
        using var command = new NpgsqlCommand($"CREATE DATABASE {Sql.Identifier(name)}", connection);
        command.ExecuteNonQuery();
    }

    /// <summary>
    /// CPU time (user and system) the server's processes have used so far: the postmaster, its live children (backends,
    /// WAL writer, checkpointer, ...) and the children it has already reaped (closed connections). Read from /proc;
    /// null where there is none. The figures take the difference around a run: the server's cost per row, which the
    /// machine's load does not change the way it changes elapsed time.
    /// </summary>
    public TimeSpan? CpuTime()
    {
        string pidFile = Path.Combine(DataDirectory, "postmaster.pid");
        if (!Directory.Exists("/proc") || !File.Exists(pidFile) ||
            !int.TryParse(File.ReadLines(pidFile).FirstOrDefault(), out int postmaster) || Stat(postmaster) is not { } main)
        {
            return null;
        }

        long ticks = main.Own + main.Children;
        foreach (var dir in Directory.EnumerateDirectories("/proc"))
        {
            if (int.TryParse(Path.GetFileName(dir), out int pid) && pid != postmaster && Stat(pid) is { } child && child.Parent == postmaster)
            {
                ticks += child.Own;
            }
        }

        return TimeSpan.FromSeconds(ticks / 100.0); // /proc counts in USER_HZ, 100 a second on Linux
    }

    /// <summary>A process's parent and its CPU ticks (utime + stime; cutime + cstime of its reaped children), or null once gone.</summary>
    private static (int Parent, long Own, long Children)? Stat(int pid)
    {
        string text;
        try
        {
            text = File.ReadAllText($"/proc/{pid}/stat");
        }
        catch (IOException)
        {
            return null;
        }

        // After the command name in parentheses (which may hold spaces): state, ppid, ... utime (14), stime, cutime, cstime.
        var f = text[(text.LastIndexOf(')') + 2)..].Split(' ');
        return (int.Parse(f[1], System.Globalization.CultureInfo.InvariantCulture),
            long.Parse(f[11], System.Globalization.CultureInfo.InvariantCulture) + long.Parse(f[12], System.Globalization.CultureInfo.InvariantCulture),
            long.Parse(f[13], System.Globalization.CultureInfo.InvariantCulture) + long.Parse(f[14], System.Globalization.CultureInfo.InvariantCulture));
    }

    /// <summary>Stops the server and deletes the folder.</summary>
    public void Dispose()
    {
        if (_disposed)
        {
            return;
        }

        _disposed = true;
        try
        {
            if (IsRunning)
            {
                Run(Path.Combine(_bin, "pg_ctl"), $"-D {DataDirectory} -m immediate -w -t 60 stop", asServerUser: true);
            }
        }
        catch (InvalidOperationException)
        {
            // Already down; the folder goes anyway.
        }

        try
        {
            Directory.Delete(Root, recursive: true);
        }
        catch (IOException)
        {
        }
        catch (UnauthorizedAccessException)
        {
        }
    }

    private void Run(string file, string arguments, bool asServerUser)
    {
        var info = asServerUser && _runAs is not null
            ? new ProcessStartInfo("runuser", $"-u {_runAs} -- {file} {arguments}")
            : new ProcessStartInfo(file, arguments);
        info.RedirectStandardOutput = true;
        info.RedirectStandardError = true;
        info.UseShellExecute = false;
        // The server must not inherit a locale the cluster was not made for.
        info.Environment["LC_ALL"] = "C";
        using var process = Process.Start(info)!;
        var output = process.StandardOutput.ReadToEndAsync();
        var error = process.StandardError.ReadToEndAsync();
        process.WaitForExit();
        if (process.ExitCode != 0)
        {
            string log = File.Exists(LogFile) ? string.Join('\n', File.ReadLines(LogFile).TakeLast(20)) : "";
            throw new InvalidOperationException(
                $"{Path.GetFileName(file)} failed (exit {process.ExitCode}): {error.Result.Trim()} {output.Result.Trim()}\n{log}".Trim());
        }
    }

    private static bool IsRoot() => !OperatingSystem.IsWindows() && Environment.UserName == "root";

    private static string? RunAsUser()
    {
        if (!File.Exists("/etc/passwd") || !File.Exists("/usr/sbin/runuser") && !File.Exists("/sbin/runuser") && !File.Exists("/usr/bin/runuser"))
        {
            return null;
        }

        var users = File.ReadLines("/etc/passwd").Select(l => l.Split(':')[0]).ToHashSet();
        return users.Contains("postgres") ? "postgres" : users.Contains("nobody") ? "nobody" : null;
    }

    /// <summary>A TCP port free on 127.0.0.1 now.</summary>
    internal static int FreePort()
    {
        using var listener = new TcpListener(IPAddress.Loopback, 0);
        listener.Start();
        return ((IPEndPoint)listener.LocalEndpoint).Port;
    }
}
