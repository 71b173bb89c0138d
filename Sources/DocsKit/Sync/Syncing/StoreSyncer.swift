extension StoreRepository {
  /// Syncs the store with `origin` (``StoreSyncer``).
  public var syncer: StoreSyncer { StoreSyncer(repository: self) }
}

/// The sync: commit what was saved, fetch, merge by tree, write the store once with docsh's
/// atomic save, commit the merge, move HEAD, push. The merge reads of the three commits only
/// the category folders either side changed since their merge base, so that the work grows
/// with what changed, plus one save.
///
/// What is on disk after a failure at each step (every later sync finishes the job):
/// - before the store is written (commit, fetch, reading, building the merge commit): the
///   store as it was (committed), the repository as it was plus objects and the fetched
///   remote-tracking branch;
/// - writing the store: as it was (the atomic save);
/// - after writing it, before HEAD moves: the merged store, and a note (the ledger's `moving`)
///   that it was written and where HEAD goes. The next save or sync moves HEAD there first
///   (``HeadMoveNote/finishInterruptedMove(_:)``), so what came from the remote is never
///   committed as a local change;
/// - after HEAD moved, before or during the push: a merged local commit not yet pushed.
///
/// The top of the sync's types: it holds the repository for its locks, store file and
/// ledger, and uses every job below — ``StoreRecovery`` first, ``StoreCommitter``,
/// ``RepositoryBranches``, ``CommitReader``, ``CommitWriter``, ``HeadMoveNote`` and the
/// encrypted remote's fetch and push — none of which calls it.
public struct StoreSyncer {
  /// The repository.
  let repository: StoreRepository
  /// Its git.
  let git: Git
  /// Where the store's objects lie in a commit's tree.
  let layout: RepositoryLayout
  /// Writes the merges' commits.
  let commitWriter: CommitWriter
  /// Reads the commits merged.
  let commitReader: CommitReader
  /// HEAD's branch and origin's.
  let branches: RepositoryBranches
  /// The note around a move of HEAD.
  let headMoveNote: HeadMoveNote

  /// Syncs `repository`.
  init(repository: StoreRepository) {
    self.repository = repository
    git = repository.git
    layout = repository.layout
    commitWriter = repository.commitWriter
    commitReader = repository.commitReader
    branches = repository.branches
    headMoveNote = repository.headMoveNote
  }

  /// Syncs the store with `origin`: commits it when it differs from the last commit
  /// (converting a repository of the old layout first), fetches, merges by tree — changes
  /// made on one side taken as they are, documents changed on both merged by
  /// ``StoreMerge`` (contents line by line; conflicts kept as siblings) — writes the store
  /// with docsh's atomic save, commits the merge, pushes. A push refused because the remote
  /// moved fetches and merges again, a few times at most. Before that it rebuilds a store
  /// file that is missing or damaged from the last commit. The first sync of a machine with
  /// no notes writes the store from the remote's tree.
  ///
  /// A context syncs its store with ``Context/sync(through:options:observer:progress:)``,
  /// which saves before and loads the store the sync wrote after; this is for a store no
  /// session has open (one lost, which the sync restores).
  /// - Parameter store: the store at ``StoreRepository/storePath``, handed by the caller: the
  ///   sync reads and writes it through this one (a context opened on it for what comes in).
  /// - Throws: ``SyncError`` naming the step that failed; the store and the repository are
  ///   then as they were or consistently further along.
  public func sync(
    _ options: SyncOptions, store: any DocumentStore, observer: (any SyncObserving)? = nil,
    progress: (any ProgressObserver)? = nil
  ) throws(SyncError) -> SyncReport {
    try sync(options, observer: observer, progress: progress, writingThrough: .store(store))
  }

  /// ``sync(_:store:observer:progress:)``, what comes in written through `target`.
  func sync(
    _ options: SyncOptions, observer: (any SyncObserving)?, progress: (any ProgressObserver)?,
    writingThrough target: IncomingTarget
  ) throws(SyncError) -> SyncReport {
    try repository.withRepositoryLock { () throws(SyncError) -> SyncReport in
      try syncLocked(options, through: target, observer: observer, progress: progress)
    }
  }

