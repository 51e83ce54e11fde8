import BirthdayCore
import Foundation

/// A format string as String Catalogs write them, parsed once: text and
/// placeholders `%@` (text), `%lld`/`%ld`/`%d` (a whole number), their
/// positional forms `%1$@` and `%2$lld`, and `%%` for a percent sign.
///
/// Placeholders are filled by this type, not by `String(format:)`, which on
/// Linux crashes when a translation skips a positional argument or gives a
/// number to `%@`: here a translation may reorder and drop arguments, and a
/// format with anything else (`%f`, a placeholder for an argument the
/// message does not have, a stray `%`) is refused when it is read, so the
/// English text is used instead.
public struct FormatString: Sendable, Hashable {
    /// A placeholder: which argument (1-based) and whether it is a number.
    public struct Placeholder: Sendable, Hashable {
        public var position: Int
        public var isNumber: Bool

        public init(position: Int, isNumber: Bool) {
            self.position = position
            self.isNumber = isNumber
        }
    }

    enum Piece: Sendable, Hashable {
        case text(String)
        case argument(Placeholder)
    }

    let pieces: [Piece]

    /// Parses `text`; `nil` when it holds a `%` this type does not read.
    public init?(_ text: String) {
        var pieces: [Piece] = []
        var literal = ""
        var next = 1
        var scalars = text.unicodeScalars[...]
        while let scalar = scalars.popFirst() {
            guard scalar == "%" else {
                literal.unicodeScalars.append(scalar)
                continue
            }
            guard let first = scalars.first else { return nil }
            if first == "%" {
                scalars.removeFirst()
                literal += "%"
                continue
            }
            var digits = ""
            while let c = scalars.first, c.properties.numericType == .decimal, c.isASCII {
                digits.unicodeScalars.append(c)
                scalars.removeFirst()
            }
            var position = next
            if !digits.isEmpty {
                guard scalars.first == "$", let number = Int(digits), number >= 1 else { return nil }
                scalars.removeFirst()
                position = number
            }
            while let c = scalars.first, "lhqjzt".unicodeScalars.contains(c) { scalars.removeFirst() }
            guard let conversion = scalars.popFirst(), conversion == "@" || "diu".unicodeScalars.contains(conversion) else { return nil }
            if !literal.isEmpty { pieces.append(.text(literal)) }
            literal = ""
            pieces.append(.argument(Placeholder(position: position, isNumber: conversion != "@")))
            next = position + 1
        }
        if !literal.isEmpty { pieces.append(.text(literal)) }
        self.pieces = pieces
    }

    /// Text without placeholders, shown as it is.
    init(literal: String) {
        pieces = literal.isEmpty ? [] : [.text(literal)]
    }

    /// The placeholders the format uses.
    public var placeholders: Set<Placeholder> {
        Set(pieces.compactMap { if case .argument(let p) = $0 { p } else { nil } })
    }

    /// The text with `%#@name@` (or `%2$#@name@`) replaced by `piece`.
    static func replace(substitution name: String, in format: String, with piece: String) -> String {
        let marker = "#@" + name + "@"
        var result = ""
        var rest = Substring(format)
        while let range = rest.range(of: marker) {
            // Drop the `%` and any `N$` before the marker.
            var head = rest[..<range.lowerBound]
            if head.hasSuffix("$") {
                head = head.dropLast()
                while let last = head.last, last.isASCII, last.isNumber { head = head.dropLast() }
            }
            if head.hasSuffix("%") { head = head.dropLast() }
            result += head
            result += piece
            rest = rest[range.upperBound...]
        }
        return result + rest
    }
}
