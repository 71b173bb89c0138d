import DocsTestSupport
import Foundation
import Testing

@testable import DocsKit

/// One machine of a sync test: its own folder, store, clock and ids, syncing through a
/// sandbox's git with a bare remote on local disk.
final class Machine {
  static let mergeDate = MergeDate(year: 2026, month: 5, day: 1)

  let sandbox: GitSandbox
  let name: String
  let storePath: String
  let runner: any GitRunner
  let clock: TestClock
  let ids: SequentialIDs

  init(_ name: String, in sandbox: GitSandbox, number: UInt64, runner: (any GitRunner)? = nil)
    throws
  {
    self.sandbox = sandbox
    self.name = name
    storePath = sandbox.folder.path("\(name)/notes/store.json")
    try FileManager.default.createDirectory(
      atPath: sandbox.folder.path("\(name)/notes"), withIntermediateDirectories: true)
    self.runner = runner ?? sandbox.runner
    clock = TestClock(start: TestClock.defaultStart + Int64(number) * 1_000_000)
    ids = SequentialIDs(after: number * 1_000_000)
  }

  /// The folder of the store (the work tree's top in these tests).
  var folder: String { splitPath(storePath).folder }

  /// Over this many documents a category's files lie in buckets (docsh's limit unless a
  /// test sets a tiny one).
  var fanOutLimit: Int?

  /// The repository of the store, when there is one.
  func repository() throws -> StoreRepository? {
    let repository = try StoreRepository.locate(storePath: storePath, runner: runner)
    if let fanOutLimit { repository?.fanOutLimit = fanOutLimit }
    return repository
  }

  /// A context on the store that commits every save when the folder is set up for docsh.
  func open() throws -> Context {
    var hook: (any SaveObserver)?
    if let repository = try repository(), try repository.isSetUp() {
      hook = GitCommitOnSave(repository: repository)
    }
    return try Context(
      store: JSONStore(path: storePath), clock: clock.now, makeID: ids.make, observer: hook)
  }

  /// Opens the store, lets `body` change it, saves.
  @discardableResult
  func edit(_ body: (Context) throws -> Void) throws -> Context {
    let context = try open()
    try body(context)
    try context.save()
    return context
  }

  /// Sets the store's folder up to sync with `remote`.
  @discardableResult
  func setUp(remote: String) throws -> StoreRepository {
    try StoreRepository.setUp(storePath: storePath, remote: remote, runner: runner)
  }

  /// Syncs.
  @discardableResult
  func sync(attempts: Int = 3) throws -> SyncReport {
    let repository = try #require(try repository())
    return try repository.syncer.sync(
      SyncOptions(mergeDate: Machine.mergeDate, maximumAttempts: attempts),
      store: IndexedStore(path: storePath, cacheFolder: nil))
  }

  /// Every document of the store as `Category/Name` → content.
  func contents() throws -> [String: String] {
    let context = try Context(store: JSONStore(path: storePath))
    var result: [String: String] = [:]
    for category in context.categories() {
      result[category.name.text + "/"] = ""
      for document in try context.documents(in: category.id) {
        result[category.name.text + "/" + document.name.text] = try context.content(
          of: document.id)
      }
    }
    return result
  }

  /// Runs git in the store's folder.
  @discardableResult
  func git(_ arguments: [String]) throws -> GitOutput {
    try sandbox.git(arguments, in: folder)
  }

  /// git's standard output in the store's folder; the test fails when git does.
  func gitText(_ arguments: [String]) throws -> String {
    try sandbox.text(arguments, in: folder)
  }

  /// Whether HEAD's tree holds exactly the store: every category and document, contents
  /// and names, as the store file has them.
  func headHoldsTheStore() throws -> Bool {
    let repository = try #require(try repository())
    guard let head = try repository.git.head() else { return try contents().isEmpty }
    var committed: [String: String] = [:]
    for category in try repository.commitReader.wholeTree(of: head, progress: nil).snapshot
      .categories
    {
      committed[category.name.text + "/"] = ""
      for document in category.documents {
        committed[category.name.text + "/" + document.name.text] = document.content
      }
    }
    return try committed == contents()
  }

