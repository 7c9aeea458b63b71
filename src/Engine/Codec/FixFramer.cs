using System.Buffers;
using System.Runtime.CompilerServices;

namespace RapidFix.Engine.Codec;

/// <summary>
/// Finds whole FIX messages in a byte stream: locates "8=FIX", reads BodyLength, checks that the CheckSum field sits
/// exactly where BodyLength says and that the sum matches. Garbage before a BeginString is skipped and counted;
/// partial messages wait for more bytes; nothing is ever read past the configured maximum message size.
/// </summary>
/// <remarks>
/// A garbled message (wrong BodyLength) is dropped through the first CheckSum field at or after its claimed end,
/// as QuickFIX does, so a message following it is not mistaken for part of it twice. The framer keeps no state
/// between calls except counters and a scratch buffer for messages split across the segments of a
/// <see cref="ReadOnlySequence{T}"/> (the rare, slow path).
/// </remarks>
public sealed class FixFramer
{
    /// <summary>The longest BeginString value we accept ("FIXT.1.1" is 8 bytes; room for custom ones).</summary>
    private const int MaxBeginStringLength = 16;

    /// <summary>"10=" plus at most three digits plus SOH.</summary>
    private const int MaxTrailerLength = 7;

    private static ReadOnlySpan<byte> BeginStringPrefix => "8=FIX"u8;

    private readonly byte[] _scratch;
    private long _skippedBytes;
    private long _garbledMessages;
    private long _badChecksums;
    private long _messages;

