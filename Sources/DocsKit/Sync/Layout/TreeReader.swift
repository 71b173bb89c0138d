/// A file of a commit that cannot be a document, or a category folder docsh cannot read:
/// left untouched in the repository, named once by the sync that brings it in.
public struct SyncWarning: Hashable, Sendable, CustomStringConvertible {
  /// The file's path in the repository.
  public var path: String
  /// Why docsh does not take it in.
  public var reason: String

  /// One line, printable whatever bytes the remote's names hold.
  public var description: String {
    PrintableText.escaped("\(path): \(reason); left in the repository as it is")
  }
}

/// An entry of a remote's tree that docsh refuses to take in, because taking it would cost a
/// document or hand the terminal bytes it acts on: a sync that meets one changes nothing.
public struct RemoteRefusal: Hashable, Sendable, CustomStringConvertible {
  /// The entry's path, printable (``PrintableText``): escapes for control characters and
  /// for bytes that are not UTF-8.
  public var path: String
  /// The rule it breaks.
  public var rule: String
  /// Paths git can be asked about (`rev-list -- PATH…`): the entry's own when it is UTF-8,
  /// else its folder's; none when neither is.
  var lookup: [String]

  /// One line, printable whatever bytes the remote's names hold.
  public var description: String { PrintableText.escaped("\(path): \(rule)") }

  /// The largest document a remote may bring, in bytes (32 MiB): a file over it is refused by
  /// its size, read from the object's header before its bytes, so that what a sync holds in
  /// memory stays bounded whatever a remote packs small.
  public static let maximumDocumentSize = 32 << 20
}

/// The store as one commit's tree holds it: every category's id and name, and the documents
/// of the category folders asked for — what a sync reads of each of the three commits it
/// merges, so that it costs what changed.
struct TreeReading {
  /// The categories, with the documents of the folders read (others empty).
  var snapshot = StoreSnapshot.empty
  /// The folder of each category.
  var folders: [ObjectID: String] = [:]
  /// The categories whose records say their documents lie in bucket subfolders.
  var fannedOut: Set<ObjectID> = []
  /// Every file of the folders read, by path, and of the top level.
  var files: [String: GitBlobID] = [:]
  /// The paths of those files that are docsh's (documents and records).
  var docshFiles: Set<String> = []
  /// What could not be read, by path.
  var warnings: [String: String] = [:]
  /// What must not be taken in (a sync of a remote reading any refuses as a whole).
  var refusals: [RemoteRefusal] = []
  /// The documents read from files without docsh's header, and the categories of folders
  /// without a record: taken in from other tools, so new to docsh's history.
  var madeElsewhere: Set<ObjectID> = []
  /// The layout the tree holds (``LayoutMarker``): its documents' files were read in it.
  var layoutVersion = 1
  /// Whether the tree holds the current layout's marker and both guard folders: a commit
  /// made on it need not put them back.
  var isMarked = false

  /// The snapshot as docsh's history knows it: without what was made elsewhere.
  var describedSnapshot: StoreSnapshot {
    StoreSnapshot(
      generation: snapshot.generation,
      categories: snapshot.categories.compactMap { category in
        guard !madeElsewhere.contains(category.id) else { return nil }
        var category = category
        category.documents.removeAll { madeElsewhere.contains($0.id) }
        return category
      })
  }
}

extension TreeReading {
  /// Records that `path` must not be taken in, breaking `rule`; `lookup` as
  /// ``RemoteRefusal/lookup``.
  mutating func refuse(_ path: String, _ rule: String, lookup: [String]) {
    refusals.append(
      RemoteRefusal(path: PrintableText.escaped(path), rule: rule, lookup: lookup))
  }
}

/// Reads ``TreeReading``s through git.
struct TreeReader {
  let git: Git
  /// The layout of the repository; a tree is read in the version its marker names.
  var layout: RepositoryLayout
  /// How many files git hands over in one `cat-file` at the most, unless one folder holds
  /// more (a few megabytes; tests set less).
  var filesPerRead = 2_000

