import BirthdayCore

extension ContactLink {
    /// The links of `points`, in their order, for a reminder about `event`
    /// of someone called `name` (the name the `names` setting chose): a
    /// `mailto:` gets the subject "Happy birthday!" (or the anniversary's;
    /// none for a labelled date), percent-encoded.
    public static func links(for points: [ContactPoint], name: String, event: EventKind, in localizer: Localizer) -> [ContactLink] {
        guard !points.isEmpty else { return [] }
        let shown = SafeText.line(name, maxCharacters: NotificationContent.maxNameCharacters)
        let subject = Message.greetingSubject(event).map { localizer($0) }
        return points.map { point in
            ContactLink(kind: point.kind, scheme: point.scheme, uri: point.uri(subject: subject), label: localizer(.reach(point.kind, name: shown)))
        }
    }
}
