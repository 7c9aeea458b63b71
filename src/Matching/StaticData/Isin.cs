namespace RapidFix.Matching.StaticData;

/// <summary>ISIN (ISO 6166) form and check digit.</summary>
public static class Isin
{
    /// <summary>
    /// True when <paramref name="isin"/> is two letters, nine letters or digits and a check digit that the Luhn
    /// algorithm over its digits (letters as 10..35) accepts.
    /// </summary>
    public static bool IsValid(ReadOnlySpan<byte> isin)
    {
        if (isin.Length != 12 || !IsUpper(isin[0]) || !IsUpper(isin[1]) || !IsDigit(isin[11]))
        {
            return false;
        }

        for (int i = 2; i < 11; i++)
        {
            if (!IsDigit(isin[i]) && !IsUpper(isin[i]))
            {
                return false;
            }
        }

        return isin[11] == CheckDigitOf(isin[..11]);
    }

    /// <summary>
    /// The check digit (an ASCII digit) of an ISIN's first eleven characters, upper-case letters or digits: what
    /// generators of valid ISINs append.
    /// </summary>
    public static byte CheckDigit(ReadOnlySpan<byte> first11)
    {
        if (first11.Length != 11)
        {
            ThrowNotEleven();
        }

        foreach (byte c in first11)
        {
            if (!IsDigit(c) && !IsUpper(c))
            {
                ThrowNotAlphanumeric();
            }
        }

        return CheckDigitOf(first11);
    }

    // Letters expand to two digits (A = 10 .. Z = 35), then Luhn from the right over the digits without the check
    // digit: the rightmost one is doubled (it sits left of the check digit), then every second one.
    private static byte CheckDigitOf(ReadOnlySpan<byte> first11)
    {
        Span<byte> digits = stackalloc byte[22];
        int n = 0;
        foreach (byte c in first11)
        {
            if (IsDigit(c))
            {
                digits[n++] = (byte)(c - '0');
            }
            else
            {
                int v = c - 'A' + 10;
                digits[n++] = (byte)(v / 10);
                digits[n++] = (byte)(v % 10);
            }
        }

        int sum = 0;
        bool twice = true;
        for (int i = n - 1; i >= 0; i--)
        {
            int d = digits[i];
            if (twice)
            {
                d *= 2;
                if (d > 9)
                {
                    d -= 9;
                }
            }

            sum += d;
            twice = !twice;
        }

        return (byte)('0' + ((10 - (sum % 10)) % 10));
    }

    private static void ThrowNotEleven() => throw new ArgumentException("an ISIN's check digit is computed from its first 11 characters", "first11");

    private static void ThrowNotAlphanumeric() => throw new ArgumentException("an ISIN's first 11 characters are upper-case letters or digits", "first11");

    private static bool IsUpper(byte c) => c >= 'A' && c <= 'Z';

    private static bool IsDigit(byte c) => c >= '0' && c <= '9';
}
