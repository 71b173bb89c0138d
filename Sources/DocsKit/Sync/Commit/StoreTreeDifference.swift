/// How a whole store differs from a commit's tree: the changes that make the tree hold the
/// store, and what they mean for the commit's message. It reads the whole store, so it is
/// for what a save's own changes cannot tell: a first commit, the conversion of a repository
/// of the old layout, and catching up after a commit that failed.
struct StoreTreeDifference {
  /// The changes to the tree, deletions first.
  var changes: [FastImportCommit.Change] = []
  /// What they change, for the message.
  var described = StoreChanges()
  /// Files of the tree the store does not explain, to be read before deciding whether they
  /// are documents the store no longer holds (deleted) or files docsh leaves alone.
  private var unknown: [(path: String, blob: GitBlobID)] = []
  /// The paths of the store's documents and records in the tree made, kept only when the
  /// tree compared with holds files (for a first commit they would be 10 MB of nothing).
  private var expected = Set<String>()
  /// Files found where a document of the store would lie in another layout (its category
  /// crossed the fan-out limit, or the tree is of layout 1, without `.md`): the document's
  /// id, and its blob now.
  private var otherPlaces: [String: (id: ObjectID, blob: GitBlobID)] = [:]
  private let layout: RepositoryLayout
  private var heldIDs: Set<ObjectID> = []
  /// The documents and categories of the store with no file at their place in the tree
  /// (either layout's): new, or moved (renamed) since it was written — a file of theirs
  /// elsewhere in the tree is then the old place's, to delete.
  private var unplacedIDs: Set<ObjectID> = []
  /// The names of those categories.
  private var unplacedCategoryNames: [ObjectID: String] = [:]

  /// Compares the store `graph` with `tree` (every file of a commit, by path), reading each
  /// document's content with `content` once, and writing the file of each document that
  /// differs into `blobs` (a fast-import stream, under the marks its changes name) rather
  /// than keeping it: a first commit holds the whole store.
  /// - Parameters:
  ///   - totalBytes: the store file's size, for `progress`.
  ///   - records: hears every category and document as its file is made.
  /// - Throws: ``SyncError/store(_:)`` when a content cannot be read or decoded, or the
  ///   stream cannot be written.
  init(
    graph: LoadedGraph, totalBytes: Int,
    content: (StoredDocument) throws(StoreError) -> String,
    tree: [String: CommitReader.TreeEntry], layout: RepositoryLayout, blobs: GitInputFile,
    records: (any StoreRecordSink)? = nil, progress: (any ProgressObserver)?
  ) throws(SyncError) {
    self.layout = layout
    progress?.beginTask(.committingStore, totalBytes: totalBytes)
    defer { progress?.endTask() }
    var counts: [ObjectID: Int] = [:]
    for document in graph.documents { counts[document.categoryID, default: 0] += 1 }
    var categoryNames: [ObjectID: Name] = [:]
    var held = Set<ObjectID>()
    for category in graph.categories {
      categoryNames[category.id] = category.name
      held.insert(category.id)
      try records?.category(id: category.id, name: category.name)
      let path = layout.recordPath(of: category.name)
      if !tree.isEmpty { expected.insert(path) }
      let bytes = RepositoryLayout.recordBytes(
        id: category.id, name: category.name,
        fannedOut: layout.isFannedOut(documentCount: counts[category.id] ?? 0))
      if tree[path] == nil {
        unplacedIDs.insert(category.id)
        unplacedCategoryNames[category.id] = category.name.text
      }
      if tree[path]?.object != GitBlobID(of: bytes) {
        changes.append(.put(path, bytes))
        described.categories.append(
          .init(kind: tree[path] == nil ? .new : .changed, name: category.name.text))
      }
    }
    var sinceReport = 0
    var writer = BlobWriter(blobs: blobs)
    for document in graph.documents {
      held.insert(document.id)
      let category = categoryNames[document.categoryID] ?? Name(unchecked: "?")
      try compare(
        document, in: category,
        fannedOut: layout.isFannedOut(documentCount: counts[document.categoryID] ?? 0),
        content: content, tree: tree, writer: &writer, records: records)
      sinceReport += document.location.length
      if sinceReport >= 1 << 20 {
        progress?.advanceTask(to: document.location.offset + document.location.length)
        sinceReport = 0
      }
    }
    heldIDs = held
    var movedAway: [FastImportCommit.Change] = []
    for (path, entry) in tree.sorted(by: { $0.key < $1.key })
    where !expected.contains(path) && layout.isDocumentPlace(path) {
      if otherPlaces[path]?.blob == entry.object {
        movedAway.append(.delete(path))  // this very file, put again where it now lies
      } else {
        unknown.append((path, entry.object))
      }
    }
    changes = movedAway + changes
  }

