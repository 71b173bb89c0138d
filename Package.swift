// swift-tools-version:6.0
import PackageDescription

let package = Package(
  name: "docsh",
  products: [
    .executable(name: "docsh", targets: ["DocsShell"]),
    .library(name: "DocsKit", targets: ["DocsKit"]),
  ],
  targets: [
    .systemLibrary(
      name: "CLibEdit",
      pkgConfig: "libedit",
      providers: [.apt(["libedit-dev"])]
    ),
    .target(name: "DocsKit"),
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
      exclude: ["FuzzRegressions"]
    ),
    .testTarget(
      name: "DocsShellTests",
      dependencies: ["DocsShell", "DocsKit", "DocsTestSupport"],
      exclude: ["Transcripts", "FuzzRegressions"]
    ),
  ],
  swiftLanguageModes: [.v6]
)