  /// The paths of HEAD's tree, sorted.
  /// The layout's marker and guard folders (``LayoutMarker``) are left out: every commit
  /// holds them, and the tests of the layout look at them.
  func trackedPaths() throws -> [String] {
    try gitText(["ls-tree", "-r", "--name-only", "HEAD"]).split(separator: "\n").map(String.init)
      .filter { path in
        !path.hasPrefix(".docsh/")
          && !LayoutMarker.guardFolders.contains { path.hasPrefix($0 + "/") }
      }
  }

  /// The subjects of the branch's commits, newest first.
  func subjects() throws -> [String] {
    try gitText(["log", "--format=%s"]).split(separator: "\n").map(String.init)
  }
}

/// A clone of a remote in a work tree of its own, where files are edited as a person would
/// with any tool, committed and pushed with plain git.
struct Clone {
  let sandbox: GitSandbox
  let folder: String

  /// Clones `remote` into the sandbox's folder `name`.
  init(of remote: String, named name: String, in sandbox: GitSandbox) throws {
    self.sandbox = sandbox
    folder = sandbox.folder.path(name)
    try sandbox.text(["clone", "--quiet", remote, folder], in: sandbox.folder.path)
  }

  /// The file at `path` (`Work/Plan`), as bytes; `nil` when there is none.
  func bytes(_ path: String) -> [UInt8]? {
    FileManager.default.contents(atPath: folder + "/" + path).map(Array.init)
  }

  /// Writes the file at `path`, making its folder.
  func write(_ path: String, _ bytes: [UInt8]) throws {
    let url = URL(fileURLWithPath: folder + "/" + path)
    try FileManager.default.createDirectory(
      at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    try Data(bytes).write(to: url)
  }

  /// Writes the file at `path` holding `text`.
  func write(_ path: String, _ text: String) throws { try write(path, Array(text.utf8)) }

  /// Runs git in the clone; the test fails when git does.
  @discardableResult
  func git(_ arguments: [String]) throws -> String { try sandbox.text(arguments, in: folder) }

  /// Commits everything with `message` and pushes.
  func commitAndPush(_ message: String) throws {
    try git(["add", "-A"])
    try git(["commit", "--quiet", "-m", message])
    try git(["push", "--quiet", "origin", "HEAD"])
  }

  /// Pulls what the remote has now.
  func pull() throws { try git(["pull", "--quiet", "--ff-only"]) }

  /// The files of the work tree (git's own folder left out), sorted.
  func files() throws -> [String] {
    try git(["ls-files"]).split(separator: "\n").map(String.init)
  }
}

/// The laptop with Work/Plan and Home/List, set up and synced; the desktop set up and synced
/// from it.
func startTogether(_ laptop: Machine, _ desktop: Machine, remote: String) throws {
  try laptop.edit { context in
    try put("plan 0\n", at: "Work", "Plan", in: context)
    try put("list 0\n", at: "Home", "List", in: context)
  }
  try laptop.setUp(remote: remote)
  try laptop.sync()
  try desktop.setUp(remote: remote)
  try desktop.sync()
}

/// Makes the category `category` (when missing) and in it the document `name` holding `content`.
@discardableResult
func put(_ content: String, at category: String, _ name: String, in context: Context) throws
  -> Document
{
  let categoryID =
    try context.category(named: category)?.id
    ?? context.createCategory(
      named: category
    ).id
  if let existing = try context.document(named: name, in: categoryID) {
    return try context.setContent(content, of: existing.id)
  }
  return try context.createDocument(named: name, in: categoryID, content: content)
}

/// The document at `category`/`name` of `context`.
func document(_ category: String, _ name: String, in context: Context) throws -> Document {
  let found = try #require(context.category(named: category))
  return try #require(try context.document(named: name, in: found.id))
}

/// `machine`, with a fan-out limit of 3, holding Work with Alpha, Beta and Gamma (at the
/// limit: flat) and Home with List, set up with `remote` and synced.
func startAtTheFanOutLimit(_ machine: Machine, remote: String) throws {
  machine.fanOutLimit = 3
  try machine.edit { context in
    for name in ["Alpha", "Beta", "Gamma"] { try put("\(name)\n", at: "Work", name, in: context) }
    try put("list\n", at: "Home", "List", in: context)
  }
  try machine.setUp(remote: remote)
  try machine.sync()
}

/// The path of `name`'s file in the fanned-out category `category`: `Work/3f/Plan`.
func bucketed(_ category: String, _ name: String) throws -> String {
  category + "/" + RepositoryLayout.bucket(of: try Name(name)) + "/" + name + ".md"
}
