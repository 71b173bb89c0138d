import Foundation
import Testing

/// docsh's own code imports no Foundation: linking it (statically, in the release build)
/// made the binary four times larger, with 83,000 relocations for the dynamic loader and a
/// conformance table the Swift runtime scans at each first generic instantiation — start-up
/// went from 1.3 M to 2.2 M instructions (`docsh --version`), and every command paid it.
@Suite struct NoFoundationTests {
  static let sources = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Sources")

  @Test func noSourceOfDocshImportsFoundation() throws {
    let files = FileManager.default.enumerator(at: Self.sources, includingPropertiesForKeys: nil)
    let swiftFiles = (files?.allObjects as? [URL] ?? []).filter { $0.pathExtension == "swift" }
    #expect(
      swiftFiles.count > 100, "found only \(swiftFiles.count) files under \(Self.sources.path)")
    var importing: [String] = []
    for file in swiftFiles {
      let text = try String(contentsOf: file, encoding: .utf8)
      if Self.importsFoundation(text) {
        importing.append(file.path.replacingOccurrences(of: Self.sources.path + "/", with: ""))
      }
    }
    #expect(importing.isEmpty, "these import Foundation: \(importing.sorted())")
  }

  @Test func anImportOfFoundationOrAPartOfItIsFound() {
    #expect(Self.importsFoundation("import DocsKit\nimport Foundation\n"))
    #expect(Self.importsFoundation("  import FoundationEssentials\n"))
    #expect(Self.importsFoundation("@preconcurrency import Foundation\n"))
    #expect(!Self.importsFoundation("import DocsKit\n// import Foundation\n"))
    #expect(!Self.importsFoundation("let note = \"import Foundation\"\n"))
  }

  /// Whether a line of `text` imports Foundation or one of its modules.
  static func importsFoundation(_ text: String) -> Bool {
    text.split(separator: "\n").contains { line in
      let words = line.split(separator: " ")
      guard let position = words.firstIndex(of: "import"), position + 1 < words.count else {
        return false
      }
      return words[..<position].allSatisfy { $0.hasPrefix("@") }
        && words[position + 1].hasPrefix("Foundation")
    }
  }
}
