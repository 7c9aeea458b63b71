using System.Buffers.Text;
using System.CommandLine;
using RapidFix.Engine.Fields;
using RapidFix.Fast;
using RapidFix.Fast.Codec;
using RapidFix.Fast.Framing;
using RapidFix.Fast.Messages;
using RapidFix.Fast.Templates;

namespace RapidFix.Samples.FastDecode;

/// <summary>
/// fastdecode --templates file.xml [--framing raw|le32|be32|block|cme] [--soh] data-file (--help lists the options)
/// Prints one line per message, FIX tag=value fields separated by '|' (or SOH), then a summary line.
/// </summary>
public static class Program
{
    public static int Main(string[] args)
    {
        var templatesOption = new Option<FileInfo>("--templates") { Description = "FAST template file (FPL XML)", Required = true };
        var framingOption = new Option<string>("--framing") { Description = "how messages are framed in the file", DefaultValueFactory = _ => "raw" };
        framingOption.AcceptOnlyFromAmong("raw", "le32", "be32", "block", "cme");
        var sohOption = new Option<bool>("--soh") { Description = "separate fields with SOH instead of '|'" };
        var dataArgument = new Argument<FileInfo>("data-file") { Description = "the FAST-encoded file to decode" }.NotAnOption();
        var root = new RootCommand("RapidFix FastDecode: prints each message of a FAST file as FIX tag=value text, then a summary.")
        {
            templatesOption, framingOption, sohOption, dataArgument,
        };
        root.SetAction(parse => SampleCommand.Guarded("FastDecode", () => Decode(
            parse.GetValue(templatesOption)!.FullName, parse.GetValue(framingOption)!, parse.GetValue(dataArgument)!.FullName, parse.GetValue(sohOption) ? (byte)0x01 : (byte)'|')));
        return SampleCommand.Invoke(root, args);
    }

    private static int Decode(string templatesPath, string framingName, string dataPath, byte separator)
    {
        FastFraming framing = framingName switch
        {
            "le32" => FastFraming.LengthPrefixLittleEndian,
            "be32" => FastFraming.LengthPrefixBigEndian,
            "block" => FastFraming.StopBitBlock,
            "cme" => FastFraming.CmePreamble,
            _ => FastFraming.Raw,
        };

        FastTemplateRegistry templates;
        try
        {
            templates = FastTemplateLoader.LoadFile(templatesPath);
        }
        catch (FastTemplateException e)
        {
            Console.Error.WriteLine(e.Message);
            return 2;
        }
        catch (IOException e)
        {
            Console.Error.WriteLine($"cannot read templates: {e.Message}");
            return 2;
        }

        byte[] data;
        try
        {
            data = File.ReadAllBytes(dataPath);
        }
        catch (IOException e)
        {
            Console.Error.WriteLine($"cannot read data: {e.Message}");
            return 2;
        }

        using var stdout = Console.OpenStandardOutput();
        using var output = new BufferedStream(stdout, 1 << 16);
        var line = new LineWriter(output, separator);
        var decoder = new FastDecoder(templates);
        var message = new FastMessage();
        var reader = new FastStreamReader(data, framing);
        long decoded = 0;
        long errors = 0;
        FastResult firstError = default;
        while (!reader.End)
        {
            var r = reader.ReadNext(decoder, message);
            if (r.Ok)
            {
                decoded++;
                line.WriteMessage(message);
            }
            else
            {
                if (errors == 0)
                {
                    firstError = r;
                }

                errors++;
            }
        }

        output.Flush();
        string summary = $"decoded {decoded} messages, {errors} errors";
        if (errors > 0)
        {
            summary += $" (first: {firstError.Error.ToCodeString()} at offset {firstError.Offset})";
        }

        Console.Out.WriteLine(summary);
        return errors == 0 ? 0 : 1;
    }

    /// <summary>Writes messages as tag=value lines into a reused buffer.</summary>
    private sealed class LineWriter(Stream output, byte separator)
    {
        private readonly byte[] _buffer = new byte[1 << 20];
        private int _length;

        public void WriteMessage(FastMessage message)
        {
            _length = 0;
            if (message.Template is { } template && template.Body.IndexOfTag(35) < 0 && !message.MsgType.IsEmpty)
            {
                Field("35"u8, message.MsgType);
            }

            WriteScope(message, FieldScope.Message);
            if (_length > 0)
            {
                _length--; // trailing separator
            }

            Append("\n"u8);
            output.Write(_buffer, 0, _length);
        }

        private void WriteScope(FastMessage message, FieldScope scope)
        {
            var fields = message.GetFields(scope);
            for (int slot = 0; slot < fields.Length; slot++)
            {
                var field = fields[slot];
                var v = message.GetValue(scope, slot);
                if (!v.IsPresent || field.Type == FastFieldType.Group)
                {
                    continue;
                }

                if (field.Type == FastFieldType.TemplateReference)
                {
                    WriteScope(message, message.GetNestedScope(v));
                    continue;
                }

                Name(field);
                if (field.Type == FastFieldType.Sequence)
                {
                    int count = field.Tag != 0 ? message.GetGroupCount(scope, field.Tag) : 0;
                    Number(count);
                    Append([separator]);
                    for (int i = 0; i < count; i++)
                    {
                        WriteScope(message, message.GetNestedScope(v, i));
                    }

                    continue;
                }

                if (field.Tag != 0 && message.TryGetText(scope, field.Tag, out var text))
                {
                    Append(text);
                }
                else if (v.Kind == FastValueKind.Bytes)
                {
                    Append(message.GetBytes(v));
                }

                Append([separator]);
            }
        }

        private void Name(FastField field)
        {
            if (field.Tag != 0)
            {
                Number(field.Tag);
            }
            else
            {
                Append(System.Text.Encoding.UTF8.GetBytes(field.Name));
            }

            Append("="u8);
        }

        private void Field(ReadOnlySpan<byte> tag, ReadOnlySpan<byte> value)
        {
            Append(tag);
            Append("="u8);
            Append(value);
            Append([separator]);
        }

        private void Number(long value)
        {
            Utf8Formatter.TryFormat(value, _buffer.AsSpan(_length), out int n);
            _length += n;
        }

        private void Append(ReadOnlySpan<byte> bytes)
        {
            int n = Math.Min(bytes.Length, _buffer.Length - _length - 1);
            bytes.Slice(0, n).CopyTo(_buffer.AsSpan(_length));
            _length += n;
        }
    }
}
