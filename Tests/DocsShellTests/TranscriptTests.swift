import Foundation
import Testing

@testable import DocsShell

/// Whole sessions compared with the transcripts in `Transcripts/`. Set `DOCSH_RECORD=1` to
/// write the actual output back into the files after a deliberate change, then review the
/// diff.
@Suite struct TranscriptTests {
  static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("Transcripts")

  static let names: [String] = {
    let files = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
    return files.filter { $0.hasSuffix(".transcript") }.sorted()
  }()

  @Test func everyTranscriptIsFound() {
    #expect(TranscriptTests.names.count >= 10)
  }

  @Test(arguments: names)
  func transcriptMatches(name: String) throws {
    let url = TranscriptTests.folder.appendingPathComponent(name)
    let expected = try String(contentsOf: url, encoding: .utf8)
    let harness = try ShellHarness()
    let actual = harness.replay(expected)
    if ProcessInfo.processInfo.environment["DOCSH_RECORD"] == "1", actual != expected {
      try actual.write(to: url, atomically: true, encoding: .utf8)
    }
    #expect(actual == expected)
  }
}

/// The example transcript of tags and links (`examples/tags-and-links.transcript`), replayed
/// as the transcripts above are (`DOCSH_RECORD=1` writes it back).
@Suite struct ExampleTranscriptTests {
  @Test func theTagsAndLinksExampleMatches() throws {
    let url = TranscriptTests.folder.deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("examples/tags-and-links.transcript")
    let expected = try String(contentsOf: url, encoding: .utf8)
    let actual = try ShellHarness().replay(expected)
    if ProcessInfo.processInfo.environment["DOCSH_RECORD"] == "1", actual != expected {
      try actual.write(to: url, atomically: true, encoding: .utf8)
    }
    #expect(actual == expected)
  }
}
