using System.Buffers.Binary;
using BenchmarkDotNet.Attributes;
using RapidFix.Fast;
using RapidFix.Fast.Codec;
using RapidFix.Fast.Framing;
using RapidFix.Fast.Messages;
using RapidFix.Fast.Templates;
using RapidFix.Tests.Shared.Fast;

namespace RapidFix.Benchmarks.Fast;

/// <summary>
/// Decode and encode of the complex30000 corpus (30,001 messages): one benchmark operation is one message
/// (OperationsPerInvoke), so the figures are ns and bytes per message.
/// </summary>
public class FastCodecBenchmarks
{
    private byte[] _data = [];
    private FastTemplateRegistry _templates = null!;
    private FastDecoder _decoder = null!;
    private FastDecoder _interpreter = null!;
    private FastEncoder _encoder = null!;
    private FastMessage _message = null!;
    private FastMessage[] _decoded = [];
    private byte[] _output = [];

    [GlobalSetup]
    public void Setup()
    {
        _data = File.ReadAllBytes(FastCorpus.PathOf("complex30000.dat"));
        _templates = FastTemplateLoader.LoadFile(FastCorpus.PathOf("complex30000-templates.xml"));
        _decoder = new FastDecoder(_templates);
        var interpreted = new FastTemplateLoader().AddFile(FastCorpus.PathOf("complex30000-templates.xml")).Build(new FastCodecLimits { CompileTemplates = false });
        _interpreter = new FastDecoder(interpreted);
        _encoder = new FastEncoder(_templates);
        _message = new FastMessage();
        _output = new byte[_data.Length];

        // Every message decoded once into its own slot, sized to what the corpus needs, as encoder input.
        var capacity = new FastMessageCapacity { Values = 128, Scopes = 16, ArenaBytes = 64 };
        _decoded = new FastMessage[FastCorpus.MessageCount];
        var reader = new FastStreamReader(_data, FastFraming.LengthPrefixLittleEndian);
        _decoder.Reset();
        for (int i = 0; i < _decoded.Length; i++)
        {
            _decoded[i] = new FastMessage(capacity);
            var r = reader.ReadNext(_decoder, _decoded[i]);
            if (!r.Ok)
            {
                throw new InvalidOperationException($"corpus message {i}: {r.Error} at {r.Offset}");
            }
        }
    }

    /// <summary>Decodes every message of the corpus into one reused message slot.</summary>
    [Benchmark(OperationsPerInvoke = FastCorpus.MessageCount)]
    public int DecodeToMessage()
    {
        _decoder.Reset();
        var reader = new FastStreamReader(_data, FastFraming.LengthPrefixLittleEndian);
        int errors = 0;
        while (!reader.End)
        {
            if (!reader.ReadNext(_decoder, _message).Ok)
            {
                errors++;
            }
        }

        return errors;
    }

    /// <summary>The same with the templates interpreted instead of compiled (CompileTemplates = false).</summary>
    [Benchmark(OperationsPerInvoke = FastCorpus.MessageCount)]
    public int DecodeToMessageInterpreted()
    {
        _interpreter.Reset();
        var reader = new FastStreamReader(_data, FastFraming.LengthPrefixLittleEndian);
        int errors = 0;
        while (!reader.End)
        {
            if (!reader.ReadNext(_interpreter, _message).Ok)
            {
                errors++;
            }
        }

        return errors;
    }

    /// <summary>Decodes every message with a struct handler that only counts values (no message slot).</summary>
    [Benchmark(OperationsPerInvoke = FastCorpus.MessageCount)]
    public long DecodeToHandler()
    {
        _decoder.Reset();
        var handler = new CountingFastHandler();
        var reader = new FastStreamReader(_data, FastFraming.LengthPrefixLittleEndian);
        while (!reader.End)
        {
            reader.ReadNext(_decoder, ref handler);
        }

        return handler.Values;
    }

    /// <summary>Encodes every (pre-decoded) message of the corpus with its length prefix.</summary>
    [Benchmark(OperationsPerInvoke = FastCorpus.MessageCount)]
    public int Encode()
    {
        _encoder.Reset();
        int pos = 0;
        var output = _output.AsSpan();
        foreach (var message in _decoded)
        {
            var w = _encoder.Encode(message, output.Slice(pos + 4));
            BinaryPrimitives.WriteInt32LittleEndian(output.Slice(pos), w.Length);
            pos += 4 + w.Length;
        }

        return pos;
    }

    /// <summary>Decodes each message and encodes it again at once (the message is hot in cache when encoded).</summary>
    [Benchmark(OperationsPerInvoke = FastCorpus.MessageCount)]
    public int DecodeAndEncode()
    {
        _decoder.Reset();
        _encoder.Reset();
        var reader = new FastStreamReader(_data, FastFraming.LengthPrefixLittleEndian);
        int pos = 0;
        var output = _output.AsSpan();
        while (!reader.End)
        {
            reader.ReadNext(_decoder, _message);
            var w = _encoder.Encode(_message, output.Slice(pos + 4));
            BinaryPrimitives.WriteInt32LittleEndian(output.Slice(pos), w.Length);
            pos += 4 + w.Length;
        }

        return pos;
    }
}
