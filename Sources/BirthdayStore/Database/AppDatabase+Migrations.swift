import BirthdayCore
import GRDB

extension AppDatabase {
    /// The schema's history. A migration is never edited once it has shipped;
    /// changes come as new, named migrations. Migrations never refer to record
    /// types, so they stay valid as the code evolves.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()

        migrator.registerMigration("v1-people") { db in
            try db.create(table: "person") { t in
                t.primaryKey("id", .text)
                t.column("name", .text).notNull()
                t.column("namePrefix", .text).notNull().defaults(to: "")
                t.column("givenName", .text).notNull().defaults(to: "")
                t.column("additionalName", .text).notNull().defaults(to: "")
                t.column("familyName", .text).notNull().defaults(to: "")
                t.column("nameSuffix", .text).notNull().defaults(to: "")
                t.column("sourceFile", .text).notNull()
                t.column("sourceIndex", .integer).notNull()
                t.column("sourceLine", .integer).notNull()
                t.column("birthdayYear", .integer)
                t.column("birthdayMonth", .integer)
                t.column("birthdayDay", .integer)
                t.column("anniversaryYear", .integer)
                t.column("anniversaryMonth", .integer)
                t.column("anniversaryDay", .integer)
                // JSON array of the raw text of dates that could not be read.
                t.column("invalidDates", .text).notNull().defaults(to: "[]")
                // Hash of everything above except the source, to tell "unchanged" from "updated".
                t.column("fingerprint", .text).notNull()
                // Excluded people get no reminders and no feed events.
                t.column("excluded", .boolean).notNull().defaults(to: false)
                t.column("createdAt", .double).notNull()
                t.column("updatedAt", .double).notNull()
            }
            try db.create(table: "setting") { t in
                t.primaryKey("key", .text)
                t.column("value", .text).notNull()
            }
            // One row: a counter bumped by every change to people or to the
            // settings that shape reminders and feeds, and when that happened.
            try db.create(table: "revision") { t in
                t.primaryKey("id", .integer).check { $0 == 1 }
                t.column("value", .integer).notNull()
                t.column("changedAt", .double).notNull()
            }
            try db.execute(sql: "INSERT INTO revision (id, value, changedAt) VALUES (1, 0, 0)")
        }

        // Pending reminders (the local notification center) for issue 3.
        // Authorization status and onboarding progress live in `setting`
        // as internal values, so they need no table.
        migrator.registerMigration("v2-notifications") { db in
            try db.create(table: "pendingNotification") { t in
                t.primaryKey("id", .text)
                t.column("personId", .text).notNull()
                // "birthday" | "anniversary"
                t.column("kind", .text).notNull()
                // "day-before" | "day-of"
                t.column("whenKind", .text).notNull()
                // Unix seconds.
                t.column("fireAt", .double).notNull()
                // YYYY-MM-DD of the birthday or anniversary the request is about.
                t.column("occurrenceDate", .text).notNull()
                t.column("title", .text).notNull()
                t.column("body", .text).notNull()
                // JSON object of strings.
                t.column("userInfo", .text).notNull().defaults(to: "{}")
            }
            try db.create(index: "pendingNotification_fireAt", on: "pendingNotification", columns: ["fireAt"])
        }

        // The delivery ledger for issue 4: one row per reminder occurrence that
        // became due (or was snoozed or dismissed), keyed by the notification id
        // and the day of the event, so a reminder is handed to the channels at
        // most once per occurrence. Title and body are kept so a row can be
        // delivered after its pending request is gone; logs never read them.
        migrator.registerMigration("v3-delivery") { db in
            try db.create(table: "delivery") { t in
                t.column("notificationId", .text).notNull()
                // YYYY-MM-DD of the birthday or anniversary.
                t.column("occurrenceDate", .text).notNull()
                t.column("personId", .text).notNull()
                // "birthday" | "anniversary"
                t.column("kind", .text).notNull()
                // "day-before" | "day-of"
                t.column("whenKind", .text).notNull()
                // Unix seconds: the instant it was due.
                t.column("fireAt", .double).notNull()
                t.column("title", .text).notNull()
                t.column("body", .text).notNull()
                t.column("userInfo", .text).notNull().defaults(to: "{}")
                // queued | sending | delivered | retrying | failed | missed | interrupted | dismissed
                t.column("state", .text).notNull()
                t.column("late", .boolean).notNull().defaults(to: false)
                t.column("attempts", .integer).notNull().defaults(to: 0)
                // Unix seconds; set while retrying.
                t.column("nextAttemptAt", .double)
                // Comma list of the channels still to deliver to while retrying (NULL = all).
                t.column("channels", .text)
                // The last failure as a sentence (never a name).
                t.column("lastError", .text)
                t.column("deliveredAt", .double)
                t.column("updatedAt", .double).notNull()
                t.primaryKey(["notificationId", "occurrenceDate"])
            }
            try db.create(index: "delivery_state", on: "delivery", columns: ["state", "fireAt"])
        }

        // The secret behind the ids that logs and `birthdays status` show
        // (PublicID, issue 16): 128 random bits, created with the database so
        // that a read-only one has it too, and never shown.
        migrator.registerMigration("v4-public-id-key") { db in
            try db.execute(sql: "INSERT OR IGNORE INTO setting (key, value) VALUES ('internal.ids.key', lower(hex(randomblob(16))))")
        }