  /// Adds the change that puts `document` at its place in `tree`, if it is not there as it
  /// is. Where the document's file lies at the place of the other layout (its category
  /// crossed the fan-out limit), the blob found there is put again by its id.
  private mutating func compare(
    _ document: StoredDocument, in category: Name, fannedOut: Bool,
    content: (StoredDocument) throws(StoreError) -> String,
    tree: [String: CommitReader.TreeEntry], writer: inout BlobWriter,
    records: (any StoreRecordSink)?
  ) throws(SyncError) {
    let path = layout.path(of: document.name, in: category, fannedOut: fannedOut)
    let former = layout.inVersion(1)
    let otherPaths = [
      layout.path(of: document.name, in: category, fannedOut: !fannedOut),
      former.path(of: document.name, in: category, fannedOut: fannedOut),
      former.path(of: document.name, in: category, fannedOut: !fannedOut),
    ]
    if !tree.isEmpty { expected.insert(path) }
    let saved: SavedDocument
    do {
      saved = SavedDocument(
        id: document.id, name: document.name.text, categoryID: document.categoryID,
        categoryName: category.text, content: try content(document), size: document.size,
        modified: document.modified, tags: document.tags)
    } catch {
      throw .store(error)
    }
    let bytes = RepositoryLayout.fileBytes(of: saved)
    try records?.document(
      id: document.id, name: document.name, categoryID: document.categoryID, file: bytes)
    let blob = GitBlobID(of: bytes)
    let elsewhere = otherPaths.filter { tree[$0] != nil }
    for otherPath in elsewhere { otherPlaces[otherPath] = (document.id, blob) }
    if tree[path] == nil, elsewhere.isEmpty { unplacedIDs.insert(document.id) }
    guard tree[path]?.object != blob else { return }
    if tree[path] == nil, elsewhere.contains(where: { tree[$0]?.object == blob }) {
      changes.append(.putBlob(path, blob))  // moved, not changed
      return
    }
    changes.append(.putMark(path, try writer.write(bytes)))
    described.documents.append(
      .init(
        id: document.id, kind: tree[path] == nil && elsewhere.isEmpty ? .new : .changed,
        category: category.text, name: document.name.text, size: document.size,
        fingerprint: RepositoryLayout.fingerprint(of: saved, fileBytes: bytes)))
  }

