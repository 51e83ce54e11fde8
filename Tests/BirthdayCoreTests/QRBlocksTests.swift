import Testing

@testable import BirthdayCore

struct QRBlocksTests {
    /// A 3×3 pattern: dark corners and centre. With the 2-module light margin
    /// the picture is 7×7, drawn as 4 lines of 7 (the last line's lower half
    /// lies past the picture and is dark).
    @Test func twoRowsPerLineLightDrawnWithItsQuietZone() {
        let dark: Set<[Int]> = [[0, 0], [2, 0], [1, 1], [0, 2], [2, 2]]
        let lines = QRBlocks.lines(size: 3, quietZone: 2) { x, y in dark.contains([x, y]) }
        #expect(
            lines == [
                "███████",
                "██▄▀▄██",
                "██▄█▄██",
                "▀▀▀▀▀▀▀",
            ]
        )
        #expect(lines.allSatisfy { $0.count == 3 + 2 * 2 })
        #expect(lines.allSatisfy { !$0.hasSuffix(" ") })
        // The standard's four modules by default: 11 columns, 6 lines, the code's rows 4 to 6 in lines 2 and 3.
        let standard = QRBlocks.lines(size: 3) { x, y in dark.contains([x, y]) }
        #expect(standard.count == 6 && standard.allSatisfy { $0.count == 11 })
        #expect(standard[2] == "████▄▀▄████")
    }
}

struct LoopbackAddressTests {
    @Test(arguments: [
        ("127.0.0.1", true), ("127.1.2.3", true), ("localhost", true), ("feed.localhost", true), ("::1", true), ("[::1]", true),
        ("0:0:0:0:0:0:0:1", true), ("::ffff:127.0.0.1", true), ("0.0.0.0", false), ("192.168.1.5", false), ("127.example.org", false),
        ("::", false), ("fe80::1", false), ("birthdays.example", false), ("1270.0.0.1", false),
    ])
    func loopbackAddresses(_ host: String, _ loopback: Bool) {
        #expect(FeedAddress.isLoopback(host) == loopback)
    }
}
