import DocsTestSupport
import Testing

@testable import DocsKit

/// Layout 2's file names (`.md` added to every name) and its marker: what is written, what is
/// read back, and the guard folders that make a docsh of layout 1 refuse the tree.
@Suite struct LayoutMarkerTests {
  let layout = RepositoryLayout(prefix: "")

  @Test(arguments: [
    ("Plan", "Plan.md"),
    ("notes.txt", "notes.txt.md"),
    ("Plan.md", "Plan.md.md"),
    ("Plan.MD", "Plan.MD.md"),
    (".md", "%2Emd.md"),
    ("con", "%63on.md"),
    ("Q: why?", "Q%3A why%3F.md"),
    ("ends with a dot.", "ends with a dot%2E.md"),
  ])
  func everyNameIsItsFileNameWithOneMdAddedAndComesBack(name: String, fileName: String) throws {
    let typed = try Name(name)
    #expect(layout.fileName(of: typed) == fileName)
    #expect(layout.documentName(ofFile: fileName)?.text == name)
  }

  @Test(arguments: ["Plan", "Plan.txt", "Plan.MD", "Plan.md ", ".md", "Plan%2Emd"])
  func aFileNotEndingInMdIsNoDocumentInLayoutTwo(fileName: String) {
    #expect(layout.documentName(ofFile: fileName) == nil)
  }

  @Test func layoutOneNamesFilesAsTheNameAlone() throws {
    let former = layout.inVersion(1)
    #expect(former.fileName(of: try Name("Plan")) == "Plan")
    #expect(former.documentName(ofFile: "Plan.md")?.text == "Plan.md")
    #expect(
      former.path(of: try Name("Plan"), in: try Name("Work"), fannedOut: false) == "Work/Plan")
    #expect(
      layout.path(of: try Name("Plan"), in: try Name("Work"), fannedOut: true)
        == "Work/" + RepositoryLayout.bucket(of: try Name("Plan")) + "/Plan.md")
  }

  @Test func theMarkerNamesItsVersionOnItsFirstLine() {
    #expect(LayoutMarker.version(in: LayoutMarker.render()) == RepositoryLayout.currentVersion)
    #expect(LayoutMarker.version(in: Array("docsh-layout 3\n".utf8)) == 3)
    #expect(LayoutMarker.version(in: Array("docsh-layout 2\r\n# a comment\n".utf8)) == 2)
    for unreadable in ["", "docsh-layout", "docsh-layout two\n", "layout 2\n", "docsh-layout 0\n"] {
      #expect(LayoutMarker.version(in: Array(unreadable.utf8)) == nil, "\(unreadable)")
    }
  }

  /// What every docsh of layout 1 refuses before reading a document: two folders whose names
  /// decode to one name. Neither is a name docsh writes, so no category is ever taken for
  /// one.
  @Test func theGuardFoldersDecodeToOneNameThatNoCategoryFolderIsWrittenAs() throws {
    let names = try LayoutMarker.guardFolders.map { try #require(FileNameEncoding.decode($0)) }
    #expect(names.count == 2 && names[0].key == names[1].key)
    #expect(LayoutMarker.guardFolders[0] != LayoutMarker.guardFolders[1])
    #expect(
      LayoutMarker.guardFolders[0].lowercased() != LayoutMarker.guardFolders[1].lowercased(),
      "distinct on a file system that ignores case")
    for (folder, name) in zip(LayoutMarker.guardFolders, names) {
      #expect(FileNameEncoding.encode(name) != folder)
      #expect(!folder.hasPrefix("."), "a dot folder is skipped by docsh of layout 1")
    }
  }

  @Test func theMarkerChangesPutTheMarkerAndOneFileInEachGuardFolder() {
    let changes = LayoutMarker.changes(prefix: "notes/")
    #expect(
      changes.map { change -> String in
        guard case .put(let path, _) = change else { return "?" }
        return path
      } == [
        "notes/.docsh/layout", "notes/%75pdate docsh (layout 2)/.docsh-layout",
        "notes/u%70date docsh (layout 2)/.docsh-layout",
      ])
  }
}