  /// Reads `commit`'s tree: all category records, and the documents of `folders` (paths of
  /// category folders). A plain text file becomes a document whose id is derived from its
  /// path and bytes (two machines taking in the same file make the same document) and whose
  /// date is `date`; a folder without a record, a category whose id derives from its name.
  ///
  /// Every entry is checked before it becomes a category or a document (``checked(_:in:)``):
  /// what would cost a document — a name that is not UTF-8, a symbolic link or submodule in
  /// a category, two names equal but for case or Unicode normalization, two categories of
  /// one id, a document over `maximumDocumentSize` — is recorded in
  /// ``TreeReading/refusals``; what docsh merely cannot read is a warning.
  /// - Parameters:
  ///   - progress: told of each folder read, as that many of `wanted.count`.
  ///   - maximumDocumentSize: when given (a remote's commit), documents are sized with
  ///     `cat-file --batch-check` first and one over it is refused unread.
  ///   - unmarkedVersion: the layout of a tree without a marker: 1, unless the caller
  ///     knows the tree descends from a marked one (a user removed the marker in a clone).
  /// - Throws: ``SyncError/unknownLayout(marker:version:)`` for a marker of a layout this
  ///   docsh does not read.
  ///   - eachCategory: when given, handed each category read as a reading of its own folder
  ///     alone, documents and contents included, while no refusal was found so far; the
  ///     reading returned then keeps no document of the categories and no file of their
  ///     folders, so that a whole tree is never held in memory at once.
  func read(
    _ commit: CommitID, folders wanted: Set<String>, date: Timestamp,
    maximumDocumentSize: Int? = nil, unmarkedVersion: Int = 1,
    progress: (any ProgressObserver)? = nil,
    eachCategory: ((TreeReading) throws(SyncError) -> Void)? = nil
  ) throws(SyncError) -> TreeReading {
    var reading = TreeReading()
    // Paths are looked up in the commit's tree, not through the commit: git would read the
    // commit object, message and all, for every lookup.
    let root = try git.tree(of: commit)
    var guards = 0
    var hasMarkerFolder = false
    let categoryFolders = try categoryFolders(
      of: root, into: &reading, guards: &guards, hasMarkerFolder: &hasMarkerFolder)
    // The marker and every record, through one process.
    let markerRevision = hasMarkerFolder ? [root + ":" + layout.prefix + LayoutMarker.path] : []
    var records = try git.blobs(
      markerRevision
        + categoryFolders.map { root + ":" + $0.folder + "/" + CategoryFile.fileName },
      step: "read the repository")[...]
    let marker = hasMarkerFolder ? records.popFirst() ?? nil : nil
    if let marker {
      reading.layoutVersion = try LayoutMarker.readableVersion(
        in: marker, at: layout.prefix + LayoutMarker.path)
    } else {
      reading.layoutVersion = unmarkedVersion
    }
    reading.isMarked =
      marker != nil && reading.layoutVersion == RepositoryLayout.currentVersion
      && guards == LayoutMarker.guardFolders.count
    var reader = self
    reader.layout = layout.inVersion(reading.layoutVersion)
    return try reader.read(
      root: root, categoryFolders: categoryFolders, records: Array(records), wanted: wanted,
      date: date, maximumDocumentSize: maximumDocumentSize, progress: progress,
      eachCategory: eachCategory, reading: reading)
  }

