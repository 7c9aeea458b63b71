namespace RapidFix.TradeDriver.Measure;

/// <summary>
/// The QuickFIX/n echo acceptor of the side-by-side run: RapidFix's own program text, written by the driver next to
/// the QuickFIX/n build (<see cref="QuickFixNPeer.Prepare"/>) and compiled against the user's QuickFIX/n checkout
/// (a project reference to its core project, so one build makes both). It does the echo work of
/// <see cref="EchoApplication"/> with QuickFIX/n's public API (acceptor, memory store, no log, messages validated
/// against the checkout's <c>spec/fix/FIX44.xml</c>, as RapidFix's echo validates against its built-in FIX 4.4
/// dictionary) and speaks <see cref="EchoPeer"/>'s protocol on its standard streams.
/// </summary>
internal static class QuickFixNEcho
{
    /// <summary>The echo program's assembly name (its build output: <c>&lt;out&gt;/quickfixn/RapidFix.QuickFixNEcho.dll</c>).</summary>
    public const string AssemblyName = "RapidFix.QuickFixNEcho";

    /// <summary>
    /// The project file: the repository's Directory.Build.props and central package versions are not imported (the
    /// program is not part of RapidFix's build, and QuickFIX/n brings its own package versions).
    /// </summary>
    public static string Project(string coreProject) => $"""
        <Project>
          <PropertyGroup>
            <ImportDirectoryBuildProps>false</ImportDirectoryBuildProps>
            <ImportDirectoryBuildTargets>false</ImportDirectoryBuildTargets>
            <ImportDirectoryPackagesProps>false</ImportDirectoryPackagesProps>
          </PropertyGroup>
          <Import Project="Sdk.props" Sdk="Microsoft.NET.Sdk" />
          <PropertyGroup>
            <OutputType>Exe</OutputType>
            <TargetFramework>net10.0</TargetFramework>
            <AssemblyName>{AssemblyName}</AssemblyName>
            <Nullable>enable</Nullable>
            <ImplicitUsings>enable</ImplicitUsings>
            <ServerGarbageCollection>false</ServerGarbageCollection>
            <ConcurrentGarbageCollection>false</ConcurrentGarbageCollection>
            <TieredPGO>true</TieredPGO>
            <NoWarn>$(NoWarn);CS0618</NoWarn>
            <!-- The build's output folder holds this folder: no default globs (they exclude what is under the output). -->
            <EnableDefaultCompileItems>false</EnableDefaultCompileItems>
          </PropertyGroup>
          <ItemGroup>
            <Compile Include="Program.cs" />
            <ProjectReference Include="{coreProject}" />
          </ItemGroup>
          <Import Project="Sdk.targets" Sdk="Microsoft.NET.Sdk" />
        </Project>
        """;

