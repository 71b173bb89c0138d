/// Where the store's objects lie in a commit's tree: a folder per category, named after it
/// (``FileNameEncoding``), holding its record (``CategoryFile``) and a file per document
/// (``DocumentFile``), under the repository's ``StoreRepository/prefix``.
///
/// Layout 2 (``currentVersion``) names a document's file after the document with `.md`
/// added, always: `Plan` is `Plan.md`, `notes.txt` is `notes.txt.md`, `Plan.md` is
/// `Plan.md.md`. Taking exactly one `.md` off gives the name back, so every name round-trips,
/// and Obsidian, which shows a note's file name without its `.md`, shows the name as typed. A
/// file not ending in `.md` is not a document. The tree says which layout it holds
/// (``LayoutMarker``): layout 1, docsh's before, has no marker and no `.md`.
///
/// A category of more than ``fanOutLimit`` documents keeps them in 256 bucket subfolders,
/// `CATEGORY/xx/DOCUMENT`, `xx` two lowercase hex digits from a stable hash of the name's
/// key (so that names equal ignoring case share a bucket), and its record says so: a commit
/// touching one document then rewrites a tree of a few hundred entries, not of the whole
/// category. Whether a category is fanned out is a function of its count in the commit
/// written, no hysteresis: a save that takes it across the limit, either way, moves its
/// files once.
struct RepositoryLayout {
  /// Over this many documents a category's files lie in bucket subfolders.
  static let defaultFanOutLimit = 2_000
  /// The number of bucket subfolders of a fanned-out category, as its record gives it.
  static let bucketCount = 256

  /// The layout this docsh writes: documents as `.md` files, the tree marked.
  static let currentVersion = 2
  /// What a document's file name adds to its encoded name in layout 2.
  static let documentExtension = ".md"

  /// Put in front of every path (`""` when the store's folder is the repository's top).
  let prefix: String
  /// Over this many documents a category is fanned out (tests make it small).
  var fanOutLimit: Int = RepositoryLayout.defaultFanOutLimit
  /// The layout's version: how documents' files are named (what is written is always
  /// ``currentVersion``; a tree of an older layout is read in its own).
  var version = RepositoryLayout.currentVersion

  /// The file name of the document `name`: its encoded name, with `.md` in layout 2.
  func fileName(of document: Name) -> String {
    FileNameEncoding.encode(document) + (version >= 2 ? RepositoryLayout.documentExtension : "")
  }

  /// The document name a file name in a category folder stands for; `nil` when it stands
  /// for none (in layout 2, a name not ending in `.md`).
  func documentName(ofFile fileName: String) -> Name? {
    guard version >= 2 else { return FileNameEncoding.decode(fileName) }
    let bytes = Array(fileName.utf8)
    let suffix = Array(RepositoryLayout.documentExtension.utf8)
    guard bytes.count > suffix.count, bytes.suffix(suffix.count).elementsEqual(suffix) else {
      return nil
    }
    return FileNameEncoding.decode(bytes: Array(bytes.dropLast(suffix.count)))
  }

  /// The same layout in `version`.
  func inVersion(_ version: Int) -> RepositoryLayout {
    var layout = self
    layout.version = version
    return layout
  }

  /// Whether a category of `count` documents keeps them in bucket subfolders.
  func isFannedOut(documentCount count: Int) -> Bool { count > fanOutLimit }

  /// The path of the folder of the category `name`.
  func folder(of category: Name) -> String {
    prefix + FileNameEncoding.encode(category)
  }

  /// The path of the record of the category `name`.
  func recordPath(of category: Name) -> String {
    prefix + FileNameEncoding.recordPath(category: category)
  }

  /// The bytes of the record of a category, saying whether it is fanned out.
  static func recordBytes(id: ObjectID, name: Name, fannedOut: Bool) -> [UInt8] {
    CategoryFile.render(id: id, name: name, fanOut: fannedOut ? bucketCount : 0)
  }

  /// The path of the document `name` of the category `category`, in its bucket when the
  /// category is fanned out.
  func path(of document: Name, in category: Name, fannedOut: Bool) -> String {
    folder(of: category) + "/" + file(of: document, fannedOut: fannedOut)
  }

