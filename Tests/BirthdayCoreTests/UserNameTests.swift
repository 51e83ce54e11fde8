import BirthdayCore
import Testing

/// The name rule of a server's users, and which database the options and
/// the environment choose: values, no files.
@Suite struct UserNameTests {
    @Test(arguments: ["alice", "bob-2", "team_b", "a", "0", String(repeating: "x", count: 32)])
    func aNameOfTheRuleIsTaken(_ text: String) throws {
        #expect(try UserName(text).rawValue == text)
    }

    @Test(arguments: [
        ("", UserNameError.empty),
        (String(repeating: "x", count: 33), .tooLong(String(repeating: "x", count: 33))),
        ("../x", .notAllowed("../x")),
        ("a.b", .notAllowed("a.b")),
        (".", .notAllowed(".")),
        ("..", .notAllowed("..")),
        ("a/b", .notAllowed("a/b")),
        ("Alice", .notAllowed("Alice")),
        ("al ice", .notAllowed("al ice")),
        ("ålice", .notAllowed("ålice")),
        ("a\u{0}b", .notAllowed("a\u{0}b")),
        ("-rf", .badStart("-rf")),
        ("_x", .badStart("_x")),
    ])
    func aNameOutsideTheRuleIsRefusedSayingWhy(_ text: String, _ error: UserNameError) {
        #expect(throws: error) { try UserName(text) }
        #expect(!UserName.isValid(text))
        #expect(!error.description.contains("\n") && !error.description.contains("\u{0}"))
    }

    @Test func theLayoutPutsEachUserInAFolderOfTheirOwn() throws {
        let alice = try UserName("alice")
        #expect(UserLayout.folder(alice, root: "/srv/users") == "/srv/users/alice")
        #expect(UserLayout.folder(alice, root: "/srv/users/") == "/srv/users/alice")
        #expect(UserLayout.database(alice, root: "/srv/users") == "/srv/users/alice/birthdays.sqlite")
        #expect(UserLayout.keptName(alice, attempt: 1) == "alice.removed")
        #expect(UserLayout.keptName(alice, attempt: 3) == "alice.removed-3")
        #expect(!UserName.isValid(UserLayout.keptName(alice, attempt: 1)), "a kept folder is never a user")
    }

    /// A path is a user's when it is below their folder in the root, read
    /// as the file system reads `.`, `..` and repeated slashes; the root
    /// itself, a file in it, a kept folder or a path beside it is no user's.
    @Test(
        arguments: [
            ("/srv/users/alice/birthdays.sqlite", "alice"),
            ("/srv/users/alice/other.sqlite", "alice"),
            ("/srv//users/./bob/../alice/birthdays.sqlite", "alice"),
            ("/srv/users/alice/../../users/carol/x", "carol"),
            ("/srv/users/alice", nil),
            ("/srv/users/x.sqlite", nil),
            ("/srv/users/alice.removed/birthdays.sqlite", nil),
            ("/srv/users2/alice/birthdays.sqlite", nil),
            ("/srv/users/../alice/birthdays.sqlite", nil),
            ("/srv/birthdays.sqlite", nil),
        ] as [(String, String?)]
    )
    func aPathInAUsersFolderIsTheirs(_ path: String, _ user: String?) throws {
        #expect(UserLayout.user(containing: path, root: "/srv/users")?.rawValue == user)
        #expect(UserLayout.user(containing: path, root: "/srv/users/")?.rawValue == user, "a root with a slash at its end")
    }

    // MARK: - Which database

    @Test func anOptionBeatsAVariableAndTwoOfOneStrengthAreRefused() throws {
        let both = ["BIRTHDAYS_USER": "bob", "BIRTHDAYS_DATABASE": "/x.sqlite"]
        #expect(try DatabaseChoice.choose(database: nil, user: nil, environment: [:]) == .standard)
        #expect(try DatabaseChoice.choose(database: nil, user: nil, environment: ["BIRTHDAYS_USER": ""]) == .standard)
        #expect(try DatabaseChoice.choose(database: "/a.sqlite", user: nil, environment: ["BIRTHDAYS_USER": "bob"]) == .file("/a.sqlite"))
        #expect(try DatabaseChoice.choose(database: nil, user: "alice", environment: both) == .user(UserName("alice")))
        #expect(try DatabaseChoice.choose(database: nil, user: nil, environment: ["BIRTHDAYS_USER": "bob"]) == .user(UserName("bob")))
        #expect(try DatabaseChoice.choose(database: nil, user: nil, environment: ["BIRTHDAYS_DATABASE": "/x.sqlite"]) == .file("/x.sqlite"))
        #expect(throws: DatabaseChoiceError.both(options: true)) { try DatabaseChoice.choose(database: "/a", user: "alice", environment: [:]) }
        #expect(throws: DatabaseChoiceError.both(options: false)) { try DatabaseChoice.choose(database: nil, user: nil, environment: both) }
        #expect(throws: DatabaseChoiceError.badName(.notAllowed("../x"))) {
            try DatabaseChoice.choose(database: nil, user: nil, environment: ["BIRTHDAYS_USER": "../x"])
        }
    }
}
