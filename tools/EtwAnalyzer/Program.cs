using RapidFix.EtwAnalyzer;

// EtwAnalyzer: analyzes (and captures) traces of RapidFix processes. See AnalyzerCommandLine.Usage and docs/tracing.md.
return AnalyzerProgram.Run(args, Console.Out, Console.Error);