    /// <summary>The program: arguments PORT COMPID PARTICIPANT...</summary>
    public const string Program = """
        // The QuickFIX/n side of RapidFix's side-by-side run (tools/TradeDriver, docs/measurement.md), written by the
        // trade driver: answers each trade input with the ack the driver's sink classifies, echoing the input's ID,
        // exactly as RapidFix's EchoApplication does. Arguments: PORT COMPID PARTICIPANT...
        using System.Text;
        using QuickFix;
        using QuickFix.Fields;
        using QuickFix.Logger;
        using QuickFix.Store;

        var settings = new StringBuilder();
        settings.AppendLine("[DEFAULT]").AppendLine("ConnectionType=acceptor").AppendLine("SocketAcceptHost=127.0.0.1")
            .AppendLine("SocketAcceptPort=" + args[0]).AppendLine("StartTime=00:00:00").AppendLine("EndTime=00:00:00")
            .AppendLine("UseDataDictionary=Y").AppendLine("DataDictionary=" + Path.Combine(AppContext.BaseDirectory, "FIX44.xml"))
            .AppendLine("AllowUnknownMsgFields=Y").AppendLine("ValidateUserDefinedFields=N").AppendLine("HeartBtInt=30");
        foreach (var participant in args.Skip(2))
        {
            settings.AppendLine("[SESSION]").AppendLine("BeginString=FIX.4.4").AppendLine("SenderCompID=" + args[1]).AppendLine("TargetCompID=" + participant);
        }

        var acceptor = new ThreadedSocketAcceptor(new Echo(), new MemoryStoreFactory(), new SessionSettings(new StringReader(settings.ToString())), new NullLogFactory(),
            new GenericMessages());
        acceptor.Start();
        Console.WriteLine("listening on " + args[0]);
        Console.Out.Flush();
        long collections = Collections(), allocated = GC.GetTotalAllocatedBytes(true);
        while (Console.In.ReadLine() is { } line)
        {
            if (line.Trim() == "mark")
            {
                collections = Collections();
                allocated = GC.GetTotalAllocatedBytes(true);
            }
        }

        Console.WriteLine("gc " + (Collections() - collections) + " " + (GC.GetTotalAllocatedBytes(true) - allocated));
        Console.Out.Flush();
        acceptor.Stop(true);
        return 0;

        static long Collections() => GC.CollectionCount(0) + GC.CollectionCount(1) + GC.CollectionCount(2);

        sealed class Echo : IApplication
        {
            public void FromApp(Message message, SessionID sessionID)
            {
                string type = message.Header.GetString(Tags.MsgType);
                var ack = new Message();
                switch (type)
                {
                    case "AE":
                        ack.Header.SetField(new MsgType("AR"));
                        ack.SetField(new StringField(571, message.GetString(571)));
                        if (message.IsSetField(487))
                        {
                            ack.SetField(new StringField(487, message.GetString(487)));
                        }

                        ack.SetField(new StringField(150, "F"));
                        ack.SetField(new StringField(939, "0"));
                        ack.SetField(new StringField(55, "[N/A]"));
                        break;
                    case "J":
                        ack.Header.SetField(new MsgType("P"));
                        ack.SetField(new StringField(70, message.GetString(70)));
                        ack.SetField(new DateTimeField(60, DateTime.UtcNow));
                        ack.SetField(new StringField(87, "0"));
                        break;
                    case "AK":
                        ack.Header.SetField(new MsgType("AU"));
                        ack.SetField(new StringField(664, message.GetString(664)));
                        if (message.IsSetField(75))
                        {
                            ack.SetField(new StringField(75, message.GetString(75)));
                        }

                        ack.SetField(new DateTimeField(60, DateTime.UtcNow));
                        ack.SetField(new StringField(940, "1"));
                        break;
                    default:
                        return; // a T: no ack, as RapidFix's echo (and the matching service for a good one)
                }

                Session.SendToTarget(ack, sessionID);
            }

            public void ToAdmin(Message message, SessionID sessionID) { }
            public void FromAdmin(Message message, SessionID sessionID) { }
            public void ToApp(Message message, SessionID sessionID) { }
            public void OnCreate(SessionID sessionID) { }
            public void OnLogout(SessionID sessionID) { }
            public void OnLogon(SessionID sessionID) { }
        }

        // Generic messages: the dictionary gives the groups their delimiters, so the generated FIX 4.4 message classes
        // (a separate, large QuickFIX/n project) are not needed to read a trade's repeating groups.
        sealed class GenericMessages : IMessageFactory
        {
            public ICollection<string> GetSupportedBeginStrings() => ["FIX.4.4"];

            public Message Create(string beginString, string msgType)
            {
                var message = new Message();
                message.Header.SetField(new MsgType(msgType));
                return message;
            }

            public Message Create(string beginString, ApplVerID applVerId, string msgType) => Create(beginString, msgType);

            public Group? Create(string beginString, string msgType, int groupCounterTag) => null;
        }
        """;
}
