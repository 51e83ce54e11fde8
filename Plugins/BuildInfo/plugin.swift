import Foundation
import PackagePlugin

/// Writes `BuildInfo.swift` for the `birthdays` target before every build:
/// the version from the `VERSION` file at the package root, and `git describe`
/// when the package is a git checkout (scripts/build-info.sh does the work and
/// rewrites the file only when its text changes, so an unchanged checkout
/// recompiles nothing).
@main
struct BuildInfoPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        let output = context.pluginWorkDirectoryURL.appending(path: "Generated")
        let root = context.package.directoryURL
        return [
            .prebuildCommand(
                displayName: "Version of \(target.name) from VERSION and git",
                executable: URL(fileURLWithPath: "/bin/sh"),
                arguments: [root.appending(path: "scripts/build-info.sh").path, root.path, output.path],
                outputFilesDirectory: output
            )
        ]
    }
}
