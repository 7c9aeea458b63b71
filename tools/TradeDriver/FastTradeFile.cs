using System.Text;
using RapidFix.Engine.Codec;
using RapidFix.Engine.Dictionary;
using RapidFix.Engine.Fields;
using RapidFix.Fast;
using RapidFix.Fast.Codec;
using RapidFix.Fast.Framing;
using RapidFix.Fast.Messages;
using RapidFix.Fast.Templates;
using RapidFix.Matching;
using RapidFix.MatchingService;

namespace RapidFix.TradeDriver;

/// <summary>
/// The FAST-encoded form of a set (generate --fast): messages.fast, one FAST 1.1 message per trade message in send
/// order, each behind a 4-byte little-endian length, encoded with the templates of templates.xml (written beside it:
/// the four inbound messages with the fields the matcher reads, and the sender's CompID 49). Each message is copied
/// field by field from its FIX form, with the type its template gives the field. A tool: allocates freely.
/// </summary>
internal sealed class FastTradeFile : IDisposable
{
    public const string MessagesFileName = "messages.fast";
    public const string TemplatesFileName = "templates.xml";
    public const FastFraming Framing = FastFraming.LengthPrefixLittleEndian;

    private readonly FastTemplateRegistry _registry;
    private readonly FastEncoder _encoder;
    private readonly FastMessage _built = new();
    private readonly FixMessage _view = new();
    private readonly DataDictionary _dictionary = StandardDictionaries.Load("FIX44");
    private readonly byte[] _buffer = new byte[16 << 10];
    private readonly Stream _file;

    private FastTradeFile(string directory)
    {
        string templates = Path.Combine(AppContext.BaseDirectory, "trade-templates.xml");
        File.Copy(templates, Path.Combine(directory, TemplatesFileName), overwrite: true);
        _registry = FastTemplateLoader.LoadFile(templates);
        _encoder = new FastEncoder(_registry);
        _file = new FileStream(Path.Combine(directory, MessagesFileName), FileMode.Create, FileAccess.Write, FileShare.Read, 1 << 20);
    }

    /// <summary>Starts messages.fast (and writes templates.xml) in <paramref name="directory"/>.</summary>
    public static FastTradeFile Create(string directory) => new(directory);

    /// <summary>The template id of a message kind (1 NOE, 2 ALC, 3 NPR, 4 SET).</summary>
    public static uint TemplateOf(ReadOnlySpan<byte> msgType) => MessageReader.KindOf(msgType) switch
    {
        MessageKind.Noe => 1u,
        MessageKind.Alc => 2u,
        MessageKind.Npr => 3u,
        _ => 4u,
    };

    /// <summary>Encodes one message and appends it.</summary>
    public void Write(TradeMessages.Message message)
    {
        var fix = TradeMessages.Complete(message, "MATCH", 2);
        if (_view.Parse(fix, 0, fix.Length, _dictionary) != FixParseError.None)
        {
            throw new InvalidDataException($"a generated {message.MsgType} does not parse: {message.Id}");
        }

        var template = _registry[TemplateOf(_view.MsgType)];
        _built.Begin(template);
        _built.SetBytes(FieldScope.Message, 49, Encoding.ASCII.GetBytes(message.Sender));
        Copy(_view, FieldScope.Message, _built, FieldScope.Message, template.Body.ScopeFields);
        var encoded = _encoder.Encode(_built, _buffer.AsSpan(4));
        if (!encoded.Ok)
        {
            throw new InvalidDataException($"FAST encoding of {message.Id} failed: {encoded.Error} at {encoded.Offset}");
        }

        FastFrameWriter.WriteHeader(Framing, _buffer, encoded.Length);
        _file.Write(_buffer, 0, 4 + encoded.Length);
    }

    /// <summary>
    /// Reads a FAST-encoded set: each decoded message in turn (the same slot, valid until the next) with its sender.
    /// </summary>
    public static IEnumerable<(string Sender, FastMessage Message)> Read(string directory)
    {
        var registry = FastTemplateLoader.LoadFile(Path.Combine(directory, TemplatesFileName));
        var decoder = new FastDecoder(registry);
        var message = new FastMessage();
        byte[] data = File.ReadAllBytes(Path.Combine(directory, MessagesFileName));
        int position = 0;
        while (position < data.Length)
        {
            var (result, next) = DecodeAt(data, position, decoder, message);
            if (!result.Ok)
            {
                throw new InvalidDataException($"{MessagesFileName}: the message at byte {position} does not decode: {result.Error} at {result.Offset}");
            }

            position = next;
            message.TryGetText(FieldScope.Message, 49, out var sender);
            yield return (Encoding.ASCII.GetString(sender), message);
        }
    }

    // One frame (a ref struct reader cannot live across the iterator's yields).
    private static (FastResult Result, int Next) DecodeAt(byte[] data, int position, FastDecoder decoder, FastMessage message)
    {
        var reader = new FastStreamReader(data.AsSpan(position), Framing);
        var result = reader.ReadNext(decoder, message);
        return (result, position + reader.Position);
    }

    public void Dispose() => _file.Dispose();

    /// <summary>Sets every template field the FIX message has, with the FAST type the template gives it.</summary>
    private static void Copy<T>(T fix, FieldScope from, FastMessage fast, FieldScope to, IReadOnlyList<FastField> fields)
        where T : IFieldAccessor
    {
        foreach (var field in fields)
        {
            int tag = field.Type == FastFieldType.Sequence && field.Tag == 0 ? field.Length!.Tag : field.Tag;
            if (tag is 35 or 49 || !fix.Contains(from, tag))
            {
                continue;
            }

            switch (field.Type)
            {
                case FastFieldType.Sequence:
                    int count = fix.GetGroupCount(from, tag);
                    var first = fast.SetSequence(to, tag, count);
                    for (int i = 0; i < count; i++)
                    {
                        fix.TryGetGroupEntry(from, tag, i, out var entry);
                        Copy(fix, entry, fast, new FieldScope(first.Id + i), field.Body!.ScopeFields);
                    }

                    break;
                case FastFieldType.Decimal:
                    fix.TryGetDecimal(from, tag, out var d);
                    fast.SetDecimal(to, tag, d);
                    break;
                case FastFieldType.UInt32:
                    fix.TryGetLong(from, tag, out long n);
                    fast.SetInteger(to, tag, n);
                    break;
                default:
                    fix.TryGetText(from, tag, out var text);
                    fast.SetBytes(to, tag, text);
                    break;
            }
        }
    }
}