        // Per-person control (issue 12): nicknames, death dates, who excluded
        // whom, reminder days of one's own; the `day-before` setting becomes
        // `reminders` (`day-before off` is `reminders 0`).
        migrator.registerMigration("v5-person-control") { db in
            try db.alter(table: "person") { t in
                // The first NICKNAME; "" when none.
                t.add(column: "nickname", .text).notNull().defaults(to: "")
                // DEATHDATE as the card gives it (YYYY-MM-DD, --MM-DD or text); NULL while alive.
                t.add(column: "deathDate", .text)
                // The card carries X-NC-EXCLUDE-FROM-BIRTHDAY-CALENDAR (as last imported).
                t.add(column: "excludedInCard", .boolean).notNull().defaults(to: false)
                // birthdays exclude / include: "exclude" | "include"; NULL follows the card.
                t.add(column: "exclusionChoice", .text)
                // The person's own reminder days, a comma list (7,1,0); NULL follows the setting.
                t.add(column: "reminderDays", .text)
            }
            // The few people the reminder rules treat apart (PersonRecord.forEachEvent).
            try db.execute(
                sql: """
                    CREATE INDEX person_special ON person (deathDate, reminderDays)
                    WHERE deathDate IS NOT NULL OR reminderDays IS NOT NULL
                    """
            )
            // `excluded` stays the effective value (choice, else card), written
            // with every row, so readers keep filtering on it. Nothing could set
            // it before, but a row that has it keeps it as a choice.
            try db.execute(sql: "UPDATE person SET exclusionChoice = 'exclude' WHERE excluded = 1")
            try db.execute(
                sql: "INSERT OR REPLACE INTO setting (key, value) SELECT 'reminders', '0' FROM setting WHERE key = 'day-before' AND value = 'off'"
            )
            try db.execute(sql: "DELETE FROM setting WHERE key = 'day-before'")
        }

        // Birthdays and anniversaries in other calendars (issue 12): a lunar
        // birthday, a Hebrew one, each an event of its own beside the
        // person's Gregorian dates; at most one per person, kind and calendar.
        migrator.registerMigration("v6-calendar-dates") { db in
            try db.create(table: "calendarDate") { t in
                t.column("personId", .text).notNull().references("person", onDelete: .cascade)
                // "birthday" | "anniversary"
                t.column("kind", .text).notNull()
                // "chinese", "hebrew", "islamic-civil", … (CLDR's names, as Apple writes CALSCALE)
                t.column("calendar", .text).notNull()
                // Foundation's era and year; both NULL when the year is unknown.
                t.column("era", .integer)
                t.column("year", .integer)
                t.column("month", .integer).notNull()
                t.column("leapMonth", .boolean).notNull().defaults(to: false)
                t.column("day", .integer).notNull()
                // The Gregorian day of the date itself (days since 1970-01-01) when its year
                // is known, so reading it needs no conversion.
                t.column("gregorianDay", .integer)
                t.primaryKey(["personId", "kind", "calendar"])
            }
        }

