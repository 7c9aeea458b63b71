using RapidFix.AcceptanceRunner.Scripts;

namespace RapidFix.AcceptanceRunner.Tests;

public sealed class FixTemplateTests
{
    private static string S(string text) => text.Replace('|', FixTemplate.Soh);

    [Fact]
    public void Missing_body_length_and_checksum_are_inserted()
    {
        // BodyLength 45 and CheckSum 205 computed independently of this code.
        Assert.Equal(
            S("8=FIX.4.2|9=45|35=0|34=2|49=TW|52=20240101-12:30:00|56=ISLD|10=205|"),
            FixTemplate.Complete(S("8=FIX.4.2|35=0|34=2|49=TW|52=20240101-12:30:00|56=ISLD|")));
    }

    [Fact]
    public void Body_length_and_checksum_that_are_present_are_sent_verbatim()
    {
        string garbled = S("8=FIX.4.2|9=52|35=0|34=2|4garbled9=TW|52=20240101-12:30:00|56=ISLD|10=0|");

        Assert.Equal(garbled, FixTemplate.Complete(garbled));
    }

    [Fact]
    public void A_9_equals_inside_a_data_field_is_not_taken_for_the_body_length()
    {
        // ReceiveXmlMessage: XmlData carries a FIX message of its own, "9=377" included.
        string completed = FixTemplate.Complete(S("8=FIX.4.4|35=n|34=2|212=14|213=<x>|9=377|</x>|"));

        Assert.StartsWith(S("8=FIX.4.4|9=36|35=n|"), completed, StringComparison.Ordinal);
    }

    [Fact]
    public void A_present_body_length_is_kept_and_only_the_checksum_is_added()
    {
        string completed = FixTemplate.Complete(S("8=FIX.4.2|9=999|35=0|"));

        Assert.Equal(S("8=FIX.4.2|9=999|35=0|10="), completed[..^4]);
        Assert.Equal((FixTemplate.Checksum(S("8=FIX.4.2|9=999|35=0|"))).ToString("000", System.Globalization.CultureInfo.InvariantCulture) + "\u0001", completed[^4..]);
    }

    [Fact]
    public void A_message_not_starting_with_begin_string_is_left_alone()
    {
        string outOfOrder = S("35=0|8=FIX.4.2|9=29|34=2|49=TW|52=20240101-12:30:00|56=ISLD|10=121|");

        Assert.Equal(outOfOrder, FixTemplate.Complete(outOfOrder));
    }

    [Fact]
    public void Checksum_is_the_byte_sum_modulo_256_with_three_digits()
    {
        // Byte sums computed independently: "8=A|9=5|35=0|" -> 57, "8=A|9=2|x|" -> 217; 57 keeps its leading zero.
        Assert.Equal(S("8=A|9=5|35=0|10=057|"), FixTemplate.Complete(S("8=A|35=0|")));
        Assert.Equal(S("8=A|9=2|x|10=217|"), FixTemplate.Complete(S("8=A|x|")));
    }

    [Fact]
    public void Time_placeholders_resolve_to_utc_seconds_shifted_as_asked()
    {
        var now = new DateTime(2024, 2, 29, 23, 59, 30, DateTimeKind.Utc);

        string resolved = FixTemplate.ResolveTimes("52=<TIME>|122=<TIME-121>|60=<TIME+40>|58=<TIMEOUT>|<TIME>", now);

        Assert.Equal("52=20240229-23:59:30|122=20240229-23:57:29|60=20240301-00:00:10|58=<TIMEOUT>|20240229-23:59:30", resolved);
    }
}
