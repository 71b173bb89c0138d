#if canImport(Glibc)
  import Glibc
#endif

extension StoreRepository {
  /// Commits the store to this repository (``StoreCommitter``).
  var committer: StoreCommitter { StoreCommitter(repository: self) }
}

/// Commits the store: one file per document, the commit built by `git fast-import` from
/// what the save changed (or, when that is not known, from a comparison of the whole store
/// with HEAD's tree), written to a ref of docsh's own, then HEAD's branch moved with
/// `update-ref` from the commit it was at — git never writes the store file, and the
/// repository has no work tree.
///
/// It holds the repository for its locks, store file and ledger; it writes commits with
/// ``CommitWriter``, reads them with ``CommitReader``, finishes a sync's move of HEAD left
/// half done first (``HeadMoveNote``), and writes an encrypted remote's first commit beside
/// its own (``EncryptedFirstCommit``).
struct StoreCommitter {
  /// The repository.
  let repository: StoreRepository
  /// Its git.
  let git: Git
  /// Where the store's objects lie in a commit's tree.
  let layout: RepositoryLayout
  /// Writes the commits.
  let commitWriter: CommitWriter
  /// Reads HEAD's tree.
  let commitReader: CommitReader

  /// Commits to `repository`.
  init(repository: StoreRepository) {
    self.repository = repository
    git = repository.git
    layout = repository.layout
    commitWriter = repository.commitWriter
    commitReader = repository.commitReader
  }

  /// Commits the store when it differs from HEAD, with a one-line message saying what
  /// changed (`2 new, 1 changed: Work/Plan, …`) and trailers that let history find each
  /// document's versions. Without what a save changed the whole store is compared with
  /// HEAD's tree (``commitStore(saved:holding:)`` commits a save from its delta). A
  /// repository in the layout of docsh before 0.4 (the store file tracked) converts first.
  /// Where git has no identity configured, the commit is made as `docsh <docsh@HOST>`
  /// without writing any config.
  /// - Parameter store: the store, read through a reader it makes (never one built here).
  /// - Returns: the new commit, or `nil` when there was nothing to commit.
  /// - Throws: ``SyncError``: the store file and HEAD are then as they were.
  @discardableResult
  func commitStore(
    _ store: any StoreWriting, progress: (any ProgressObserver)? = nil
  ) throws(SyncError) -> CommitID? {
    try repository.withRepositoryLock { () throws(SyncError) -> CommitID? in
      let (before, after) = try commitHoldingLock(
        saved: nil, store: store, lock: nil, progress: progress)
      return after == before ? nil : after
    }
  }

  /// Commits the save of `saved`, as a save's observer hears it, under the store's save lock
  /// `lock`: the store file then is what `saved` made, and is read as it is. `saved`, what
  /// the save changed, lets the commit cost what changed; when HEAD is not the commit of the
  /// store that save replaced, the whole store is compared with HEAD's tree.
  /// - Returns: the new commit, or `nil` when there was nothing to commit.
  /// - Throws: ``SyncError``: the store file and HEAD are then as they were.
  @discardableResult
  func commitStore(saved: StoreDelta, holding lock: LockedStore) throws(SyncError) -> CommitID? {
    try repository.withRepositoryLock { () throws(SyncError) -> CommitID? in
      let (before, after) = try commitHoldingLock(
        saved: saved, store: lock.store, lock: lock, progress: nil)
      return after == before ? nil : after
    }
  }

  /// Commits the store when it changed; the repository lock is held. Returns HEAD after.
  /// - Parameter messagePrefix: put before the subject (`Sync: `).
  @discardableResult
  func commitLocked(
    _ store: any StoreWriting, messagePrefix: String = "",
    progress: (any ProgressObserver)? = nil
  ) throws(SyncError) -> CommitID? {
    try commitHoldingLock(
      saved: nil, store: store, lock: nil, messagePrefix: messagePrefix, progress: progress
    ).after
  }

