import DocsTestSupport
import Foundation
import Testing

@testable import DocsKit

/// A second machine's first sync writes its store from the remote's tree a category at a
/// time (``StoreIncomingStream``): the store it ends with is exactly the first machine's,
/// its index works, and a failure anywhere on the way leaves the old store file as it was.
@Suite struct FirstSyncStreamTests {
  let sandbox: GitSandbox
  let remote: String
  let laptop: Machine
  let desktop: Machine

  init() throws {
    sandbox = try GitSandbox("firstsync")
    remote = try sandbox.makeBareRemote()
    laptop = try Machine("laptop", in: sandbox, number: 1)
    desktop = try Machine("desktop", in: sandbox, number: 2)
  }

  static let categoryNames = ["Work", "Home", "Trips", "Été 日本"]
  static let documentsPerCategory = 150

  /// Fills the laptop with every category of ``categoryNames`` holding
  /// ``documentsPerCategory`` documents (contents with quotes, backslashes, tabs, non-ASCII
  /// letters and emoji; a few empty; every seventh tagged), and pushes it to the remote.
  /// `padding` bytes are added to each content, to make the store as large as a test needs.
  func fillLaptop(padding: Int = 0) throws {
    let filler = String(repeating: "lorem ipsum ", count: padding / 12)
    try laptop.edit { context in
      for (c, category) in FirstSyncStreamTests.categoryNames.enumerated() {
        for number in 0..<FirstSyncStreamTests.documentsPerCategory {
          let content =
            number % 50 == 0
            ? ""
            : "Document \(number) of \(category)\nsaid \"hello\", a \\ and a\ttab, é 日本 🎉\n"
              + (c == 1 && number == 77 ? "the word quokka is here alone\n" : "") + filler
          let document = try put(content, at: category, "Note \(number)", in: context)
          if number % 7 == 0 {
            _ = try context.tag([document.id], with: [try Tag("seven")])
          }
        }
      }
    }
    try laptop.setUp(remote: remote)
    try laptop.sync()
  }

  /// Every document of the store at `path`, by id: its category, name, size, date, tags and
  /// content, read from the store file itself.
  static func documents(ofStoreAt path: String) throws -> [ObjectID: [String]] {
    let store = JSONStore(path: path)
    let graph = try store.load()
    let names = Dictionary(uniqueKeysWithValues: graph.categories.map { ($0.id, $0.name.text) })
    var documents: [ObjectID: [String]] = [:]
    for document in graph.documents {
      documents[document.id] = [
        try #require(names[document.categoryID]), document.name.text, String(document.size),
        document.modified.iso8601, document.tags.map(\.text).joined(separator: ","),
        try store.readContent(at: document.contentLocation),
      ]
    }
    return documents
  }

  /// The categories of the store at `path`, by id.
  static func categories(ofStoreAt path: String) throws -> [ObjectID: String] {
    let graph = try JSONStore(path: path).load()
    return Dictionary(uniqueKeysWithValues: graph.categories.map { ($0.id, $0.name.text) })
  }

  @Test func aSecondMachinesFirstSyncOfManyDocumentsEndsWithExactlyTheStoreAndAWorkingIndex()
    throws
  {
    try fillLaptop()
    let cache = sandbox.folder.path("desktop/cache")
    let repository = try desktop.setUp(remote: remote)
    let store = IndexedStore(path: desktop.storePath, cacheFolder: cache)
    let context = try Context(store: store)
    let report = try context.sync(
      through: repository, options: SyncOptions(mergeDate: Machine.mergeDate))
    let count = FirstSyncStreamTests.categoryNames.count
    #expect(report.notes == [.fetchedStore])
    #expect(report.incoming == count * (1 + FirstSyncStreamTests.documentsPerCategory))

    let expected = try FirstSyncStreamTests.documents(ofStoreAt: laptop.storePath)
    #expect(expected.count == count * FirstSyncStreamTests.documentsPerCategory)
    #expect(try FirstSyncStreamTests.documents(ofStoreAt: desktop.storePath) == expected)
    #expect(
      try FirstSyncStreamTests.categories(ofStoreAt: desktop.storePath)
        == FirstSyncStreamTests.categories(ofStoreAt: laptop.storePath))
    // The syncing session shows the new store (it loaded it again).
    #expect(context.categories().count == count)
    #expect(context.documentCount == expected.count)
    #expect(try desktop.headHoldsTheStore())

