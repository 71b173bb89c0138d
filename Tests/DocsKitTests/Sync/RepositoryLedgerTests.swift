import DocsTestSupport
import Foundation
import Testing

@testable import DocsKit

/// The ledger of docsh's facts about its repository: one versioned file, each fact a named
/// section, kept apart when two processes record different facts.
@Suite struct RepositoryLedgerTests {
  static let head = CommitID(String(repeating: "a", count: 40))
  static let other = CommitID(String(repeating: "b", count: 40))

  @Test func everySectionReadsBackAsWritten() {
    var ledger = RepositoryLedger()
    ledger.committed = .init(head: Self.head, generation: .known(42))
    ledger.move = .init(old: nil, new: Self.other, generation: 41, witness: "d:x:12")
    ledger.setUp = "2049 123 456 789 1011"
    ledger.identity = .init(key: RepositoryLedger.key(of: "files and variables"), value: "A <a@b>")
    let read = RepositoryLedger(parsing: ledger.bytes)
    #expect(read == ledger)
    #expect(String(decoding: ledger.bytes, as: UTF8.self).hasPrefix("docsh-ledger 1\n"))
  }

  @Test func aCommitOfALedgerWithoutItsLayoutIsOfLayoutOneAndOneOfLayoutTwoSaysSo() {
    // Written by docsh before layout 2: its HEAD may be of layout 1, the next commit
    // compares the whole store (and converts it).
    let before = RepositoryLedger(
      parsing: Array("docsh-ledger 1\ncommitted \(Self.head.hex) 7\n".utf8))
    #expect(before.committed?.layoutVersion == 1)
    #expect(before.committed?.generation == .known(7))
    var ledger = RepositoryLedger()
    ledger.committed = .init(head: Self.head, generation: .known(7))
    #expect(String(decoding: ledger.bytes, as: UTF8.self).contains(" 7 layout-2\n"))
    #expect(RepositoryLedger(parsing: ledger.bytes).committed?.layoutVersion == 2)
    ledger.committed?.layoutVersion = 1
    #expect(String(decoding: ledger.bytes, as: UTF8.self).hasSuffix(" 7\n"))
    // A fourth field that is no layout is no record.
    let odd = RepositoryLedger(
      parsing: Array("docsh-ledger 1\ncommitted \(Self.head.hex) 7 other\n".utf8))
    #expect(odd.committed == nil)
  }

  @Test func anUnknownGenerationIsTypedNotANumber() {
    var ledger = RepositoryLedger()
    ledger.committed = .init(head: Self.head, generation: .unknown)
    let text = String(decoding: ledger.bytes, as: UTF8.self)
    #expect(text.contains("committed \(Self.head.hex) unknown layout-2\n"))
    #expect(RepositoryLedger(parsing: ledger.bytes).committed?.generation == .unknown)
    // A number that is no generation is no record at all.
    let bad = RepositoryLedger(
      parsing: Array("docsh-ledger 1\ncommitted \(Self.head.hex) -1x\n".utf8))
    #expect(bad.committed == nil)
  }

  @Test func sectionsOfALaterDocshAreKeptAndANewerVersionIsLeftAlone() throws {
    let folder = try TemporaryFolder("ledger")
    let git = folder.path(".git")
    try FileManager.default.createDirectory(
      atPath: git + "/docsh", withIntermediateDirectories: true)
    try Data("docsh-ledger 1\nsomething-new 1 2 3\n".utf8).write(
      to: URL(fileURLWithPath: git + "/docsh/ledger"))
    try RepositoryLedger.update(in: git, fileSystem: SystemFileSystem()) {
      $0.committed = .init(head: Self.head, generation: .known(3))
    }
    let kept = try String(contentsOfFile: git + "/docsh/ledger", encoding: .utf8)
    #expect(kept.contains("something-new 1 2 3\n"))
    #expect(kept.contains("committed \(Self.head.hex) 3 layout-2\n"))

    let newer = "docsh-ledger 2\nwhatever comes\n"
    try Data(newer.utf8).write(to: URL(fileURLWithPath: git + "/docsh/ledger"))
    #expect(RepositoryLedger.read(in: git, fileSystem: SystemFileSystem()).committed == nil)
    try RepositoryLedger.update(in: git, fileSystem: SystemFileSystem()) {
      $0.committed = .init(head: Self.head, generation: .known(4))
    }
    #expect(try String(contentsOfFile: git + "/docsh/ledger", encoding: .utf8) == newer)
  }

  @Test func twoProcessesRecordingDifferentFactsKeepBoth() throws {
    let folder = try TemporaryFolder("ledgerrace")
    let git = folder.path(".git")
    try FileManager.default.createDirectory(atPath: git, withIntermediateDirectories: true)
    // Threads stand for processes: each holds the ledger's lock for its read and write.
    DispatchQueue.concurrentPerform(iterations: 40) { index in
      try? RepositoryLedger.update(in: git, fileSystem: SystemFileSystem()) { ledger in
        if index % 2 == 0 {
          ledger.committed = .init(head: Self.head, generation: .known(index))
        } else {
          ledger.setUp = "config \(index)"
        }
      }
    }
    let ledger = RepositoryLedger.read(in: git, fileSystem: SystemFileSystem())
    #expect(ledger.committed != nil)
    #expect(ledger.setUp != nil)
  }
}