  /// HEAD before and after committing the store; the repository lock is held, and the
  /// store's save lock when `lock` is given (the store is then what `saved` made). What was
  /// committed last (the ledger's ``RepositoryLedger/Committed``) tells when the store is
  /// committed already, and when `saved` describes what changed since.
  private func commitHoldingLock(
    saved: StoreDelta?, store: any StoreWriting, lock: LockedStore?, messagePrefix: String = "",
    progress: (any ProgressObserver)?
  ) throws(SyncError) -> (before: CommitID?, after: CommitID?) {
    try repository.headMoveNote.finishInterruptedMove(store)
    // A save's delta comes with its generation, under the store's lock: the store is what
    // it made. Without the lock, the store must still be at that generation.
    let matchesStore = { () throws(SyncError) -> Bool in
      guard let saved else { return false }
      if lock != nil { return true }
      return try repository.storeGeneration(store) == saved.generation
    }
    // A tree of layout 1, or one not known to be of layout 2, is compared whole: that
    // converts it.
    let current = RepositoryLayout.currentVersion
    if let saved, let known = repository.knownHead(), let state = repository.committed(),
      state.head == known.head,
      state.layoutVersion == current, state.generation == .known(saved.generationBefore),
      try matchesStore(),
      let commit = try commitChanges(saved, onto: known.head, branch: known.branch)
    {
      return (known.head, commit)
    }
    let head = try repository.headCommit()
    if let head, let state = repository.committed(), state.head == head,
      state.layoutVersion == current
    {
      if let saved, state.generation == .known(saved.generationBefore), try matchesStore() {
        return (head, try commitChanges(saved, onto: head, messagePrefix: messagePrefix))
      }
      if saved == nil, let generation = try repository.storeGeneration(store),
        state.generation == .known(generation)
      {
        return (head, head)
      }
    }
    let whole = { (lock: LockedStore) throws(SyncError) -> CommitID? in
      try self.commitWholeStore(
        lock.store.makeReader(), onto: head, messagePrefix: messagePrefix, progress: progress)
    }
    if let lock { return (head, try whole(lock)) }
    return (head, try repository.withStoreLock(store, whole))
  }

  /// Commits the changes of one save onto `head`, whose tree is the store that save replaced.
  /// - Parameter branch: HEAD's branch, when `head` was read from its ref file
  ///   (``StoreRepository/knownHead()``): fast-import then moves it itself, and only from an
  ///   ancestor of the commit; `nil` (HEAD moved meanwhile) when it refuses. Without it,
  ///   `update-ref` moves HEAD from `head`.
  private func commitChanges(
    _ saved: StoreDelta, onto head: CommitID, messagePrefix: String = "",
    branch: String? = nil
  ) throws(SyncError) -> CommitID? {
    let changes = StoreChanges(saved)
    guard changes.count > 0 else {
      repository.recordCommitted(head, generation: .known(saved.generation))
      return head
    }
    let treeChanges = layout.treeChanges(
      for: saved, unchanged: try namesLeftAlone(by: saved, at: head))
    let message = changes.message(prefix: messagePrefix, storePath: repository.pathInRepository)
    let commit: CommitID
    if let branch {
      guard
        let made = try commitWriter.makeCommit(
          parent: head, changes: treeChanges, message: message, on: .branch(branch))
      else { return nil }
      commit = made
    } else {
      commit = try commitWriter.makeBuildCommit(
        parent: head, changes: treeChanges, message: message)
      try commitWriter.moveHead(
        to: commit, from: head, reason: changes.subject(prefix: messagePrefix))
    }
    repository.recordCommitted(commit, generation: .known(saved.generation))
    return commit
  }

  // MARK: - The whole store against HEAD's tree

