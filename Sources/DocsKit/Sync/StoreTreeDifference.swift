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
  private let layout: RepositoryLayout
  private let heldIDs: Set<ObjectID>

  /// Compares the store `graph` with `tree` (every file of a commit, by path), reading each
  /// document's content with `content` once, and writing the file of each document that
  /// differs into `blobs` (a fast-import stream, under the marks its changes name) rather
  /// than keeping it: a first commit holds the whole store.
  /// - Parameter totalBytes: the store file's size, for `progress`.
  /// - Throws: ``SyncError/store(_:)`` when a content cannot be read or decoded, or the
  ///   stream cannot be written.
  init(
    graph: LoadedGraph, totalBytes: Int,
    content: (StoredDocument) throws(StoreError) -> String,
    tree: [String: StoreRepository.TreeEntry], layout: RepositoryLayout, blobs: GitInputFile,
    progress: (any ProgressObserver)?
  ) throws(SyncError) {
    self.layout = layout
    progress?.beginTask(.committingStore, totalBytes: totalBytes)
    defer { progress?.endTask() }
    var expected = Set<String>()
    var categoryNames: [ObjectID: Name] = [:]
    var held = Set<ObjectID>()
    for category in graph.categories {
      categoryNames[category.id] = category.name
      held.insert(category.id)
      let path = layout.recordPath(of: category.name)
      expected.insert(path)
      let bytes = CategoryFile.render(id: category.id, name: category.name)
      if tree[path]?.object != GitBlobID(of: bytes) {
        changes.append(.put(path, bytes))
        described.categories.append(
          .init(kind: tree[path] == nil ? .new : .changed, name: category.name.text))
      }
    }
    var sinceReport = 0
    var mark = FastImportCommit.firstBlobMark
    for document in graph.documents {
      held.insert(document.id)
      let category = categoryNames[document.categoryID] ?? Name(unchecked: "?")
      let path = layout.path(of: document.name, in: category)
      expected.insert(path)
      let saved: SavedDocument
      do {
        saved = SavedDocument(
          id: document.id, name: document.name.text, categoryID: document.categoryID,
          categoryName: category.text, content: try content(document), size: document.size,
          modified: document.modified)
      } catch {
        throw .store(error)
      }
      let bytes = RepositoryLayout.fileBytes(of: saved)
      if tree[path]?.object != GitBlobID(of: bytes) {
        do {
          try blobs.append(FastImportCommit.blobCommand(bytes, mark: mark))
        } catch {
          throw .store(.system("git's input", operation: error.operation, errno: error.code))
        }
        changes.append(.putMark(path, mark))
        mark += 1
        described.documents.append(
          .init(
            id: document.id, kind: tree[path] == nil ? .new : .changed,
            category: category.text, name: document.name.text, size: document.size,
            fingerprint: RepositoryLayout.fingerprint(of: saved, fileBytes: bytes)))
      }
      sinceReport += document.location.length
      if sinceReport >= 1 << 20 {
        progress?.advanceTask(to: document.location.offset + document.location.length)
        sinceReport = 0
      }
    }
    heldIDs = held
    for (path, entry) in tree.sorted(by: { $0.key < $1.key })
    where !expected.contains(path) && layout.isDocumentPlace(path) {
      unknown.append((path, entry.object))
    }
  }

  /// Reads the files the store does not explain: one that is a docsh document or category
  /// record the store no longer holds is deleted; any other file (a user's, or one a sync
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
        guard case .category(let id, let name) = CategoryFile.parse(bytes), !heldIDs.contains(id)
        else { continue }
        deletions.append(.delete(path))
        described.categories.append(.init(kind: .deleted, name: name.text))
      } else if case .docsh(let id, _, _) = DocumentFile.parse(bytes), !heldIDs.contains(id) {
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
}

extension RepositoryLayout {
  /// Whether `path` is where a document or a category record lies: two levels below the
  /// prefix.
  func isDocumentPlace(_ path: String) -> Bool {
    guard path.hasPrefix(prefix) else { return false }
    return path.dropFirst(prefix.count).split(separator: "/", omittingEmptySubsequences: false)
      .count == 2
  }

  /// The category and document names a document path stands for, decoded where they
  /// decode (as found otherwise).
  func names(at path: String) -> (category: String, name: String) {
    let parts = path.dropFirst(prefix.count).split(separator: "/", maxSplits: 1)
    guard parts.count == 2 else { return ("?", String(path)) }
    let category = FileNameEncoding.decode(String(parts[0]))?.text ?? String(parts[0])
    let name = FileNameEncoding.decode(String(parts[1]))?.text ?? String(parts[1])
    return (category, name)
  }
}
