/// What tells a reader of a commit's tree which ``RepositoryLayout`` it holds: the file
/// `.docsh/layout` (under the prefix), and a guard for docsh versions that do not read it.
///
/// The file's first line is `docsh-layout N`; the lines after it are comments for people.
/// A tree without it is of layout 1 (docsh before `.md` files). A docsh meeting a version it
/// does not know, or a marker it cannot read, stops with an error and changes nothing.
///
/// Versions of docsh before the marker skip every dot file and folder at the top of a tree,
/// and merely warn of a file there: the marker alone would leave them reading `Plan.md` as a
/// document named "Plan.md" (renaming every document, rewriting links to it). What every one
/// of them refuses, before reading any document, is two category folders whose names are
/// equal: so the tree also holds the two ``guardFolders``, whose names decode to the same
/// name, each holding only ``guardFile``. Their syncs then stop with "two names equal but
/// for case or Unicode normalization", naming the folders, whose names say to update docsh.
/// (Every older version does this before it reads a document or writes anything.)
/// This docsh never reads them as categories. Neither holds a note, so Obsidian shows two
/// empty folders.
enum LayoutMarker {
  /// The marker's path below the prefix.
  static let path = ".docsh/layout"
  /// The folder the marker lies in.
  static let folder = ".docsh"
  /// The two folders older versions refuse: both decode to "update docsh (layout 2)", each
  /// through an escape docsh never writes (``FileNameEncoding`` escapes no letter), so no
  /// category's folder is ever named as one of them.
  static let guardFolders = ["%75pdate docsh (layout 2)", "u%70date docsh (layout 2)"]
  /// The one file in each guard folder (git keeps no empty folder).
  static let guardFile = ".docsh-layout"

  /// The marker's bytes for `version`.
  static func render(version: Int = RepositoryLayout.currentVersion) -> [UInt8] {
    Array(
      """
      docsh-layout \(version)
      # How docsh lays out this repository: a folder per category, a file CATEGORY/NAME.md per
      # document (its name as typed, with .md added; CATEGORY/.docsh-category is the
      # category's record). A docsh that does not know this version refuses to sync.

      """.utf8)
  }

  /// The bytes of each guard folder's file.
  static let guardBytes = Array(
    """
    This folder and its twin make versions of docsh that do not know layout 2 (.md files)
    refuse to sync this repository instead of misreading it: update docsh. Leave both
    folders as they are; docsh does not read them as categories.

    """.utf8)

  /// The version `bytes` (the marker's) name; `nil` when they name none.
  static func version(in bytes: [UInt8]) -> Int? {
    // By bytes: a String reads `\r\n` as one character, never split at `\n`.
    var line = bytes.prefix { $0 != UInt8(ascii: "\n") }
    if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
    let prefix = Array("docsh-layout ".utf8)
    guard line.starts(with: prefix),
      let version = Int(String(decoding: line.dropFirst(prefix.count), as: UTF8.self)),
      version > 0
    else { return nil }
    return version
  }

  /// The layout the marker `bytes` names, when this docsh reads it.
  /// - Throws: ``SyncError/unknownLayout(marker:version:)`` (naming `path` and the marker's
  ///   first line) when the marker names a newer layout, or none.
  static func readableVersion(in bytes: [UInt8], at path: String) throws(SyncError) -> Int {
    guard let version = version(in: bytes), version <= RepositoryLayout.currentVersion else {
      let first = String(decoding: bytes.prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self)
      throw .unknownLayout(marker: path, version: PrintableText.escaped(first))
    }
    return version
  }

  /// The changes that put the marker of the current layout and the guard folders in a tree,
  /// below `prefix`.
  static func changes(prefix: String) -> [FastImportCommit.Change] {
    [.put(prefix + path, render())]
      + guardFolders.map { .put(prefix + $0 + "/" + guardFile, guardBytes) }
  }

  /// Whether `name` (an entry at the top of the tree) is one of the guard folders.
  static func isGuardFolder(_ name: String) -> Bool { guardFolders.contains(name) }
}