  /// Compares the whole store file, as `store` (a reader apart from any session's) reads it,
  /// with HEAD's tree and commits the difference (converting a repository of the old layout
  /// on the way); the store lock is held. The comparison writes git's whole input first and
  /// is gone, with all it held of the store, before git reads it.
  private func commitWholeStore(
    _ store: any StoreReading, onto head: CommitID?, messagePrefix: String,
    progress: (any ProgressObserver)?
  ) throws(SyncError) -> CommitID? {
    guard try repository.storeFileHead() != nil else {
      // Never commit the store's disappearance: git may have lost it half way.
      if let head, try commitReader.treeHoldsStore(head) {
        throw .storeMissing(path: repository.storePath, commit: head.short)
      }
      return head
    }
    let written: WrittenCommit
    switch try writeWholeStoreCommit(
      store, onto: head, messagePrefix: messagePrefix, progress: progress)
    {
    case .unchanged(let generation):
      if let head { repository.recordCommitted(head, generation: .known(generation)) }
      return head
    case .written(let commit): written = commit
    }
    let fileSystem = repository.fileSystem
    defer { try? fileSystem.close(written.input) }  // read-only
    // The graph, the tree's listing and the changes are gone: their pages go back to the
    // system before git runs beside this process (glibc would keep them).
    Allocator.returnFreedMemory()
    let commit: CommitID
    if let encrypted = written.encrypted {
      commit = try EncryptedFirstCommit.commit(encrypted, in: repository) {
        () throws(SyncError) -> CommitID in
        try commitWriter.makeBuildCommit(reading: written.input, pack: .localOnly)
      }
    } else {
      commit = try commitWriter.makeBuildCommit(reading: written.input)
    }
    try commitWriter.moveHead(to: commit, from: head, reason: written.reason)
    repository.recordCommitted(commit, generation: .known(written.generation))
    if written.isConversion { try repository.configureLayout() }
    return commit
  }

  /// A whole-store commit written to the end of git's input, and what is left to do once
  /// git has read it.
  private struct WrittenCommit {
    /// The stream of the commit (on ``CommitWriter/buildRef``), read from its start.
    let input: Int32
    /// The encrypted remote's first commit, written in the same pass.
    let encrypted: EncryptedFirstCommit.Finished?
    /// Why HEAD moves, for its reflog.
    let reason: String
    /// The generation of the store committed.
    let generation: Int
    /// Whether it converts a repository of the old layout (the store file tracked).
    let isConversion: Bool
  }

  /// What a comparison of the whole store with HEAD's tree came to.
  private enum WholeStoreComparison {
    /// HEAD's tree holds the store of this generation.
    case unchanged(generation: Int)
    /// The commit that makes it hold it.
    case written(WrittenCommit)
  }

  /// Compares the store with HEAD's tree and writes the commit of the difference into git's
  /// input, to its end (the encrypted remote's first commit too, beside it); nothing it
  /// reads of the store or the tree outlives it.
  private func writeWholeStoreCommit(
    _ store: any StoreReading, onto head: CommitID?, messagePrefix: String,
    progress: (any ProgressObserver)?
  ) throws(SyncError) -> WholeStoreComparison {
    let tree =
      try head.map { head throws(SyncError) in try commitReader.treeListing(of: head) } ?? [:]
    let blobs = try commitWriter.makeInput()
    // A first commit of a repository syncing with an encrypted remote: the remote's commit
    // is written from the store in the same pass, rather than from this one's blobs after.
    let encrypted = head == nil ? try EncryptedFirstCommit.make(for: repository) : nil
    var difference: StoreTreeDifference
    let generation: Int
    (difference, generation) = try compareWholeStore(
      store, onto: head, tree: tree, blobs: blobs, records: encrypted, progress: progress)
    try difference.settleUnknownFiles(reading: commitReader.readBlobs)
    let isConversion = tree[repository.pathInRepository] != nil
    if isConversion { difference.changes.append(.delete(repository.pathInRepository)) }
    difference.changes += try supportFileChanges(in: tree)
    let markerChanges = try layoutMarkerChanges(in: tree)
    // docsh's files in a tree without the marker: layout 1, converted by this commit.
    let isMarkdownConversion =
      !isConversion && tree[repository.prefix + LayoutMarker.path] == nil
      && tree.keys.contains { $0.hasSuffix("/" + CategoryFile.fileName) }
    // A store with nothing to commit makes no commit of the marker alone.
    if !difference.changes.isEmpty || isMarkdownConversion { difference.changes += markerChanges }
    guard !difference.changes.isEmpty else { return .unchanged(generation: generation) }
    let committer = try commitWriter.committerLine()
    let commit = FastImportCommit(
      ref: CommitWriter.buildRef, committer: committer,
      message: wholeStoreMessage(
        difference.described, prefix: messagePrefix, isConversion: isConversion,
        isMarkdownConversion: isMarkdownConversion),
      parent: head, changes: difference.changes)
    let finished = try encrypted?.finish(committer: committer, in: repository)
    let input: Int32
    do {
      input = try commitWriter.finishInput(commit, after: blobs)
    } catch {
      // Read-only: closing it loses nothing.
      if let finished { try? repository.fileSystem.close(finished.input) }
      throw error
    }
    let reason =
      isConversion
      ? "one file per document"
      : isMarkdownConversion
        ? StoreCommitter.markdownConversionSubject
        : difference.described.subject(prefix: messagePrefix)
    return .written(
      WrittenCommit(
        input: input, encrypted: finished, reason: reason, generation: generation,
        isConversion: isConversion))
  }

