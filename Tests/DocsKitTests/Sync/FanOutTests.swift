import DocsTestSupport
import Foundation
import Testing

@testable import DocsKit

/// A category of more documents than the fan-out limit (3 here, 2,000 in docsh) keeps them
/// in bucket subfolders, `Work/xx/Name`: saves, the whole-store comparison, syncs and
/// history write and read that layout, and move a category's files once when it crosses.
@Suite struct FanOutTests {
  let sandbox: GitSandbox
  let remote: String
  let laptop: Machine

  init() throws {
    sandbox = try GitSandbox("fanout")
    remote = try sandbox.makeBareRemote()
    laptop = try Machine("laptop", in: sandbox, number: 1)
    try startAtTheFanOutLimit(laptop, remote: remote)
  }

  /// The fanned-out paths of Work's four documents, its record and Home's.
  func fannedOutPaths() throws -> [String] {
    try
      (["Alpha", "Beta", "Delta", "Gamma"].map { try bucketed("Work", $0) } + [
        "Home/.docsh-category", "Home/List.md", "Work/.docsh-category",
      ]).sorted()
  }

  func commitCount() throws -> Int {
    Int(try laptop.gitText(["rev-list", "--count", "HEAD"])) ?? 0
  }

  func recordOfWork(at revision: String = "HEAD") throws -> String {
    try laptop.gitText(["cat-file", "-p", revision + ":Work/.docsh-category"])
  }

