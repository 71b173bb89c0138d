import DocsTestSupport
import Foundation
import Testing

@testable import DocsKit

/// A repository's first commit, when it syncs with an encrypted remote, writes the remote's
/// commit from the store in the same pass (``EncryptedFirstCommit``): that commit must mean
/// what the translation of the plain commit makes of it.
@Suite struct EncryptedFirstCommitTests {
  let sandbox: GitSandbox
  let remote: String
  let laptop: Machine

  init() throws {
    sandbox = try GitSandbox("encrypted-first")
    remote = try sandbox.makeBareRemote()
    laptop = try Machine("laptop", in: sandbox, number: 1)
  }

  /// Gives the same passphrase every time it is asked.
  final class FixedPassphrase: PassphraseProviding {
    func passphrase(prompt: String, confirm: Bool) throws -> [UInt8] {
      Array("a passphrase for the tests".utf8)
    }
  }

  /// A store with tags, links, names that need encoding, an empty category and a category
  /// fanned out into buckets.
  func fillStore() throws {
    laptop.fanOutLimit = 3
    try laptop.edit { context in
      let plan = try put(
        "ship it\n---\nnot a header\n", at: "Work: 2026", "Plan: \"draft\" *1* %2F", in: context)
      let notes = try put(
        "see [[Work: 2026/Plan: \"draft\" *1* %2F]]\n", at: "Home", "Notes.md", in: context)
      try put("", at: "Home", ".hidden start", in: context)
      try put("é and ü, NFC and NFD: e\u{301}\n", at: "Résumé", "Ünïcode ✓", in: context)
      for index in 0..<6 { try put("line \(index)\n", at: "Many", "Item \(index)", in: context) }
      _ = try context.createCategory(named: "Empty")
      _ = try context.tag([plan.id, notes.id], with: [try Tag("secret-tag"), try Tag("work")])
    }
  }

  /// The files of `commit`'s tree by path: each age file decrypted with `identity`, every
  /// other file as it is.
  func files(of commit: CommitID, in repository: StoreRepository, identity: AgeIdentity) throws
    -> [String: [UInt8]]
  {
    let listing = try laptop.gitText([
      "ls-tree", "-r", "--format=%(objectname) %(path)", commit.hex,
    ])
    var files: [String: [UInt8]] = [:]
    for line in listing.split(separator: "\n") {
      let parts = line.split(separator: " ", maxSplits: 1)
      let path = String(parts[1])
      let bytes = try #require(
        try repository.commitReader.readBlobs([GitBlobID(hex: String(parts[0]))]).first ?? nil)
      switch EncryptedLayout.classify(path) {
      case .document, .category:
        files[path] = try Age.decrypt(bytes, identities: [identity])
      default:
        files[path] = bytes
      }
    }
    return files
  }

  /// Makes the store's first commit and its encrypted twin, and translates the commit anew:
  /// the files of the twin and of the translation, and the two commits.
  func commitAndTranslate(fanOutLimit: Int? = nil) throws -> (
    made: [String: [UInt8]], expected: [String: [UInt8]], direct: CommitID,
    translated: CommitID
  ) {
    let repository = try StoreRepository.setUpEncrypted(
      storePath: laptop.storePath, remote: remote, runner: laptop.runner,
      passphrases: FixedPassphrase())
    if let fanOutLimit { repository.fanOutLimit = fanOutLimit }
    let identity = try #require(repository.encryptionIdentity)
    let settings = try #require(try EncryptedRemoteFiles(repository).encryptionSettings())
    let head = try #require(try repository.committer.commitStore(JSONStore(path: laptop.storePath)))
    // Written with the commit, from the store: the map has it before any push.
    let direct = try #require(
      try EncryptedRemoteFiles(repository).encryptedCommitMap().encrypted(for: head))
    // The translation of the same commit, by a map that knows none.
    var empty = EncryptedCommitMap(parsing: [])
    let translated = try EncryptedOutgoing(repository).encryptedCommit(
      for: head, map: &empty, settings: settings, identity: identity)
    #expect(translated != direct)  // encrypted anew: the translation did run
    return (
      try files(of: direct, in: repository, identity: identity),
      try files(of: translated, in: repository, identity: identity), direct, translated
    )
  }

  @Test func theFirstCommitsEncryptedTwinMeansWhatTheTranslationMakes() throws {
    try fillStore()
    let (made, expected, direct, translated) = try commitAndTranslate(fanOutLimit: 3)
    #expect(made.keys.sorted() == expected.keys.sorted())
    for (path, bytes) in expected {
      // As text, so that a difference reads as one.
      let text = made[path].map { String(decoding: $0, as: UTF8.self) }
      #expect(text == String(decoding: bytes, as: UTF8.self), "\(path) differs")
    }
    // Every category (the empty one too) and document is there.
    let documents = made.keys.filter { EncryptedLayout.classify($0) != .unknown }
    #expect(documents.filter { $0.hasPrefix("categories/") }.count == 5)
    #expect(documents.filter { $0.hasPrefix("documents/") }.count == 10)
    // The same message (counts only), author and date.
    let format = ["show", "-s", "--format=%an <%ae> %at %cn <%ce> %ct %B"]
    #expect(try laptop.gitText(format + [direct.hex]) == laptop.gitText(format + [translated.hex]))
    #expect(try laptop.gitText(format + [direct.hex]).contains("docsh: 15 new"))
  }

  @Test func recordsEncryptedInManyBatchesEachLieAtTheirOwnPath() throws {
    // More records than one batch encrypts (500): their blobs and paths must stay paired.
    try laptop.edit { context in
      for index in 0..<1_100 {
        try put("text \(index)\n", at: index % 3 == 0 ? "Work" : "Home", "N \(index)", in: context)
      }
    }
    let (made, expected, _, _) = try commitAndTranslate()
    #expect(made.count == 1_100 + 2 + 4)
    #expect(made == expected)
  }
}
