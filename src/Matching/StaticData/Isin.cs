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

        // Expand letters to two digits, then Luhn from the right: every second digit doubled, starting with the
        // one left of the check digit.
        Span<byte> digits = stackalloc byte[24];
        int n = 0;
        for (int i = 0; i < 12; i++)
        {
            byte c = isin[i];
            if (IsDigit(c))
            {
                digits[n++] = (byte)(c - '0');
            }
            else if (IsUpper(c) && i < 11)
            {
                int v = c - 'A' + 10;
                digits[n++] = (byte)(v / 10);
                digits[n++] = (byte)(v % 10);
            }
            else
            {
                return false;
            }
        }

        int sum = 0;
        bool twice = false;
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

        return sum % 10 == 0;
    }

    private static bool IsUpper(byte c) => c >= 'A' && c <= 'Z';

    private static bool IsDigit(byte c) => c >= '0' && c <= '9';
}
