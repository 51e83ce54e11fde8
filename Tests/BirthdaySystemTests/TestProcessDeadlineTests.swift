import Foundation
import TestSupport
import Testing

/// The test harness's own promise: a program a test runs that never ends
/// fails that test by name, with its output, instead of holding the suite.
@Suite struct TestProcessDeadlineTests {
    @Test func aProgramPastItsDeadlineIsKilledAndNamed() async throws {
        do {
            _ = try await TestProcess.run(["/bin/sh", "-c", "echo waiting; exec sleep 600"], seconds: 10)
            Issue.record("the run returned instead of throwing")
        } catch {
            let message = "\(error)"
            #expect(message.contains("/bin/sh -c echo waiting; exec sleep 600 did not exit within 10 s and was killed"), "\(message)")
            #expect(message.contains("stdout:\nwaiting\n"), "\(message)")
        }
    }

    @Test func aProgramThatEndsInTimeIsNotTouched() async throws {
        let result = try await TestProcess.run(["/bin/sh", "-c", "echo done; exit 3"], seconds: 60)
        #expect(result.status == 3)
        #expect(result.stdout == "done\n")
    }
}
