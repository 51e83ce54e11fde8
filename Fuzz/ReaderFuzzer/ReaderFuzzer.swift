import BirthdayCore
import Foundation

// The contact readers under libFuzzer: `make fuzz` builds this target with
// `-sanitize=fuzzer,address -D FUZZING` and runs it for FUZZ_SECONDS, seeded
// with the test fixtures and samples/. Without FUZZING (a plain `swift
// build`) it is a replay tool: `reader-fuzzer FILE...` runs each file
// through the same checks, which is how a crash the fuzzer found becomes a
// regression case (Fuzz/regressions/, replayed by `make fuzz` first).
//
// Besides not crashing, the readers must keep their promises for any bytes
// (BirthdayCore's ReaderPromises): every problem names the file and a line
// inside it on one clean line, every contact comes from a line inside it,
// and every date they return exists in a year a feed can carry.

/// Parses `bytes` as a contact export and stops at the first broken promise
/// (``ReaderPromises``), which makes libFuzzer keep the input as a crash.
func check(_ bytes: Data) {
    let (broken, _) = ReaderPromises.check(bytes)
    precondition(broken.isEmpty, broken.first ?? "")
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzReaders(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    check(start.map { Data(bytes: $0, count: count) } ?? Data())
    return 0
}

#if FUZZING
/// libFuzzer's driver, called from the entry point SwiftPM gives an
/// executable target (it renames `main`, so libFuzzer's own is not used).
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

@_cdecl("reader_fuzzer_main")
func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var count = argc
    var arguments = argv
    return runFuzzerDriver(&count, &arguments) { start, size in fuzzReaders(start, size) }
}
#else
@main
struct ReplayFuzzCases {
    static func main() {
        var failed = false
        for path in CommandLine.arguments.dropFirst() {
            guard let bytes = FileManager.default.contents(atPath: path) else {
                FileHandle.standardError.write(Data("reader-fuzzer: cannot read \(path)\n".utf8))
                failed = true
                continue
            }
            check(bytes)
        }
        exit(failed ? 1 : 0)
    }
}
#endif
