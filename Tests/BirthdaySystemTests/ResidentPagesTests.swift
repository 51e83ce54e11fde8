import Foundation
import Testing

@testable import BirthdaySystem

/// ``ResidentPages``: which mappings are advised, and that the kernel takes the pages back.
@Suite struct ResidentPagesTests {
    @Test func onlyPrivateReadOnlyFileMappingsAreAdvised() {
        // As the kernel writes it: the path column padded with spaces.
        let maps = """
            55d0c0a00000-55d0c0b00000 r--p 00000000 fe:00 42                         /usr/bin/birthdays
            55d0c0b00000-55d0c0c00000 r-xp 00100000 fe:00 42                         /usr/bin/birthdays
            55d0c0c00000-55d0c0c10000 rw-p 00200000 fe:00 42                         /usr/bin/birthdays
            55d0c1000000-55d0c1100000 rw-p 00000000 00:00 0                          [heap]
            7f0000000000-7f0000001000 r--s 00000000 fe:00 7                          /tmp/shared.db-shm
            7f0000001000-7f0000002000 r-xp 00000000 00:00 0                          [vdso]
            7f0000001800-7f0000001900 r--p 00000000 00:00 0
            7f0000002000-7f0000003000 ---p 00000000 fe:00 9                          /usr/lib/libc.so.6
            7f0000003000-7f0000004000 r-xp 00000000 fe:00 9                          /usr/lib/x86_64-linux-gnu/lib with space.so
            """
        let mappings = ResidentPages.readOnlyFileMappings(maps: maps)
        #expect(
            mappings == [
                .init(start: 0x55d0_c0a0_0000, end: 0x55d0_c0b0_0000),
                .init(start: 0x55d0_c0b0_0000, end: 0x55d0_c0c0_0000),
                .init(start: 0x7f00_0000_3000, end: 0x7f00_0000_4000),
            ]
        )
    }

    /// The test binary's own code: resident after this much testing, much less of it after a release.
    @Test func theKernelTakesTheCodePagesBack() throws {
        func residentFileKiB() throws -> Int {
            let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
            let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("RssFile:") })
            return try #require(Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]))
        }
        let before = try residentFileKiB()
        let advised = ResidentPages.release()
        let after = try residentFileKiB()
        #expect(advised > 0)
        // Other tests run beside this one and fault pages back in; the most of them stay out.
        #expect(after < before, "RssFile \(before) KiB before, \(after) KiB after")
    }
}
