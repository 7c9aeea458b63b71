using System.Net;
using System.Net.Sockets;
using System.Text;
using RapidFix.Engine.Tests.Sessions;
using RapidFix.Tests.Shared;

namespace RapidFix.Engine.Tests.Validation;

/// <summary>
/// A well-framed message that breaks one of the parser's limits reaches a real acceptor over TCP: it is answered
/// with a Reject giving the reason, its MsgSeqNum is consumed (the next message is in sequence, no ResendRequest),
/// and a faithful resend would be answered the same way instead of being ignored again.
/// </summary>
[Collection(nameof(SessionEndToEnd))]
public sealed class ParseLimitSessionTests
{
    [Fact]
    public void More_fields_than_the_limit_are_rejected_and_the_sequence_number_is_consumed()
    {
        var body = new StringBuilder("148=headline|33=1100|");
        for (int i = 0; i < 1100; i++)
        {
            body.Append("58=x|");
        }

        var reject = SendAndReadReject("", "B", body.ToString());
        Assert.Contains("|45=2|", reject, StringComparison.Ordinal);
        Assert.Contains("|58=Message has more than 1024 fields (MaxFieldsPerMessage)|", reject, StringComparison.Ordinal);
        Assert.Contains("|372=B|373=99|", reject, StringComparison.Ordinal);
        Assert.DoesNotContain("|371=", reject, StringComparison.Ordinal);
    }

    [Fact]
    public void More_group_entries_than_the_configured_limit_are_rejected_naming_the_group()
    {
        var body = new StringBuilder("148=headline|33=10|");
        for (int i = 0; i < 10; i++)
        {
            body.Append("58=x|");
        }

        var reject = SendAndReadReject("MaxGroupEntries=8", "B", body.ToString());
        Assert.Contains("|45=2|", reject, StringComparison.Ordinal);
        Assert.Contains("|58=Group 33 takes the message past 8 repeating-group entries (MaxGroupEntries)|371=33|372=B|373=99|", reject, StringComparison.Ordinal);
    }

    [Fact]
    public void More_fields_than_a_configured_limit_are_rejected()
    {
        var reject = SendAndReadReject("MaxFieldsPerMessage=12", "B", "148=headline|33=3|58=a|58=b|58=c|");
        Assert.Contains("|58=Message has more than 12 fields (MaxFieldsPerMessage)|", reject, StringComparison.Ordinal);
    }

    [Fact]
    public void A_tag_beyond_int_range_is_rejected_as_an_invalid_tag_number()
    {
        var reject = SendAndReadReject("", "0", "99999999999=x|");
        Assert.Contains("|45=2|58=Invalid tag number (beyond 2147483647)|372=0|373=0|", reject, StringComparison.Ordinal);
    }

    /// <summary>
    /// Logs on to an acceptor (with <paramref name="extra"/> settings), sends MsgSeqNum 2 with the body given, reads
    /// the Reject, then checks that a Heartbeat with MsgSeqNum 3 is taken in sequence.
    /// </summary>
    private static string SendAndReadReject(string extra, string msgType, string body)
    {
        var application = new ExecutingApplication();
        using var acceptor = SessionHarness.Acceptor(application, extra: extra);
        using var socket = new Socket(SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
        socket.Connect(IPAddress.Loopback, acceptor.Acceptors[0].LocalEndPoint.Port);
        socket.ReceiveTimeout = 15_000;
        var reader = new MessageReader(socket);

        socket.Send(Message(1, "A", "98=0|108=30|"));
        Assert.Contains("|35=A|", reader.Next(), StringComparison.Ordinal);

        socket.Send(Message(2, msgType, body));
        string reject = reader.Next();
        Assert.Contains("|35=3|", reject, StringComparison.Ordinal);

        var session = acceptor.Sessions[0];
        SessionHarness.WaitUntil(() => session.NextTargetMsgSeqNum == 3, "MsgSeqNum 2 consumed by the Reject");
        socket.Send(Message(3, "1", "112=after|"));
        string answer = reader.Next();
        Assert.Contains("|35=0|", answer, StringComparison.Ordinal); // a Heartbeat for the TestRequest, no ResendRequest
        Assert.Contains("|112=after|", answer, StringComparison.Ordinal);
        SessionHarness.WaitUntil(() => session.NextTargetMsgSeqNum == 4, "MsgSeqNum 3 taken in sequence");
        Assert.True(session.IsLoggedOn);
        return reject;
    }

    private static byte[] Message(int seq, string msgType, string body)
    {
        string now = DateTime.UtcNow.ToString("yyyyMMdd-HH:mm:ss.fff", System.Globalization.CultureInfo.InvariantCulture);
        return FixSamples.Wire($"8=FIX.4.4|35={msgType}|34={seq}|49=CLIENT|52={now}|56=EXEC|{body}");
    }

    /// <summary>Frames what the acceptor sends: one message per call, as text with '|' for SOH.</summary>
    private sealed class MessageReader(Socket socket)
    {
        private readonly List<byte> _pending = [];

        public string Next()
        {
            var buffer = new byte[8192];
            while (true)
            {
                int end = FindEnd();
                if (end > 0)
                {
                    var message = _pending.GetRange(0, end).ToArray();
                    _pending.RemoveRange(0, end);
                    return Encoding.ASCII.GetString(message).Replace('\u0001', '|');
                }

                int n = socket.Receive(buffer);
                if (n == 0)
                {
                    throw new InvalidOperationException("the acceptor closed the connection");
                }

                _pending.AddRange(buffer.AsSpan(0, n));
            }
        }

        private int FindEnd()
        {
            for (int i = 0; i + 7 < _pending.Count + 1; i++)
            {
                if (_pending[i] == 1 && i + 7 < _pending.Count && _pending[i + 1] == '1' && _pending[i + 2] == '0' && _pending[i + 3] == '=' && _pending[i + 7] == 1)
                {
                    return i + 8;
                }
            }

            return -1;
        }
    }
}
