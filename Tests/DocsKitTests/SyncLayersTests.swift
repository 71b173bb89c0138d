import Foundation
import Testing

/// Keeps the sync's types in layers (issue 37), lowest first: git, the found repository and what
/// reads it, writing commits, committing the store, the encrypted remote, recovery, the
/// sync. A type uses only the layers below its own, so that no type calls up into one that
/// calls it. Read from the sources, comments and strings aside: a file that declares a
/// layer's type (or, under `Sync/Encrypted/`, any file) names no type of a higher layer, and
/// reaches no higher job through the repository's accessors (`repository.syncer`).
@Suite struct SyncLayersTests {
  /// The layer of each of the sync's job types.
  static let typeLayers: [String: Int] = [
    "Git": 1, "GitFiles": 1, "GitSettings": 1, "GitOutputParser": 1,
    "StoreRepository": 2, "CommitReader": 2, "RepositoryBranches": 2,
    "CommitWriter": 3, "HeadMoveNote": 3,
    "StoreCommitter": 4,
    "StoreRecovery": 6,
    "StoreSyncer": 7,
  ]
  /// The layer of the job each of the repository's accessors hands out.
  static let accessorLayers: [String: Int] = [
    "commitWriter": 3, "headMoveNote": 3, "committer": 4, "recovery": 6, "syncer": 7,
  ]
  /// The encrypted remote's files, whatever types they declare.
  static let encryptedLayer = 5

  static let sync = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Sources/DocsKit/Sync")

  @Test func noSyncTypeNamesOneOfAHigherLayer() throws {
    let files = try FileManager.default.subpathsOfDirectory(atPath: Self.sync.path)
      .filter { $0.hasSuffix(".swift") }.sorted()
    var declared = Set<String>()
    var problems: [String] = []
    for path in files {
      let text = try String(
        contentsOf: Self.sync.appendingPathComponent(path), encoding: .utf8)
      declared.formUnion(Self.declaredTypes(in: text))
      let layer = Self.layer(of: text, inEncryptedFolder: path.hasPrefix("Encrypted/"))
      for problem in Self.namesAbove(layer, in: text) { problems.append("\(path): \(problem)") }
    }
    // A type renamed or gone would leave its layer unchecked.
    #expect(declared.isSuperset(of: Self.typeLayers.keys), "not found: \(Self.typeLayers.keys)")
    #expect(problems.isEmpty, Comment(rawValue: "\n" + problems.joined(separator: "\n")))
  }

  @Test func aNameOfAHigherLayerIsFoundAndOnlyInCode() {
    let writer = """
      struct CommitWriter {
        let repository: StoreRepository
        func make() { _ = StoreSyncer(repository: repository) }
      }
      """
    #expect(Self.layer(of: writer, inEncryptedFolder: false) == 3)
    #expect(Self.namesAbove(3, in: writer) == ["names StoreSyncer (layer 7) on line 3"])
    let committer = """
      struct StoreCommitter {
        /// Not ``StoreSyncer``: "StoreRecovery" either.
        func commit() { try repository.recovery.restore(); try git.committer() }
      }
      """
    #expect(
      Self.namesAbove(4, in: committer) == ["reaches recovery (layer 6) on line 3"])
    let encrypted = "extension StoreRepository { func push() { repository.committer.x() } }"
    #expect(Self.layer(of: encrypted, inEncryptedFolder: true) == 5)
    #expect(Self.namesAbove(5, in: encrypted).isEmpty)
  }

  /// The highest layer of the types `text` declares; the encrypted remote's in its folder;
  /// `nil` for a file of none of them.
  static func layer(of text: String, inEncryptedFolder: Bool) -> Int? {
    if inEncryptedFolder { return encryptedLayer }
    return declaredTypes(in: text).compactMap { typeLayers[$0] }.max()
  }

  /// What `text`, of `layer`, names of a higher layer: a job type, or a job reached through
  /// the repository (`repository.recovery`).
  static func namesAbove(_ layer: Int?, in text: String) -> [String] {
    guard let layer else { return [] }
    let tokens = lexed(text)
    var problems: [String] = []
    for (index, token) in tokens.enumerated() {
      if let above = typeLayers[token.text], above > layer {
        problems.append("names \(token.text) (layer \(above)) on line \(token.line)")
      }
      if let above = accessorLayers[token.text], above > layer, index >= 2,
        tokens[index - 1].text == ".", tokens[index - 2].text == "repository"
      {
        problems.append("reaches \(token.text) (layer \(above)) on line \(token.line)")
      }
    }
    return problems
  }

  /// The names `text` declares as a struct, class, enum or protocol.
  static func declaredTypes(in text: String) -> [String] {
    let tokens = lexed(text)
    return tokens.indices.dropLast().compactMap { index in
      ["struct", "class", "enum", "protocol"].contains(tokens[index].text)
        ? tokens[index + 1].text : nil
    }
  }

  private static func lexed(_ text: String) -> [SourceLimits.Token] {
    var lexer = SourceLimits.Lexer(Array(text.utf8))
    return lexer.lex()
  }
}
