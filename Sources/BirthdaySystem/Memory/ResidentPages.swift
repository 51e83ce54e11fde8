internal import CWake
import Foundation

/// What an idle daemon hands back to the kernel between passes.
///
/// Most of a resting daemon's resident memory is not data but code: the
/// pages of the executable (the Swift runtime, Foundation and ICU are linked
/// into it) and of its shared libraries that start-up and the last pass
/// touched, each fault mapping its neighbours too. They are clean file
/// pages, so the kernel could drop them at any time, but it counts them as
/// the process's own until it is short of memory, and `ps`, `top` and
/// systemd's `Memory:` show them. A daemon that passes a few times a day
/// and sleeps in between gains nothing by keeping them, so ``release()``
/// asks the kernel to reclaim them now (`MADV_PAGEOUT`, Linux 5.4): the
/// next pass reads back what it needs, from the page cache when another
/// process (the command that woke it) still maps them, otherwise from disk.
///
/// Only read-only private file mappings are advised (code, read-only data,
/// the ICU tables); writable and anonymous memory (the heap, the stacks,
/// the database's cache) is left alone, except that `malloc_trim` returns
/// the allocator's free pages. Pages that another process maps too are
/// skipped by the kernel, so nothing is taken from anyone else.
package enum ResidentPages {
    /// Advises every read-only private file mapping of this process to be
    /// paged out and trims the allocator's free memory.
    ///
    /// - Returns: the bytes of the mappings advised (not what the kernel
    ///   reclaimed, which `/proc/self/status`'s `RssFile` shows); `0` when
    ///   the kernel has no `MADV_PAGEOUT` (before 5.4) or the mappings
    ///   cannot be read.
    @discardableResult
    package static func release() -> Int {
        var advised = 0
        for mapping in readOnlyFileMappings() {
            guard let start = UnsafeMutableRawPointer(bitPattern: mapping.start) else { continue }
            let result = cwake_page_out(start, mapping.end - mapping.start)
            if result == 0 {
                advised += mapping.end - mapping.start
            } else if result == -EINVAL {
                // No MADV_PAGEOUT in this kernel: nothing else would succeed either.
                break
            }
        }
        cwake_malloc_trim()
        return advised
    }

    struct Mapping: Equatable {
        var start: Int
        var end: Int
    }

    /// The mappings of `/proc/self/maps` that are private, not writable and
    /// backed by a file (a path, not `[vdso]`, `[stack]` or an anonymous region).
    static func readOnlyFileMappings(maps: String? = nil) -> [Mapping] {
        // A file of /proc has no size: read until the end, not a stat's worth.
        guard
            let text = maps ?? FileHandle(forReadingAtPath: "/proc/self/maps").flatMap({ String(decoding: $0.readDataToEndOfFile(), as: UTF8.self) })
        else {
            return []
        }
        var mappings: [Mapping] = []
        for line in text.split(separator: "\n") {
            // address perms offset dev inode, then spaces up to the path (if any)
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 6, fields[5].hasPrefix("/") else { continue }
            let perms = fields[1]
            guard perms.count == 4, perms.hasPrefix("r"), !perms.contains("w"), perms.hasSuffix("p") else { continue }
            let range = fields[0].split(separator: "-")
            guard range.count == 2, let start = Int(range[0], radix: 16), let end = Int(range[1], radix: 16), end > start else { continue }
            mappings.append(Mapping(start: start, end: end))
        }
        return mappings
    }
}