  private func syncLocked(
    _ options: SyncOptions, through target: IncomingTarget, observer: (any SyncObserving)?,
    progress: (any ProgressObserver)?
  ) throws(SyncError) -> SyncReport {
    guard try repository.isSetUp() else { throw .notSetUp(folder: repository.storeFolder) }
    var report = SyncReport()
    try repository.recovery.recoverInterruptedWork(into: &report)
    guard try branches.currentBranch() != nil else {
      throw .detachedHead(folder: repository.storeFolder)
    }
    guard try repository.hasOrigin() else { throw .noRemote(folder: repository.storeFolder) }
    try repository.recovery.restoreLostStore(target, into: &report, progress: progress)

    for _ in 0..<max(1, options.maximumAttempts) {
      observer?.syncReached(.committing)
      let wasOldLayout = try repository.committer.hasCommitOfOldLayout()
      // Only a HEAD not known to be of layout 2 can convert: asked of git only then.
      let mayConvert = repository.committed()?.layoutVersion != RepositoryLayout.currentVersion
      let before = mayConvert ? try repository.headCommit() : nil
      var head = try repository.committer.commitLocked(target.store, progress: progress)
      if wasOldLayout { report.notes.append(.convertedRepository) }
      if mayConvert, let head, head != before,
        try git.subject(of: head) == StoreCommitter.markdownConversionSubject
      {
        report.notes.append(.convertedToMarkdown)
      }
      observer?.syncReached(.fetching)
      let isEncrypted = try EncryptedRemote(repository).fetchRemote()
      let upstream = try branches.upstreamBranch()
      let remote = try repository.refCommit("refs/remotes/origin/" + upstream)
      if let remote, head != remote {
        if head == nil, try storeHoldsNothing(target.store) {
          observer?.syncReached(.merging)
          // HEAD after: the remote, or a commit on it (converting a remote of layout 1).
          guard
            let adopted = try adopt(remote, through: target, into: &report, progress: progress)
          else {
            continue
          }
          head = adopted
        } else {
          // One `merge-base` tells both whether there is anything to take and where from.
          let base = try head.flatMap { head throws(SyncError) in
            try commitReader.mergeBase(head, remote)
          }
          if base != remote {
            observer?.syncReached(.merging)
            guard
              let merged = try integrate(
                remote, into: head, base: base, through: target, options: options,
                report: &report)
            else { continue }  // another session saved meanwhile: start again
            head = merged
          }
        }
      }
      report.head = head
      // An encrypted remote's commit may stand for HEAD and still differ (a passphrase
      // changed): its push decides.
      guard let head, isEncrypted || head != remote else { return report }
      observer?.syncReached(.pushing)
      let pushed =
        isEncrypted
        ? try EncryptedRemote(repository).pushEncrypted(head, upstream: upstream)
        : try branches.push(upstream: upstream)
      switch pushed {
      case .pushed:
        report.outgoing = try changedObjectCount(from: remote, to: head)
        return report
      case .upToDate:
        return report
      case .remoteMoved:
        continue
      }
    }
    throw .pushKeptFailing(attempts: max(1, options.maximumAttempts))
  }

  // MARK: - Integrating the remote