  /// The store as `store` reads it compared with `tree` (``StoreTreeDifference``), and the
  /// generation read; the graph is gone once it returns, before the commit is written.
  private func compareWholeStore(
    _ store: any StoreReading, onto head: CommitID?, tree: [String: CommitReader.TreeEntry],
    blobs: GitInputFile, records: (any StoreRecordSink)?, progress: (any ProgressObserver)?
  ) throws(SyncError) -> (StoreTreeDifference, generation: Int) {
    let graph = try loadWholeStore(store, onto: head)
    let difference = try StoreTreeDifference(
      graph: graph, totalBytes: graph.documents.map(\.location.end).max() ?? 0,
      content: { document throws(StoreError) in try store.readContent(at: document.contentLocation)
      },
      tree: tree, layout: layout, blobs: blobs, records: records, progress: progress)
    return (difference, graph.generation)
  }

  /// The store as `store` reads it, a session's way, its contents one at a time: a first
  /// commit holds every document, and neither the file nor the documents' files are kept
  /// whole. A store HEAD's tree holds that cannot be read is damaged, not gone.
  private func loadWholeStore(
    _ store: any StoreReading, onto head: CommitID?
  ) throws(SyncError) -> LoadedGraph {
    var graph: LoadedGraph
    do {
      graph = try store.load()
    } catch {
      if let head, try commitReader.treeHoldsStore(head) {
        throw .storeDamaged(
          path: repository.storePath, reason: error.description, commit: head.short)
      }
      throw .store(error)
    }
    // The lookup tables the load built checking the graph are a context's: the comparison
    // walks the documents in order and needs none (44 MB for 100,000 documents).
    graph.index = nil
    return graph
  }

  /// The message of a whole-store commit: a conversion's, or what `described` changed.
  private func wholeStoreMessage(
    _ described: StoreChanges, prefix messagePrefix: String, isConversion: Bool,
    isMarkdownConversion: Bool
  ) -> FastImportCommit.Message {
    func whole(_ text: String) -> FastImportCommit.Message {
      FastImportCommit.Message(head: text, lines: AnySequence([]), linesSize: 0)
    }
    if isConversion {
      return whole(
        messagePrefix + "docsh: one file per document\n\n" + HistoryTrailer.storeKey
          + ": " + repository.pathInRepository + "\n" + HistoryTrailer.layoutKey + ": files\n")
    }
    if isMarkdownConversion {
      // The files that only moved are renames git follows; a document whose file changed
      // on the way (an older header) is named as changed.
      return whole(
        messagePrefix + StoreCommitter.markdownConversionSubject + "\n\n"
          + described.trailers(storePath: repository.pathInRepository).joined(separator: "\n")
          + "\n" + HistoryTrailer.layoutKey + ": \(RepositoryLayout.currentVersion)\n")
    }
    // A first commit's trailers name every document: written as they are made.
    return described.messageInPieces(prefix: messagePrefix, storePath: repository.pathInRepository)
  }

  /// The subject of the commit that converts a tree of layout 1 to layout 2.
  static let markdownConversionSubject = "docsh: documents as .md files (layout 2)"

