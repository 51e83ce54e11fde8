import Testing

@testable import BirthdayCore

struct QRBlocksTests {
    /// A 3×3 pattern: dark corners and centre. With the 2-module light margin
    /// the picture is 7×7, drawn as 4 lines of 7 (the last line's lower half
    /// lies past the picture and is dark).
    @Test func twoRowsPerLineLightDrawnWithItsQuietZone() {
        let dark: Set<[Int]> = [[0, 0], [2, 0], [1, 1], [0, 2], [2, 2]]
        let lines = QRBlocks.lines(size: 3) { x, y in dark.contains([x, y]) }
        #expect(
            lines == [
                "███████",
                "██▄▀▄██",
                "██▄█▄██",
                "▀▀▀▀▀▀▀",
            ]
        )
        #expect(lines.allSatisfy { $0.count == 3 + 2 * QRBlocks.quietZone })
        #expect(lines.allSatisfy { !$0.hasSuffix(" ") })
    }
}
