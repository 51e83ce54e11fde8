/// Turns the contacts of one import run into people: stable ids, and one
/// person per id (pure; the store writes the result).
///
/// ## Identity
/// A contact with a vCard `UID` gets ``PersonID/fromUID(_:)``; one without
/// (and every CSV row) gets ``PersonID/derived(key:ordinal:)`` from its
/// ``ParsedContact/derivationKey`` and its position among contacts with the
/// same key in the same file, so two people with the same name stay two.
///
/// ## The same id twice in one run
/// (the same contact in two files): the first occurrence's fields win, a
/// missing date is filled from the later one, unreadable dates are joined,
/// and a conflicting date is reported at the later occurrence.
///
/// Contacts without any date (valid or not) are counted in
/// ``ImportReport/withoutDates`` and left out of the people; their ids are
/// still worked out (``datelessIDs(in:)``), so that a contact whose dates were
/// deleted at the source loses them in the store.
package enum ContactMerge {
    /// The ids of the contacts that carry no date, with the file each came
    /// from: a `UID`'s id, or the derived id when the contact's key is the
    /// only one of its kind in its file (with several, which of them lost its
    /// date cannot be told, so none is given).
    package static func datelessIDs(in contacts: [ParsedContact]) -> [(id: String, file: String)] {
        var keyCounts: [String: Int] = [:]
        for contact in contacts where contact.uid.flatMap(PersonID.fromUID) == nil {
            keyCounts[contact.source.file + "\u{1F}" + contact.derivationKey, default: 0] += 1
        }
        return contacts.compactMap { contact in
            guard !contact.hasDates else { return nil }
            if let uid = contact.uid, let id = PersonID.fromUID(uid) { return (id, contact.source.file) }
            let key = contact.derivationKey
            // A contact without a name has a key made of its (absent) dates: not an identity.
            guard key.hasPrefix("n:"), keyCounts[contact.source.file + "\u{1F}" + key] == 1 else { return nil }
            return (PersonID.derived(key: key, ordinal: 0), contact.source.file)
        }
    }

    package static func people(from contacts: [ParsedContact], report: inout ImportReport) -> [Person] {
        var ordinals: [String: Int] = [:]  // "file\u{1F}key" -> count so far
        var byID: [String: Int] = [:]
        var people: [Person] = []
        people.reserveCapacity(contacts.count)
        for contact in contacts {
            guard contact.hasDates else {
                report.withoutDates += 1
                continue
            }
            let id: String
            if let uid = contact.uid, let fromUID = PersonID.fromUID(uid) {
                id = fromUID
            } else {
                let key = contact.derivationKey
                let slot = contact.source.file + "\u{1F}" + key
                let ordinal = ordinals[slot, default: 0]
                ordinals[slot] = ordinal + 1
                id = PersonID.derived(key: key, ordinal: ordinal)
            }
            let person = Person(
                id: id,
                name: contact.displayName,
                nameParts: contact.nameParts,
                source: contact.source,
                birthday: contact.birthday,
                anniversary: contact.anniversary,
                invalidDates: contact.invalidDates
            )
            if let existing = byID[id] {
                people[existing] = fold(people[existing], person, report: &report)
            } else {
                byID[id] = people.count
                people.append(person)
            }
        }
        return people
    }

    /// Merges a second occurrence of the same id into the first.
    package static func fold(_ first: Person, _ later: Person, report: inout ImportReport) -> Person {
        var merged = first
        for kind in EventKind.allCases {
            switch (first.date(of: kind), later.date(of: kind)) {
            case (nil, let b?):
                merged.setDate(b, of: kind)
            case (let a?, let b?) where a != b:
                report.problems.append(
                    ImportProblem(
                        file: later.source.file,
                        line: later.source.line,
                        message:
                            "this contact (id \(later.id)) is also at \(first.source.file):\(first.source.line) with a different \(kind.rawValue); kept the first"
                    )
                )
            default:
                break
            }
        }
        for raw in later.invalidDates where !merged.invalidDates.contains(raw) {
            merged.invalidDates.append(raw)
        }
        if merged.name.isEmpty { merged.name = later.name }
        return merged
    }
}

extension Person {
    /// Sets the date of `kind`.
    public mutating func setDate(_ date: EventDate?, of kind: EventKind) {
        switch kind {
        case .birthday: birthday = date
        case .anniversary: anniversary = date
        }
    }
}
