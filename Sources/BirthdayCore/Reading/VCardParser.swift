import Dispatch
import Foundation

/// Reads the contacts of a vCard file: vCard 2.1, 3.0
/// ([RFC 2426](https://www.rfc-editor.org/rfc/rfc2426)) and 4.0
/// ([RFC 6350](https://www.rfc-editor.org/rfc/rfc6350)), as real exports write them.
///
/// ## What is read
/// The name (`FN`, `N`, `ORG`, first `EMAIL`), the `UID` as written (or
/// `X-ANDROID-UID` when there is none), the birthday (`BDAY`) and the
/// anniversary (`ANNIVERSARY`, `X-ANNIVERSARY`, `X-EVOLUTION-ANNIVERSARY`,
/// `X-MS-ANNIVERSARY`, `X-KADDRESSBOOK-X-Anniversary`,
/// `X-OUTLOOK-WEDDING-ANNIVERSARY`, FullContact's encoded "OtherDates:Anniversary",
/// `itemN.X-ABDATE` labelled `_$!<Anniversary>!$_` or `Anniversary` by
/// `itemN.X-ABLabel`, and Android's `X-ANDROID-CUSTOM` contact event of type 1).
/// Dates are read by ``DateValue/vCard(_:omitYear:)``: a time part never moves
/// the date, and years 1604/0000 or `X-APPLE-OMIT-YEAR` mean "no year".
/// How duplicates and unreadable dates are handled is described on ``VCardCardBuilder``,
/// how lines, folding and components are read on ``VCardScanner``.
///
/// ## Encodings
/// The file may be UTF-8 (with or without BOM), UTF-16 LE/BE (with a BOM,
/// or recognised by its NUL bytes), or 8-bit. Each kept value is decoded on
/// its own: quoted-printable first, then its `CHARSET`, or UTF-8 when valid,
/// else Windows-1252 (see ``TextDecoding``).
///
/// ## Problems
/// Each problem names the file and the 1-based physical line (after UTF-16
/// conversion) of the property at fault; a card without `END:VCARD` is
/// reported at its `BEGIN` line. Messages quote unreadable date text but never a name.
///
/// Large files are split at a card boundary and read on two threads; the
/// result is the same as reading them in one pass.
enum VCardParser {
    /// Inputs at least this large are read in two halves concurrently.
    static let concurrencyThreshold = 4 << 20

    /// Parses every vCard in `data` (a whole file's bytes).
    ///
    /// - Parameters:
    ///   - data: the file's bytes, in any encoding described above.
    ///   - file: the path as the user gave it, copied into sources and problems.
    /// - Returns: one contact per `BEGIN:VCARD` (in file order, empty cards
    ///   included) and the problems found.
    static func parse(_ data: Data, file: String) -> ParseResult {
        data.withUnsafeBytes { raw in
            let input = raw.bindMemory(to: UInt8.self)
            switch TextDecoding.detectEncoding(input) {
            case .bytes(let bomLength):
                return parse(input, from: bomLength, file: file)
            case .utf16(let bigEndian, let bomLength):
                let utf8 = TextDecoding.utf8(fromUTF16: UnsafeBufferPointer(rebasing: input[bomLength...]), bigEndian: bigEndian)
                return utf8.withUnsafeBufferPointer { parse($0, from: 0, file: file) }
            }
        }
    }

    private static func parse(_ input: UnsafeBufferPointer<UInt8>, from start: Int, file: String) -> ParseResult {
        guard let base = input.baseAddress, start < input.count else { return ParseResult() }
        let end = input.count
        if end - start >= concurrencyThreshold, ProcessInfo.processInfo.activeProcessorCount > 1,
            let split = splitPoint(base, from: start + (end - start) / 2, to: end)
        {
            return parseInHalves(base, start: start, split: split, end: end, file: file)
        }
        var scanner = VCardScanner(bytes: base, start: start, end: end, file: file)
        _ = scanner.run()
        return ParseResult(contacts: scanner.contacts, problems: scanner.problems)
    }

    /// Reads `start..<split` and `split..<end` concurrently. The second half
    /// is only used when the first one, read in order, is between cards at
    /// `split`; otherwise the first reader simply carries on to the end.
    private static func parseInHalves(_ base: UnsafePointer<UInt8>, start: Int, split: Int, end: Int, file: String) -> ParseResult {
        let input = SharedInput(base: base)
        let halves = Halves()
        DispatchQueue.concurrentPerform(iterations: 2) { part in
            if part == 0 {
                var scanner = VCardScanner(bytes: input.base, start: start, end: end, file: file)
                let stopped = scanner.run(stoppingAt: split)
                let cards = scanner.cardCount
                halves.first = (ParseResult(contacts: scanner.takeContacts(), problems: scanner.problems), cards, stopped)
            } else {
                let linesBefore = VCardScanner.countLines(input.base, from: start, to: split)
                var scanner = VCardScanner(bytes: input.base, start: split, end: end, file: file, linesBefore: linesBefore)
                _ = scanner.run()
                halves.second = ParseResult(contacts: scanner.takeContacts(), problems: scanner.problems)
            }
        }
        // Taken out of `halves`, so each list has one owner: numbered and joined in place, not copied one by one.
        guard var first = halves.first else { return ParseResult() }
        halves.first = nil
        guard first.stopped, var second = halves.second else { return first.result }
        halves.second = nil
        for index in second.contacts.indices { second.contacts[index].source.index += first.cards }
        first.result.contacts.append(contentsOf: second.contacts)
        first.result.problems += second.problems
        return first.result
    }

    /// The input, read (never written) by both readers while `concurrentPerform` runs;
    /// the caller keeps it alive until then.
    private struct SharedInput: @unchecked Sendable {
        let base: UnsafePointer<UInt8>
    }

    /// Where the two readers leave their results. Each slot is written by one
    /// iteration only and read after `concurrentPerform` has returned.
    private final class Halves: @unchecked Sendable {
        /// The first reader's result, its number of cards, and whether it stopped at the split.
        var first: (result: ParseResult, cards: Int, stopped: Bool)?
        var second: ParseResult?
    }

    /// The start of the first line at or after `from` that begins with `BEGIN:VCARD`
    /// (any case), searching at most 1 MB; `nil` if there is none.
    private static func splitPoint(_ base: UnsafePointer<UInt8>, from: Int, to end: Int) -> Int? {
        var i = from
        let limit = min(end, from + (1 << 20))
        while i < limit {
            i = VCardScanner.lineBreak(base, from: i, to: end)
            guard i < end else { return nil }
            i += base[i] == 0x0D && i + 1 < end && base[i + 1] == 0x0A ? 2 : 1
            if i + 11 <= end, ASCII.equalsUpperCased(base, i, i + 11, "BEGIN:VCARD") { return i }
        }
        return nil
    }
}
