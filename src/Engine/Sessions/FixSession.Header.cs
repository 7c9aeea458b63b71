using System.Runtime.CompilerServices;
using RapidFix.Engine.Fields;

namespace RapidFix.Engine.Sessions;

/// <summary>
/// The standard header, in ascending tag order. The fields that never change for the session (the CompIDs, SubIDs
/// and LocationIDs) are encoded once, at construction, into three blocks of consecutive tags (49-50, 56-57,
/// 142-143: no other field can fall inside one), which each message copies in their place.
/// </summary>
public sealed partial class FixSession
{
    // The session's unchanging header fields, encoded once in the constructor.
    private readonly HeaderBlocks _headerBlocks;

    /// <summary>Starts a message in the output buffer: 8, 9 (reserved), 35, then the header fields in ascending tag order.</summary>
    private void Begin(ReadOnlySpan<byte> msgType, int seqNum, HeaderOptions header, ReadOnlySpan<byte> extras)
    {
        _encoder.Begin(_output, 0, _output.Length, _options.BeginStringBytes, msgType);
        Span<HeaderItem> items = stackalloc HeaderItem[32];
        int count = 0;
        var o = _options;
        items[count++] = new HeaderItem(Tags.MsgSeqNum, HeaderKind.SeqNum);
        if (header.PossDup)
        {
            items[count++] = new HeaderItem(Tags.PossDupFlag, HeaderKind.PossDup);
        }

        var blocks = _headerBlocks;
        items[count++] = new HeaderItem(Tags.SenderCompID, HeaderKind.Sender);
        items[count++] = new HeaderItem(Tags.SendingTime, HeaderKind.SendingTime);
        items[count++] = new HeaderItem(Tags.TargetCompID, HeaderKind.Target);

        if (header.OrigSendingTimeNanos != 0)
        {
            items[count++] = new HeaderItem(Tags.OrigSendingTime, HeaderKind.OrigSendingTime);
        }

        if (blocks.Location.Length > 0)
        {
            items[count++] = new HeaderItem(blocks.LocationTag, HeaderKind.Location);
        }

        if (o.EnableLastMsgSeqNumProcessed)
        {
            items[count++] = new HeaderItem(Tags.LastMsgSeqNumProcessed, HeaderKind.LastProcessed);
        }

        // Extra fields: "tag=value<SOH>" each; ones the session writes itself are ignored.
        int pos = 0;
        while (pos < extras.Length && count < items.Length)
        {
            int eq = extras.Slice(pos).IndexOf((byte)'=');
            int soh = extras.Slice(pos).IndexOf((byte)1);
            if (eq <= 0 || soh < eq)
            {
                break;
            }

            if (FixValue.TryParseNonNegativeInt(extras.Slice(pos, eq), out int tag) && !IsSessionHeaderTag(tag))
            {
                items[count++] = new HeaderItem(tag, HeaderKind.Extra, pos + eq + 1, soh - eq - 1);
            }

            pos += soh + 1;
        }

        // Insertion sort: a dozen items at most.
        for (int i = 1; i < count; i++)
        {
            var item = items[i];
            int j = i - 1;
            while (j >= 0 && items[j].Tag > item.Tag)
            {
                items[j + 1] = items[j];
                j--;
            }

            items[j + 1] = item;
        }

        long sendingTime = header.SendingTimeNanos != 0 ? header.SendingTimeNanos : _clock.UtcNowNanos;
        var precision = o.Version >= 42 ? o.TimeStampPrecision : FixTimePrecision.Seconds;
        for (int i = 0; i < count; i++)
        {
            ref var item = ref items[i];
            switch (item.Kind)
            {
                case HeaderKind.SeqNum: _encoder.Add(Tags.MsgSeqNum, seqNum); break;
                case HeaderKind.PossDup: _encoder.AddChar(Tags.PossDupFlag, (byte)'Y'); break;
                case HeaderKind.Sender: _encoder.AddRaw(blocks.Sender); break;
                case HeaderKind.SendingTime: _encoder.AddTimestamp(Tags.SendingTime, sendingTime, precision); break;
                case HeaderKind.Target: _encoder.AddRaw(blocks.Target); break;
                case HeaderKind.OrigSendingTime: _encoder.AddTimestamp(Tags.OrigSendingTime, header.OrigSendingTimeNanos, precision); break;
                case HeaderKind.Location: _encoder.AddRaw(blocks.Location); break;
                case HeaderKind.LastProcessed:
                    _encoder.Add(Tags.LastMsgSeqNumProcessed, header.LastMsgSeqNumProcessed > 0 ? header.LastMsgSeqNumProcessed : _store.NextTargetMsgSeqNum - 1);
                    break;
                default: _encoder.Add(item.Tag, extras.Slice(item.Offset, item.Length)); break;
            }
        }
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static bool IsSessionHeaderTag(int tag) => tag is Tags.BeginString or Tags.BodyLength or Tags.MsgType or Tags.MsgSeqNum
        or Tags.SenderCompID or Tags.SenderSubID or Tags.SendingTime or Tags.TargetCompID or Tags.TargetSubID
        or Tags.SenderLocationID or Tags.TargetLocationID or Tags.PossDupFlag or Tags.OrigSendingTime
        or Tags.LastMsgSeqNumProcessed or Tags.CheckSum;

    /// <summary>How the next message's header differs from the plain one.</summary>
    private struct HeaderOptions
    {
        public bool PossDup;
        public long OrigSendingTimeNanos;
        public long SendingTimeNanos;
        public int LastMsgSeqNumProcessed;
    }

    private enum HeaderKind : byte
    {
        SeqNum,
        PossDup,
        Sender,
        SendingTime,
        Target,
        OrigSendingTime,
        Location,
        LastProcessed,
        Extra,
    }

    private readonly struct HeaderItem
    {
        public HeaderItem(int tag, HeaderKind kind, int offset = 0, int length = 0)
        {
            Tag = tag;
            Kind = kind;
            Offset = offset;
            Length = length;
        }

        public int Tag { get; }

        public HeaderKind Kind { get; }

        public int Offset { get; }

        public int Length { get; }
    }

    /// <summary>
    /// The header fields fixed by the session's identity, as "tag=value&lt;SOH&gt;" runs: SenderCompID and
    /// SenderSubID, TargetCompID and TargetSubID, SenderLocationID and TargetLocationID (each absent part left out).
    /// </summary>
    private sealed class HeaderBlocks
    {
        public HeaderBlocks(FixSessionOptions o)
        {
            Sender = Fields((Tags.SenderCompID, o.SenderCompId), (Tags.SenderSubID, o.SenderSubId));
            Target = Fields((Tags.TargetCompID, o.TargetCompId), (Tags.TargetSubID, o.TargetSubId));
            Location = Fields((Tags.SenderLocationID, o.SenderLocationId), (Tags.TargetLocationID, o.TargetLocationId));
            LocationTag = o.SenderLocationId.Length > 0 ? Tags.SenderLocationID : Tags.TargetLocationID;
        }

        public byte[] Sender { get; }

        public byte[] Target { get; }

        public byte[] Location { get; }

        /// <summary>The first tag of <see cref="Location"/> (where it sorts among the other header fields).</summary>
        public int LocationTag { get; }

        private static byte[] Fields((int Tag, byte[] Value) first, (int Tag, byte[] Value) second)
        {
            var bytes = new List<byte>();
            foreach (var (tag, value) in new[] { first, second })
            {
                // The CompID is always written (empty if unset, as before); the optional parts only when set.
                if (value.Length == 0 && tag is not (Tags.SenderCompID or Tags.TargetCompID))
                {
                    continue;
                }

                bytes.AddRange(System.Text.Encoding.ASCII.GetBytes(tag.ToString(System.Globalization.CultureInfo.InvariantCulture)));
                bytes.Add((byte)'=');
                bytes.AddRange(value);
                bytes.Add(1);
            }

            return [.. bytes];
        }
    }
}