  /// ``read(_:folders:date:maximumDocumentSize:unmarkedVersion:progress:)`` once the top of
  /// the tree `root` and the records of its category folders are read, in this reader's
  /// layout.
  private func read(
    root: String, categoryFolders: [(folder: String, name: Name)], records: [[UInt8]?],
    wanted: Set<String>, date: Timestamp, maximumDocumentSize: Int?,
    progress: (any ProgressObserver)?,
    eachCategory: ((TreeReading) throws(SyncError) -> Void)?, reading: TreeReading
  ) throws(SyncError) -> TreeReading {
    var reading = reading
    var categories: [SnapshotCategory] = []
    var keys: [NameKey: String] = [:]
    // Most of the folders wanted (a whole tree: a second machine's first sync, a lost store
    // written anew): one recursive listing of the tree, not one listing per folder.
    let listed =
      wanted.count > 1 && wanted.count * 2 >= categoryFolders.count
      ? try filesByFolder(root) : nil
    var pending: [(category: Int, files: [Candidate])] = []
    for ((folder, name), record) in zip(categoryFolders, records) {
      var id = TreeReader.derivedID("category", Array(folder.utf8))
      var isFannedOut = false
      if record == nil { reading.madeElsewhere.insert(id) }
      if let record {
        if case .category(let recorded, _, let fanOut) = CategoryFile.parse(record) {
          id = recorded
          isFannedOut = fanOut == RepositoryLayout.bucketCount
        } else {
          reading.warnings[folder + "/" + CategoryFile.fileName] =
            "not a category record docsh reads"
        }
        reading.docshFiles.insert(folder + "/" + CategoryFile.fileName)
      }
      // Never one instead of the other: the one read first would replace (a record's id)
      // or delete (a name's key) the other's documents.
      if let other = keys[name.key] {
        reading.refuse(
          other + "/ and " + folder + "/",
          "two names equal but for case or Unicode normalization", lookup: [other, folder])
        continue
      }
      if let other = reading.folders[id] {
        reading.refuse(
          other + "/ and " + folder + "/", "two categories whose records hold one id",
          lookup: [other, folder])
        continue
      }
      keys[name.key] = folder
      reading.folders[id] = folder
      if isFannedOut { reading.fannedOut.insert(id) }
      if wanted.contains(folder) {
        let files = try documentFiles(
          in: folder, of: root, fannedOut: isFannedOut,
          listed: listed.map { $0[folder] ?? [] }, into: &reading)
        pending.append((categories.count, files))
      }
      categories.append(SnapshotCategory(id: id, name: name, documents: []))
    }
    try readDocuments(
      of: pending, into: &categories, date: date, maximumSize: maximumDocumentSize,
      reading: &reading, progress: progress, eachCategory: eachCategory)
    reading.snapshot = StoreSnapshot(generation: 0, categories: categories)
    return reading
  }

  /// The category folders at the top of the tree `root`, with their names; what else is
  /// there is a warning of `reading` (or a refusal, from ``checked(_:in:)``).
  /// Counts in `guards` the guard folders of ``LayoutMarker`` found (never categories), and
  /// tells in `hasMarkerFolder` whether the marker's folder is there.
  private func categoryFolders(
    of root: String, into reading: inout TreeReading, guards: inout Int,
    hasMarkerFolder: inout Bool
  ) throws(SyncError) -> [(folder: String, name: Name)] {
    var categoryFolders: [(folder: String, name: Name)] = []
    // Dot files are git's or a tool's (`.gitattributes`, `.github`): never documents.
    for entry in try listing(root + ":" + layout.prefix) {
      if entry.name == LayoutMarker.folder, entry.isFolder { hasMarkerFolder = true }
      guard !entry.name.hasPrefix(".") else { continue }
      let path = layout.prefix + entry.name
      if entry.isFolder, LayoutMarker.isGuardFolder(entry.name) {
        guards += 1
        continue
      }
      guard checked(entry, in: &reading) else { continue }
      guard entry.isFolder else {
        if let blob = entry.blob { reading.files[path] = blob }
        reading.warnings[path] = "a file at the top level is not in a category"
        continue
      }
      guard let name = FileNameEncoding.decode(entry.name) else {
        reading.warnings[path + "/"] = "not a category name docsh accepts"
        continue
      }
      categoryFolders.append((path, name))
    }
    return categoryFolders
  }