  /// Merges `remote` into `local` (`nil`: no commit yet; a fast-forward when `local` is an
  /// ancestor), `base` being their merge base: the store written first, then HEAD moved to
  /// the merge (or to `remote`).
  /// - Returns: HEAD after, or `nil` when another session saved the store meanwhile and
  ///   nothing was done.
  private func integrate(
    _ remote: CommitID, into local: CommitID?, base: CommitID?, through writer: IncomingTarget,
    options: SyncOptions, report: inout SyncReport
  ) throws(SyncError) -> CommitID? {
    let localChanges = try commitReader.changedPaths(from: base, to: local)
    let remoteEntries = try commitReader.changedEntries(from: base, to: remote)
    let remoteChanges = remoteEntries.mapValues(\.new)
    var folders = Set<String>()
    for path in Array(localChanges.keys) + Array(remoteChanges.keys) {
      if let folder = layout.folderPath(of: path) { folders.insert(folder) }
    }
    let date = try commitReader.commitDate(remote)
    let reader = TreeReader(git: git, layout: layout)
    let baseSide =
      try base.map { base throws(SyncError) in try reader.read(base, folders: folders, date: date) }
      ?? TreeReading()
    // A fast-forward's base is the local side: read once.
    // A side without the marker whose base has it lost it in a clone: still of that layout.
    let unmarked = base == nil ? 1 : baseSide.layoutVersion
    let localSide =
      try local.map { local throws(SyncError) in
        local == base
          ? baseSide
          : try reader.read(local, folders: folders, date: date, unmarkedVersion: unmarked)
      } ?? TreeReading()
    let remoteSide = try reader.read(
      remote, folders: folders, date: date,
      maximumDocumentSize: RemoteRefusal.maximumDocumentSize, unmarkedVersion: unmarked)
    try refuseIfNeeded(remoteSide, of: remote, since: base)
    if let path = remoteChanges.keys.first(where: { $0.hasPrefix(CommitReader.notUTF8Mark) }) {
      throw .refusedRemote(
        RemoteRefusal(
          path: String(path.dropFirst(CommitReader.notUTF8Mark.count)),
          rule: "its name is not UTF-8", lookup: []),
        commit: try commitToRevert([], in: remote, since: base))
    }
    for (path, reason) in remoteSide.warnings.sorted(by: { $0.key < $1.key })
    where remoteChanges[path.hasSuffix("/") ? String(path.dropLast()) : path] != nil
      || remoteChanges.keys.contains(where: { $0.hasPrefix(path) })
    {
      let warning = SyncWarning(path: path, reason: reason)
      if !report.warnings.contains(warning) { report.warnings.append(warning) }
    }
    let merge = StoreMerge(
      base: baseSide.snapshot, current: localSide.snapshot, other: remoteSide.snapshot,
      date: options.mergeDate)
    for conflict in merge.conflicts where !report.conflicts.contains(conflict) {
      report.conflicts.append(conflict)
    }
    let isFastForward = local == nil || base == local
    let parentSide = isFastForward ? remoteSide : localSide
    var rewritten: [String] = []
    var treeChanges = layout.changes(
      from: parentSide, to: merge.merged, folders: folders, rewritten: &rewritten)
    if !isFastForward {
      treeChanges += layout.otherFileChanges(
        remoteChanges, modes: remoteEntries.mapValues(\.mode), localChanges: localChanges,
        managed: baseSide.docshFiles.union(localSide.docshFiles).union(remoteSide.docshFiles))
    }
    // The marker and guard folders, where a clone's commit took them away.
    if !parentSide.isMarked { treeChanges += LayoutMarker.changes(prefix: repository.prefix) }
    let target: CommitID
    if isFastForward && treeChanges.isEmpty {
      target = remote
    } else {
      var changes = StoreChanges(from: parentSide.describedSnapshot, to: merge.merged)
      changes.rewrittenFiles = rewritten
      let prefix = isFastForward ? "Sync: " : "Sync with origin: "
      target = try commitWriter.makeBuildCommit(
        parent: isFastForward ? remote : local, mergedParents: isFastForward ? [] : [remote],
        changes: treeChanges,
        message: changes.message(prefix: prefix, storePath: repository.pathInRepository))
    }
    let incoming = StoreIncoming(from: localSide.snapshot, to: merge.merged)
    report.incoming += incoming.count
    guard try write(incoming, through: writer, movingHead: local, to: target) else { return nil }
    return target
  }