  /// Reads the files the store does not explain: one that is a docsh document or category
  /// record the store no longer holds is deleted, and so is the older version of a document
  /// whose category crossed the fan-out limit; any other file (a user's, or one a sync
  /// warned about) is left as it is.
  mutating func settleUnknownFiles(
    reading read: ([GitBlobID]) throws(SyncError) -> [[UInt8]?]
  ) throws(SyncError) {
    guard !unknown.isEmpty else { return }
    let contents = try read(unknown.map(\.blob))
    var deletions: [FastImportCommit.Change] = []
    for ((path, _), bytes) in zip(unknown, contents) {
      guard let bytes else { continue }
      if path.hasSuffix("/" + CategoryFile.fileName) {
        guard case .category(let id, let name, _) = CategoryFile.parse(bytes) else { continue }
        if let newName = unplacedCategoryNames[id] {
          deletions.append(.delete(path))  // the record of a category renamed since
          for index in described.categories.indices
          where described.categories[index].name == newName
            && described.categories[index].kind == .new
          {
            described.categories[index].kind = .changed
          }
          continue
        }
        guard !heldIDs.contains(id) else { continue }
        deletions.append(.delete(path))
        described.categories.append(.init(kind: .deleted, name: name.text))
      } else if case .docsh(let id, _, _, _) = DocumentFile.parse(bytes),
        otherPlaces[path]?.id == id
      {
        deletions.append(.delete(path))  // an older version of a document that moved
      } else if case .docsh(let id, _, _, _) = DocumentFile.parse(bytes), unplacedIDs.contains(id) {
        // The file of a document moved or renamed since; one that is also at its place is a
        // copy made elsewhere (a sync warned about it), left as it is.
        deletions.append(.delete(path))
        markMoved(id)
      } else if case .docsh(let id, _, _, _) = DocumentFile.parse(bytes), !heldIDs.contains(id) {
        deletions.append(.delete(path))
        let (category, name) = layout.names(at: path)
        described.documents.append(
          .init(
            id: id, kind: .deleted, category: category, name: name, size: 0,
            fingerprint: RepositoryLayout.deletionFingerprint(of: id)))
      }
    }
    changes = deletions + changes
    unknown = []
  }

  /// Describes the document `id`, put at a new place, as changed (moved), not new.
  private mutating func markMoved(_ id: ObjectID) {
    for index in described.documents.indices
    where described.documents[index].id == id && described.documents[index].kind == .new {
      described.documents[index].kind = .changed
    }
  }
}

/// Writes documents' files into a fast-import stream as blobs, each under a mark of its own.
private struct BlobWriter {
  let blobs: GitInputFile
  var nextMark = FastImportCommit.firstBlobMark

  /// Writes `bytes` as the next blob; its mark.
  /// - Throws: ``SyncError/store(_:)`` when the stream cannot be written.
  mutating func write(_ bytes: [UInt8]) throws(SyncError) -> Int {
    let mark = nextMark
    do {
      try blobs.append(FastImportCommit.blobCommand(bytes, mark: mark))
    } catch {
      throw .store(.system("git's input", operation: error.operation, errno: error.code))
    }
    nextMark += 1
    return mark
  }
}

extension RepositoryLayout {
  /// Whether `path` is where a document or a category record lies: two levels below the
  /// prefix, or three with a bucket between (a fanned-out category's).
  func isDocumentPlace(_ path: String) -> Bool {
    guard path.hasPrefix(prefix) else { return false }
    let parts = path.dropFirst(prefix.count).split(separator: "/", omittingEmptySubsequences: false)
    // The marker's folder and the guard folders hold no documents.
    guard let top = parts.first, !top.hasPrefix("."), !LayoutMarker.isGuardFolder(String(top))
    else { return false }
    return parts.count == 2 || (parts.count == 3 && RepositoryLayout.isBucket(parts[1]))
  }

  /// The category and document names a document path stands for (a bucket between them
  /// skipped), decoded where they decode (as found otherwise).
  func names(at path: String) -> (category: String, name: String) {
    var parts = path.dropFirst(prefix.count).split(separator: "/", maxSplits: 1)
    guard parts.count == 2 else { return ("?", String(path)) }
    if let slash = parts[1].firstIndex(of: "/"), RepositoryLayout.isBucket(parts[1][..<slash]) {
      parts[1] = parts[1][parts[1].index(after: slash)...]
    }
    let category = FileNameEncoding.decode(String(parts[0]))?.text ?? String(parts[0])
    // A path of either layout: a file of layout 2 without its `.md`, else as it is.
    let file = String(parts[1])
    let name =
      (documentName(ofFile: file) ?? inVersion(1).documentName(ofFile: file))?.text ?? file
    return (category, name)
  }
}