  /// The path of a document's file inside its category's folder: `DOCUMENT.md`, or
  /// `xx/DOCUMENT.md` in a fanned-out category.
  func file(of document: Name, fannedOut: Bool) -> String {
    let file = fileName(of: document)
    return fannedOut ? RepositoryLayout.bucket(of: document) + "/" + file : file
  }

  /// The bucket of the document `name` in a fanned-out category: two lowercase hex digits
  /// from a stable hash of its key.
  static func bucket(of document: Name) -> String {
    var hash = StableHash()
    hash.combine(Array(document.key.folded.utf8))
    var folded = hash.value
    folded ^= folded >> 32
    folded ^= folded >> 16
    folded ^= folded >> 8
    let digits = String(folded & 0xFF, radix: 16)
    return digits.count == 1 ? "0" + digits : digits
  }

  /// Whether `name` is the name of a bucket subfolder: two lowercase hex digits.
  static func isBucket(_ name: some StringProtocol) -> Bool {
    name.utf8.count == 2
      && name.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
  }

  /// The bytes of a document's file.
  static func fileBytes(of document: SavedDocument) -> [UInt8] {
    DocumentFile.render(
      id: document.id, modified: document.modified, tags: document.tags, content: document.content)
  }

  /// The fingerprint the history's trailers give a version of a document: a stable hash of
  /// its category's name, its name and its file's bytes, as 16 hex digits — what a commit
  /// made elsewhere shows of it too, so that one version reaching a branch through two
  /// commits is one version.
  static func fingerprint(of document: SavedDocument, fileBytes: [UInt8]) -> String {
    var hash = StableHash()
    hash.combine(Array(document.categoryName.utf8))
    hash.combine([0x2F])
    hash.combine(Array(document.name.utf8))
    hash.combine([0])
    hash.combine(fileBytes)
    return hash.hexDigits
  }

  /// The fingerprint of a deletion of the document `id`: the same for every deletion of it,
  /// so that one deletion reaching a branch through two commits is one version.
  static func deletionFingerprint(of id: ObjectID) -> String {
    var hash = StableHash()
    hash.combine(id.high)
    hash.combine(id.low)
    hash.combine(Array("deleted".utf8))
    return hash.hexDigits
  }

  /// The changes to the tree that commit `saved`, made against the tree of the save before:
  /// renamed categories' folders moved (through a temporary name, so that two categories can
  /// swap names), the old files of changed documents and the folders of deleted categories
  /// removed, the files of a category crossing the fan-out limit moved (`unchanged` names,
  /// by category, the documents of each the save left alone), then the records and files of
  /// what the save wrote put in.
  func treeChanges(
    for saved: StoreDelta, unchanged: [ObjectID: [Name]] = [:]
  ) -> [FastImportCommit.Change] {
    var changes: [FastImportCommit.Change] = []
    var renamedFolders: [NameKey: String] = [:]  // old name's key → temporary folder
    var renamedCategories: [(temporary: String, to: Name)] = []
    var deletedCategories: Set<NameKey> = []
    for category in saved.categories {
      switch (category.before, category.after) {
      case (let before?, let after?):
        let temporary = prefix + ".docsh-moving-" + category.id.description
        changes.append(.rename(folder(of: before), temporary))
        renamedFolders[before.key] = temporary
        renamedCategories.append((temporary, after))
      case (let before?, nil):
        deletedCategories.insert(before.key)
      default:
        break
      }
    }
    for document in saved.documents {
      guard let before = document.before, !deletedCategories.contains(before.category.key)
      else { continue }
      let file = self.file(
        of: before.name, fannedOut: isFannedOut(before: before.categoryID, in: saved))
      let folder = renamedFolders[before.category.key] ?? folder(of: before.category)
      changes.append(.delete(folder + "/" + file))
    }
    for category in saved.categories where category.after == nil {
      if let before = category.before { changes.append(.delete(folder(of: before))) }
    }
    for (temporary, name) in renamedCategories {
      changes.append(.rename(temporary, folder(of: name)))
    }
    changes += crossingMoves(for: saved, unchanged: unchanged)
    changes += recordChanges(for: saved)
    for document in saved.documents {
      guard let after = document.saved else { continue }
      // Names from the graph, validated when they were set.
      let path = path(
        of: Name(unchecked: after.name), in: Name(unchecked: after.categoryName),
        fannedOut: isFannedOut(after: after.categoryID, in: saved))
      changes.append(.put(path, RepositoryLayout.fileBytes(of: after)))
    }
    return changes
  }