  /// Applies `incoming` to the store with one save, then moves HEAD from `old` to `new`,
  /// with the note of ``HeadMoveNote`` around it.
  /// - Returns: `false` when the store changed since it was committed (nothing was done).
  private func write(
    _ incoming: StoreIncoming, through writer: IncomingTarget, movingHead old: CommitID?,
    to new: CommitID
  ) throws(SyncError) -> Bool {
    let before = try repository.storeGeneration(writer.store) ?? 0
    if let old,
      repository.committed() != RepositoryLedger.Committed(head: old, generation: .known(before))
    {
      return false  // a session saved after the commit this merge starts from: merge again
    }
    try headMoveNote.noteMove(from: old, to: new, generation: before, witness: incoming.witness)
    var generation = before
    var isClean = true
    if !incoming.isEmpty {
      (generation, isClean) = try incoming.save(
        toStoreAt: repository.storePath, through: writer.context, store: writer.store)
    }
    try commitWriter.moveHead(to: new, from: old, reason: "sync with origin")
    // A session that saved while the store was written had its changes merged into the
    // file: the next commit compares the whole store, to commit them too.
    repository.recordCommitted(new, generation: isClean ? .known(generation) : .unknown)
    headMoveNote.forgetMove()
    return true
  }

  /// Writes the store of a machine with no notes yet from `remote`'s whole tree, a
  /// category at a time (``StoreIncomingStream``): each category folder is read, checked and
  /// written to the new store file, and what the commit on `remote` changes (a conversion,
  /// files made elsewhere given docsh's header) is found folder by folder, so that what is
  /// held at once is one category and the tree's paths. Every refusal is found before the
  /// new file replaces the store: a remote refused changes nothing.
  /// - Returns: HEAD after (`remote`, or a commit on it); `nil` when the store changed
  ///   meanwhile and nothing was done.
  private func adopt(
    _ remote: CommitID, through writer: IncomingTarget, into report: inout SyncReport,
    progress: (any ProgressObserver)?
  ) throws(SyncError) -> CommitID? {
    let before = try repository.storeGeneration(writer.store) ?? 0
    guard
      let stream = try StoreIncomingStream.begin(
        storeAt: repository.storePath, through: writer.context, store: writer.store)
    else { return nil }
    defer { stream.discard() }  // nothing once committed
    // What the tree's reading held (its listing, the commit's changes and message) is let go
    // of before the new file is loaded.
    let adopted = try writeAdoptedTree(of: remote, to: stream, into: &report, progress: progress)
    let target = adopted.target
    // A remote with no category writes no store: the file stays as it is (missing, or empty).
    var generation = before
    if stream.count > 0 {
      try headMoveNote.noteMove(from: nil, to: target, generation: before, witness: stream.witness)
      generation = try stream.commit()
    }
    try commitWriter.moveHead(to: target, from: nil, reason: "sync with origin")
    repository.recordCommitted(target, generation: .known(generation))
    headMoveNote.forgetMove()
    if adopted.hasFolders { report.notes.append(.fetchedStore) }
    if adopted.converts && target != remote { report.notes.append(.convertedToMarkdown) }
    report.incoming += stream.count
    return target
  }

