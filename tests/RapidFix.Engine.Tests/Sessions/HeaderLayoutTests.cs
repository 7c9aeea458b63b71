using System.Text;
using RapidFix.Engine.Sessions;
using Xunit;

namespace RapidFix.Engine.Tests.Sessions;

/// <summary>
/// The standard header the session writes: ascending tag order with the identity fields (encoded once per session)
/// in their places, extra header fields sorted among them, and the same layout for session and application messages.
/// </summary>
public sealed class HeaderLayoutTests
{
    [Fact]
    public void Identity_fields_and_extra_header_fields_come_out_in_ascending_tag_order()
    {
        using var h = new ProtocolHarness("""
            SenderSubID=ESUB
            TargetSubID=CSUB
            SenderLocationID=ELOC
            TargetLocationID=CLOC
            """);
        h.Logon();
        var logon = Assert.Single(h.TakeSent());
        Assert.Matches(@"^8=FIX\.4\.4\|9=\d+\|35=A\|34=1\|49=EXEC\|50=ESUB\|52=[^|]+\|56=CLIENT\|57=CSUB\|142=ELOC\|143=CLOC\|98=0\|108=30\|", Text(logon));

        // 115 and 128 sort between the target block and the location block; 44 (not a header tag) before the sender block.
        var result = h.Session.Send("D"u8, "11=1|55=MSFT|"u8.ToArray().Select(b => b == '|' ? (byte)1 : b).ToArray(),
            "128=DTC|115=OBO|"u8.ToArray().Select(b => b == '|' ? (byte)1 : b).ToArray());
        Assert.Equal(SendResult.Sent, result);
        var order = Assert.Single(h.TakeSent());
        Assert.Matches(@"^8=FIX\.4\.4\|9=\d+\|35=D\|34=2\|49=EXEC\|50=ESUB\|52=[^|]+\|56=CLIENT\|57=CSUB\|115=OBO\|128=DTC\|142=ELOC\|143=CLOC\|11=1\|55=MSFT\|10=\d{3}\|$", Text(order));
    }

    [Fact]
    public void Without_sub_or_location_ids_only_the_comp_ids_are_written()
    {
        using var h = new ProtocolHarness("TargetLocationID=CLOC");
        h.Logon();
        var logon = Assert.Single(h.TakeSent());
        Assert.Matches(@"^8=FIX\.4\.4\|9=\d+\|35=A\|34=1\|49=EXEC\|52=[^|]+\|56=CLIENT\|143=CLOC\|98=0\|108=30\|", Text(logon));
    }

    private static string Text(RapidFix.Engine.Codec.FixMessage m) => Encoding.ASCII.GetString(m.Buffer, m.Offset, m.Length).Replace('\u0001', '|');
}
