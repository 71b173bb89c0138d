extension StoreRepository {
  /// Reads this repository's commits and trees (``CommitReader``).
  var commitReader: CommitReader {
    CommitReader(git: git, layout: layout, storeFileName: storeFileName)
  }
}

/// Reads commits for the jobs above it: the files and blobs of a tree, what changed between
/// two commits, and the store a commit holds. It only reads, through the repository's `Git`,
/// knowing where the store lies in a tree.
struct CommitReader {
  /// The repository's git.
  let git: Git
  /// Where the store's objects lie in a commit's tree.
  let layout: RepositoryLayout
  /// The store file's name (`store.json`), which a tree of the old layout holds.
  let storeFileName: String

  /// The store folder's path in the repository (`""` or `notes/`).
  private var prefix: String { layout.prefix }

  /// One file of a tree.
  struct TreeEntry: Equatable {
    /// Its mode (`100644`, `100755`, `120000`).
    var mode: String
    /// Its blob.
    var object: GitBlobID
  }

  /// Every file of `commit`'s tree, by path (`ls-tree -r`).
  func treeListing(of commit: CommitID) throws(SyncError) -> [String: TreeEntry] {
    var entries: [String: TreeEntry] = [:]
    for entry in try git.treeEntries(
      commit.hex, recursive: true, fullTree: true, step: "read the last commit")
    where entry.kind == .blob {
      entries[entry.path] = TreeEntry(mode: entry.mode, object: GitBlobID(hex: entry.object))
    }
    return entries
  }

  /// The bytes of `blobs`, through one `git cat-file --batch` (`nil` for a missing one).
  func readBlobs(_ blobs: [GitBlobID]) throws(SyncError) -> [[UInt8]?] {
    try git.blobs(blobs.map(\.hex), step: "read the repository")
  }

  /// Whether `commit` holds the store: its file (the old layout) or a category folder.
  func treeHoldsStore(_ commit: CommitID) throws(SyncError) -> Bool {
    let entries = try TreeReader(git: git, layout: layout).listing(commit.hex + ":" + prefix)
    return entries.contains { $0.name == storeFileName || ($0.isFolder && !$0.name.hasPrefix(".")) }
  }

  // MARK: - What changed between commits

  /// What ``changedFiles(from:to:)`` puts before a path whose bytes are not UTF-8 (then
  /// printable): no UTF-8 path starts with it.
  static let notUTF8Mark = "\u{FFFF}"

  /// The merge base of two commits; `nil` for unrelated histories.
  func mergeBase(_ one: CommitID, _ other: CommitID) throws(SyncError) -> CommitID? {
    try git.mergeBase(one, other)
  }

  /// The paths that differ between two commits (`nil`: the empty tree), with the blob at
  /// `new` (`nil`: deleted there).
  func changedPaths(from old: CommitID?, to new: CommitID?) throws(SyncError) -> [String:
    GitBlobID?]
  {
    try changedFiles(from: old, to: new).mapValues(\.new)
  }

  /// The paths that differ between two commits (`nil`: the empty tree), with the blob at
  /// each (`nil`: none there).
  func changedFiles(from old: CommitID?, to new: CommitID?) throws(SyncError) -> [String: (
    old: GitBlobID?, new: GitBlobID?
  )] {
    guard let new, old != new else { return [:] }
    // Made from git's list directly: one dictionary of a first commit's 100,000 files, not
    // two at once.
    var paths: [String: (old: GitBlobID?, new: GitBlobID?)] = [:]
    for file in try git.changedFiles(from: old, to: new) {
      paths[CommitReader.path(of: file)] = (file.old, file.new)
    }
    return paths
  }

  /// A changed file's path, marked when it is not UTF-8 (never repaired into another path).
  private static func path(of file: Git.ChangedFile) -> String {
    file.isUTF8 ? file.path : CommitReader.notUTF8Mark + file.path
  }

  /// ``changedFiles(from:to:)`` with the mode of each at `new` (`100644`, `120000` for a
  /// symbolic link, `160000` for a submodule), so that a file taken as `new` has it is
  /// taken with its mode.
  func changedEntries(from old: CommitID?, to new: CommitID?) throws(SyncError) -> [String: (
    old: GitBlobID?, new: GitBlobID?, mode: String
  )] {
    guard let new else { return [:] }
    guard old != new else { return [:] }
    var paths: [String: (old: GitBlobID?, new: GitBlobID?, mode: String)] = [:]
    for file in try git.changedFiles(from: old, to: new) {
      paths[CommitReader.path(of: file)] = (file.old, file.new, file.mode)
    }
    return paths
  }

  /// When `commit` was made.
  func commitDate(_ commit: CommitID) throws(SyncError) -> Timestamp {
    try git.commitDate(of: commit)
  }

  // MARK: - The store a commit holds

  /// Every category and document of `commit`'s tree; with `eachCategory`, each category
  /// handed to it as it is read, and none kept (``TreeReader/read(_:folders:date:maximumDocumentSize:unmarkedVersion:progress:eachCategory:)``).
  func wholeTree(
    of commit: CommitID, maximumDocumentSize: Int? = nil, progress: (any ProgressObserver)?,
    eachCategory: ((TreeReading) throws(SyncError) -> Void)? = nil
  ) throws(SyncError) -> TreeReading {
    let reader = TreeReader(git: git, layout: layout)
    let folders = try reader.categoryFolders(of: commit)
    progress?.beginTask(.buildingStore, totalBytes: max(1, folders.count))
    defer { progress?.endTask() }
    // A file without docsh's header is dated by the commit, as a sync takes it in.
    return try reader.read(
      commit, folders: folders, date: try commitDate(commit),
      maximumDocumentSize: maximumDocumentSize, progress: progress, eachCategory: eachCategory)
  }
}