  /// Writes `remote`'s whole tree to `stream` a category at a time, checking it, and the
  /// commit on `remote` that what it changes needs (a conversion, files made elsewhere
  /// given docsh's header).
  /// - Returns: the commit HEAD moves to (`remote`, or the one written on it), whether that
  ///   converts a remote of layout 1, and whether the tree held any category folder.
  private func writeAdoptedTree(
    of remote: CommitID, to stream: StoreIncomingStream, into report: inout SyncReport,
    progress: (any ProgressObserver)?
  ) throws(SyncError) -> (target: CommitID, converts: Bool, hasFolders: Bool) {
    var changes: [FastImportCommit.Change] = []
    var described = StoreChanges()
    var clashes: [RemoteRefusal] = []
    let layout = self.layout
    var side = try commitReader.wholeTree(
      of: remote, maximumDocumentSize: RemoteRefusal.maximumDocumentSize, progress: progress
    ) { part throws(SyncError) in
      guard let category = part.snapshot.categories.first, clashes.isEmpty else { return }
      if let id = try stream.append(category) {
        let folder = part.folders[category.id] ?? category.name.text
        clashes.append(
          RemoteRefusal(
            path: PrintableText.escaped(folder + "/"),
            rule: "it holds the id \(id), which another category or document holds too",
            lookup: [folder]))
        return
      }
      // A remote of layout 1 is converted by this commit: every folder is written anew.
      changes += layout.changes(from: part, to: part.snapshot, folders: Set(part.folders.values))
      let made = StoreChanges(from: part.describedSnapshot, to: part.snapshot)
      described.categories += made.categories
      described.documents += made.documents
    }
    side.refusals += clashes
    try refuseIfNeeded(side, of: remote, since: nil)
    for (path, reason) in side.warnings.sorted(by: { $0.key < $1.key }) {
      report.warnings.append(SyncWarning(path: path, reason: reason))
    }
    if !side.isMarked { changes += LayoutMarker.changes(prefix: repository.prefix) }
    let converts = side.layoutVersion < RepositoryLayout.currentVersion && !side.folders.isEmpty
    guard !changes.isEmpty else { return (remote, converts, !side.folders.isEmpty) }
    // A conversion moves files without changing documents: named as one, no trailers.
    let message =
      converts
      ? "Sync: " + StoreCommitter.markdownConversionSubject + "\n\n" + HistoryTrailer.storeKey
        + ": " + repository.pathInRepository + "\n" + HistoryTrailer.layoutKey + ": "
        + String(RepositoryLayout.currentVersion) + "\n"
      : described.message(prefix: "Sync: ", storePath: repository.pathInRepository)
    let target = try commitWriter.makeBuildCommit(
      parent: remote, changes: changes, message: message)
    return (target, converts, !side.folders.isEmpty)
  }

  // MARK: - Refusing what a remote must not bring

  /// Throws the first of `reading`'s refusals (by path), naming the commit of `remote`
  /// since `base` that brought it.
  private func refuseIfNeeded(
    _ reading: TreeReading, of remote: CommitID, since base: CommitID?
  ) throws(SyncError) {
    guard let refusal = reading.refusals.min(by: { $0.path < $1.path }) else { return }
    throw .refusedRemote(
      refusal, commit: try commitToRevert(refusal.lookup, in: remote, since: base))
  }

  /// The short name of the newest commit of `remote` (not of `base`) that changed one of
  /// `paths` (any path when none): the one to revert.
  private func commitToRevert(
    _ paths: [String], in remote: CommitID, since base: CommitID?
  ) throws(SyncError) -> String {
    // Literal pathspecs: no wildcard or magic in a name is taken as one.
    try (git.newestCommit(of: remote, notOf: base, changing: paths) ?? remote).short
  }

  /// How many documents and categories differ between two commits. A file moved into its
  /// bucket or out of it (its category crossed the fan-out limit) counts once, and not at
  /// all when it moved unchanged.
  private func changedObjectCount(from old: CommitID?, to new: CommitID) throws(SyncError) -> Int {
    var byName: [String: [(old: GitBlobID?, new: GitBlobID?)]] = [:]
    for (path, blobs) in try commitReader.changedFiles(from: old, to: new)
    where layout.isDocumentPlace(path) {
      let (category, name) = layout.names(at: path)
      byName[category + "/" + name, default: []].append(blobs)
    }
    return byName.values.reduce(0) { count, files in
      guard files.count == 2 else { return count + files.count }
      let moved = files[0].old ?? files[1].old
      let isUnchanged = moved != nil && moved == (files[0].new ?? files[1].new)
      return count + (isUnchanged ? 0 : 1)
    }
  }

  /// Whether the store file is missing or holds no category, as a reader `store` makes
  /// reads it.
  private func storeHoldsNothing(_ store: any StoreWriting) throws(SyncError) -> Bool {
    guard try repository.storeFileHead() != nil else { return true }
    // A store that does not load holds something: never overwritten as if it were empty.
    return (try? store.makeReader().load())?.categories.isEmpty ?? false
  }

}
