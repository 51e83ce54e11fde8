/// A person's contact points, with the names the reminder's words choose
/// from (the `names` setting), and their note (``PersonNote``): what a
/// reminder about them carries when it goes out (``NotificationContent/delivered(_:late:reach:timeZone:settings:in:publicIDs:)``).
public struct PersonReach: Sendable, Hashable {
    public var name: String
    public var nickname: String
    public var points: [ContactPoint]
    public var note: String?

    public init(name: String, nickname: String, points: [ContactPoint], note: String? = nil) {
        self.name = name
        self.nickname = nickname
        self.points = points
        self.note = note
    }
}