  /// Whether the category `id` was fanned out before the save `saved`.
  private func isFannedOut(before id: ObjectID, in saved: StoreDelta) -> Bool {
    saved.counts[id].map { isFannedOut(documentCount: $0.before) } ?? false
  }

  /// Whether the category `id` is fanned out after the save `saved`.
  private func isFannedOut(after id: ObjectID, in saved: StoreDelta) -> Bool {
    saved.counts[id].map { isFannedOut(documentCount: $0.after) } ?? false
  }

  /// The renames that move the files the save left alone of each category it took across
  /// the fan-out limit, in their (new) folder. Files named like a bucket wait in a
  /// temporary folder meanwhile, so that a file and a bucket of one name never meet.
  private func crossingMoves(
    for saved: StoreDelta, unchanged: [ObjectID: [Name]]
  ) -> [FastImportCommit.Change] {
    var changes: [FastImportCommit.Change] = []
    for (id, count) in saved.counts.sorted(by: { $0.key < $1.key }) {
      let before = isFannedOut(documentCount: count.before)
      let after = isFannedOut(documentCount: count.after)
      guard before != after else { continue }
      let folder = folder(of: count.name) + "/"
      let waiting = prefix + ".docsh-moving-" + id.description + "-files/"
      let names = unchanged[id] ?? []
      let parked = names.filter { RepositoryLayout.isBucket(fileName(of: $0)) }
      for name in parked {
        changes.append(
          .rename(folder + file(of: name, fannedOut: before), waiting + fileName(of: name)))
      }
      for name in names where !RepositoryLayout.isBucket(fileName(of: name)) {
        changes.append(
          .rename(
            folder + file(of: name, fannedOut: before), folder + file(of: name, fannedOut: after)))
      }
      for name in parked {
        changes.append(
          .rename(waiting + fileName(of: name), folder + file(of: name, fannedOut: after)))
      }
    }
    return changes
  }

  /// The records the save writes: of each category it created or renamed, and of each it
  /// took across the fan-out limit.
  private func recordChanges(for saved: StoreDelta) -> [FastImportCommit.Change] {
    var changes: [FastImportCommit.Change] = []
    var written = Set<ObjectID>()
    for category in saved.categories {
      guard let after = category.after else { continue }
      written.insert(category.id)
      changes.append(
        .put(
          recordPath(of: after),
          RepositoryLayout.recordBytes(
            id: category.id, name: after,
            fannedOut: isFannedOut(after: category.id, in: saved))))
    }
    for (id, count) in saved.counts.sorted(by: { $0.key < $1.key })
    where !written.contains(id)
      && isFannedOut(documentCount: count.before) != isFannedOut(documentCount: count.after)
    {
      changes.append(
        .put(
          recordPath(of: count.name),
          RepositoryLayout.recordBytes(
            id: id, name: count.name, fannedOut: isFannedOut(documentCount: count.after))))
    }
    return changes
  }
}

extension RepositoryLayout {
  /// The category folder `path` lies in (a document or record path); `nil` for a file at
  /// the top or outside the prefix.
  func folderPath(of path: String) -> String? {
    guard path.hasPrefix(prefix) else { return nil }
    let rest = path.dropFirst(prefix.count)
    guard let slash = rest.firstIndex(of: "/") else { return nil }
    return prefix + rest[..<slash]
  }

  /// The changes that make the category folders of `parent` (a reading of the commit the
  /// changes apply to) hold `merged`'s categories: for every category of `merged` that
  /// lies in `folders` there or in `parent`, or is new or renamed, its record and
  /// documents, in buckets when it holds more than ``fanOutLimit``; docsh's files of those
  /// folders that `merged` no longer holds there deleted (a file that moved is put again by
  /// its blob, not its bytes). Files docsh does not read are left as they are.
  func changes(
    from parent: TreeReading, to merged: StoreSnapshot, folders: Set<String>
  ) -> [FastImportCommit.Change] {
    var rewritten: [String] = []
    return changes(from: parent, to: merged, folders: folders, rewritten: &rewritten)
  }

