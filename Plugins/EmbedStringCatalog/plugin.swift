import Foundation
import PackagePlugin

/// Compiles the target's `Localizable.xcstrings` into Swift
/// (`EmbeddedStringCatalog.swift`, by `catalog-compiler`) whenever the catalog
/// changes, so the texts are in the binary: nothing to install beside it.
@main
struct EmbedStringCatalog: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        guard let target = target as? SourceModuleTarget else { return [] }
        let catalogs = Array(target.sourceFiles(withSuffix: "xcstrings").map(\.url))
        guard catalogs.count == 1, let catalog = catalogs.first else {
            throw PluginError("\(target.name) needs exactly one .xcstrings file; found \(catalogs.count)")
        }
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedStringCatalog.swift")
        return [
            .buildCommand(
                displayName: "Compiling \(catalog.lastPathComponent)",
                executable: try context.tool(named: "catalog-compiler").url,
                arguments: [catalog.path, output.path],
                inputFiles: [catalog],
                outputFiles: [output]
            )
        ]
    }
}

struct PluginError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
