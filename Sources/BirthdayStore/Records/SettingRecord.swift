import BirthdayCore
import Foundation
import GRDB

/// A row of the `setting` table: the one key-value store of the database.
///
/// User settings are stored under their ``SettingKey`` names as the text
/// ``Settings/text(for:)`` gives; a key that is absent has its default.
/// Values the program keeps for itself (``InternalValue``) live under
/// `internal.<name>`, so they can never collide with a setting.
struct SettingRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "setting"

    var key: String
    var value: String

    enum Columns {
        static let key = Column(CodingKeys.key)
    }
}

/// What the program keeps in the `setting` table besides user settings.
package enum InternalValue: String, Sendable {
    /// The feed URL's secret (``FeedToken``).
    case feedToken = "feed.token"
    /// The notification permission (``AuthorizationStatus``).
    case authorization = "notifications.authorization"
    /// Where onboarding stands (``OnboardingMachine/Step``).
    case onboardingStep = "onboarding.step"
    /// The secret of ``PublicID`` (32 hex digits), created by a migration.
    case publicIDKey = "ids.key"
    /// The key of the invitation forms' nonces (``InviteNonce``: 64 hex digits), created by a migration.
    case inviteKey = "invite.key"
    /// What the last reschedule planned the greetings from, and until when that plan holds (``GreetingPlan/Stamp``).
    case greetingPlan = "greetings.plan"
    /// Present ("1") while `personLink` is what relinking every card gives and `linkKey` holds every
    /// stored card's keys: a relink may then look at the changed cards' neighbourhood only (``AppDatabase/relink(_:adding:changed:)``).
    case linkIndex = "links.index"

    var key: String { "internal." + rawValue }
}

extension SettingRecord {
    /// The value stored under `key`.
    static func value(for key: String, _ db: Database) throws -> String? {
        try fetchOne(db, key: key)?.value
    }

    /// Stores `value` under `key`; `nil` removes it.
    static func set(_ value: String?, for key: String, _ db: Database) throws {
        if let value {
            try SettingRecord(key: key, value: value).upsert(db)
        } else {
            _ = try deleteOne(db, key: key)
        }
    }

    static func value(_ name: InternalValue, _ db: Database) throws -> String? {
        try value(for: name.key, db)
    }

    static func set(_ value: String?, for name: InternalValue, _ db: Database) throws {
        try set(value, for: name.key, db)
    }

    /// Every stored value, by key.
    static func all(_ db: Database) throws -> [String: String] {
        Dictionary(try fetchAll(db).map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
    }

    /// The user settings, with defaults for what was never set (and the
    /// codes of the name-day lists of your own, which `name-days` may name).
    static func settings(_ db: Database) throws -> Settings {
        Settings(stored: try all(db), ownNameDayCodes: try NameDayListRecord.codes(db))
    }

    /// The keyed hash for ids that leave the database; the key is created
    /// here if a migration did not (a database migrated before it existed
    /// always has one, so this writes only in a write transaction).
    static func publicIDs(_ db: Database) throws -> PublicID {
        if let stored = try value(.publicIDKey, db), let ids = PublicID(hexKey: stored) { return ids }
        let (ids, key) = PublicID.generate()
        try set(key, for: .publicIDKey, db)
        return ids
    }

    /// The notification permission; `notDetermined` until one is stored.
    static func authorizationStatus(_ db: Database) throws -> AuthorizationStatus {
        try value(.authorization, db).flatMap(AuthorizationStatus.init(rawValue:)) ?? .notDetermined
    }
}
