extension BuildInfo {
    /// What `birthdays --version` prints: the release number from the VERSION
    /// file, followed by `git describe` in parentheses when the binary was built
    /// from a checkout that is not exactly that release's tag (`0.1.0 (da19b9a-dirty)`).
    static var versionText: String {
        gitDescription.isEmpty || gitDescription == "v" + version ? version : version + " (" + gitDescription + ")"
    }
}