  /// ``changes(from:to:folders:)``, adding to `rewritten` the `CATEGORY/NAME` of every
  /// document whose file changes though the document does not (a header written by another
  /// tool, or in an older form, written as docsh writes it): what a commit message names
  /// beside the documents that changed.
  func changes(
    from parent: TreeReading, to merged: StoreSnapshot, folders: Set<String>,
    rewritten: inout [String]
  ) -> [FastImportCommit.Change] {
    var parentDocuments: [ObjectID: (document: SnapshotDocument, categoryID: ObjectID)] = [:]
    for category in parent.snapshot.categories {
      for document in category.documents { parentDocuments[document.id] = (document, category.id) }
    }
    var parentNames: [ObjectID: String] = [:]
    for category in parent.snapshot.categories { parentNames[category.id] = category.name.text }
    // Every path `merged` puts a file at; the bytes only of those that differ from the
    // parent's (a whole tree taken in holds every document: its bytes are not kept twice).
    var desired = Set<String>()
    var differing: [String: (blob: GitBlobID, bytes: [UInt8])] = [:]
    func want(_ path: String, _ bytes: [UInt8]) {
      desired.insert(path)
      let blob = GitBlobID(of: bytes)
      if parent.files[path] != blob { differing[path] = (blob, bytes) }
    }
    var touchedFolders = folders
    for category in merged.categories {
      let folder = folder(of: category.name)
      let parentFolder = parent.folders[category.id]
      let isRead = folders.contains(folder) || parentFolder.map(folders.contains) == true
      guard isRead || parentNames[category.id] != category.name.text else { continue }
      touchedFolders.insert(folder)
      if let parentFolder { touchedFolders.insert(parentFolder) }
      // A category whose documents were not read keeps the layout its record gives.
      let fannedOut =
        isRead
        ? isFannedOut(documentCount: category.documents.count)
        : parent.fannedOut.contains(category.id)
      want(
        recordPath(of: category.name),
        RepositoryLayout.recordBytes(id: category.id, name: category.name, fannedOut: fannedOut))
      for document in category.documents {
        let path = path(of: document.name, in: category.name, fannedOut: fannedOut)
        let bytes = DocumentFile.render(
          id: document.id, modified: document.modified, tags: document.tags,
          content: document.content)
        want(path, bytes)
        if differing[path] != nil, !parent.madeElsewhere.contains(document.id),
          let before = parentDocuments[document.id], before.categoryID == category.id,
          before.document == document
        {
          rewritten.append(category.name.text + "/" + document.name.text)
        }
      }
    }
    // Categories gone from `merged`: their folders lose docsh's files.
    for (id, folder) in parent.folders where !merged.categories.contains(where: { $0.id == id }) {
      touchedFolders.insert(folder)
    }
    var changes: [FastImportCommit.Change] = []
    for path in parent.docshFiles.sorted()
    where !desired.contains(path) && folderPath(of: path).map(touchedFolders.contains) == true {
      changes.append(.delete(path))
    }
    let parentBlobs = Set(parent.files.values)
    for (path, file) in differing.sorted(by: { $0.key < $1.key }) {
      changes.append(
        parentBlobs.contains(file.blob) ? .putBlob(path, file.blob) : .put(path, file.bytes))
    }
    return changes
  }

  /// The files other than docsh's that the remote changed and this side did not (a user's
  /// files at the top, files a sync warned about): taken as the remote has them, with their
  /// `modes` (a symbolic link or submodule stays one, never rewritten as a file).
  func otherFileChanges(
    _ remoteChanges: [String: GitBlobID?], modes: [String: String] = [:],
    localChanges: [String: GitBlobID?], managed: Set<String>
  ) -> [FastImportCommit.Change] {
    var changes: [FastImportCommit.Change] = []
    for (path, blob) in remoteChanges.sorted(by: { $0.key < $1.key })
    where localChanges[path] == nil && !managed.contains(path) {
      guard let blob else {
        changes.append(.delete(path))
        continue
      }
      let mode = modes[path] ?? "100644"
      changes.append(mode == "100644" ? .putBlob(path, blob) : .putEntry(path, mode: mode, blob))
    }
    return changes
  }
}
