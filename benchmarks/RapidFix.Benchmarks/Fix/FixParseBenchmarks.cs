using BenchmarkDotNet.Attributes;
using RapidFix.Engine.Codec;
using RapidFix.Engine.Dictionary;
using RapidFix.Engine.Validation;
using RapidFix.Tests.Shared;

namespace RapidFix.Benchmarks.Fix;

/// <summary>
/// Receive path for one message: frame (BodyLength, CheckSum), parse, validate against the FIX 4.4 dictionary.
/// QuickFIX/n does the same work the way its session does: bytes to string, Message.FromString with validation,
/// then DataDictionary.Validate.
/// </summary>
public class FixParseBenchmarks
{
    private readonly FixFramer _framer = new();
    private readonly FixMessage _view = new();
    private DataDictionary _dictionary = null!;
    private MessageValidator _validator = null!;
    private byte[] _wire = [];
#if QUICKFIXN
    private QuickFix.DataDictionary.DataDictionary _qfDictionary = null!;
#endif

    [Params("NewOrderSingle", "ExecutionReport", "MarketDataSnapshot10")]
    public string Message { get; set; } = "NewOrderSingle";

    [GlobalSetup]
    public void Setup()
    {
        _dictionary = StandardDictionaries.Load("FIX44");
        _validator = new MessageValidator(_dictionary);
        _wire = FixSamples.Wire(Message switch
        {
            "NewOrderSingle" => FixSamples.NewOrderSingle,
            "ExecutionReport" => FixSamples.ExecutionReport,
            _ => FixSamples.MarketDataSnapshot,
        });
        if (!ParseAndValidate())
        {
            throw new InvalidOperationException("sample message does not validate");
        }
#if QUICKFIXN
        using var stream = typeof(DataDictionary).Assembly.GetManifestResourceStream("RapidFix.Dictionaries.FIX44.xml")!;
        _qfDictionary = new QuickFix.DataDictionary.DataDictionary(stream);
        QuickFixParseAndValidate();
#endif
    }

    [Benchmark(Baseline = true, Description = "RapidFix frame+parse+validate")]
    public bool ParseAndValidate()
    {
        var frame = _framer.Frame(_wire);
        if (frame.Status != FrameStatus.Complete)
        {
            return false;
        }

        _view.Parse(_wire, frame.Start, frame.Length, _dictionary);
        return _validator.Validate(_view).IsValid;
    }

#if QUICKFIXN
    [Benchmark(Description = "QuickFIX/n parse+validate")]
    public bool QuickFixParseAndValidate()
    {
        string text = System.Text.Encoding.Latin1.GetString(_wire);
        var message = new QuickFix.Message();
        message.FromString(text, true, _qfDictionary, _qfDictionary, null);
        string msgType = message.Header.GetString(35);
        QuickFix.DataDictionary.DataDictionary.Validate(message, _qfDictionary, _qfDictionary, "FIX.4.4", msgType);
        return true;
    }
#endif
}
