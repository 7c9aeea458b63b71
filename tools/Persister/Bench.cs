using System.Buffers.Binary;
using System.Diagnostics;
using System.Text;
using RapidFix.Engine.Store;
using RapidFix.Persistence;

namespace RapidFix.Persister;

/// <summary>
/// The persister alone: journals written beforehand in the service's formats (an input journal with the seven
/// messages of each trade, session stores with the acks and the CLS to both participants: 16 records a trade, the
/// examples of docs/matching.md with their IDs and ISINs numbered), then one persister into one throwaway PostgreSQL (fsync
/// on) from a cold start to the last row. Reports rows per second and the share of the persister's busy time spent
/// waiting on the server.
/// </summary>
internal static class Bench
{
    private static readonly string[] Managers = ["IM1", "IM2"];
    private static readonly string[] Brokers = ["EB1", "EB2"];

    public static int Run(int trades, int batch, int streams, TextWriter output)
    {
        string work = Path.Combine(Path.GetTempPath(), "rapidfix-persister-bench-" + Guid.NewGuid().ToString("N")[..8]);
        try
        {
            string data = Path.Combine(work, "data");
            int records = WriteJournals(data, trades);
            output.WriteLine($"journals: {trades} trades, {records} records in {data}");
            using var rig = Rig.Create(1, durable: true);
            using var persister = new Persistence.Persister(new PersisterOptions
            {
                DataDirectory = data, Servers = rig.Writers, BatchRecords = batch, Streams = streams, Log = output,
            });
            // CPU time around the run, the persister's and the server's: what a row costs, which the machine's load
            // changes far less than it changes the elapsed time.
            var self = Process.GetCurrentProcess();
            var clientBefore = self.TotalProcessorTime;
            double jitBefore = JitSeconds();
            var serverBefore = rig.Clusters[0].CpuTime();
            var clock = Stopwatch.StartNew();
            persister.Start();
            persister.Drain();
            clock.Stop();
            self.Refresh();
            double client = (self.TotalProcessorTime - clientBefore).TotalSeconds;
            double jit = JitSeconds() - jitBefore;
            double? server = (rig.Clusters[0].CpuTime() - serverBefore)?.TotalSeconds;
            var c = persister.Counters[0];
            output.WriteLine($"persister alone: {c.Rows} rows ({c.Records} records) in {clock.Elapsed.TotalSeconds:F2} s = {c.Rows / clock.Elapsed.TotalSeconds:N0} rows/s, {c.Records / clock.Elapsed.TotalSeconds:N0} records/s, " +
                             $"{c.Batches} transactions of up to {batch} records on {streams} stream(s), {c.ServerShare:P0} of the time waiting on PostgreSQL");
            if (server is { } s)
            {
                double perRow = (client + s) / c.Rows;
                output.WriteLine($"CPU: persister {client:F2} s ({client / c.Rows * 1e6:F2} us a row), PostgreSQL {s:F2} s ({s / c.Rows * 1e6:F2} us a row); " +
                                 $"{perRow * 1e6:F2} us of CPU a row in all: at most {1 / perRow:N0} rows/s a core, " +
                                 $"{Environment.ProcessorCount / perRow:N0} rows/s on this machine's {Environment.ProcessorCount} cores were they idle");
                output.WriteLine($"of the persister's CPU, the runtime's background JIT thread (tiered compilation, once a process): {jit:F2} s; " +
                                 $"without it {(client - jit) / c.Rows * 1e6:F2} us a row");
                // A record (a journal record: one message in or out) is the unit that does not change with the schema
                // (34 rows a trade before migration 6, 18 after): 16 records a cleared trade of 7 inputs.
                output.WriteLine($"CPU a record ({c.Records} records, {(double)c.Rows / Math.Max(1, c.Records):F3} rows each): persister {client / c.Records * 1e6:F2} us " +
                                 $"({(client - jit) / c.Records * 1e6:F2} without the JIT thread), PostgreSQL {s / c.Records * 1e6:F2} us, in all {(client + s) / c.Records * 1e6:F2} us; " +
                                 $"a trade's 16 records: {(client + s) / c.Records * 16e6:F0} us");
            }

            return 0;
        }
        finally
        {
            if (Directory.Exists(work))
            {
                Directory.Delete(work, recursive: true);
            }
        }
    }

    private static double JitSeconds() => ProcessCpu.JitSeconds();