  @Test func namesEqualIgnoringCaseShareABucketOfTwoLowercaseHexDigits() throws {
    #expect(
      RepositoryLayout.bucket(of: try Name("Plan")) == RepositoryLayout.bucket(of: try Name("pLAN"))
    )
    var buckets = Set<String>()
    for number in 0..<2_000 {
      let bucket = RepositoryLayout.bucket(of: try Name("note \(number)"))
      #expect(RepositoryLayout.isBucket(bucket), "\(bucket)")
      buckets.insert(bucket)
    }
    #expect(buckets.count == 256)
    #expect(!RepositoryLayout.isBucket("AB") && !RepositoryLayout.isBucket("abc"))
  }

  @Test func aSaveOverTheLimitMovesTheFilesIntoBucketsInOneCommitAndASaveUnderItBack() throws {
    #expect(try laptop.trackedPaths().contains("Work/Alpha.md"))
    let before = try commitCount()
    let context = try laptop.edit { try put("Delta\n", at: "Work", "Delta", in: $0) }
    #expect(try commitCount() == before + 1)
    #expect(try laptop.trackedPaths() == fannedOutPaths())
    #expect(try recordOfWork().contains("\nfan-out: 256\n"))
    #expect(try !recordOfWork(at: "HEAD~1").contains("fan-out"))
    // The files moved: the commit names only the document it added.
    #expect(try laptop.subjects().first == "1 new: Work/Delta")
    #expect(try laptop.headHoldsTheStore())

    try context.deleteDocument(try document("Work", "Beta", in: context).id)
    try context.save()
    #expect(try commitCount() == before + 2)
    #expect(
      try laptop.trackedPaths() == [
        "Home/.docsh-category", "Home/List.md", "Work/.docsh-category", "Work/Alpha.md",
        "Work/Delta.md",
        "Work/Gamma.md",
      ])
    #expect(try !recordOfWork().contains("fan-out"))
    #expect(try laptop.headHoldsTheStore())
  }

  @Test func aCategoryRenamedAsItCrossesTheLimitMovesOnceUnderItsNewName() throws {
    try laptop.edit { context in
      try context.renameCategory(try #require(context.category(named: "Work")).id, to: "Job")
      try put("Delta\n", at: "Job", "Delta", in: context)
    }
    let expected =
      try ["Alpha", "Beta", "Delta", "Gamma"].map { try bucketed("Job", $0) } + [
        "Home/.docsh-category", "Home/List.md", "Job/.docsh-category",
      ]
    #expect(try laptop.trackedPaths() == expected.sorted())
    #expect(try laptop.headHoldsTheStore())
  }

  @Test func aDocumentNamedLikeTheBucketOfAnotherCrossesBothWaysWithoutMeetingIt() throws {
    // Beta renamed to the name of Alpha's bucket: the file Work/xx, then the folder Work/xx/.
    let bucket = RepositoryLayout.bucket(of: try Name("Alpha"))
    let context = try laptop.edit { context in
      try context.renameDocument(try document("Work", "Beta", in: context).id, to: bucket)
    }
    #expect(try laptop.trackedPaths().contains("Work/\(bucket).md"))
    try put("Delta\n", at: "Work", "Delta", in: context)
    try context.save()
    let paths = try laptop.trackedPaths()
    #expect(paths.contains("Work/\(bucket)/Alpha.md"), "\(paths)")
    #expect(paths.contains(try bucketed("Work", bucket)), "\(paths)")
    #expect(try laptop.headHoldsTheStore())
    try context.deleteDocument(try document("Work", "Delta", in: context).id)
    try context.save()
    #expect(try laptop.trackedPaths().contains("Work/\(bucket).md"))
    #expect(try laptop.trackedPaths().contains("Work/Alpha.md"))
    #expect(try laptop.headHoldsTheStore())
  }

  @Test func aSaveOfOneDocumentInAFannedOutCategoryRewritesOnlyItsBucket() throws {
    let context = try laptop.edit { context in
      for number in 0..<12 { try put("\(number)\n", at: "Work", "Note \(number)", in: context) }
    }
    func trees() throws -> [String: String] {
      var trees: [String: String] = [:]
      for line in try laptop.gitText(["ls-tree", "-d", "HEAD:Work"]).split(separator: "\n") {
        let fields = line.split(separator: "\t")
        trees[String(fields[1])] = String(fields[0].split(separator: " ")[2])
      }
      trees["Work"] = try laptop.gitText(["rev-parse", "HEAD:Work"])
      trees["Home"] = try laptop.gitText(["rev-parse", "HEAD:Home"])
      return trees
    }
    let before = try trees()
    #expect(before.count > 4)
    try context.setContent("changed\n", of: try document("Work", "Note 7", in: context).id)
    try context.save()
    let after = try trees()
    let bucket = RepositoryLayout.bucket(of: try Name("Note 7"))
    let changed = Set(before.keys.filter { before[$0] != after[$0] })
    #expect(changed == ["Work", bucket])
    #expect(Set(after.keys) == Set(before.keys))
  }

  @Test func theWholeStoreComparisonWritesTheTreesTheSavesWrote() throws {
    // Saves committed from their own changes: over the limit, within it, back under; the
    // store file and the tree after each. (A category renamed is left out: the comparison
    // keeps a file of a document the store holds under another path, in either layout.)
    var stores: [Data] = []
    var trees: [String] = []
    func keep(_ context: Context) throws {
      // The store file whole, its save log folded in, as a tool other than docsh sees it.
      try context.foldSaveLog()
      stores.append(try Data(contentsOf: URL(fileURLWithPath: laptop.storePath)))
      trees.append(try laptop.gitText(["rev-parse", "HEAD^{tree}"]))
    }
    let context = try laptop.edit { try put("Delta\n", at: "Work", "Delta", in: $0) }
    try keep(context)
    try context.setContent("Alpha 2\n", of: try document("Work", "Alpha", in: context).id)
    try put("Epsilon\n", at: "Work", "Epsilon", in: context)
    try context.save()
    try keep(context)
    try context.deleteDocument(try document("Work", "Gamma", in: context).id)
    try context.deleteDocument(try document("Work", "Epsilon", in: context).id)
    try context.setContent("Beta 2\n", of: try document("Work", "Beta", in: context).id)
    try context.save()
    try keep(context)
    #expect(Set(trees).count == 3)
    let commits = try laptop.gitText(["rev-list", "-n", "4", "HEAD"]).split(separator: "\n")
      .reversed().map(String.init)
    // Each store again, committed from the whole store over the commit before its save.
    let repository = try #require(try laptop.repository())
    for step in 0..<3 {
      try stores[step].write(to: URL(fileURLWithPath: laptop.storePath))
      try laptop.git(["update-ref", "HEAD", commits[step]])
      try repository.updateLedger { $0.committed = nil }
      try repository.committer.commitStore(JSONStore(path: laptop.storePath))
      let difference = try laptop.gitText(["diff-tree", "-r", "--name-status", trees[step], "HEAD"])
      #expect(
        try laptop.gitText(["rev-parse", "HEAD^{tree}"]) == trees[step], "\(step): \(difference)")
      #expect(try laptop.gitText(["rev-parse", "HEAD~1"]) == commits[step])
    }
  }
}