    // The index the sync's session built answers the next session, and is right.
    let reopenedStore = IndexedStore(path: desktop.storePath, cacheFolder: cache)
    let reopened = try Context(store: reopenedStore)
    #expect(reopenedStore.indexState == .trusted)
    #expect(reopened.documentCount == expected.count)
    let hits = try reopened.search(SearchQuery("quokka"))
    #expect(hits.map(\.document.name.text) == ["Note 77"])
    let tagged = try reopened.documents(taggedWith: [try Tag("seven")])
    #expect(tagged.count == count * ((FirstSyncStreamTests.documentsPerCategory + 6) / 7))
    // A save after it is appended as usual, and commits.
    let home = try #require(reopened.category(named: "Home"))
    let note = try #require(try reopened.document(named: "Note 1", in: home.id))
    try reopened.setContent("changed after the first sync\n", of: note.id)
    try reopened.save()
    #expect(try desktop.contents()["Home/Note 1"] == "changed after the first sync\n")
  }

  @Test func aFirstSyncFailingAtAnyWriteLeavesTheOldStoreFileAsItWas() throws {
    // About 3 MB of store: the new file reaches the disk in several writes.
    try fillLaptop(padding: 5_000)
    let expected = try FirstSyncStreamTests.documents(ofStoreAt: laptop.storePath)
    var failedInTheNewFile = 0
    var occurrence = 1
    while true {
      // A fresh machine each time, whose store file holds no category (one made and
      // deleted), as a fresh machine's may.
      let machine = try Machine(
        "desktop\(occurrence)", in: sandbox, number: 10 + UInt64(occurrence))
      try machine.edit { _ = try $0.createCategory(named: "Empty") }
      try machine.edit { try $0.deleteCategory(try #require($0.category(named: "Empty")).id) }
      let old = try bytes(at: machine.storePath)
      try machine.setUp(remote: remote)
      let faults = FaultInjectingFileSystem()
      let repository = try #require(
        try StoreRepository.locate(
          storePath: machine.storePath, runner: machine.runner, fileSystem: faults))
      faults.arm(.operation("write", occurrence: occurrence))
      let result = Result { () throws(SyncError) in
        try repository.syncer.sync(
          SyncOptions(mergeDate: Machine.mergeDate, maximumAttempts: 1),
          store: JSONStore(path: machine.storePath, fileSystem: faults))
      }
      faults.disarm()
      let place = "write \(occurrence)"
      #expect(faults.badCloses.isEmpty, "\(place)")
      guard faults.injected != nil, case .failure = result else {
        // No write failed, or only one whose loss a later sync makes good (a note in the
        // ledger): the store is the remote's.
        #expect(throws: Never.self, "\(place)") { try result.get() }
        #expect(try FirstSyncStreamTests.documents(ofStoreAt: machine.storePath) == expected)
        #expect(try machine.headHoldsTheStore(), "\(place)")
        if faults.injected == nil { break }
        occurrence += 1
        continue
      }
      // Was the write that failed one of the new store file's (the last file created
      // before it is the store's temporary file)?
      let calls = faults.calls
      let writes = calls.indices.filter { calls[$0] == "write" }
      if writes.count >= occurrence,
        let created = calls[..<writes[occurrence - 1]].last(where: { $0.hasPrefix("openat .") }),
        created.hasPrefix("openat .store.json.")
      {
        failedInTheNewFile += 1
      }
      #expect(try bytes(at: machine.storePath) == old, "\(place)")
      let strays = try FileManager.default.contentsOfDirectory(atPath: machine.folder)
        .filter { $0.hasPrefix(".store.json.") }
      #expect(strays.isEmpty, "\(place): left \(strays)")
      #expect(
        !(try machine.git(["rev-parse", "--verify", "--quiet", "HEAD"]).succeeded),
        "\(place): HEAD moved")
      // The next sync, with nothing failing, brings everything in.
      try machine.sync()
      #expect(try FirstSyncStreamTests.documents(ofStoreAt: machine.storePath) == expected)
      occurrence += 1
    }
    // The new file was cut short half way more than once (a write a megabyte).
    #expect(failedInTheNewFile >= 2)
  }

  @Test func aRemoteHoldingOneDocumentInTwoCategoriesIsRefusedAndChangesNothing() throws {
    try laptop.edit { context in
      try put("plan\n", at: "Work", "Plan", in: context)
      try put("list\n", at: "Home", "List", in: context)
    }
    try laptop.setUp(remote: remote)
    try laptop.sync()
    // A clone copies Work/Plan's file, its id and all, into Home: either copy taken would
    // cost the other.
    let clone = try Clone(of: remote, named: "clone", in: sandbox)
    try clone.write("Home/Plan copy.md", try #require(clone.bytes("Work/Plan.md")))
    try clone.commitAndPush("a copy")
    try desktop.setUp(remote: remote)
    #expect {
      try desktop.sync()
    } throws: { error in
      guard case SyncError.refusedRemote(let refusal, _) = error else { return false }
      return refusal.rule.contains("which another category or document holds too")
    }
    #expect(!FileManager.default.fileExists(atPath: desktop.storePath))
    #expect(!(try desktop.git(["rev-parse", "--verify", "--quiet", "HEAD"]).succeeded))
    let strays = try FileManager.default.contentsOfDirectory(atPath: desktop.folder)
      .filter { $0.hasPrefix(".store.json.") }
    #expect(strays.isEmpty)
  }
}
