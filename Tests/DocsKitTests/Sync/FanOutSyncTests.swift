import DocsTestSupport
import Foundation
import Testing

@testable import DocsKit

/// Fanned-out categories (a limit of 3) through syncs, clones and history: what another
/// machine or a person in a clone does to them comes in, and a document's history goes on
/// across its category's crossing.
@Suite struct FanOutSyncTests {
  let sandbox: GitSandbox
  let remote: String
  let laptop: Machine
  let desktop: Machine

  /// Work with Alpha, Beta and Gamma (at the limit, flat) and Home with List, on the laptop
  /// and the remote.
  init() throws {
    sandbox = try GitSandbox("fanout-sync")
    remote = try sandbox.makeBareRemote()
    laptop = try Machine("laptop", in: sandbox, number: 1)
    desktop = try Machine("desktop", in: sandbox, number: 2)
    desktop.fanOutLimit = 3
    try startAtTheFanOutLimit(laptop, remote: remote)
  }

  /// Laptop adds Delta (Work fans out) and syncs.
  @discardableResult
  func fanOutOnTheLaptop() throws -> SyncReport {
    try laptop.edit { try put("Delta\n", at: "Work", "Delta", in: $0) }
    return try laptop.sync()
  }

  @Test func aFannedOutTreeReadsBackAsTheStoreOnAnotherMachine() throws {
    // What went out: Delta and Work's record; the files that only moved count for nothing.
    #expect(try fanOutOnTheLaptop().outgoing == 2)
    #expect(try laptop.headHoldsTheStore())
    try desktop.setUp(remote: remote)
    let report = try desktop.sync()
    #expect(report.warnings.isEmpty)
    #expect(try desktop.contents() == laptop.contents())
    #expect(try desktop.contents()["Work/Delta"] == "Delta\n")
    #expect(try desktop.trackedPaths() == laptop.trackedPaths())
  }

  @Test func oneSideFannedOutTheOtherEditedADocumentOfItAndTheyMergeCleanly() throws {
    try desktop.setUp(remote: remote)
    try desktop.sync()
    try fanOutOnTheLaptop()
    try desktop.edit { context in
      try context.setContent("Alpha desktop\n", of: try document("Work", "Alpha", in: context).id)
    }
    let report = try desktop.sync()
    #expect(report.conflicts.isEmpty)
    #expect(report.warnings.isEmpty)
    try laptop.sync()
    #expect(try laptop.contents() == desktop.contents())
    #expect(try laptop.contents()["Work/Alpha"] == "Alpha desktop\n")
    #expect(try laptop.contents()["Work/Delta"] == "Delta\n")
    #expect(try desktop.headHoldsTheStore())
    let paths = try desktop.trackedPaths()
    #expect(try paths == laptop.trackedPaths())
    for name in ["Alpha", "Beta", "Gamma", "Delta"] {
      #expect(paths.contains(try bucketed("Work", name)), "\(name): \(paths)")
    }
    #expect(!paths.contains("Work/Alpha.md"))
  }

  @Test func aFileAddedInACloneInAFannedOutFolderItselfComesInAndMovesToItsBucket() throws {
    try fanOutOnTheLaptop()
    let clone = try Clone(of: remote, named: "clone", in: sandbox)
    try clone.write("Work/Extra.md", "extra\n")
    try clone.commitAndPush("a file beside the buckets")
    let report = try laptop.sync()
    #expect(report.warnings.isEmpty)
    #expect(try laptop.contents()["Work/Extra"] == "extra\n")
    let paths = try laptop.trackedPaths()
    #expect(paths.contains(try bucketed("Work", "Extra")), "\(paths)")
    #expect(!paths.contains("Work/Extra.md"))
    #expect(try laptop.headHoldsTheStore())
  }

  @Test func folderInsideAFlatCategoryOrDeeperThanABucketWarnsAndStays() throws {
    try fanOutOnTheLaptop()
    let clone = try Clone(of: remote, named: "clone", in: sandbox)
    let bucket = RepositoryLayout.bucket(of: try Name("Note"))
    try clone.write("Home/\(bucket)/Note", "in a flat category\n")
    try clone.write("Work/\(bucket)/Deep/Note", "below a bucket\n")
    try clone.write("Work/Sub/Note", "in a folder that is no bucket\n")
    try clone.commitAndPush("folders docsh does not read")
    let report = try laptop.sync()
    #expect(
      Set(report.warnings.map(\.path)) == ["Home/\(bucket)/", "Work/\(bucket)/Deep/", "Work/Sub/"])
    #expect(try laptop.contents()["Home/Note"] == nil)
    #expect(try laptop.contents()["Work/Note"] == nil)
    let paths = try laptop.trackedPaths()
    for path in ["Home/\(bucket)/Note", "Work/\(bucket)/Deep/Note", "Work/Sub/Note"] {
      #expect(paths.contains(path), "\(path)")
    }
  }

  @Test func aDocumentsHistoryGoesOnAcrossItsCategorysCrossings() throws {
    let context = try laptop.open()
    let alpha = try document("Work", "Alpha", in: context).id
    var commits = [try laptop.gitText(["rev-parse", "HEAD"])]
    func step(_ body: () throws -> Void) throws {
      try body()
      try context.save()
      commits.append(try laptop.gitText(["rev-parse", "HEAD"]))
    }
    try step { try context.setContent("Alpha 1\n", of: alpha) }  // flat
    try step {
      _ = try context.createDocument(named: "Delta", in: try categoryID(context), content: "")
    }
    try step { try context.setContent("Alpha 2\n", of: alpha) }  // in its bucket
    try step { try context.deleteDocument(try document("Work", "Delta", in: context).id) }
    try step { try context.setContent("Alpha 3\n", of: alpha) }  // flat again
    #expect(try laptop.trackedPaths().contains("Work/Alpha.md"))
    let repository = try #require(try laptop.repository())
    let versions = try repository.history.versions(ofDocument: alpha)
    let expected = [5, 3, 1, 0].map { CommitID(commits[$0]) }
    #expect(versions.map(\.commit) == expected)
    #expect(versions.allSatisfy { $0.category == "Work" && $0.name == "Alpha" })
    for (commit, content) in zip(expected, ["Alpha 3\n", "Alpha 2\n", "Alpha 1\n", "Alpha\n"]) {
      #expect(try repository.history.document(alpha, at: commit)?.content == content)
      #expect(
        try repository.history.document(inCategory: "work", named: "ALPHA", at: commit)?.content
          == content)
    }
  }

  private func categoryID(_ context: Context) throws -> ObjectID {
    try #require(context.category(named: "Work")).id
  }
}
