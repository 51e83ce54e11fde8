import BirthdayCore
import GRDB

// The enums stored in columns, as their raw values. A value this version
// does not know (written by a newer one) fails to decode instead of being
// guessed.
extension EventKind: DatabaseValueConvertible {}
extension NotificationRequest.Timing: DatabaseValueConvertible {}
extension DeliveryEntry.State: DatabaseValueConvertible {}
extension CalendarSystem: DatabaseValueConvertible {}
extension Exclusion.Choice: DatabaseValueConvertible {}