  /// Reads the documents of the folders `pending` found, into their categories: the files
  /// of consecutive folders through one `cat-file` up to `filesPerRead` files, so that a
  /// whole tree costs a few git processes, not two per folder, and never all of its bytes at
  /// once. `progress` is told of each folder read.
  /// With `eachCategory`, each category goes to it instead (``read(_:folders:date:maximumDocumentSize:unmarkedVersion:progress:eachCategory:)``).
  private func readDocuments(
    of pending: [(category: Int, files: [Candidate])], into categories: inout [SnapshotCategory],
    date: Timestamp, maximumSize: Int?, reading: inout TreeReading,
    progress: (any ProgressObserver)?, eachCategory: ((TreeReading) throws(SyncError) -> Void)?
  ) throws(SyncError) {
    var start = 0
    while start < pending.count {
      var end = start + 1
      var count = pending[start].files.count
      while end < pending.count, count + pending[end].files.count <= filesPerRead {
        count += pending[end].files.count
        end += 1
      }
      let batch = pending[start..<end]
      var contents = try contentsOf(
        batch.flatMap(\.files), maximumSize: maximumSize, reading: &reading)[...]
      for (category, files) in batch {
        let read = documents(
          of: files, contents: Array(contents.prefix(files.count)), date: date, into: &reading)
        contents = contents.dropFirst(files.count)
        guard let eachCategory else {
          categories[category].documents = read
          continue
        }
        // A reading refused already is not taken in: its categories need not be handed on.
        if reading.refusals.isEmpty {
          try eachCategory(part(of: categories[category], documents: read, files: files, reading))
        }
        for file in files {
          reading.files[file.path] = nil
          reading.docshFiles.remove(file.path)
        }
      }
      progress?.advanceTask(to: end)
      start = end
    }
  }

  /// The reading of `category`'s folder alone, holding `documents` read from `files`, as
  /// `reading` (of the whole tree so far) knows it.
  private func part(
    of category: SnapshotCategory, documents: [SnapshotDocument], files: [Candidate],
    _ reading: TreeReading
  ) -> TreeReading {
    var part = TreeReading()
    var category = category
    category.documents = documents
    part.snapshot = StoreSnapshot(generation: 0, categories: [category])
    part.layoutVersion = reading.layoutVersion
    part.isMarked = reading.isMarked
    if reading.fannedOut.contains(category.id) { part.fannedOut = [category.id] }
    for document in documents where reading.madeElsewhere.contains(document.id) {
      part.madeElsewhere.insert(document.id)
    }
    if reading.madeElsewhere.contains(category.id) { part.madeElsewhere.insert(category.id) }
    guard let folder = reading.folders[category.id] else { return part }
    part.folders = [category.id: folder]
    let record = folder + "/" + CategoryFile.fileName
    for path in files.map(\.path) + [record] {
      guard let blob = reading.files[path] else { continue }
      part.files[path] = blob
      if reading.docshFiles.contains(path) { part.docshFiles.insert(path) }
    }
    return part
  }

  /// The bytes of the files `files`, in order, through one `cat-file --batch`; with
  /// `maximumSize`, sized first through one `cat-file --batch-check`, a file over it refused
  /// and not read (`nil`).
  private func contentsOf(
    _ files: [Candidate], maximumSize: Int?, reading: inout TreeReading
  ) throws(SyncError) -> [[UInt8]?] {
    guard let maximumSize else {
      return try git.blobs(files.map(\.blob.hex), step: "read the repository")
    }
    let sizes = try git.objectSizes(files.map(\.blob.hex), step: "read the repository")
    var wanted: [String] = []
    for (file, size) in zip(files, sizes) {
      if let size, size > maximumSize {
        reading.refuse(
          file.path,
          "it is \(size) bytes, over the \(maximumSize >> 20) MiB a document from a remote may be",
          lookup: [file.path])
      } else {
        wanted.append(file.blob.hex)
      }
    }
    var read = try git.blobs(wanted, step: "read the repository")[...]
    return zip(files, sizes).map { _, size in
      if let size, size > maximumSize { return nil }
      return read.popFirst() ?? nil
    }
  }

  /// Whether `entry` may be read further; otherwise why not is recorded in `reading`: a
  /// name that is not UTF-8 is refused (it cannot be carried to a commit unchanged), a
  /// symbolic link or submodule at the top is left as it is with a warning.
  private func checked(_ entry: Entry, in reading: inout TreeReading) -> Bool {
    let path = layout.prefix + entry.name
    guard entry.isUTF8 else {
      reading.refuse(path, "its name is not UTF-8", lookup: [])
      return false
    }
    if let special = entry.special {
      reading.warnings[path] = special + " is no document or category"
      return false
    }
    return true
  }

