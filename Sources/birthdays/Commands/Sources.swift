import ArgumentParser

extension BirthdaysCommand {
    struct Sources: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "sources",
            _superCommandName: "birthdays",
            abstract: "Follow contact sources: .vcf/.csv files, vdir folders and CardDAV address books.",
            discussion: """
                A source owns the contacts it brought: a contact deleted at the source leaves on the next sync, \
                edits update in place, and a person in two sources stays one person. 'birthdays import' stays for \
                one-off files; what it brings belongs to no source. A sync that fails changes nothing, and one that \
                would remove every person of a source (or more than half of one with over 10) is refused until \
                'sources sync NAME --allow-mass-removal'. 'birthdays run' syncs the sources by itself.
                """,
            subcommands: [SourcesAdd.self, SourcesList.self, SourcesSync.self, SourcesRemove.self],
            defaultSubcommand: SourcesList.self
        )
    }
}