    /// <summary>Writes the journals of <paramref name="trades"/> cleared trades; returns the records written.</summary>
    internal static int WriteJournals(string data, int trades)
    {
        Directory.CreateDirectory(data);
        var stores = new Dictionary<string, (JournalMessageStore Store, int Next)>();
        JournalMessageStore Open(string file, long records) => JournalMessageStore.Open(new JournalOptions
        {
            FilePath = Path.Combine(data, file),
            FlushPolicy = FlushPolicy.OsOnly,
            MaxMessages = (int)Math.Max(1024, records),
            MaxBytes = (int)Math.Min(int.MaxValue - 1, Math.Max(1 << 20, records * 800)),
        }, DateTime.UtcNow);

        // The input journal as the service writes it: a 1 MiB write window in memory, the file as large as the set.
        var input = JournalAppender.Open(new JournalAppenderOptions
        {
            FilePath = Path.Combine(data, JournalSource.InputJournalFile),
            FlushPolicy = FlushPolicy.OsOnly,
            WindowBytes = 1 << 20,
            MaxMessageBytes = 64 << 10,
        }, DateTime.UtcNow);
        StoreWriteStatus AppendInput(int seq, byte[] payload)
        {
            var status = input.Append(seq, payload);
            if (status == StoreWriteStatus.JournalFull && input.WaitForDurable(input.WrittenPosition, TimeSpan.FromSeconds(60)))
            {
                status = input.Append(seq, payload); // the window is free again once the flusher has caught up
            }

            return status;
        }

        int inputSeq = 1, count = 0;
        var control = new byte[9];
        BinaryPrimitives.WriteInt64LittleEndian(control.AsSpan(1), ServiceScenario.BusinessDate);
        Check(AppendInput(inputSeq++, control));
        foreach (var p in Managers.Concat(Brokers))
        {
            stores[p] = (Open($"FIX.4.4-MATCH-{p}.journal", trades * 8L), 1);
        }

        void Out(string to, string body)
        {
            var (store, next) = stores[to];
            Check(store.Append(next, Encoding.ASCII.GetBytes($"8=FIX.4.4\u00019=0\u000135={body}\u000110=000\u0001")));
            stores[to] = (store, next + 1);
            count++;
        }

        var inputs = new int[4];
        for (int t = 1; t <= trades; t++)
        {
            string im = Managers[t % 2], eb = Brokers[(t / 2) % 2];
            string parties = $"453=2\u0001448={eb}\u0001447=D\u0001452=1\u0001448={im}\u0001447=D\u0001452=13";
            string date = "20261123", isin = $"SG{t:D10}"; // one matching key per trade, as the generator makes them
            string head(string type, string from) => $"8=FIX.4.4\u00019=0\u000135={type}\u000134={t}\u000149={from}\u000152=20261123-10:00:00.000\u000156=MATCH";
            void In(string from, string message)
            {
                var payload = new List<byte> { (byte)from.Length };
                payload.AddRange(Encoding.ASCII.GetBytes(from));
                payload.AddRange(new byte[8]);
                payload.AddRange(Encoding.ASCII.GetBytes(message + "\u000110=000\u0001"));
                Check(AppendInput(inputSeq++, payload.ToArray()));
                count++;
            }

            In(eb, $"{head("AE", eb)}\u0001571=NOE-{t}\u0001487=0\u000148={isin}\u000175={date}\u0001552=1\u000154=1\u0001{parties}");
            for (int a = 1; a <= 2; a++)
            {
                In(im, $"{head("J", im)}\u000170=ALC-{t}-{a}\u000171=0\u000154=1\u000148={isin}\u000175={date}\u0001{parties}\u000179=ACC-{a}\u000180=5000");
                In(eb, $"{head("AK", eb)}\u0001664=NPR-{t}-{a}\u0001773=2\u000175={date}\u0001{parties}\u000148={isin}\u000180=5000\u000154=1\u000179=ACC-{a}\u0001118=12525.00");
                In(im, $"{head("T", im)}\u0001777=SET-{t}-{a}\u0001160=1\u0001778=1\u0001{parties}\u000154=1");
            }

            Out(eb, $"AR\u000134={t}\u000149=MATCH\u000156={eb}\u000152=20261123-10:00:00.001\u0001571=NOE-{t}\u0001487=0\u0001150=F\u0001939=0");
            for (int a = 1; a <= 2; a++)
            {
                Out(im, $"P\u000149=MATCH\u000156={im}\u000152=20261123-10:00:00.001\u000170=ALC-{t}-{a}\u000187=0");
                Out(eb, $"AU\u000149=MATCH\u000156={eb}\u000152=20261123-10:00:00.001\u0001664=NPR-{t}-{a}\u000175={date}\u0001940=1");
                string cls = $"664=CLS-{t}-{a}\u0001666=0\u0001773=1\u0001665=4\u000175={date}\u000164=20261126\u0001{parties}\u000148={isin}\u000180=5000\u000154=1\u000115=SGD\u000179=ACC-{a}\u0001118=12525.00\u000170=ALC-{t}-{a}";
                Out(im, $"AK\u000149=MATCH\u000156={im}\u000152=20261123-10:00:00.002\u0001{cls}");
                Out(eb, $"AK\u000149=MATCH\u000156={eb}\u000152=20261123-10:00:00.002\u0001{cls}");
            }
        }

        input.Flush();
        input.Dispose();
        foreach (var (store, _) in stores.Values)
        {
            store.Flush();
            store.Dispose();
        }

        return count;
    }

    private static void Check(StoreWriteStatus status)
    {
        if (status != StoreWriteStatus.Ok)
        {
            throw new InvalidOperationException($"journal write: {status}");
        }
    }
}
