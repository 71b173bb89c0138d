import Foundation
import Testing

@testable import DocsKit

/// Replays every input in `FuzzRegressions/store` — the fuzzer's seeds and whatever it ever
/// found — through the store reader, as `fuzz/StoreReaderFuzzer.swift` does: no input may
/// crash, hang, or load a graph that `check` then calls unsound.
@Suite struct StoreFuzzRegressionTests {
  static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("FuzzRegressions/store")

  static let inputs: [String] =
    ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()

  @Test func theRegressionFolderHasInputs() {
    #expect(StoreFuzzRegressionTests.inputs.count >= 3)
  }

  @Test(arguments: inputs)
  func inputIsHandled(name: String) throws {
    let bytes = try Data(contentsOf: StoreFuzzRegressionTests.folder.appendingPathComponent(name))
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "docsh-fuzz-\(UUID())")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let path = folder.appendingPathComponent("store.json").path
    try bytes.write(to: URL(fileURLWithPath: path))
    let store = JSONStore(path: path)
    let report = store.check()
    guard let context = try? Context(store: store) else {
      #expect(!report.isSound, "check calls sound a store that does not load")
      return
    }
    var readable = true
    for category in context.categories() {
      for document in try context.documents(in: category.id) {
        if (try? context.content(of: document.id)) == nil { readable = false }
      }
    }
    if !readable { #expect(!report.isSound) }
  }
}
