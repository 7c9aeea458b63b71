using RapidFix.AcceptanceRunner.Scripts;

namespace RapidFix.AcceptanceRunner.Tests;

public sealed class MessageComparerTests
{
    private const string Expected = "8=FIX.4.2|9=61|35=A|34=1|49=ISLD|52=00000000-00:00:00.000|56=TW|98=0|108=30|10=0|";

    private static string? Compare(string expected, string received) =>
        MessageComparer.FirstDifference(expected.Replace('|', FixTemplate.Soh), received.Replace('|', FixTemplate.Soh));

    [Fact]
    public void Identical_fields_with_real_time_and_checksum_match()
    {
        Assert.Null(Compare(Expected, "8=FIX.4.2|9=61|35=A|34=1|49=ISLD|52=20251121-21:07:10.192|56=TW|98=0|108=30|10=143|"));
    }

    [Theory]
    [InlineData("8=FIX.4.2|9=61|35=A|34=2|49=ISLD|52=20251121-21:07:10.192|56=TW|98=0|108=30|10=143|", "field 34: expected '1' but received '2'")]
    [InlineData("8=FIX.4.2|9=62|35=A|34=1|49=ISLD|52=20251121-21:07:10.192|56=TW|98=0|108=30|10=143|", "field 9: expected '61' but received '62'")]
    [InlineData("8=FIX.4.2|9=61|35=A|49=ISLD|34=1|52=20251121-21:07:10.192|56=TW|98=0|108=30|10=143|", "field 4: expected tag 34 but received tag 49")]
    [InlineData("8=FIX.4.2|9=61|35=A|34=1|49=ISLD|52=20251121-21:07:10.192|56=TW|98=0|10=143|", "field 9: expected tag 108 but received tag 10")]
    [InlineData("8=FIX.4.2|9=61|35=A|34=1|49=ISLD|52=20251121-21:07:10.192|56=TW|98=0|108=30|10=143|58=x|", "field 11: received extra field 58=x")]
    [InlineData("8=FIX.4.2|9=61|35=A|34=1|49=ISLD|52=20251121-21:07:10.|56=TW|98=0|108=30|10=143|", "field 52: '20251121-21:07:10.' does not have the expected shape (yyyyMMdd-HH:mm:ss[.fff...])")]
    [InlineData("8=FIX.4.2|9=61|35=A|34=1|49=ISLD|52=2025-11-21 21:07|56=TW|98=0|108=30|10=143|", "field 52:")]
    [InlineData("8=FIX.4.2|9=61|35=A|34=1|49=ISLD|52=20251121-21:07:10.192|56=TW|98=0|108=30|10=43|", "field 10: '43' does not have the expected shape (three digits)")]
    public void The_first_difference_is_reported(string received, string difference)
    {
        string? reason = Compare(Expected, received);

        Assert.NotNull(reason);
        Assert.StartsWith(difference, reason, StringComparison.Ordinal);
    }

    [Fact]
    public void A_message_that_ends_early_names_the_missing_tag()
    {
        Assert.Equal("field 3: expected tag 35 but the message ended", Compare("8=FIX.4.2|9=5|35=0|", "8=FIX.4.2|9=5|"));
    }

    [Fact]
    public void Other_pattern_fields_check_shape_only()
    {
        string expected = "8=FIX.4.2|35=D|60=00000000-00:00:00|122=00000000-00:00:00.000|42=0|52=0|";

        Assert.Null(Compare(expected, "8=FIX.4.2|35=D|60=20251121-21:07:10|122=20251121-21:07:09.001|42=20251121-21:07:10.5|52=20251121-21:07:10.123456|"));
        // Any precision is accepted (the scripts write ":00" and ":00.000" for the same output); the shape is not.
        Assert.Null(Compare(expected, "8=FIX.4.2|35=D|60=20251121-21:07:10.000|122=20251121-21:07:09|42=20251121-21:07:10|52=20251121-21:07:10|"));
        Assert.StartsWith("field 60:", Compare(expected, "8=FIX.4.2|35=D|60=2025-11-21T21:07:10|122=20251121-21:07:09.001|42=20251121-21:07:10|52=20251121-21:07:10|"), StringComparison.Ordinal);
        Assert.StartsWith("field 122:", Compare(expected, "8=FIX.4.2|35=D|60=20251121-21:07:10|122=20251121-21:07:09.|42=20251121-21:07:10|52=20251121-21:07:10|"), StringComparison.Ordinal);
        Assert.StartsWith("field 42:", Compare(expected, "8=FIX.4.2|35=D|60=20251121-21:07:10|122=20251121-21:07:09.001|42=yesterday|52=20251121-21:07:10|"), StringComparison.Ordinal);
    }

    [Fact]
    public void Fields_outside_the_pattern_list_compare_exactly_even_if_they_look_like_times()
    {
        Assert.StartsWith("field 126:", Compare("8=FIX.4.2|126=00000000-00:00:00|", "8=FIX.4.2|126=20251121-21:07:10|"), StringComparison.Ordinal);
    }
}
