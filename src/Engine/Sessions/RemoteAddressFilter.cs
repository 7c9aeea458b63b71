using System.Net;

namespace RapidFix.Engine.Sessions;

/// <summary>
/// The source addresses a session accepts Logons from (setting AllowedRemoteAddresses): single addresses and CIDR
/// ranges, IPv4 and IPv6. Parsed once at startup; <see cref="Allows"/> allocates nothing. An IPv4 peer reached over
/// a dual-stack socket (::ffff:a.b.c.d) matches the IPv4 entries.
/// </summary>
public sealed class RemoteAddressFilter
{
    private readonly Range[] _ranges;

    private RemoteAddressFilter(Range[] ranges, string text)
    {
        _ranges = ranges;
        Text = text;
    }

    /// <summary>The list as configured (for log lines and errors).</summary>
    public string Text { get; }

    /// <summary>
    /// Parses "10.1.0.0/16, 192.0.2.7, 2001:db8::/32". Throws <see cref="FormatException"/> naming the entry that
    /// is not an address, or whose prefix length does not fit its family.
    /// </summary>
    public static RemoteAddressFilter Parse(string text)
    {
        ArgumentNullException.ThrowIfNull(text);
        var ranges = new List<Range>();
        foreach (string raw in text.Split(',', StringSplitOptions.TrimEntries | StringSplitOptions.RemoveEmptyEntries))
        {
            int slash = raw.IndexOf('/');
            string addressText = slash < 0 ? raw : raw[..slash];
            if (!IPAddress.TryParse(addressText, out var address))
            {
                throw new FormatException($"'{raw}' is not an IP address or CIDR range");
            }

            if (address.IsIPv4MappedToIPv6)
            {
                address = address.MapToIPv4();
            }

            byte[] bytes = address.GetAddressBytes();
            int prefix = bytes.Length * 8;
            if (slash >= 0 && (!int.TryParse(raw.AsSpan(slash + 1), System.Globalization.NumberStyles.None, System.Globalization.CultureInfo.InvariantCulture, out prefix) || prefix > bytes.Length * 8))
            {
                throw new FormatException($"'{raw}': the prefix length must be 0 to {bytes.Length * 8}");
            }

            ranges.Add(new Range(bytes, prefix));
        }

        if (ranges.Count == 0)
        {
            throw new FormatException("the list names no address");
        }

        return new RemoteAddressFilter([.. ranges], text);
    }

    /// <summary>True when <paramref name="peer"/> is an IP endpoint inside one of the ranges (an unknown peer is not).</summary>
    public bool Allows(EndPoint? peer)
    {
        if (peer is not IPEndPoint ip)
        {
            return false;
        }

        var address = ip.Address;
        Span<byte> bytes = stackalloc byte[16];
        if (!address.TryWriteBytes(bytes, out int length))
        {
            return false;
        }

        if (address.IsIPv4MappedToIPv6)
        {
            bytes.Slice(12, 4).CopyTo(bytes);
            length = 4;
        }

        foreach (var range in _ranges)
        {
            if (range.Contains(bytes.Slice(0, length)))
            {
                return true;
            }
        }

        return false;
    }

    private readonly struct Range
    {
        private readonly byte[] _network;
        private readonly int _prefix;

        public Range(byte[] network, int prefix)
        {
            _network = network;
            _prefix = prefix;
        }

        public bool Contains(ReadOnlySpan<byte> address)
        {
            if (address.Length != _network.Length)
            {
                return false;
            }

            int whole = _prefix / 8;
            if (!address.Slice(0, whole).SequenceEqual(_network.AsSpan(0, whole)))
            {
                return false;
            }

            int rest = _prefix % 8;
            if (rest == 0)
            {
                return true;
            }

            int mask = 0xFF << (8 - rest) & 0xFF;
            return (address[whole] & mask) == (_network[whole] & mask);
        }
    }
}
