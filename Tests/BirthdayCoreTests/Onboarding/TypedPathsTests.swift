import BirthdayCore
import Testing

/// What onboarding's file prompt makes of a line typed, pasted or dragged into a terminal.
@Suite struct TypedPathsTests {
    @Test(arguments: [
        ("contacts.vcf", ["contacts.vcf"]),
        ("  contacts.vcf  ", ["contacts.vcf"]),
        ("'/home/ada/My Contacts.vcf' ", ["/home/ada/My Contacts.vcf"]),
        ("\"/home/ada/Ada's export.vcf\"", ["/home/ada/Ada's export.vcf"]),
        ("/home/ada/My\\ Contacts.vcf", ["/home/ada/My Contacts.vcf"]),
        ("~/phone.vcf ~/google.csv", ["/home/ada/phone.vcf", "/home/ada/google.csv"]),
        ("'/tmp/a b.vcf' '/tmp/c.csv'", ["/tmp/a b.vcf", "/tmp/c.csv"]),
        ("~", ["/home/ada"]),
        ("~bob/x.vcf", ["~bob/x.vcf"]),
        ("file:///home/ada/My%20Contacts.vcf", ["/home/ada/My Contacts.vcf"]),
        ("\"say \\\"hi\\\".vcf\"", ["say \"hi\".vcf"]),
        ("''", []),
        ("", []),
    ])
    func aTypedLineBecomesThePathsMeant(_ line: String, _ expected: [String]) {
        #expect(TypedPaths.parse(line, home: "/home/ada") == expected)
    }

    @Test func withoutAHomeATildeStaysAsTyped() {
        #expect(TypedPaths.parse("~/phone.vcf", home: nil) == ["~/phone.vcf"])
    }
}
