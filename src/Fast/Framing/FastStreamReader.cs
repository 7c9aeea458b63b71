using System.Buffers.Binary;
using System.Runtime.CompilerServices;
using RapidFix.Fast.Codec;
using RapidFix.Fast.Messages;

namespace RapidFix.Fast.Framing;

/// <summary>
/// Reads the messages of a framed buffer one by one (a ref struct over the bytes, like Utf8JsonReader). Offsets in
/// results are from the start of the buffer. After an error inside a length-delimited frame the reader skips to
/// the next frame, so one bad message does not end the stream; with raw or CME framing it stops (the end of the
/// bad message cannot be known).
/// </summary>
public ref struct FastStreamReader
{
    private readonly ReadOnlySpan<byte> _data;
    private readonly FastFraming _framing;
    private int _pos;
    private int _frameEnd;

    /// <summary>A reader of the messages in <paramref name="data"/>, framed as <paramref name="framing"/> says.</summary>
    public FastStreamReader(ReadOnlySpan<byte> data, FastFraming framing)
    {
        _data = data;
        _framing = framing;
        _pos = 0;
        _frameEnd = 0;
    }

    /// <summary>Offset of the next byte to read.</summary>
    public readonly int Position => _pos;

    /// <summary>True when every byte has been read.</summary>
    public readonly bool End => _pos >= _data.Length;

    /// <summary>The sequence number of the last CME packet read.</summary>
    public uint SequenceNumber { get; private set; }

    /// <summary>The sub-channel of the last CME packet read.</summary>
    public byte SubChannel { get; private set; }

    /// <summary>Offset where the last message read started.</summary>
    public int MessageStart { get; private set; }

    /// <summary>Decodes the next message into <paramref name="message"/>.</summary>
    public FastResult ReadNext(FastDecoder decoder, FastMessage message)
    {
        var writer = new FastMessageWriter(message);
        return ReadNext(decoder, ref writer);
    }

    /// <summary>Decodes the next message, calling <paramref name="handler"/> for its fields.</summary>
    public FastResult ReadNext<THandler>(FastDecoder decoder, ref THandler handler)
        where THandler : struct, IFastDecodeHandler
    {
        if (_pos >= _frameEnd && !TryNextLittleEndianFrame())
        {
            var header = ReadHeader();
            if (!header.Ok)
            {
                _pos = _data.Length; // the framing itself is broken: nothing after it can be trusted
                _frameEnd = _pos;
                return header;
            }
        }

        MessageStart = _pos;
        var r = decoder.Decode(_data.Slice(_pos, _frameEnd - _pos), ref handler);
        if (!r.Ok)
        {
            var error = new FastResult(r.Error, _pos + r.Offset, r.TemplateId);
            bool lengthDelimited = _framing is FastFraming.LengthPrefixLittleEndian or FastFraming.LengthPrefixBigEndian or FastFraming.StopBitBlock;
            _pos = lengthDelimited ? _frameEnd : _data.Length;
            _frameEnd = Math.Max(_frameEnd, _pos);
            return error;
        }

        _pos += r.Length;
        if (_framing == FastFraming.CmePreamble)
        {
            _frameEnd = _pos; // one message per packet
        }

        return new FastResult(FastErrorCode.None, _pos, r.TemplateId);
    }

    /// <summary>
    /// The common case inline: a well-formed little-endian length prefix (anything else, and every error, is
    /// <see cref="ReadHeader"/>'s).
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private bool TryNextLittleEndianFrame()
    {
        int pos = _pos;
        if (_framing != FastFraming.LengthPrefixLittleEndian || _data.Length - pos < 4)
        {
            return false;
        }

        uint length = BinaryPrimitives.ReadUInt32LittleEndian(_data.Slice(pos, 4));
        if (length == 0 || length > (uint)(_data.Length - pos - 4))
        {
            return false;
        }

        _pos = pos + 4;
        _frameEnd = _pos + (int)length;
        return true;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private FastResult ReadHeader()
    {
        int remaining = _data.Length - _pos;
        switch (_framing)
        {
            case FastFraming.Raw:
                _frameEnd = _data.Length;
                return default;

            case FastFraming.LengthPrefixLittleEndian:
            case FastFraming.LengthPrefixBigEndian:
                {
                    if (remaining < 4)
                    {
                        return new FastResult(FastErrorCode.UnexpectedEnd, _pos, 0);
                    }

                    var prefix = _data.Slice(_pos, 4);
                    uint length = _framing == FastFraming.LengthPrefixLittleEndian ? BinaryPrimitives.ReadUInt32LittleEndian(prefix) : BinaryPrimitives.ReadUInt32BigEndian(prefix);
                    return StartFrame(4, length);
                }

            case FastFraming.StopBitBlock:
                {
                    uint length = 0;
                    int n = 0;
                    while (true)
                    {
                        if (n >= remaining)
                        {
                            return new FastResult(FastErrorCode.UnexpectedEnd, _pos, 0);
                        }

                        if (n == 5)
                        {
                            return new FastResult(FastErrorCode.BadFrame, _pos, 0);
                        }

                        byte b = _data[_pos + n++];
                        length = (length << 7) | (uint)(b & 0x7F);
                        if (b >= 0x80)
                        {
                            break;
                        }
                    }

                    if (length == 0)
                    {
                        return new FastResult(FastErrorCode.D12, _pos, 0);
                    }

                    return StartFrame(n, length);
                }

            default:
                if (remaining < 5)
                {
                    return new FastResult(FastErrorCode.UnexpectedEnd, _pos, 0);
                }

                SequenceNumber = BinaryPrimitives.ReadUInt32BigEndian(_data.Slice(_pos, 4));
                SubChannel = _data[_pos + 4];
                _pos += 5;
                _frameEnd = _data.Length;
                return default;
        }
    }

    private FastResult StartFrame(int headerSize, uint length)
    {
        if (length == 0 && _framing != FastFraming.StopBitBlock)
        {
            return new FastResult(FastErrorCode.BadFrame, _pos, 0);
        }

        if (length > (uint)(_data.Length - _pos - headerSize))
        {
            return new FastResult(FastErrorCode.UnexpectedEnd, _pos, 0);
        }

        _pos += headerSize;
        _frameEnd = _pos + (int)length;
        return default;
    }
}