    /// <param name="maxMessageSize">Largest message accepted, in bytes (header and trailer included).</param>
    public FixFramer(int maxMessageSize = 64 * 1024)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(maxMessageSize, 32);
        MaxMessageSize = maxMessageSize;
        _scratch = new byte[maxMessageSize + MaxTrailerLength + 64];
    }

    /// <summary>Largest message accepted, in bytes.</summary>
    public int MaxMessageSize { get; }

    /// <summary>Garbage bytes skipped before a BeginString, since creation.</summary>
    public long SkippedBytes => _skippedBytes;

    /// <summary>Garbled frames dropped, since creation.</summary>
    public long GarbledMessages => _garbledMessages;

    /// <summary>Frames dropped for a bad CheckSum, since creation.</summary>
    public long BadChecksums => _badChecksums;

    /// <summary>Complete messages found, since creation.</summary>
    public long Messages => _messages;

    /// <summary>Frames the first message in <paramref name="buffer"/>.</summary>
    public FrameResult Frame(ReadOnlySpan<byte> buffer)
    {
        var result = FrameCore(buffer, MaxMessageSize);
        Count(result);
        return result;
    }

    /// <summary>
    /// Frames the first message in a possibly multi-segment sequence. When the message lies in the first segment
    /// this is as fast as the span overload; otherwise the front of the sequence is copied once into scratch.
    /// </summary>
    /// <param name="buffer">The bytes received so far.</param>
    /// <param name="contiguous">The message bytes when the result is <see cref="FrameStatus.Complete"/>: a slice of the
    /// first segment or of the framer's scratch buffer, valid until the next call.</param>
    public FrameResult Frame(in ReadOnlySequence<byte> buffer, out ReadOnlySpan<byte> contiguous)
    {
        contiguous = default;
        ReadOnlySpan<byte> first = buffer.FirstSpan;
        var result = FrameCore(first, MaxMessageSize);
        if (result.Status != FrameStatus.NeedMoreData || buffer.IsSingleSegment)
        {
            Count(result);
            if (result.Status == FrameStatus.Complete)
            {
                contiguous = first.Slice(result.Start, result.Length);
            }

            return result;
        }

        // Slow path: the message (or its header) crosses a segment boundary.
        int take = (int)Math.Min(buffer.Length, _scratch.Length);
        buffer.Slice(0, take).CopyTo(_scratch);
        var flat = new ReadOnlySpan<byte>(_scratch, 0, take);
        result = FrameCore(flat, MaxMessageSize);
        Count(result);
        if (result.Status == FrameStatus.Complete)
        {
            contiguous = flat.Slice(result.Start, result.Length);
        }

        return result;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private void Count(in FrameResult result)
    {
        _skippedBytes += result.SkippedBytes;
        switch (result.Status)
        {
            case FrameStatus.Complete:
                _messages++;
                break;
            case FrameStatus.Garbled:
                _garbledMessages++;
                break;
            case FrameStatus.BadChecksum:
                _badChecksums++;
                break;
        }
    }

    /// <summary>The framing algorithm, stateless. Internal for tests.</summary>
    internal static FrameResult FrameCore(ReadOnlySpan<byte> buffer, int maxMessageSize)
    {
        // A message usually starts the buffer: check that before the general search.
        int start = buffer.StartsWith(BeginStringPrefix) ? 0 : buffer.IndexOf(BeginStringPrefix);
        if (start < 0)
        {
            // Keep a tail that could be the beginning of "8=FIX" split across reads.
            int keep = TrailingPrefixLength(buffer);
            int drop = buffer.Length - keep;
            return new FrameResult(FrameStatus.NeedMoreData, 0, 0, drop, drop);
        }

        var rest = buffer.Slice(start);

        // 8=<BeginString><SOH>
        int beginEnd = rest.Slice(2, Math.Min(rest.Length - 2, MaxBeginStringLength + 1)).IndexOf((byte)1);
        if (beginEnd < 0)
        {
            return rest.Length - 2 > MaxBeginStringLength
                ? Garbled(start, FrameError.InvalidBeginString)
                : NeedMore(start, 0);
        }

        int pos = 2 + beginEnd + 1;

        // 9=<digits><SOH>
        if (rest.Length < pos + 2)
        {
            return NeedMore(start, 0);
        }

        if (rest[pos] != (byte)'9' || rest[pos + 1] != (byte)'=')
        {
            return Garbled(start, FrameError.MissingBodyLength);
        }

        pos += 2;
        int bodyLength = 0;
        int digits = 0;
        while (true)
        {
            if (pos >= rest.Length)
            {
                return NeedMore(start, 0);
            }

            byte c = rest[pos];
            if (c == 1)
            {
                break;
            }

            uint d = (uint)(c - '0');
            if (d > 9 || ++digits > 9)
            {
                return Garbled(start, FrameError.InvalidBodyLength);
            }

            bodyLength = (bodyLength * 10) + (int)d;
            pos++;
        }

        if (digits == 0)
        {
            return Garbled(start, FrameError.InvalidBodyLength);
        }

        int bodyStart = pos + 1;
        if (bodyLength > maxMessageSize - bodyStart - MaxTrailerLength)
        {
            return Garbled(start, FrameError.MessageTooLarge);
        }

        int bodyEnd = bodyStart + bodyLength;

        // 10=<1..3 digits><SOH> exactly at the end of the body.
        if (rest.Length < bodyEnd + 4)
        {
            return NeedMore(start, start + bodyEnd + MaxTrailerLength);
        }

        if (rest[bodyEnd] != (byte)'1' || rest[bodyEnd + 1] != (byte)'0' || rest[bodyEnd + 2] != (byte)'=' || (bodyLength > 0 && rest[bodyEnd - 1] != 1))
        {
            return DropThroughNextTrailer(rest, start, bodyEnd, maxMessageSize);
        }

        int received = 0;
        int p = bodyEnd + 3;
        int checksumDigits = 0;
        while (true)
        {
            if (p >= rest.Length)
            {
                return NeedMore(start, start + bodyEnd + MaxTrailerLength);
            }

            byte c = rest[p];
            if (c == 1)
            {
                break;
            }

            uint d = (uint)(c - '0');
            if (d > 9 || ++checksumDigits > 3)
            {
                return DropThroughNextTrailer(rest, start, bodyEnd + 1, maxMessageSize, FrameError.InvalidCheckSumField);
            }

            received = (received * 10) + (int)d;
            p++;
        }

        int length = p + 1;
        if (checksumDigits == 0)
        {
            return new FrameResult(FrameStatus.Garbled, start, length, start + length, start, FrameError.InvalidCheckSumField);
        }

        int computed = FixChecksum.Compute(rest.Slice(0, bodyEnd));
        return computed == received
            ? new FrameResult(FrameStatus.Complete, start, length, start + length, start)
            : new FrameResult(FrameStatus.BadChecksum, start, length, start + length, start);
    }

    private static FrameResult NeedMore(int start, int requiredLength) =>
        new(FrameStatus.NeedMoreData, start, 0, start, start, FrameError.None, requiredLength);

    /// <summary>Drops the "8=" so the next call resynchronises at the following BeginString.</summary>
    private static FrameResult Garbled(int start, FrameError error) =>
        new(FrameStatus.Garbled, start, 2, start + 2, start, error);

    /// <summary>
    /// BodyLength does not lead to a CheckSum field: drop everything through the first "&lt;SOH&gt;10=...&lt;SOH&gt;" at or
    /// after the claimed end (this message's own trailer if BodyLength was too small, the next one's if too large).
    /// </summary>
    private static FrameResult DropThroughNextTrailer(ReadOnlySpan<byte> rest, int start, int from, int maxMessageSize, FrameError error = FrameError.BodyLengthMismatch)
    {
        int searchFrom = Math.Max(from - 1, 0);
        int limit = Math.Min(rest.Length, maxMessageSize + MaxTrailerLength);
        if (searchFrom < limit)
        {
            var window = rest.Slice(searchFrom, limit - searchFrom);
            int t = window.IndexOf("\u000110="u8);
            if (t >= 0)
            {
                int soh = window.Slice(t + 4).IndexOf((byte)1);
                if (soh >= 0)
                {
                    int length = searchFrom + t + 4 + soh + 1;
                    return new FrameResult(FrameStatus.Garbled, start, length, start + length, start, error);
                }
            }
        }

        if (rest.Length >= maxMessageSize + MaxTrailerLength)
        {
            // No trailer within the largest message we accept: give up on this BeginString.
            return Garbled(start, error);
        }

        return NeedMore(start, 0);
    }

    /// <summary>Length of the longest suffix of <paramref name="buffer"/> that is a proper prefix of "8=FIX".</summary>
    private static int TrailingPrefixLength(ReadOnlySpan<byte> buffer)
    {
        for (int k = Math.Min(BeginStringPrefix.Length - 1, buffer.Length); k > 0; k--)
        {
            if (buffer.Slice(buffer.Length - k).SequenceEqual(BeginStringPrefix.Slice(0, k)))
            {
                return k;
            }
        }

        return 0;
    }
}
