import Testing

@testable import BirthdayCore

/// A setting typed on the command line that is not one: one sentence with the
/// nearest names, never the list of every setting.
@Suite struct SettingKeyTests {
    @Test(arguments: [
        ("delivery-tme", ["delivery-time"]),
        ("delivery", ["delivery-time"]),
        ("zone", ["time-zone"]),
        ("lang", ["language"]),
        ("digest-dy", ["digest-day", "digest"]),
        ("Leap-Dya", ["leap-day"]),
        ("nonsense", []),
        ("", []),
    ])
    func suggestionsAreTheNearestNames(typed: String, expected: [String]) {
        #expect(SettingKey.suggestions(for: typed).map(\.rawValue) == expected)
    }

    @Test func theAliasDayBeforeIsNeverSuggested() {
        #expect(!SettingKey.suggestions(for: "day-befor").contains(.dayBefore))
        #expect(!SettingKey.suggestions(for: "day").contains(.dayBefore))
    }

    @Test func anUnknownSettingIsOneLineNamingItAndTheNearestOnes() throws {
        #expect(throws: SettingsError(key: "nonsense", value: "1")) { try SettingKey(parsing: "nonsense", value: "1") }
        let unknown = SettingsError(key: "nonsense", value: "1").description
        #expect(unknown == "unknown setting 'nonsense' (every setting and its values: birthdays settings --help)")
        let typo = SettingsError(key: "delivery-tme", value: "1").description
        #expect(typo == "unknown setting 'delivery-tme'; did you mean 'delivery-time'? (every setting and its values: birthdays settings --help)")
        let hostile = SettingsError(key: "a\u{1B}[31m\nb", value: "").description
        #expect(!hostile.contains("\u{1B}") && !hostile.contains("\n"))
        #expect(try SettingKey(parsing: " Delivery-Time ") == .deliveryTime)
    }
}
