import DocsTestSupport
import Foundation
import Testing

@testable import DocsKit

#if canImport(Glibc)
  import Glibc
#endif

/// A store reached through a symbolic link (`ln -s ~/Cloud/notes.json store.json`) is the file
/// the link names: saves replace that file with the lock, the temporary file and the backup
/// beside it, and the link stays a link to it.
@Suite struct StoreThroughLinkTests {
  /// A folder of dotfiles holding `store.json`, a link to `cloud/notes.json`.
  struct Linked {
    let harness: Harness
    let link: String
    let target: String

    init(_ label: String = #function, linkTarget: String = "../cloud/notes.json") throws {
      harness = try Harness(label)
      try FileManager.default.createDirectory(
        atPath: harness.folder.path("dotfiles"), withIntermediateDirectories: true)
      try FileManager.default.createDirectory(
        atPath: harness.folder.path("cloud"), withIntermediateDirectories: true)
      link = harness.folder.path("dotfiles/store.json")
      target = harness.folder.path("cloud/notes.json")
      try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: linkTarget)
    }

    /// What the link holds, or `nil` when it is no longer a link.
    func linkHolds() -> String? {
      try? FileManager.default.destinationOfSymbolicLink(atPath: link)
    }

    /// The names in `folder` of the harness.
    func entries(_ folder: String) throws -> [String] {
      try FileManager.default.contentsOfDirectory(atPath: harness.folder.path(folder)).sorted()
    }

