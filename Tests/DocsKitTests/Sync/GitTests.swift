import DocsTestSupport
import Foundation
import Testing

@testable import DocsKit

/// What ``Git`` reads itself — HEAD and loose refs from their files, lock files a killed git
/// left, the index — agrees with git, and what it reads of git's output means what git said.
@Suite struct GitTests {
  let sandbox: GitSandbox
  let folder: String
  let git: Git
  let first: CommitID

  init() throws {
    sandbox = try GitSandbox("git-wrapper")
    folder = sandbox.folder.path("repository")
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    try sandbox.text(["init", "--quiet"], in: folder)
    try sandbox.text(["commit", "--quiet", "--allow-empty", "-m", "first"], in: folder)
    first = CommitID(try sandbox.text(["rev-parse", "HEAD"], in: folder))
    git = Git(runner: sandbox.runner, folder: folder)
  }

  // MARK: - Files of a commit

  @Test func theFilesOfACommitFromTheEmptyTreeAreWhatDiffTreeLists() throws {
    let files = ["a.md", "Work/Plan \"1\".md", "Work/ab/Deep é.md", ".docsh/layout"]
    for (index, path) in files.enumerated() {
      let full = folder + "/" + path
      try FileManager.default.createDirectory(
        atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
      try Data("file \(index)\n".utf8).write(to: URL(fileURLWithPath: full))
    }
    try FileManager.default.createSymbolicLink(
      atPath: folder + "/link", withDestinationPath: "a.md")
    try sandbox.text(["add", "-A"], in: folder)
    try sandbox.text(["update-index", "--chmod=+x", "a.md"], in: folder)
    try sandbox.text(["commit", "--quiet", "-m", "files"], in: folder)
    let head = CommitID(try sandbox.text(["rev-parse", "HEAD"], in: folder))
    let listed = try sandbox.git(
      [
        "diff-tree", "-r", "-z", "--no-renames", "--no-commit-id", GitSettings.emptyTree,
        head.hex,
      ], in: folder)
    let expected = GitOutputParser.changedFiles(in: listed.output)
    #expect(expected.count == files.count + 1)
    #expect(try git.changedFiles(from: nil, to: head) == expected)
  }

  // MARK: - HEAD without git

  /// The ways HEAD can be, each made with git itself.
  enum HeadState: String, CaseIterable, CustomTestStringConvertible {
    case looseBranch, packedBranchOnly, detached, unbornBranch
    var testDescription: String { rawValue }
  }

  func make(_ state: HeadState) throws {
    switch state {
    case .looseBranch:
      break
    case .packedBranchOnly:
      try sandbox.text(["pack-refs", "--all", "--prune"], in: folder)
    case .detached:
      try sandbox.text(["update-ref", "--no-deref", "HEAD", first.hex], in: folder)
    case .unbornBranch:
      try sandbox.text(["symbolic-ref", "HEAD", "refs/heads/fresh"], in: folder)
    }
  }

  /// HEAD's branch and commit as git itself says (`symbolic-ref`, `rev-parse`).
  func headAsGitSays() throws -> (branch: String?, commit: CommitID?) {
    let branch = try sandbox.git(["symbolic-ref", "--quiet", "--short", "HEAD"], in: folder)
    let commit = try sandbox.git(["rev-parse", "--verify", "--quiet", "HEAD"], in: folder)
    return (
      branch.succeeded ? branch.lines.first.map(String.init) : nil,
      commit.succeeded ? commit.lines.first.map { CommitID($0) } : nil
    )
  }

  @Test(arguments: HeadState.allCases)
  func headReadFromFilesAgreesWithGit(_ state: HeadState) throws {
    try make(state)
    let said = try headAsGitSays()
    // The fast path answers only for a plain branch with a loose ref, and then as git does.
    let fromFiles = git.files.headFromFiles()
    if state == .looseBranch {
      let read = try #require(fromFiles)
      #expect(read.branch == "refs/heads/" + (said.branch ?? "-"))
      #expect(read.head == said.commit)
    } else {
      #expect(fromFiles == nil)
    }
    // A known repository answers from the files where it can and from git elsewhere: as git.
    let repository = StoreRepository(
      storePath: folder + "/store.json", topLevel: folder, gitDirectory: folder + "/.git",
      prefix: "", isBare: false, runner: sandbox.runner, fileSystem: SystemFileSystem())
    repository.isKnownSetUp = true
    #expect(try repository.branches.currentBranch() == said.branch)
    #expect(try repository.headCommit() == said.commit)
    #expect(try git.headBranch() == said.branch)
    #expect(try git.head() == said.commit)
  }

  @Test func aLooseRefIsReadOnlyWhenItIsAPlainRefFile() throws {
    let gitFolder = folder + "/.git"
    #expect(git.files.looseRef("refs/heads/main") == first)
    // Not a ref's name, or a file that is not 40 hex digits and a newline: git is asked.
    try Data((first.hex + "\n").utf8).write(to: URL(fileURLWithPath: gitFolder + "/ORIG_HEAD"))
    #expect(git.files.looseRef("ORIG_HEAD") == nil)
    #expect(git.files.looseRef("refs/heads/../../ORIG_HEAD") == nil)
    try Data((first.hex.uppercased() + "\n").utf8).write(
      to: URL(fileURLWithPath: gitFolder + "/refs/heads/upper"))
    #expect(git.files.looseRef("refs/heads/upper") == nil)
    try Data(first.hex.utf8).write(to: URL(fileURLWithPath: gitFolder + "/refs/heads/cut"))
    #expect(git.files.looseRef("refs/heads/cut") == nil)
    #expect(git.files.looseRef("refs/heads/missing") == nil)
  }

  // MARK: - Lock files

  /// Makes the lock file `name` in `.git`, last changed `age` seconds ago.
  func makeLock(_ name: String, age: TimeInterval) throws -> String {
    let path = folder + "/.git/" + name
    try Data().write(to: URL(fileURLWithPath: path))
    try FileManager.default.setAttributes(
      [.modificationDate: Date(timeIntervalSinceNow: -age)], ofItemAtPath: path)
    return path
  }

  @Test func aStaleLockIsRemovedAndALockHeldOpenIsKept() throws {
    let index = try makeLock("index.lock", age: 60)
    let branch = try makeLock("refs/heads/main.lock", age: 60)
    // Opened close-on-exec: the git processes other tests start at the same time must not
    // inherit it and keep the lock "held" after it is closed here.
    let held = open(index, O_RDONLY | O_CLOEXEC)
    try #require(held >= 0)
    // A lock a live process holds open is in use, however old: the sync is busy.
    #expect(throws: SyncError.busy(lock: index)) {
      try git.files.removeStaleLocks(ofRefs: ["refs/heads/main"])
    }
    #expect(FileManager.default.fileExists(atPath: index))
    close(held)
    let removed = try git.files.removeStaleLocks(ofRefs: ["refs/heads/main"])
    #expect(removed == [index, branch])
    #expect(!FileManager.default.fileExists(atPath: index))
    #expect(!FileManager.default.fileExists(atPath: branch))
  }

