// swift-tools-version:6.2
import PackageDescription

/// Settings shared by every Swift target: Swift 6 language mode plus the upcoming
/// features Hummingbird builds with, so `any` and imports stay explicit.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

// The targets, lightest first; each depends only on targets above it
// (ARCHITECTURE.md draws the graph):
//
//   BirthdayCore      pure domain: dates, people, readers, settings, planner, state machines
//   BirthdayText      what people read: the String Catalog and Localizer, the page, the
//                     invitation's form, MIME e-mail, the words of reminders and digests
//   BirthdayStore     GRDB: the database and the use cases over it (the only place SQL lives)
//   BirthdayCalendar  libical (loaded with dlopen): the iCalendar exporter
//   BirthdaySystem    Linux adapters: D-Bus, wake monitor, file watches, child processes, the daemon lock
//   BirthdayNetwork   the network (AsyncHTTPClient, libxml2 loaded with dlopen): CardDAV/ the address
//                     book client, CalDAV/ the publisher, WebDAV/ what both speak; core only;
//                     linked by the birthdays-network helper only
//   BirthdayServer    the feed server (Hummingbird): store + calendar, no D-Bus, no CWake
//   BirthdayUseCases  what the CLI and the daemon both do over store + system: added channels,
//                     team rooms, the standard source sync, the write-back to a card
//   BirthdayDaemon    the wiring of `birthdays run` (swift-service-lifecycle)
//   birthdays         the command line: parsing and output only
let package = Package(
    name: "birthdays",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "birthdays", targets: ["birthdays"]),
        .executable(name: "birthdays-network", targets: ["birthdays-network"]),
        .library(name: "BirthdayCore", targets: ["BirthdayCore"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swiftcsv/SwiftCSV", from: "0.10.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
    ],
    targets: [
        // MARK: C

        // libical's headers (libical-dev), and its functions loaded with dlopen
        // at the first export (Sources/CLibical/include/CLibical.h says why).
        .target(name: "CLibical"),
        // libqrencode's header (libqrencode-dev), and its two functions loaded
        // with dlopen when a QR code is drawn (Sources/CQREncode/include/CQREncode.h says why).
        .target(name: "CQREncode"),
        // libdbus's functions, loaded with dlopen when a bus is first opened
        // (Sources/CDBus/include/CDBus.h says why).
        .target(name: "CDBus"),
        // zlib, for the feed's gzip encoding.
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        // timerfd, eventfd, inotify and posix_spawn helpers.
        .target(name: "CWake"),
        // Swift concurrency's global executor hook (`run` and `serve` only).
        .target(name: "CExecutorHook"),
        // libxml2's streaming reader, loaded with dlopen at the first CardDAV
        // sync (Sources/CLibXML2/include/CLibXML2.h says why).
        .target(name: "CLibXML2"),
        // CLDR plural rules from the ICU that Foundation already links
        // (declarations only; Sources/CICUPlural/include/CICUPlural.h says why).
        .target(name: "CICUPlural", linkerSettings: [.linkedLibrary("_FoundationICU")]),

        // MARK: Library

        .target(
            name: "BirthdayCore",
            dependencies: [.product(name: "SwiftCSV", package: "SwiftCSV")],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "BirthdayText",
            dependencies: ["BirthdayCore", "CICUPlural"],
            swiftSettings: swiftSettings,
            plugins: ["EmbedStringCatalog"]
        ),
        .target(
            name: "BirthdayStore",
            dependencies: [
                "BirthdayCore",
                "BirthdayText",
                .product(name: "GRDB", package: "GRDB.swift"),
                // SQLite's C API, for the import's rows bound directly (RowStatement).
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "BirthdayCalendar",
            dependencies: ["BirthdayCore", "BirthdayText", "CLibical"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "BirthdaySystem",
            dependencies: [
                "BirthdayCore",
                "BirthdayText",
                "CDBus",
                "CQREncode",
                "CWake",
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "BirthdayNetwork",
            dependencies: [
                "BirthdayCore",
                "CLibXML2",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "BirthdayServer",
            dependencies: [
                "BirthdayCore",
                "BirthdayText",
                "BirthdayStore",
                "BirthdayCalendar",
                "CZlib",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        // The use cases that the command line and the daemon share (channels
        // and rooms with their secret files, the standard source sync, the
        // write-back), so that a command reaches them without the daemon.
        .target(
            name: "BirthdayUseCases",
            dependencies: [
                "BirthdayCore",
                "BirthdayText",
                "BirthdayStore",
                "BirthdaySystem",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "BirthdayDaemon",
            dependencies: [
                "BirthdayCore",
                "BirthdayText",
                "BirthdayStore",
                "BirthdaySystem",
                "BirthdayServer",
                "BirthdayUseCases",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),

        // MARK: Executables

        .executableTarget(
            name: "birthdays",
            dependencies: [
                "BirthdayCore",
                "BirthdayText",
                "BirthdayStore",
                "BirthdayCalendar",
                "BirthdaySystem",
                "BirthdayServer",
                "BirthdayUseCases",
                "BirthdayDaemon",
                "CExecutorHook",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings,
            plugins: ["BuildInfo"]
        ),
        // The network helper: the only executable that links BirthdayNetwork
        // (AsyncHTTPClient, NIOSSL), run by `birthdays` for every CardDAV sync
        // and discovery, every CalDAV publish and every ntfy or Gotify message,
        // so the daemon never maps an HTTP and TLS stack.
        .executableTarget(
            name: "birthdays-network",
            dependencies: [
                "BirthdayCore",
                "BirthdayText",
                "BirthdayStore",
                "BirthdaySystem",
                "BirthdayCalendar",
                "BirthdayNetwork",
                "CWake",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // `swift run -c release scheduler-bench`: reschedule over 100,000 people (budget 100 ms).
        .executableTarget(
            name: "scheduler-bench",
            dependencies: [
                "BirthdayCore",
                "BirthdayStore",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Benchmarks/SchedulerBench",
            swiftSettings: swiftSettings
        ),
        // `swift run -c release link-bench`: PersonLinker over 100,000 cards (budget 1 s).
        .executableTarget(
            name: "link-bench",
            dependencies: ["BirthdayCore"],
            path: "Benchmarks/LinkBench",
            swiftSettings: swiftSettings
        ),

        // `make fuzz`: the contact readers under libFuzzer; without -D FUZZING,
        // a tool that replays the cases in Fuzz/regressions (a test runs it).
        .executableTarget(
            name: "reader-fuzzer",
            dependencies: ["BirthdayCore"],
            path: "Fuzz/ReaderFuzzer",
            swiftSettings: swiftSettings
        ),

        // MARK: Plugins

        // Localization/Localizable.xcstrings (the texts of every language)
        // compiled into BirthdayText as Swift by catalog-compiler.
        .executableTarget(name: "catalog-compiler"),
        .plugin(name: "EmbedStringCatalog", capability: .buildTool(), dependencies: ["catalog-compiler"]),

        // `birthdays --version`: the VERSION file and `git describe`, written
        // before every build by scripts/build-info.sh.
        .plugin(name: "BuildInfo", capability: .buildTool()),

        // MARK: Tests

        // What more than one test target needs: a log recorder, temporary
        // folders, external tools, the private notification bus.
        .target(
            name: "TestSupport",
            dependencies: ["BirthdayCore", "BirthdayStore", "CWake", .product(name: "Logging", package: "swift-log")],
            path: "Tests/TestSupport",
            resources: [.copy("NotificationServer")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "BirthdayCoreTests",
            dependencies: ["BirthdayCore", "BirthdayText", "TestSupport"],
            resources: [.copy("Fixtures")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "BirthdayTextTests",
            dependencies: ["BirthdayCore", "BirthdayText", "TestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "BirthdayStoreTests",
            dependencies: [
                "BirthdayCore",
                "BirthdayText",
                "BirthdayStore",
                "TestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "BirthdayCalendarTests",
            dependencies: ["BirthdayCore", "BirthdayText", "BirthdayCalendar", "CLibical", "TestSupport"],
            resources: [.copy("Fixtures")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "BirthdaySystemTests",
            dependencies: ["BirthdayCore", "BirthdayText", "BirthdaySystem", "TestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "BirthdayNetworkTests",
            dependencies: [
                "BirthdayCore",
                "BirthdayNetwork",
                "BirthdayStore",
                "TestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "BirthdayServerTests",
            dependencies: [
                "BirthdayCore",
                "BirthdayText",
                "BirthdayStore",
                "BirthdayCalendar",
                "BirthdayServer",
                "CZlib",
                "TestSupport",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "ServiceLifecycleTestKit", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "BirthdayDaemonTests",
            dependencies: [
                "BirthdayCore",
                "BirthdayText",
                "BirthdayStore",
                "BirthdayDaemon",
                "TestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "ServiceLifecycleTestKit", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "BirthdayUseCasesTests",
            dependencies: [
                "BirthdayCore",
                "BirthdayStore",
                "BirthdayUseCases",
                "TestSupport",
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "BirthdaysCLITests",
            dependencies: ["birthdays", "birthdays-network", "BirthdayCore", "BirthdayText", "BirthdayStore", "TestSupport"],
            swiftSettings: swiftSettings
        ),
    ]
)