    /// Whether `path` is a regular file (not a link).
    static func isRegularFile(_ path: String) -> Bool {
      var status = stat()
      return lstat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG
    }
  }

  @Test func savesThroughTheLinkAndThroughTheTargetBothLandInTheTarget() throws {
    let linked = try Linked()
    var seed: Context? = try linked.harness.openContext(at: linked.target)
    try #require(seed).createCategory(named: "Shared")
    try #require(seed).save()
    // Two sessions loaded the same generation, one through the link, one through the target.
    let throughLink = try linked.harness.openContext(at: linked.link)
    var throughTarget: Context? = try linked.harness.openContext(at: linked.target)
    try throughLink.createCategory(named: "FromLink")
    try throughLink.save()
    #expect(linked.linkHolds() == "../cloud/notes.json", "the save replaced the link")
    // The second sees the first's save as another session's: merged, not overwritten.
    try #require(throughTarget).createCategory(named: "FromTarget")
    try #require(throughTarget).save()
    #expect(linked.linkHolds() == "../cloud/notes.json")
    #expect(Linked.isRegularFile(linked.target))
    let names = try linked.harness.openContext(at: linked.target).categories().map(\.name.text)
    #expect(Set(names) == ["Shared", "FromLink", "FromTarget"])
    // And the link's session, saving again, merges the target's save in turn.
    try throughLink.createCategory(named: "Again")
    try throughLink.save()
    let again = try linked.harness.openContext(at: linked.link).categories().map(\.name.text)
    #expect(Set(again) == ["Shared", "FromLink", "FromTarget", "Again"])
    // The save log beside the target, folded into it through the link.
    #expect(Linked.isRegularFile(linked.target + ".wal"))
    let beforeFold = try Data(contentsOf: URL(fileURLWithPath: linked.target))
    // Sessions through the link and through the target are sessions of one store: no fold
    // while the others are open.
    #expect { try throughLink.foldSaveLog() } throws: { isOtherSessionsOpen($0) }
    seed = nil
    throughTarget = nil
    try throughLink.foldSaveLog()
    // Backup, lock and presence beside the target; nothing beside the link but the link.
    #expect(try linked.entries("dotfiles") == ["store.json"])
    #expect(
      try linked.entries("cloud") == [
        "notes.json", "notes.json.bak", "notes.json.lock", "notes.json.sessions",
        "notes.json.wal",
      ])
    #expect(Linked.isRegularFile(linked.target + ".bak"))
    #expect(
      try Data(contentsOf: URL(fileURLWithPath: linked.target + ".bak")) == beforeFold,
      "the backup is the file the fold replaced")
  }

  @Test func theLinkAndTheTargetShareOneLock() throws {
    let linked = try Linked()
    let seed = try linked.harness.openContext(at: linked.target)
    try seed.createCategory(named: "Shared")
    try seed.save()
    let linkStore = JSONStore(path: linked.link)
    let throughLink = try linked.harness.openContext(on: linkStore)
    let targetStore = JSONStore(path: linked.target)
    targetStore.lockWaitMilliseconds = 100
    let throughTarget = try linked.harness.openContext(on: targetStore)
    try throughTarget.createCategory(named: "Waiting")
    try linkStore.withSaveLock { _ in
      let error = #expect(throws: ContextError.self) { try throughTarget.save() }
      guard case .store(.locked)? = error else {
        Issue.record("expected the lock to be held, got \(String(describing: error))")
        return
      }
    }
    #expect(try throughTarget.hasChanges)
    try throughTarget.save()
    _ = throughLink
  }

  @Test func aLinkToNoFileYetCreatesTheTarget() throws {
    let linked = try Linked()
    let context = try linked.harness.openContext(at: linked.link)
    #expect(context.categories().isEmpty)
    try context.createCategory(named: "First")
    try context.save()
    #expect(linked.linkHolds() == "../cloud/notes.json")
    #expect(Linked.isRegularFile(linked.target))
    #expect(try status(of: linked.target).permissions == 0o600)
    let names = try linked.harness.openContext(at: linked.target).categories().map(\.name.text)
    #expect(names == ["First"])
    #expect(try linked.entries("dotfiles") == ["store.json"])
  }

  @Test func aChainOfLinksLeadsToTheLastOne() throws {
    let linked = try Linked(linkTarget: "middle.json")
    let middle = linked.harness.folder.path("dotfiles/middle.json")
    try FileManager.default.createSymbolicLink(
      atPath: middle, withDestinationPath: linked.target)
    let context = try linked.harness.openContext(at: linked.link)
    try context.createCategory(named: "One")
    try context.save()
    try context.createCategory(named: "Two")
    try context.save()
    try context.foldSaveLog()
    #expect(linked.linkHolds() == "middle.json")
    #expect(try FileManager.default.destinationOfSymbolicLink(atPath: middle) == linked.target)
    #expect(Linked.isRegularFile(linked.target) && Linked.isRegularFile(linked.target + ".bak"))
    let names = try linked.harness.openContext(at: linked.target).categories().map(\.name.text)
    #expect(names == ["One", "Two"])
  }

  @Test func aLoopOfLinksIsRefusedAndTouchesNothing() throws {
    let linked = try Linked(linkTarget: "other.json")
    let other = linked.harness.folder.path("dotfiles/other.json")
    try FileManager.default.createSymbolicLink(atPath: other, withDestinationPath: "store.json")
    let error = #expect(throws: StoreError.self) {
      _ = try linked.harness.openContext(at: linked.link)
    }
    guard case .system(_, _, let code)? = error else {
      Issue.record("expected a system error, got \(String(describing: error))")
      return
    }
    #expect(code == ELOOP)
    #expect(try linked.entries("dotfiles") == ["other.json", "store.json"])
    #expect(try linked.entries("cloud") == [])
    #expect(!JSONStore(path: linked.link).check().problems.isEmpty)
  }

  @Test func theIndexOfTheLinkIsTheIndexOfTheTarget() throws {
    let linked = try Linked()
    let seed = try linked.harness.openContext(at: linked.target)
    try seed.createCategory(named: "Indexed")
    try seed.save()
    let cache = linked.harness.folder.path("cache")
    func indexed(_ path: String) throws -> IndexedStore {
      let store = IndexedStore(
        path: path, cacheFolder: cache, progress: nil, fileSystem: SystemFileSystem(),
        sqlite: SystemSQLite(), now: Harness.lateClock)
      _ = try linked.harness.openContext(on: store)
      return store
    }
    let throughLink = try indexed(linked.link)
    #expect(throughLink.indexState == .rebuilt(reason: "there was none"))
    // The index the link's session built describes the target: the target's session trusts it.
    let throughTarget = try indexed(linked.target)
    #expect(throughTarget.indexState == .trusted)
    #expect(throughLink.indexPath == throughTarget.indexPath)
  }

  @Test func aLinkToNoFileYetIsNamedInTheCacheAsItsTarget() throws {
    let linked = try Linked()
    let cache = linked.harness.folder.path("cache")
    let throughLink = IndexedStore(path: linked.link, cacheFolder: cache)
    let context = try linked.harness.openContext(on: throughLink)
    try context.createCategory(named: "First")
    try context.save()
    let throughTarget = IndexedStore(path: linked.target, cacheFolder: cache)
    _ = try linked.harness.openContext(on: throughTarget)
    #expect(throughLink.indexPath != nil)
    #expect(throughLink.indexPath == throughTarget.indexPath)
  }
}
