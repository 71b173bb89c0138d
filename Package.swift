// swift-tools-version:6.0
import PackageDescription

let package = Package(
  name: "docsh",
  products: [
    .executable(name: "docsh", targets: ["DocsShell"]),
    .library(name: "DocsKit", targets: ["DocsKit"]),
  ],
  targets: [
    // libedit's readline API with docsh's shim, compiled once (shim.c): the signal flags,
    // the wake-up pipe and the idle timer that the handlers, the key reader and Swift share
    // have one copy in the binary, whatever an optimized build inlines (Debian's libedit-dev;
    // the Makefile's deps installs it).
    .target(
      name: "CLibEdit",
      linkerSettings: [.linkedLibrary("edit")]
    ),
    .systemLibrary(
      name: "CSQLite",
      pkgConfig: "sqlite3",
      providers: [.apt(["libsqlite3-dev"])]
    ),
    // RE2 has a C++ API only: a few C functions in front of it (Debian's libre2-dev). Its
    // archive, not its shared library, which would load the shared libstdc++ that a release
    // build links statically (see the Makefile); libstdc++ named after it, so that a static
    // one is searched for what the archive needs.
    .target(
      name: "CRE2",
      linkerSettings: [.linkedLibrary(":libre2.a"), .linkedLibrary("stdc++")]
    ),
    // libsodium's primitives under docsh's age files (Debian's libsodium-dev; the Makefile's
    // deps installs it). Only DocsKit/Crypto/Sodium.swift imports it. No pkgConfig: SwiftPM
    // would put libsodium.pc's `-L/usr/lib/…` ahead of the release build's folder of
    // archives, and every C library would be linked shared (see the Makefile's release).
    .systemLibrary(
      name: "CSodium",
      providers: [.apt(["libsodium-dev"])]
    ),
    .target(name: "DocsKit", dependencies: ["CSQLite", "CRE2", "CSodium"]),
    .executableTarget(
      name: "DocsShell",
      dependencies: ["DocsKit", "CLibEdit"]
    ),
    .target(
      name: "DocsTestSupport",
      dependencies: ["DocsKit"],
      path: "Tests/DocsTestSupport"
    ),
    .testTarget(
      name: "DocsKitTests",
      dependencies: ["DocsKit", "DocsTestSupport"],
      exclude: ["FuzzRegressions", "Crypto/AgeVectors"]
    ),
    .testTarget(
      name: "DocsShellTests",
      dependencies: ["DocsShell", "DocsKit", "DocsTestSupport"],
      exclude: ["Transcripts", "FuzzRegressions", "Reference", "Sync/Fixtures"]
    ),
  ],
  swiftLanguageModes: [.v6]
)
