/// A way to reach the person a reminder is about, ready for a channel: the
/// URI a handler opens and the words of its button ("Write to Ada",
/// "Call Ada"), in the reminder's language.
///
/// The engine makes them when it delivers, from the person's contact points
/// as the store holds them then (``ContactPoint``), so a card that changed
/// since the reminder was planned gives its new ways. Never logged.
public struct ContactLink: Hashable, Sendable {
    public var kind: ContactPoint.Kind
    /// The URI's scheme, lower-cased: what a handler is looked up for (`mailto`, `tel`, `xmpp`).
    public var scheme: String
    /// The URI to open; a `mailto:` carries the greeting as its subject.
    public var uri: String
    /// "Write to Ada" (e-mail, instant messaging) or "Call Ada".
    public var label: String

    public init(kind: ContactPoint.Kind, scheme: String, uri: String, label: String) {
        self.kind = kind
        self.scheme = scheme
        self.uri = uri
        self.label = label
    }
}