  /// Every file of the tree `root` below the prefix, by category folder (its path), each
  /// with its path from that folder: ``listing(_:recursive:)`` of the whole tree at once.
  private func filesByFolder(_ root: String) throws(SyncError) -> [String: [Entry]] {
    var folders: [String: [Entry]] = [:]
    for entry in try listing(root + ":" + layout.prefix, recursive: true) {
      guard let slash = entry.name.firstIndex(of: "/") else { continue }  // a top-level file
      let folder = layout.prefix + entry.name[..<slash]
      var file = entry
      file.name = String(entry.name[entry.name.index(after: slash)...])
      folders[folder, default: []].append(file)
    }
    return folders
  }

  /// A file of a category folder that may be a document.
  private typealias Candidate = (path: String, name: Name, blob: GitBlobID)

  /// The files of the category folder `folder` of the tree `root` that may be documents:
  /// those in the folder itself, and in a fanned-out category those of its buckets;
  /// recording the files, and warning of folders that hold no documents.
  /// - Parameter listed: the folder's files from a recursive listing of the whole tree
  ///   (``filesByFolder(_:)``), when it was made; otherwise the folder is listed here.
  private func documentFiles(
    in folder: String, of root: String, fannedOut: Bool, listed: [Entry]?,
    into reading: inout TreeReading
  ) throws(SyncError) -> [Candidate] {
    let entries: [Entry]
    if let listed {
      entries = fannedOut ? listed : TreeReader.topEntries(of: listed)
    } else {
      entries = try listing(root + ":" + folder, recursive: fannedOut)
    }
    var candidates: [Candidate] = []
    var names: [NameKey: String] = [:]
    for entry in entries where !entry.name.hasPrefix(".") {
      let path = folder + "/" + entry.name
      guard entry.isUTF8 else {
        reading.refuse(path, "its name is not UTF-8", lookup: [folder])
        continue
      }
      // Taken as a document, a link would be pushed back as a file; left out, the
      // document it replaced would be deleted: refused.
      if let special = entry.special {
        reading.refuse(path, special + " in a category is no document", lookup: [path])
        continue
      }
      let parts = entry.name.split(separator: "/", omittingEmptySubsequences: false)
      guard let blob = entry.blob, parts.count == 1 || RepositoryLayout.isBucket(parts[0]) else {
        reading.warnings[folder + "/" + parts[0] + "/"] =
          "a folder inside a category holds no documents"
        continue
      }
      guard parts.count <= 2 else {
        reading.warnings[folder + "/" + parts[0] + "/" + parts[1] + "/"] =
          "a folder inside a bucket holds no documents"
        continue
      }
      guard let file = parts.last, !file.hasPrefix(".") else { continue }
      reading.files[path] = blob
      guard let name = layout.documentName(ofFile: String(file)) else {
        reading.warnings[path] =
          layout.version >= 2 && !file.utf8.reversed().starts(with: ".md".utf8.reversed())
          ? "not a .md file, so no document" : "not a document name docsh accepts"
        continue
      }
      if let other = names[name.key] {
        reading.refuse(
          other + " and " + path, "two names equal but for case or Unicode normalization",
          lookup: [other, path])
        continue
      }
      names[name.key] = path
      candidates.append((path, name, blob))
    }
    if let record = entries.first(where: { $0.name == CategoryFile.fileName }),
      let blob = record.blob
    {
      reading.files[folder + "/" + CategoryFile.fileName] = blob
    }
    return candidates
  }

  /// What a folder's non-recursive listing shows of the files `files` of a recursive one:
  /// its own files, and each subfolder once, as a folder.
  private static func topEntries(of files: [Entry]) -> [Entry] {
    var entries: [Entry] = []
    var subfolders = Set<Substring>()
    for file in files {
      guard let slash = file.name.firstIndex(of: "/") else {
        entries.append(file)
        continue
      }
      let subfolder = file.name[..<slash]
      if subfolders.insert(subfolder).inserted {
        entries.append(Entry(name: String(subfolder), isFolder: true, blob: nil))
      }
    }
    return entries
  }

