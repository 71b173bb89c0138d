import Foundation
import Testing

/// Keeps the encrypted remote (`Sync/Encrypted/`, layer 5 of ``SyncLayersTests``) in order
/// among its own types, lowest first: its files (settings, commit map) and the stream both
/// translations write; the first commit written beside the plain one, and the two
/// translations (outgoing, incoming), none of which names another; the remote itself
/// (set-up, identity, fetching, pushing) on top. And under the layers that call it: no file
/// of the folder names the committer, recovery or the syncer, or reaches them through the
/// repository (`repository.committer`). Read from the sources, comments and strings aside.
@Suite struct EncryptedLayersTests {
  /// The level of each of the encrypted remote's job types inside its layer.
  static let typeLevels: [String: Int] = [
    "EncryptedRemoteFiles": 1, "EncryptedStream": 1,
    "EncryptedFirstCommit": 2, "EncryptedOutgoing": 2, "EncryptedIncoming": 2,
    "EncryptedRemote": 3,
  ]
  /// The types of the layers above the encrypted remote's (or the committer's, which uses it),
  /// and the accessors that hand them out.
  static let callers: Set<String> = ["StoreCommitter", "StoreRecovery", "StoreSyncer"]
  static let callerAccessors: Set<String> = ["committer", "recovery", "syncer"]

  static let folder = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Sources/DocsKit/Sync/Encrypted")

  @Test func noEncryptedTypeNamesOneAboveItOrACallerOfTheRemote() throws {
    let files = try FileManager.default.contentsOfDirectory(atPath: Self.folder.path)
      .filter { $0.hasSuffix(".swift") }.sorted()
    var declared = Set<String>()
    var problems: [String] = []
    for name in files {
      let text = try String(contentsOf: Self.folder.appendingPathComponent(name), encoding: .utf8)
      declared.formUnion(SyncLayersTests.declaredTypes(in: text))
      for problem in Self.problems(in: text) { problems.append("\(name): \(problem)") }
    }
    // A type renamed or gone would leave its level unchecked.
    #expect(declared.isSuperset(of: Self.typeLevels.keys), "not found: \(Self.typeLevels.keys)")
    #expect(problems.isEmpty, Comment(rawValue: "\n" + problems.joined(separator: "\n")))
  }

  @Test func aNameAboveOrBesideIsFoundAndOnlyInCode() {
    let outgoing = """
      /// Unlike ``EncryptedRemote``, "EncryptedIncoming" is not named here.
      struct EncryptedOutgoing {
        let files: EncryptedRemoteFiles
        func run() { _ = EncryptedIncoming(repository) }
      }
      """
    #expect(Self.problems(in: outgoing) == ["names EncryptedIncoming (level 2) on line 4"])
    let remote = """
      struct EncryptedRemote {
        func push() { try repository.syncer.sync(); _ = EncryptedOutgoing(repository) }
      }
      """
    #expect(Self.problems(in: remote) == ["reaches syncer, which calls the remote, on line 2"])
    let files = "struct EncryptedRemoteFiles { func x() { _ = StoreCommitter(repository) } }"
    #expect(Self.problems(in: files) == ["names StoreCommitter, which calls the remote, on line 1"])
  }

  /// What `text` names that its types may not: one of the encrypted remote's types of the
  /// level of its own or above (its own types aside), or a caller of the remote.
  static func problems(in text: String) -> [String] {
    let own = Set(SyncLayersTests.declaredTypes(in: text))
    let level = own.compactMap { typeLevels[$0] }.max() ?? 0
    var lexer = SourceLimits.Lexer(Array(text.utf8))
    let tokens = lexer.lex()
    var problems: [String] = []
    for (index, token) in tokens.enumerated() {
      if let other = typeLevels[token.text], other >= level, !own.contains(token.text) {
        problems.append("names \(token.text) (level \(other)) on line \(token.line)")
      }
      if callers.contains(token.text) {
        problems.append("names \(token.text), which calls the remote, on line \(token.line)")
      }
      if callerAccessors.contains(token.text), index >= 2, tokens[index - 1].text == ".",
        tokens[index - 2].text == "repository"
      {
        problems.append("reaches \(token.text), which calls the remote, on line \(token.line)")
      }
    }
    return problems
  }
}