        // Live contact sources for issue 11: files, vdirs and CardDAV address
        // books that a sync follows. A source owns the people it brought
        // (`sourcePerson`); `person.imported` marks people an import brought,
        // which no sync removes (every person before this migration was imported).
        migrator.registerMigration("v7-sources") { db in
            try db.alter(table: "person") { t in
                t.add(column: "imported", .boolean).notNull().defaults(to: true)
            }
            try db.create(table: "source") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("name", .text).notNull().unique()
                // "file" | "vdir" | "carddav"
                t.column("kind", .text).notNull()
                // An absolute path or the address book's URL (never with credentials).
                t.column("location", .text).notNull()
                t.column("username", .text)
                // Run with /bin/sh -c at each sync; the password itself is never stored.
                t.column("passwordCommand", .text)
                // RFC 6578 sync token and getctag of the last successful sync.
                t.column("syncToken", .text)
                t.column("ctag", .text)
                // Unix seconds.
                t.column("lastSyncAt", .double)
                t.column("lastAttemptAt", .double)
                // The last failure as a sentence (never a name or a password); NULL after a success.
                t.column("lastError", .text)
                // Failed syncs in a row.
                t.column("failures", .integer).notNull().defaults(to: 0)
                // When the running daemon syncs it next (for status); NULL when it waits for a change.
                t.column("nextSyncAt", .double)
                t.column("createdAt", .double).notNull()
            }
            // Every item the source held at its last sync, with its entity tag
            // (CardDAV) or file stamp (vdir, file), including cards without dates.
            try db.create(table: "sourceItem") { t in
                t.column("sourceId", .integer).notNull().references("source", onDelete: .cascade)
                t.column("href", .text).notNull()
                t.column("etag", .text).notNull()
                t.primaryKey(["sourceId", "href"])
            }
            // Who brought whom: one row per person an item of a source yields,
            // with the fingerprint of the person as that item has it.
            try db.create(table: "sourcePerson") { t in
                t.column("sourceId", .integer).notNull().references("source", onDelete: .cascade)
                t.column("href", .text).notNull()
                t.column("personId", .text).notNull()
                t.column("fingerprint", .text).notNull()
                t.primaryKey(["sourceId", "href", "personId"])
            }
            try db.create(index: "sourcePerson_personId", on: "sourcePerson", columns: ["personId"])
        }

        migrator.registerMigration("v8-channels") { db in
            // The channels the user added by name (`birthdays channels add`); never a secret:
            // an Apprise URL lives in a 0600 file, and `target` keeps its scheme only.
            try db.create(table: "channel") { t in
                t.primaryKey("name", .text)
                // "email" | "apprise"
                t.column("kind", .text).notNull()
                t.column("target", .text).notNull()
                t.column("fromAddress", .text)
                t.column("sendmail", .text)
                t.column("createdAt", .double).notNull()
            }
            // How every channel, built-in or added, has fared: one row per name, made by its first attempt.
            try db.create(table: "channelState") { t in
                t.primaryKey("name", .text)
                t.column("lastSuccess", .double)
                // One line: the server's or program's words, never a name.
                t.column("lastError", .text)
                t.column("lastErrorAt", .double)
                // Permanent refusals in a row; ChannelStatus.pauseAfter of them pause the channel.
                t.column("refusals", .integer).notNull().defaults(to: 0)
                t.column("paused", .boolean).notNull().defaults(to: false)
            }
        }

        migrator.registerMigration("v9-channel-token") { db in
            // ntfy and Gotify channels: the command that prints the access token at each
            // delivery (run with /bin/sh -c); the token itself is never stored.
            try db.alter(table: "channel") { t in
                t.add(column: "tokenCommand", .text)
            }
        }

        // Per-person delivery (issue 20): the channels a person's reminders go
        // through and whether their weekend reminders move to Friday. Choices
        // of the user's, kept by imports and syncs like reminderDays.
        migrator.registerMigration("v10-person-delivery") { db in
            try db.alter(table: "person") { t in
                // Channel names, comma-joined (email,ntfy); NULL uses every channel that delivers.
                t.add(column: "channels", .text)
                // "friday"; NULL moves nothing.
                t.add(column: "weekend", .text)
            }
            // The planner reads people with a weekend rule apart, like those with reminder days.
            try db.execute(sql: "DROP INDEX person_special")
            try db.execute(
                sql: """
                    CREATE INDEX person_special ON person (deathDate, reminderDays, weekend)
                    WHERE deathDate IS NOT NULL OR reminderDays IS NOT NULL OR weekend IS NOT NULL
                    """
            )
        }

        // Publishing to CalDAV calendars (issue 21): the calendars `birthdays publish`
        // writes into, and every resource it wrote there, so that it only ever
        // touches its own resources and writes only what changed.
        migrator.registerMigration("v11-publish") { db in
            try db.create(table: "publishTarget") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("name", .text).notNull().unique()
                // The URL as given (server, account or calendar), never with credentials.
                t.column("url", .text).notNull()
                // The calendar collection, ending with "/".
                t.column("calendarURL", .text).notNull()
                t.column("username", .text)
                // Run with /bin/sh -c at each publish; the password itself is never stored.
                t.column("passwordCommand", .text)
                // Whether publish add made the calendar (only then may remove delete it).
                t.column("createdCalendar", .boolean).notNull().defaults(to: false)
                // Unix seconds.
                t.column("lastPublish", .double)
                t.column("lastAttempt", .double)
                // The last failure as a sentence (never a name or a password); NULL after a success.
                t.column("lastError", .text)
                t.column("events", .integer).notNull().defaults(to: 0)
                t.column("createdAt", .double).notNull()
            }
            // One row per resource we wrote: its href and entity tag, and the hash of the bytes we wrote.
            try db.create(table: "publishedEvent") { t in
                t.column("targetId", .integer).notNull().references("publishTarget", onDelete: .cascade)
                t.column("uid", .text).notNull()
                t.column("href", .text).notNull()
                t.column("etag", .text)
                t.column("hash", .text).notNull()
                t.primaryKey(["targetId", "uid"])
            }
        }

        // What the running daemon needs to publish without asking the server
        // when nothing changed, and to show how each target fares.
        migrator.registerMigration("v12-publish-state") { db in
            try db.alter(table: "publishTarget") { t in
                // ``PublishPlan/calendarHash(_:)`` of the events at the last successful publish.
                t.add(column: "eventsHash", .text)
                // Failed publishes in a row (0 after a success).
                t.add(column: "failures", .integer).notNull().defaults(to: 0)
                // When the running daemon publishes again after a failure (Unix seconds); NULL when none is planned.
                t.add(column: "nextAttempt", .double)
            }
        }

        // Issue 26: the ways to reach a person (EMAIL, TEL, IMPP and the CSV
        // columns), replaced whenever the person's row is written.
        migrator.registerMigration("v13-contact-points") { db in
            try db.create(table: "contactPoint") { t in
                t.column("personId", .text).notNull().references("person", onDelete: .cascade)
                // 0 is the preferred one.
                t.column("position", .integer).notNull()
                // "email" | "phone" | "impp"
                t.column("kind", .text).notNull()
                // As the card gives it, without a mailto: or tel: prefix.
                t.column("value", .text).notNull()
                t.primaryKey(["personId", "position"])
            }
            // A source's unchanged cards are not read again, so the next sync of each
            // source reads them all once: their people get the contact points they have.
            try db.execute(sql: "UPDATE source SET syncToken = NULL, ctag = NULL")
            try db.execute(sql: "UPDATE sourceItem SET etag = ''")
        }

        // Reminders by group and by source (issue 26): the groups each person's
        // card puts them in, the members each source's group cards list, and the
        // rules kept by a group's or a source's name.
        migrator.registerMigration("v14-groups") { db in
            // The card's own groups (CATEGORIES, a CSV's labels, an import's group cards),
            // replaced whenever an import or a sync writes the person.
            try db.create(table: "personGroup") { t in
                t.column("personId", .text).notNull().references("person", onDelete: .cascade)
                t.column("name", .text).notNull()
                t.primaryKey(["personId", "name"])
            }
            try db.create(index: "personGroup_name", on: "personGroup", columns: ["name"])
            // What a source's group cards (KIND:group, X-ADDRESSBOOKSERVER-KIND:group) list,
            // per item: a member counts while the same source has them (sourcePerson).
            try db.create(table: "sourceGroupMember") { t in
                t.column("sourceId", .integer).notNull().references("source", onDelete: .cascade)
                t.column("href", .text).notNull()
                t.column("name", .text).notNull()
                t.column("personId", .text).notNull()
                t.primaryKey(["sourceId", "href", "name", "personId"])
            }
            try db.create(index: "sourceGroupMember_name", on: "sourceGroupMember", columns: ["name"])
            // Rules for a whole group or source, by name: they outlast membership changes.
            try db.create(table: "sharedRule") { t in
                // "group" | "source"
                t.column("scope", .text).notNull()
                t.column("name", .text).notNull()
                // "exclude" | "include"; NULL says nothing.
                t.column("exclusion", .text)
                // ReminderDays as text (7,1,0); NULL says nothing.
                t.column("reminderDays", .text)
                t.primaryKey(["scope", "name"])
            }
            // Cards read before this version have no groups yet: every source reads all
            // its items again at its next sync (ownership stays in sourcePerson, so nobody leaves).
            try db.execute(sql: "DELETE FROM sourceItem")
            try db.execute(sql: "UPDATE source SET syncToken = NULL, ctag = NULL")
        }

        // The person's own time zone (issue 26): the card's TZ, which follows the card
        // on every import and sync, and the user's `birthdays zone` choice, which no
        // import or sync changes.
        migrator.registerMigration("v15-person-zone") { db in
            try db.alter(table: "person") { t in
                // PersonZone.storedValue: an IANA name (Asia/Tokyo) or an offset (-05:00); NULL when the card gives none.
                t.add(column: "cardZone", .text)
                // ZoneChoice.storedValue: a zone as above, or "local"; NULL lets the card decide.
                t.add(column: "zoneChoice", .text)
            }
            // The planner reads people with a zone apart, like those with a weekend rule.
            try db.execute(sql: "DROP INDEX person_special")
            try db.execute(
                sql: """
                    CREATE INDEX person_special ON person (deathDate, reminderDays, weekend, cardZone, zoneChoice)
                    WHERE deathDate IS NOT NULL OR reminderDays IS NOT NULL OR weekend IS NOT NULL OR cardZone IS NOT NULL OR zoneChoice IS NOT NULL
                    """
            )
            // Unchanged cards are not read again: the next sync of each source reads them
            // all once, so their people get the zone their card has.
            try db.execute(sql: "UPDATE source SET syncToken = NULL, ctag = NULL")
            try db.execute(sql: "UPDATE sourceItem SET etag = ''")
        }

        // One consent model (issue 31): an added channel is on or off like a built-in one,
        // and a channel's last failure says whether it is retried, refused or unreachable.
        migrator.registerMigration("v16-channel-consent") { db in
            try db.alter(table: "channel") { t in
                t.add(column: "enabled", .boolean).notNull().defaults(to: true)
            }
            try db.alter(table: "channelState") { t in
                // ChannelStatus.Failure: "retrying" | "refused" | "unavailable"; NULL when the last attempt delivered.
                t.add(column: "lastFailure", .text)
            }
            // A channel whose last failure came after its last success: refused when refusals count, else retried.
            try db.execute(
                sql: """
                    UPDATE channelState SET lastFailure = CASE WHEN refusals > 0 THEN 'refused' ELSE 'retrying' END
                    WHERE lastErrorAt IS NOT NULL AND lastErrorAt > COALESCE(lastSuccess, 0)
                    """
            )
        }

        // Issue 31: how many events of the feed a target's last publish left
        // alone because a resource birthdays did not write holds their address,
        // so that `publish list` and `status` say so.
        migrator.registerMigration("v17-publish-left-alone") { db in
            try db.alter(table: "publishTarget") { t in
                t.add(column: "leftAlone", .integer).notNull().defaults(to: 0)
            }
        }

        // Issue 33: a republish asks the calendar only for what changed since the
        // last one (RFC 6578 sync-collection, from the token kept here); a server
        // that refuses it is remembered, and listed with PROPFIND as before.
        migrator.registerMigration("v18-publish-sync-token") { db in
            try db.alter(table: "publishTarget") { t in
                t.add(column: "syncToken", .text)
                t.add(column: "syncRefused", .boolean).notNull().defaults(to: false)
            }
        }

        // Labelled dates (issue 34): every dated property a card keeps under a label of its
        // own (Apple's X-ABDATE with its X-ABLabel, Google CSV's Event N, Android's events),
        // each an event of its person; and the user's choice of which labels remind.
        migrator.registerMigration("v19-labelled-dates") { db in
            try db.create(table: "labelledDate") { t in
                t.column("personId", .text).notNull().references("person", onDelete: .cascade)
                // The place among the person's labelled dates (sorted by label, then date).
                t.column("position", .integer).notNull()
                // The label as the card writes it ("Child's birthday", "Other").
                t.column("label", .text).notNull()
                t.column("year", .integer)
                t.column("month", .integer).notNull()
                t.column("day", .integer).notNull()
                t.primaryKey(["personId", "position"])
            }
            // Cards read before this version lost their labelled dates: every source reads
            // all its items again at its next sync, so their people get them.
            try db.execute(sql: "UPDATE source SET syncToken = NULL, ctag = NULL")
            try db.execute(sql: "UPDATE sourceItem SET etag = ''")
        }

        // Issue 34: the user's note for a person's day (`birthdays note`);
        // NULL when there is none. Never read from a card, so no import or
        // sync writes it (``PersonRecord`` does not carry it).
        migrator.registerMigration("v22-person-note") { db in
            try db.alter(table: "person") { t in
                t.add(column: "note", .text)
            }
        }

        // Issue 35: links for family and team (`birthdays share`). Only the
        // SHA-256 of each share's token is kept; the token is printed once.
        migrator.registerMigration("v23-shares") { db in
            try db.create(table: "share") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("name", .text).notNull().unique()
                t.column("tokenHash", .text).notNull().unique()
                t.column("showAges", .boolean).notNull()
                t.column("showYears", .boolean).notNull()
                t.column("createdAt", .double).notNull()
            }
            try db.create(table: "shareGroup") { t in
                t.column("shareId", .integer).notNull().references("share", onDelete: .cascade)
                t.column("name", .text).notNull()
                t.primaryKey(["shareId", "name"])
            }
        }

        // Team rooms (issue 35, `birthdays announce`): a room's URL carries tokens, so it lives
        // in a 0600 file beside the database (ChannelSecrets) and `target` keeps its scheme only.
        // What each room sends goes through pendingNotification and the delivery ledger
        // (notificationId "announce:NAME", one row per room and day); how a room fares is
        // kept in channelState under the same name.
        migrator.registerMigration("v25-announce") { db in
            try db.create(table: "announceRoom") { t in
                t.primaryKey("name", .text)
                // The group whose birthdays it announces (personGroup.name).
                t.column("groupName", .text).notNull()
                // "apprise" | "webhook"
                t.column("kind", .text).notNull()
                t.column("target", .text).notNull()
                t.column("ages", .boolean).notNull().defaults(to: false)
                // "friday" | "monday" | "off"
                t.column("weekend", .text).notNull()
                // A catalog language (de, zh-Hans); NULL follows the language setting.
                t.column("language", .text)
                t.column("createdAt", .double).notNull()
            }
            // People left out of one room's announcements (`exclude PERSON --announce NAME`). No
            // reference to person: an import writes a person with INSERT OR REPLACE, which must keep this.
            try db.create(table: "announceExclusion") { t in
                t.column("room", .text).notNull().references("announceRoom", onDelete: .cascade)
                t.column("personId", .text).notNull()
                t.primaryKey(["room", "personId"])
            }
        }

        // Issue 34: the kinds of date a birthday calendar (`import FILE.ics`) filled in for
        // a person from a card without them ("birthday,anniversary"); NULL for none. A later
        // import of the card keeps them while it still lacks them (ContactMerge).
        migrator.registerMigration("v26-calendar-filled") { db in
            try db.alter(table: "person") { t in
                t.add(column: "calendarFilled", .text)
            }
        }

        // Issue 35: invitations that collect missing birthdays (`birthdays invite`). Only the
        // SHA-256 of each link's token is kept; the token is printed once. `used` is raised in
        // the transaction that stores an answer. The answers keep the link's name, so they
        // outlive a removed link (invitationId then NULL). `inviteNonce` holds the SHA-256 of
        // each form nonce that was used (InviteNonce: the nonces themselves are HMAC'd under
        // the key `internal.invite.key`, made here, and never stored), so a replay stores nothing.
        migrator.registerMigration("v27-invitations") { db in
            try db.create(table: "invitation") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("name", .text).notNull().unique()
                t.column("tokenHash", .text).notNull().unique()
                // personGroup.name an accepted person joins; NULL for none.
                t.column("groupName", .text)
                // NULL: no limit.
                t.column("usesAllowed", .integer)
                t.column("used", .integer).notNull().defaults(to: 0)
                // Unix seconds; NULL: never.
                t.column("expiresAt", .double)
                t.column("note", .text)
                t.column("autoAccept", .boolean).notNull().defaults(to: false)
                t.column("createdAt", .double).notNull()
            }
            try db.create(table: "inviteAnswer") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("invitationId", .integer).references("invitation", onDelete: .setNull)
                t.column("invitationName", .text).notNull()
                t.column("name", .text).notNull()
                t.column("month", .integer).notNull()
                t.column("day", .integer).notNull()
                t.column("year", .integer)
                t.column("arrivedAt", .double).notNull()
                // "waiting" | "accepted" | "rejected"
                t.column("state", .text).notNull()
                // The person it was added to, once accepted (no reference: an import replaces person rows).
                t.column("personId", .text)
                // The group the accepted person joined (the link's, then): a sync of their card
                // puts it back, since the card does not list it (PersonGroupRecord.replace).
                t.column("groupName", .text)
                t.column("decidedAt", .double)
            }
            try db.create(index: "inviteAnswer_state", on: "inviteAnswer", columns: ["state"])
            try db.create(index: "inviteAnswer_person", on: "inviteAnswer", columns: ["personId"])
            try db.create(table: "inviteNonce") { t in
                t.primaryKey("hash", .text)
                t.column("expiresAt", .double).notNull()
            }
            try db.execute(sql: "INSERT OR IGNORE INTO setting (key, value) VALUES ('internal.invite.key', lower(hex(randomblob(32))))")
        }
        // Issue 33: `contactPoint` keyed by what identifies a row, (personId, position), and
        // nothing else: a WITHOUT ROWID table is its own primary-key index, so the person id is
        // stored once instead of in the table and again in a unique index beside it (a third of
        // a new database's pages for 100,000 people), and an import writes one b-tree, not two.
        migrator.registerMigration("v28-compact-contact-points") { db in
            try db.create(table: "contactPointCompact", options: [.withoutRowID]) { t in
                t.column("personId", .text).notNull().references("person", onDelete: .cascade)
                // 0 is the preferred one.
                t.column("position", .integer).notNull()
                // "email" | "phone" | "impp"
                t.column("kind", .text).notNull()
                // As the card gives it, without a mailto: or tel: prefix.
                t.column("value", .text).notNull()
                t.primaryKey(["personId", "position"])
            }
            try db.execute(
                sql: """
                    INSERT INTO contactPointCompact (personId, position, kind, value)
                    SELECT personId, position, kind, value FROM contactPoint ORDER BY personId, position
                    """
            )
            try db.drop(table: "contactPoint")
            try db.rename(table: "contactPointCompact", to: "contactPoint")
        }

        // Issue 42: imports and syncs update a person's row in place (INSERT … ON CONFLICT DO
        // UPDATE) instead of deleting and inserting it, so the tables that name a person can
        // refer to them at last. SQLite adds a reference only by making the table again (create
        // the new one, copy, drop, rename: https://www.sqlite.org/lang_altertable.html#otheralter;
        // the migrator runs this with foreign keys off and checks them all before it commits).
        // The rows of people who are gone go first: a room's exclusion and who-brought-whom mean
        // nothing without their person (CASCADE); an answer is history, and only forgets whom it
        // was added to (SET NULL). `sourceGroupMember.personId` gets no reference: a group card
        // may list someone its source has not brought (yet), and counts them only once it has.
        migrator.registerMigration("v29-person-references") { db in
            try db.execute(sql: "DELETE FROM announceExclusion WHERE personId NOT IN (SELECT id FROM person)")
            try db.create(table: "announceExclusionNew") { t in
                t.column("room", .text).notNull().references("announceRoom", onDelete: .cascade)
                t.column("personId", .text).notNull().references("person", onDelete: .cascade)
                t.primaryKey(["room", "personId"])
            }
            try db.execute(sql: "INSERT INTO announceExclusionNew (room, personId) SELECT room, personId FROM announceExclusion")
            try db.drop(table: "announceExclusion")
            try db.rename(table: "announceExclusionNew", to: "announceExclusion")
            // A person's delete finds their rows by it (the key leads with the room).
            try db.create(index: "announceExclusion_person", on: "announceExclusion", columns: ["personId"])

            try db.execute(sql: "DELETE FROM sourcePerson WHERE personId NOT IN (SELECT id FROM person)")
            try db.create(table: "sourcePersonNew") { t in
                t.column("sourceId", .integer).notNull().references("source", onDelete: .cascade)
                t.column("href", .text).notNull()
                t.column("personId", .text).notNull().references("person", onDelete: .cascade)
                t.column("fingerprint", .text).notNull()
                t.primaryKey(["sourceId", "href", "personId"])
            }
            try db.execute(
                sql: """
                    INSERT INTO sourcePersonNew (sourceId, href, personId, fingerprint)
                    SELECT sourceId, href, personId, fingerprint FROM sourcePerson ORDER BY sourceId, href, personId
                    """
            )
            try db.drop(table: "sourcePerson")
            try db.rename(table: "sourcePersonNew", to: "sourcePerson")
            try db.create(index: "sourcePerson_personId", on: "sourcePerson", columns: ["personId"])

            try db.execute(sql: "UPDATE inviteAnswer SET personId = NULL WHERE personId NOT IN (SELECT id FROM person)")
            try db.create(table: "inviteAnswerNew") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("invitationId", .integer).references("invitation", onDelete: .setNull)
                t.column("invitationName", .text).notNull()
                t.column("name", .text).notNull()
                t.column("month", .integer).notNull()
                t.column("day", .integer).notNull()
                t.column("year", .integer)
                t.column("arrivedAt", .double).notNull()
                // "waiting" | "accepted" | "rejected"
                t.column("state", .text).notNull()
                // The person it was added to, once accepted; NULL again when that person is gone.
                t.column("personId", .text).references("person", onDelete: .setNull)
                t.column("groupName", .text)
                t.column("decidedAt", .double)
            }
            try db.execute(
                sql: """
                    INSERT INTO inviteAnswerNew (id, invitationId, invitationName, name, month, day, year, arrivedAt, state, personId, groupName, decidedAt)
                    SELECT id, invitationId, invitationName, name, month, day, year, arrivedAt, state, personId, groupName, decidedAt FROM inviteAnswer
                    """
            )
            // The next answer's id stays what it was (a removed last answer's id is not given again:
            // an accepted answer names its person `invited-ID`).
            try db.execute(sql: "DELETE FROM sqlite_sequence WHERE name = 'inviteAnswerNew'")
            try db.execute(
                sql: "INSERT INTO sqlite_sequence (name, seq) SELECT 'inviteAnswerNew', seq FROM sqlite_sequence WHERE name = 'inviteAnswer'"
            )
            try db.drop(table: "inviteAnswer")
            try db.rename(table: "inviteAnswerNew", to: "inviteAnswer")
            try db.create(index: "inviteAnswer_state", on: "inviteAnswer", columns: ["state"])
            try db.create(index: "inviteAnswer_person", on: "inviteAnswer", columns: ["personId"])
        }

        // Issue 42: the name-day lists of your own (`name-days import FILE --country CODE`) and the
        // choices per person (`name-days off|set`) were texts in `setting` (`name-day-list-CODE`,
        // and `name-day-choices`: `id=off` or `id=MM-DD` a line), read with every setting. Each
        // gets a table: a list keyed by its code, a choice by its person, and gone with them (a
        // choice of someone already gone is dropped here). A choice `off` has no month and day.
        migrator.registerMigration("v30-name-day-tables") { db in
            try db.create(table: "nameDayList") { t in
                t.primaryKey("country", .text)
                // `MM-DD,name,name…`, one day a line.
                t.column("text", .text).notNull()
            }
            try db.create(table: "nameDayChoice") { t in
                t.primaryKey("personId", .text).references("person", onDelete: .cascade)
                // Both NULL: no name day (`off`).
                t.column("month", .integer)
                t.column("day", .integer)
            }
            // The codes a list could be named by: 2 to 8 letters a-z (others were never read).
            try db.execute(
                sql: """
                    INSERT INTO nameDayList (country, text)
                    SELECT substr(key, 15), value FROM setting
                    WHERE key GLOB 'name-day-list-*' AND length(key) BETWEEN 16 AND 22 AND substr(key, 15) NOT GLOB '*[^a-z]*'
                    """
            )
            try db.execute(sql: "DELETE FROM setting WHERE key GLOB 'name-day-list-*'")
            let choices = try String.fetchOne(db, sql: "SELECT value FROM setting WHERE key = 'name-day-choices'") ?? ""
            for line in choices.split(separator: "\n") {
                // Lines that never read as a choice are left behind, as they were skipped before.
                guard let equals = line.firstIndex(of: "=") else { continue }
                let id = String(line[..<equals])
                let value = line[line.index(after: equals)...].trimmingWhitespace().lowercased()
                var day: (month: Int, day: Int)?
                if value != "off" {
                    let parts = (value.hasPrefix("--") ? String(value.dropFirst(2)) : value).split(separator: "-")
                    guard parts.count == 2, parts.allSatisfy({ $0.count == 2 }), let month = Int(parts[0]), let dayOfMonth = Int(parts[1]),
                        EventDate(year: nil, month: month, day: dayOfMonth) != nil
                    else { continue }
                    day = (month, dayOfMonth)
                }
                try db.execute(
                    sql: """
                        INSERT INTO nameDayChoice (personId, month, day) SELECT ?, ?, ?
                        WHERE EXISTS (SELECT 1 FROM person WHERE id = ?)
                        ON CONFLICT (personId) DO UPDATE SET month = excluded.month, day = excluded.day
                        """,
                    arguments: [id, day?.month, day?.day, id]
                )
            }
            try db.execute(sql: "DELETE FROM setting WHERE key = 'name-day-choices'")
        }

        // Issue 42: what a pending request or a ledger row is (a reminder with its occasion, a
        // digest, a room's message, an invitation's notice) was eight keys of `userInfo`, and the
        // engine branched on whether one was there. It gets a column of its own, `deliveryKind`: one
        // JSON object with one key (`{"reminder":{…}}`, `{"digest":"weekly"}`, `{"announce":"team"}`,
        // `{"invite":3}`; core's `DeliveryKind`), made here from those keys as the old code read them
        // (a notice, else a room, else a digest, else a reminder with its calendar, label, label id,
        // moved-to day and zone), which then leave `userInfo`: it keeps the desktop's hints alone.
        migrator.registerMigration("v31-delivery-kind") { db in
            for table in ["pendingNotification", "delivery"] {
                try db.execute(sql: #"ALTER TABLE \#(table) ADD COLUMN deliveryKind TEXT NOT NULL DEFAULT '{"reminder":{}}'"#)
                try db.execute(
                    sql: #"""
                        UPDATE \#(table) SET
                            deliveryKind = CASE
                                WHEN json_extract(userInfo, '$.invite') IS NOT NULL
                                    THEN json_object('invite', CAST(json_extract(userInfo, '$.invite') AS INTEGER))
                                WHEN json_extract(userInfo, '$.announce') IS NOT NULL
                                    THEN json_object('announce', json_extract(userInfo, '$.announce'))
                                WHEN json_extract(userInfo, '$.digest') IS NOT NULL
                                    THEN json_object('digest', json_extract(userInfo, '$.digest'))
                                ELSE json_object('reminder', json_patch('{}', json_object(
                                    'calendar', json_extract(userInfo, '$.calendar'),
                                    'label', json_extract(userInfo, '$.label'),
                                    'label_id', json_extract(userInfo, '$.label_id'),
                                    'moved_to', json_extract(userInfo, '$.moved_to'),
                                    'zone', json_extract(userInfo, '$.zone'))))
                            END,
                            userInfo = json_remove(
                                userInfo, '$.invite', '$.announce', '$.digest', '$.calendar', '$.label', '$.label_id', '$.moved_to', '$.zone')
                        """#
                )
            }
        }

        // Greetings to friends (`birthdays greet`, issue 44). v31 is the ledger's row kind.
        migrator.registerMigration("v32-greetings") { db in
            try db.create(table: "greeting") { t in
                t.autoIncrementedPrimaryKey("id")
                // Exactly one of the two: a person (gone with them) or a group by name.
                t.column("personId", .text).unique().references("person", onDelete: .cascade)
                t.column("groupName", .text).unique()
                // "email" | "apprise" (the URL in the secret file `ID.greeting`, never here)
                t.column("way", .text).notNull()
                // email: --to; NULL is the card's first e-mail address.
                t.column("address", .text)
                // The owner's words with {first}, {name}, {age}; NULL is the default text.
                t.column("message", .text)
                t.column("language", .text)
                t.column("createdAt", .double).notNull()
                t.check(sql: "(personId IS NULL) <> (groupName IS NULL)")
            }
            // `greet skip PERSON`: that year's greeting only (the year of their birthday), gone with them.
            try db.create(table: "greetingSkip") { t in
                t.column("personId", .text).notNull().references("person", onDelete: .cascade)
                t.column("year", .integer).notNull()
                t.primaryKey(["personId", "year"])
            }
        }

        // One person, many sources (issue 43): which stored person row (a card) is shown as which person, and
        // the person's own decisions about two cards. Cards are never rewritten; `personLink` is recomputed from
        // `PersonLinker` and the exceptions after every import, sync, `link` and `unlink`.
        migrator.registerMigration("v33-person-links") { db in
            // A card shown as another person; a card shown as itself has no row.
            try db.create(table: "personLink") { t in
                t.primaryKey("personId", .text).references("person", onDelete: .cascade)
                t.column("shownAs", .text).notNull().indexed().references("person", onDelete: .cascade)
                t.check(sql: "personId <> shownAs")
            }
            // "together" | "separate" (`LinkException.Kind`) between two cards, first < second; separate wins.
            // By the cards' ids, not the rows: a decision outlives a card that leaves and comes back.
            try db.create(table: "linkException") { t in
                t.column("first", .text).notNull()
                t.column("second", .text).notNull()
                t.column("kind", .text).notNull()
                t.primaryKey(["first", "second"])
                t.check(sql: "first < second")
            }
            // `link --date-from SOURCE`: the person's birthday is the card's of that source (by a card's id, as above).
            try db.create(table: "linkDateFrom") { t in
                t.primaryKey("personId", .text)
                t.column("source", .text).notNull()
            }
        }

        // A relink after a sync or an import that changed a few cards looks only at the cards those can be
        // linked with: the cards that hold a key (`LinkKey.value`: a UID's, an address's or a number's), found by
        // this table, and the decisions about a card, found by either of its ids. The table is made whole by the
        // first such relink (`internal.links.index` says when it is), not here: an import of many cards
        // does not keep it up to date, row by row, in an index in no order.
        migrator.registerMigration("v34-link-keys") { db in
            try db.create(table: "linkKey", options: [.withoutRowID]) { t in
                t.column("value", .integer).notNull()
                // A card's id; no reference: a card's rows go when its keys change or it goes (by the keys it had).
                t.column("personId", .text).notNull()
                t.primaryKey(["value", "personId"])
            }
            try db.create(index: "linkException_second", on: "linkException", columns: ["second"])
        }

        // The greetings' plan kept between reschedules (issue 44): the cards a change has named since
        // (`GreetingPlanTriggers`), whose people's greetings alone the next reschedule plans again. In the
        // database, not a connection's TEMP table: other processes write it too. Whether a card is in a
        // greeted group by a source's group card is asked by the group's name and the card at each row a sync
        // writes, so the index on `name` takes the card too.
        migrator.registerMigration("v35-greeting-plan-changes") { db in
            // A rowid table: its largest rowid is how many cards are noted, found without a count.
            try db.create(table: "greetingPlanChange") { t in
                t.primaryKey("personId", .text)
            }
            try db.execute(sql: "DROP INDEX sourceGroupMember_name")
            try db.create(index: "sourceGroupMember_name", on: "sourceGroupMember", columns: ["name", "personId"])
        }

        // The reminders and rooms' messages pending apart from the greetings (one per greeted friend), by an
        // index of their own: a reschedule that keeps the greetings' plan reads the few others along it, and
        // so does `takeDue`. Its condition is `PendingNotificationRecord.notGreeting`'s text, which the
        // queries must repeat exactly for SQLite to use it.
        migrator.registerMigration("v36-pending-others") { db in
            try db.execute(
                sql: #"CREATE INDEX pendingNotification_others ON pendingNotification(fireAt) WHERE deliveryKind NOT LIKE '{"greeting":%'"#
            )
        }

        return migrator
    }
}
