// swift-tools-version:6.2
import PackageDescription

/// Settings shared by every target: Swift 6 language mode plus the upcoming
/// features Hummingbird builds with, so `any` and imports stay explicit.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "birthdays",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "birthdays", targets: ["birthdays"]),
        .library(name: "BirthdayKit", targets: ["BirthdayKit"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swiftcsv/SwiftCSV", from: "0.10.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    ],
    targets: [
        // libical's headers (libical-dev), and its functions loaded with dlopen
        // at the first export (Sources/CLibical/include/CLibical.h says why).
        .target(name: "CLibical"),
        .systemLibrary(
            name: "CDBus",
            pkgConfig: "dbus-1",
            providers: [.apt(["libdbus-1-dev"])]
        ),
        .target(name: "CWake"),
        .target(name: "CExecutorHook"),
        .target(
            name: "BirthdayKit",
            dependencies: [
                "CDBus",
                "CLibical",
                "CWake",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SwiftCSV", package: "SwiftCSV"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "BirthdayServer",
            dependencies: [
                "BirthdayKit",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "birthdays",
            dependencies: [
                "BirthdayKit",
                "BirthdayServer",
                "CExecutorHook",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        // `swift run -c release scheduler-bench`: reschedule over 100,000 people (budget 100 ms).
        .executableTarget(
            name: "scheduler-bench",
            dependencies: [
                "BirthdayKit",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Benchmarks/SchedulerBench",
            swiftSettings: swiftSettings
        ),
        // What more than one test target needs (a log recorder).
        .target(
            name: "TestSupport",
            dependencies: [.product(name: "Logging", package: "swift-log")],
            path: "Tests/TestSupport",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "BirthdayKitTests",
            dependencies: ["BirthdayKit", "CLibical", "TestSupport"],
            resources: [.copy("Fixtures")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "BirthdayServerTests",
            dependencies: [
                "BirthdayServer",
                "BirthdayKit",
                "TestSupport",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "BirthdaysCLITests",
            dependencies: ["BirthdayKit"],
            swiftSettings: swiftSettings
        ),
    ]
)
