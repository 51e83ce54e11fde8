// catalog-compiler CATALOG.xcstrings OUTPUT.swift
//
// Compiles a String Catalog (Apple's .xcstrings JSON) into Swift for
// BirthdayText's StringCatalog: one lookup function per language whose texts
// are string literals, so the binary carries the catalog with nothing to
// decode at run time and no resource bundle to install. Run by the
// EmbedStringCatalog build plugin whenever the catalog changes; writes the
// output only when its text changes.
//
// It reads what the runtime understands (string units, whole-string plural
// variations, %#@name@ substitutions with plural variations) and refuses the
// rest (device or width variations, unknown plural categories), so a catalog
// the runtime would misread fails the build with a message instead.
import Foundation

struct CatalogError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

let categories = ["zero", "one", "two", "few", "many", "other"]

func literal(_ text: String) -> String {
    var out = "\""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\\": out += "\\\\"
        case "\"": out += "\\\""
        case "\n": out += "\\n"
        case "\r": out += "\\r"
        case "\t": out += "\\t"
        default:
            if scalar.value < 0x20 || scalar.value == 0x7F {
                out += "\\u{" + String(scalar.value, radix: 16) + "}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
    }
    return out + "\""
}

func value(of unit: Any?, _ place: String) throws -> String {
    guard let unit = unit as? [String: Any], let value = unit["value"] as? String else {
        throw CatalogError("\(place): a stringUnit with a value is required")
    }
    return value
}

func plural(_ variations: Any?, _ place: String) throws -> [(String, String)]? {
    guard let variations else { return nil }
    guard let dictionary = variations as? [String: Any], dictionary.keys.allSatisfy({ $0 == "plural" }),
        let forms = dictionary["plural"] as? [String: Any]
    else {
        throw CatalogError("\(place): only plural variations are supported")
    }
    var result: [(String, String)] = []
    for category in categories {
        guard let form = forms[category] else { continue }
        result.append((category, try value(of: (form as? [String: Any])?["stringUnit"], "\(place).\(category)")))
    }
    let unknown = Set(forms.keys).subtracting(categories)
    guard unknown.isEmpty else { throw CatalogError("\(place): unknown plural categories \(unknown.sorted())") }
    return result
}

func pluralLiteral(_ forms: [(String, String)]) -> String {
    "[" + forms.map { ".\($0.0): \(literal($0.1))" }.joined(separator: ", ") + "]"
}

func compile(_ json: Data) throws -> String {
    guard let root = try JSONSerialization.jsonObject(with: json) as? [String: Any],
        let source = root["sourceLanguage"] as? String, let strings = root["strings"] as? [String: Any]
    else {
        throw CatalogError("not a String Catalog (sourceLanguage and strings are required)")
    }
    // language -> [(key, Swift expression)]
    var tables: [String: [(String, String)]] = [:]
    for key in strings.keys.sorted() {
        guard let entry = strings[key] as? [String: Any] else { throw CatalogError("\(key): not an object") }
        for (language, localization) in (entry["localizations"] as? [String: Any] ?? [:]) {
            let place = "\(key) [\(language)]"
            guard let localization = localization as? [String: Any] else { throw CatalogError("\(place): not an object") }
            var arguments: [String] = []
            if let unit = localization["stringUnit"] { arguments.append("value: " + literal(try value(of: unit, place))) }
            if let forms = try plural(localization["variations"], place) { arguments.append("plural: " + pluralLiteral(forms)) }
            if let substitutions = localization["substitutions"] as? [String: Any] {
                var items: [String] = []
                for name in substitutions.keys.sorted() {
                    guard let substitution = substitutions[name] as? [String: Any], let argument = substitution["argNum"] as? Int,
                        let specifier = substitution["formatSpecifier"] as? String,
                        let forms = try plural(substitution["variations"], "\(place) %#@\(name)@")
                    else {
                        throw CatalogError("\(place): substitution \(name) needs argNum, formatSpecifier and plural variations")
                    }
                    items.append(
                        "CatalogEntry.Substitution(name: \(literal(name)), argument: \(argument), formatSpecifier: \(literal(specifier)), plural: \(pluralLiteral(forms)))"
                    )
                }
                arguments.append("substitutions: [" + items.joined(separator: ", ") + "]")
            }
            guard !arguments.isEmpty else { throw CatalogError("\(place): no stringUnit and no variations") }
            tables[language, default: []].append((key, "CatalogEntry(" + arguments.joined(separator: ", ") + ")"))
        }
    }
    guard tables[source] != nil else { throw CatalogError("the source language \(source) has no texts") }
    let languages = [source] + tables.keys.filter { $0 != source }.sorted()
    func function(_ language: String) -> String {
        "language_" + language.map { $0.isLetter || $0.isNumber ? String($0) : "_" }.joined()
    }

    var out = "// Generated by catalog-compiler from Localizable.xcstrings. Do not edit.\n\n"
    out += "extension StringCatalog {\n"
    out += "    /// The catalog compiled into the binary.\n"
    out += "    public static let embedded = StringCatalog(\n"
    out += "        sourceLanguage: \(literal(source)),\n"
    out += "        languages: [" + languages.map(literal).joined(separator: ", ") + "],\n"
    out += "        keys: [" + strings.keys.sorted().map(literal).joined(separator: ", ") + "],\n"
    out += "        lookup: embeddedCatalogEntry\n"
    out += "    )\n}\n\n"
    out += "@Sendable private func embeddedCatalogEntry(_ language: String, _ key: String) -> CatalogEntry? {\n"
    out += "    switch language {\n"
    for language in languages { out += "    case \(literal(language)): \(function(language))(key)\n" }
    out += "    default: nil\n    }\n}\n"
    for language in languages {
        out += "\nprivate func \(function(language))(_ key: String) -> CatalogEntry? {\n    switch key {\n"
        for (key, expression) in tables[language] ?? [] { out += "    case \(literal(key)): \(expression)\n" }
        out += "    default: nil\n    }\n}\n"
    }
    return out
}

/// `make fuzz` links every executable of the build, this tool included, with
/// libFuzzer (`-sanitize=fuzzer` reaches the tools' link), which needs a fuzz
/// target to link; the tool's own `main` still runs, so this is never called.
@_cdecl("LLVMFuzzerTestOneInput")
public func unusedFuzzTarget(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt { 0 }

let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    FileHandle.standardError.write(Data("usage: catalog-compiler CATALOG.xcstrings OUTPUT.swift\n".utf8))
    exit(2)
}
do {
    let output = try compile(try Data(contentsOf: URL(fileURLWithPath: arguments[1])))
    if (try? String(contentsOfFile: arguments[2], encoding: .utf8)) != output {
        try output.write(toFile: arguments[2], atomically: true, encoding: .utf8)
    }
} catch {
    FileHandle.standardError.write(Data("\(arguments[1]): error: \(error)\n".utf8))
    exit(1)
}