  @Test func aLockJustMadeIsKept() throws {
    let lock = try makeLock("HEAD.lock", age: 0)
    #expect(throws: SyncError.busy(lock: lock)) { try git.files.removeStaleLocks(ofRefs: []) }
    #expect(FileManager.default.fileExists(atPath: lock))
  }

  @Test func onlyTheLocksOfTheRefsNamedAreLookedAt() throws {
    let other = try makeLock("refs/heads/other.lock", age: 60)
    #expect(try git.files.removeStaleLocks(ofRefs: ["refs/heads/main"]).isEmpty)
    #expect(FileManager.default.fileExists(atPath: other))
  }

  // MARK: - The index

  @Test func droppingTheIndexRemovesItAndIsFineWithoutOne() throws {
    let index = folder + "/.git/index"
    try sandbox.text(["read-tree", "HEAD"], in: folder)
    #expect(FileManager.default.fileExists(atPath: index))
    try git.files.dropIndex()
    #expect(!FileManager.default.fileExists(atPath: index))
    try git.files.dropIndex()
  }

  // MARK: - Reading git's output

  @Test func changedFilesReadsDeletionsModesAndPathsThatAreNotUTF8() {
    let old = String(repeating: "a", count: 40)
    let zero = String(repeating: "0", count: 40)
    var output = Array(":100644 000000 \(old) \(zero) D".utf8) + [0] + Array("gone.md".utf8) + [0]
    output += Array(":000000 120000 \(zero) \(old) A".utf8) + [0] + [0x66, 0xFF] + [0]
    let files = GitOutputParser.changedFiles(in: output)
    #expect(
      files == [
        Git.ChangedFile(
          path: "gone.md", isUTF8: true, old: GitBlobID(hex: old), new: nil, mode: "000000"),
        Git.ChangedFile(
          path: PrintableText.escaped([UInt8]([0x66, 0xFF])), isUTF8: false, old: nil,
          new: GitBlobID(hex: old), mode: "120000"),
      ])
  }

  @Test func aBatchThatStopsEarlyIsAFailureNotAMissingObject() throws {
    let output = Array("abc blob 5\nhello\ndef missing\n".utf8)
    let read = try GitOutputParser.batchContents(output, count: 2, step: "read")
    #expect(read == [Array("hello".utf8), nil])
    #expect(throws: SyncError.self) {
      try GitOutputParser.batchContents(output, count: 3, step: "read")
    }
    let cut = Array("abc blob 50\nhello\n".utf8)
    #expect(throws: SyncError.self) {
      try GitOutputParser.batchContents(cut, count: 1, step: "read")
    }
  }

  @Test func aConfigLineIsAKeyAndAValue() {
    #expect(
      Git.ConfigEntry(line: "docsh.layout files") == .init(key: "docsh.layout", value: "files"))
    #expect(Git.ConfigEntry(line: "user.name A B") == .init(key: "user.name", value: "A B"))
    #expect(Git.ConfigEntry(line: "core.bare") == .init(key: "core.bare", value: ""))
  }

  @Test func theConfigIsReadAndWrittenThroughGit() throws {
    try git.setLocalConfig("docsh.layout", to: "files")
    let entries = try git.configEntries(matching: "^docsh\\.", localOnly: true)
    #expect(entries == [.init(key: "docsh.layout", value: "files")])
    #expect(try sandbox.text(["config", "--local", "docsh.layout"], in: folder) == "files")
  }
}