  /// The changes that put the layout's marker and guard folders (``LayoutMarker``) in
  /// `tree` where they are missing or differ.
  /// - Throws: ``SyncError/unknownLayout(marker:version:)`` when the tree's marker names a
  ///   layout this docsh does not read: it is never written over.
  private func layoutMarkerChanges(in tree: [String: CommitReader.TreeEntry]) throws(SyncError)
    -> [FastImportCommit.Change]
  {
    let markerPath = repository.prefix + LayoutMarker.path
    if let entry = tree[markerPath], entry.object != GitBlobID(of: LayoutMarker.render()),
      let bytes = try commitReader.readBlobs([entry.object]).first ?? nil
    {
      _ = try LayoutMarker.readableVersion(in: bytes, at: markerPath)
    }
    return LayoutMarker.changes(prefix: repository.prefix).filter { change in
      guard case .put(let path, let bytes) = change else { return true }
      return tree[path]?.object != GitBlobID(of: bytes)
    }
  }

  /// The files of the store's folder the old layout kept docsh's lines in, and those lines.
  var legacySupportFiles: [(name: String, lines: [String])] {
    let name = repository.storeFileName
    return [
      (".gitattributes", ["\(name) merge=docsh"]),
      (
        ".gitignore",
        ["\(name).lock", "\(name).bak", ".\(name).*", "\(name).unsaved-*", "\(name).recovered-*"]
      ),
    ]
  }

  /// The changes that take docsh's lines out of the old layout's `.gitattributes` and
  /// `.gitignore` (a file left with none of the user's lines goes).
  private func supportFileChanges(in tree: [String: CommitReader.TreeEntry]) throws(SyncError)
    -> [FastImportCommit.Change]
  {
    var changes: [FastImportCommit.Change] = []
    for (name, lines) in legacySupportFiles {
      let path = repository.prefix + name
      guard let entry = tree[path],
        let bytes = try commitReader.readBlobs([entry.object]).first ?? nil
      else {
        continue
      }
      let docshLines = Set(lines)
      let kept = String(decoding: bytes, as: UTF8.self).split(separator: "\n")
        .filter { !docshLines.contains($0.trimmingCharacters(in: " \t\r").description) }
      if kept.count == String(decoding: bytes, as: UTF8.self).split(separator: "\n").count {
        continue
      }
      let remaining = kept.filter { !$0.trimmingCharacters(in: " \t\r").isEmpty }
      changes.append(
        remaining.isEmpty
          ? .delete(path) : .put(path, Array(kept.map { $0 + "\n" }.joined().utf8)))
    }
    return changes
  }

  /// Whether HEAD is a commit of docsh before 0.4, which tracked the store file.
  func hasCommitOfOldLayout() throws(SyncError) -> Bool {
    // A known repository is one whose config says it holds one file per document.
    guard !repository.isKnownSetUp, let head = try git.head() else { return false }
    return try git.object(head.hex + ":" + repository.pathInRepository) != nil
  }

  /// For each category `saved` takes across the fan-out limit, the names of its documents
  /// the save left alone, as `head`'s tree (the store before the save) holds them: their
  /// files move too.
  private func namesLeftAlone(
    by saved: StoreDelta, at head: CommitID
  ) throws(SyncError) -> [ObjectID: [Name]] {
    var names: [ObjectID: [Name]] = [:]
    for (id, count) in saved.counts
    where layout.isFannedOut(documentCount: count.before)
      != layout.isFannedOut(documentCount: count.after)
    {
      let changed = Set(
        saved.documents.compactMap { $0.before?.categoryID == id ? $0.before?.name.key : nil })
      // The folder of its name before the save (a rename in the same save moves it).
      let before = saved.categories.first { $0.id == id }?.before ?? count.name
      guard count.before > 0 else { continue }
      let entries = try TreeReader(git: git, layout: layout).listing(
        head.hex + ":" + layout.folder(of: before), recursive: true)
      names[id] = entries.compactMap { entry -> Name? in
        guard !entry.isFolder, entry.blob != nil, let last = entry.name.split(separator: "/").last,
          !last.hasPrefix("."), let name = layout.documentName(ofFile: String(last)),
          !changed.contains(name.key)
        else { return nil }
        return name
      }.sorted { $0.text < $1.text }
    }
    return names
  }

}