  /// The documents the files `candidates` hold (`contents` their bytes, in order),
  /// recording those that are docsh's.
  private func documents(
    of candidates: [Candidate], contents: [[UInt8]?], date: Timestamp,
    into reading: inout TreeReading
  ) -> [SnapshotDocument] {
    var documents: [SnapshotDocument] = []
    var ids = Set<ObjectID>()
    for (candidate, bytes) in zip(candidates, contents) {
      guard let bytes else { continue }
      let document: SnapshotDocument
      switch DocumentFile.parse(bytes) {
      case .docsh(let id, let modified, let content, let tags):
        document = SnapshotDocument(
          id: id, name: candidate.name, size: content.utf8.count, modified: modified,
          content: content, tags: tags)
      case .plain(let content, let tags):
        reading.madeElsewhere.insert(
          TreeReader.derivedID(
            "document", Array(candidate.path.utf8) + Array(candidate.blob.hex.utf8)))
        document = SnapshotDocument(
          id: TreeReader.derivedID(
            "document", Array(candidate.path.utf8) + Array(candidate.blob.hex.utf8)),
          name: candidate.name, size: content.utf8.count, modified: date, content: content,
          tags: tags)
      case .invalid(let reason):
        reading.warnings[candidate.path] = "\(reason)"
        continue
      }
      guard ids.insert(document.id).inserted else {
        reading.refuse(
          candidate.path, "another document of the category has its id",
          lookup: [candidate.path])
        continue
      }
      reading.docshFiles.insert(candidate.path)
      documents.append(document)
    }
    return documents
  }

  /// One entry of a tree.
  struct Entry {
    var name: String
    var isFolder: Bool
    /// The blob of a file (a folder has none).
    var blob: GitBlobID?
    /// What it is when neither a file nor a folder: `a symbolic link`, `a submodule`.
    var special: String? = nil
    /// Whether its name is UTF-8 (otherwise `name` is its printable spelling).
    var isUTF8 = true
  }

  /// The category folders of `commit`'s tree, by their paths in the repository: every
  /// folder in the store's, but docsh's own (a dot name) and the layout's guard folders.
  func categoryFolders(of commit: CommitID) throws(SyncError) -> Set<String> {
    Set(
      try listing(commit.hex + ":" + layout.prefix)
        .filter { $0.isFolder && !$0.name.hasPrefix(".") && !LayoutMarker.isGuardFolder($0.name) }
        .map { layout.prefix + $0.name })
  }

  /// The entries of the tree `revision` (`COMMIT:path`), which must exist: a listing that
  /// fails is an error, never an empty folder (which a merge would take for deletions).
  /// `recursive`: the files of its subfolders too, named by their paths from it.
  func listing(_ revision: String, recursive: Bool = false) throws(SyncError) -> [Entry] {
    try git.treeEntries(revision, recursive: recursive, step: "read the repository")
      .map { entry in
        switch entry.kind {
        case .tree:
          Entry(name: entry.path, isFolder: true, blob: nil, isUTF8: entry.isUTF8)
        case .blob where entry.isSymbolicLink:
          Entry(
            name: entry.path, isFolder: false, blob: nil, special: "a symbolic link",
            isUTF8: entry.isUTF8)
        case .blob:
          Entry(
            name: entry.path, isFolder: false, blob: GitBlobID(hex: entry.object),
            isUTF8: entry.isUTF8)
        case .commit:
          Entry(
            name: entry.path, isFolder: false, blob: nil, special: "a submodule",
            isUTF8: entry.isUTF8)
        }
      }
  }

  /// An id made from `bytes`, the same on every machine (version 4's bits set, as random
  /// ids have).
  static func derivedID(_ kind: String, _ bytes: [UInt8]) -> ObjectID {
    var high = StableHash()
    high.combine(Array(kind.utf8))
    high.combine(bytes)
    var low = StableHash()
    low.combine(bytes)
    low.combine(Array(kind.utf8))
    low.combine(high.value)
    return ObjectID(
      high: (high.value & 0xFFFF_FFFF_FFFF_0FFF) | 0x0000_0000_0000_4000,
      low: (low.value & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000)
  }
}
