namespace RapidFix.Engine.Fields;

/// <summary>Tag numbers the engine itself reads or writes (session layer and framing). Application code uses its own.</summary>
public static class Tags
{
    /// <summary>Account (1).</summary>
    public const int Account = 1;
    /// <summary>BeginSeqNo (7).</summary>
    public const int BeginSeqNo = 7;
    /// <summary>BeginString (8).</summary>
    public const int BeginString = 8;
    /// <summary>BodyLength (9).</summary>
    public const int BodyLength = 9;
    /// <summary>CheckSum (10).</summary>
    public const int CheckSum = 10;
    /// <summary>ClOrdID (11).</summary>
    public const int ClOrdID = 11;
    /// <summary>EndSeqNo (16).</summary>
    public const int EndSeqNo = 16;
    /// <summary>ExecID (17).</summary>
    public const int ExecID = 17;
    /// <summary>MsgSeqNum (34).</summary>
    public const int MsgSeqNum = 34;
    /// <summary>MsgType (35).</summary>
    public const int MsgType = 35;
    /// <summary>NewSeqNo (36).</summary>
    public const int NewSeqNo = 36;
    /// <summary>OrderID (37).</summary>
    public const int OrderID = 37;
    /// <summary>OrderQty (38).</summary>
    public const int OrderQty = 38;
    /// <summary>OrdStatus (39).</summary>
    public const int OrdStatus = 39;
    /// <summary>OrdType (40).</summary>
    public const int OrdType = 40;
    /// <summary>PossDupFlag (43).</summary>
    public const int PossDupFlag = 43;
    /// <summary>Price (44).</summary>
    public const int Price = 44;
    /// <summary>RefSeqNum (45).</summary>
    public const int RefSeqNum = 45;
    /// <summary>SecurityID (48).</summary>
    public const int SecurityID = 48;
    /// <summary>SenderCompID (49).</summary>
    public const int SenderCompID = 49;
    /// <summary>SenderSubID (50).</summary>
    public const int SenderSubID = 50;
    /// <summary>SendingTime (52).</summary>
    public const int SendingTime = 52;
    /// <summary>Side (54).</summary>
    public const int Side = 54;
    /// <summary>Symbol (55).</summary>
    public const int Symbol = 55;
    /// <summary>TargetCompID (56).</summary>
    public const int TargetCompID = 56;
    /// <summary>TargetSubID (57).</summary>
    public const int TargetSubID = 57;
    /// <summary>Text (58).</summary>
    public const int Text = 58;
    /// <summary>TransactTime (60).</summary>
    public const int TransactTime = 60;
    /// <summary>Signature (89).</summary>
    public const int Signature = 89;
    /// <summary>SecureDataLen (90).</summary>
    public const int SecureDataLen = 90;
    /// <summary>SecureData (91).</summary>
    public const int SecureData = 91;
    /// <summary>SignatureLength (93).</summary>
    public const int SignatureLength = 93;
    /// <summary>RawDataLength (95).</summary>
    public const int RawDataLength = 95;
    /// <summary>RawData (96).</summary>
    public const int RawData = 96;
    /// <summary>PossResend (97).</summary>
    public const int PossResend = 97;
    /// <summary>EncryptMethod (98).</summary>
    public const int EncryptMethod = 98;
    /// <summary>HeartBtInt (108).</summary>
    public const int HeartBtInt = 108;
    /// <summary>TestReqID (112).</summary>
    public const int TestReqID = 112;
    /// <summary>OnBehalfOfCompID (115).</summary>
    public const int OnBehalfOfCompID = 115;
    /// <summary>OnBehalfOfSubID (116).</summary>
    public const int OnBehalfOfSubID = 116;
    /// <summary>OrigSendingTime (122).</summary>
    public const int OrigSendingTime = 122;
    /// <summary>GapFillFlag (123).</summary>
    public const int GapFillFlag = 123;
    /// <summary>DeliverToCompID (128).</summary>
    public const int DeliverToCompID = 128;
    /// <summary>DeliverToSubID (129).</summary>
    public const int DeliverToSubID = 129;
    /// <summary>ResetSeqNumFlag (141).</summary>
    public const int ResetSeqNumFlag = 141;
    /// <summary>SenderLocationID (142).</summary>
    public const int SenderLocationID = 142;
    /// <summary>TargetLocationID (143).</summary>
    public const int TargetLocationID = 143;
    /// <summary>OnBehalfOfLocationID (144).</summary>
    public const int OnBehalfOfLocationID = 144;
    /// <summary>DeliverToLocationID (145).</summary>
    public const int DeliverToLocationID = 145;
    /// <summary>XmlDataLen (212).</summary>
    public const int XmlDataLen = 212;
    /// <summary>XmlData (213).</summary>
    public const int XmlData = 213;
    /// <summary>MessageEncoding (347).</summary>
    public const int MessageEncoding = 347;
    /// <summary>EncodedTextLen (354).</summary>
    public const int EncodedTextLen = 354;
    /// <summary>EncodedText (355).</summary>
    public const int EncodedText = 355;
    /// <summary>LastMsgSeqNumProcessed (369).</summary>
    public const int LastMsgSeqNumProcessed = 369;
    /// <summary>RefTagID (371).</summary>
    public const int RefTagID = 371;
    /// <summary>RefMsgType (372).</summary>
    public const int RefMsgType = 372;
    /// <summary>SessionRejectReason (373).</summary>
    public const int SessionRejectReason = 373;
    /// <summary>BusinessRejectRefID (379).</summary>
    public const int BusinessRejectRefID = 379;
    /// <summary>BusinessRejectReason (380).</summary>
    public const int BusinessRejectReason = 380;
    /// <summary>MaxMessageSize (383).</summary>
    public const int MaxMessageSize = 383;
    /// <summary>NoMsgTypes (384).</summary>
    public const int NoMsgTypes = 384;
    /// <summary>TestMessageIndicator (464).</summary>
    public const int TestMessageIndicator = 464;
    /// <summary>Username (553).</summary>
    public const int Username = 553;
    /// <summary>Password (554).</summary>
    public const int Password = 554;
    /// <summary>NoHops (627).</summary>
    public const int NoHops = 627;
    /// <summary>NextExpectedMsgSeqNum (789).</summary>
    public const int NextExpectedMsgSeqNum = 789;
    /// <summary>ApplVerID (1128).</summary>
    public const int ApplVerID = 1128;
    /// <summary>CstmApplVerID (1129).</summary>
    public const int CstmApplVerID = 1129;
    /// <summary>DefaultApplVerID (1137).</summary>
    public const int DefaultApplVerID = 1137;
}
