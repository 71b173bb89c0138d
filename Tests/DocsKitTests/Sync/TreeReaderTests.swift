import DocsTestSupport
import Foundation
import Testing

@testable import DocsKit

/// Reading a commit's tree: a whole tree is listed at once and its files read a batch at a
/// time, and that reads exactly what reading its folders one by one does.
@Suite struct TreeReaderTests {
  @Test func aWholeTreeReadsAsItsFoldersDoOneByOne() throws {
    let sandbox = try GitSandbox("treereader")
    let laptop = try Machine("laptop", in: sandbox, number: 1)
    let remote = try sandbox.makeBareRemote()
    try laptop.edit { context in
      try put("plan", at: "Work", "Plan", in: context)
      try put("list", at: "Work", "List", in: context)
      try put("eggs", at: "Home", "Shop", in: context)
      try put("bags", at: "Trips", "Pack", in: context)
    }
    try laptop.setUp(remote: remote)
    try laptop.sync()
    // Files of every kind a reader tells apart, made in a clone.
    let clone = try Clone(of: remote, named: "clone", in: sandbox)
    try clone.write("Work/Sub/Note", "a folder in a flat category")
    try clone.write("Work/ab/Deep", "a bucket's name in a flat category")
    try clone.write("Home/Plain.md", "a file without a header")
    try clone.write("Home/%zz.md", "a name that does not decode")
    try clone.write("README", "a file at the top")
    try clone.write("Empty/Note.md", "a folder without a record")
    try clone.commitAndPush("from the clone")
    try laptop.git(["fetch", "--quiet", "origin"])
    let repository = try #require(try laptop.repository())
    let commit = try #require(try repository.git.commit("refs/remotes/origin/main"))
    let date = Timestamp(millisecondsSince1970: 1_000)
    let folders: Set<String> = ["Work", "Home", "Trips", "Empty"]

    let progress = ProgressRecorder()
    let whole = try TreeReader(git: repository.git, layout: repository.layout, filesPerRead: 2)
      .read(commit, folders: folders, date: date, progress: progress)
    var documents: [ObjectID: [SnapshotDocument]] = [:]
    var warnings: [String: String] = [:]
    var files: [String: GitBlobID] = [:]
    for folder in folders {
      let one = try TreeReader(git: repository.git, layout: repository.layout)
        .read(commit, folders: [folder], date: date)
      for category in one.snapshot.categories where one.folders[category.id] == folder {
        documents[category.id] = category.documents
      }
      warnings.merge(one.warnings) { first, _ in first }
      files.merge(one.files) { first, _ in first }
    }
    for category in whole.snapshot.categories {
      #expect(category.documents == documents[category.id], "\(category.name)")
    }
    #expect(whole.warnings == warnings)
    #expect(whole.files == files)
    #expect(whole.warnings["Work/Sub/"] != nil && whole.warnings["Work/ab/"] != nil)
    #expect(whole.warnings["README"] != nil && whole.warnings["Home/%zz.md"] != nil)
    // Two files a batch: Home (Shop, Plain) alone, then Empty and Trips, then Work.
    #expect(progress.events.last == "advance 4")
    #expect(progress.events.count >= 3)
  }
}
