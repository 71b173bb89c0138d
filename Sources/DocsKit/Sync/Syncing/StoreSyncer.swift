/// What a sync writes what comes in through, handed to it by its caller: the context of the
/// session syncing (its changes saved), or, where no session has the store open, the store
/// alone (a context is opened on it for the write). Every question the sync has about the
/// store goes to this store: the sync never builds one of its own.
enum IncomingTarget {
  /// The session's context, which holds the merged graph after.
  case context(Context)
  /// The store, which no session has open here.
  case store(any DocumentStore)

  /// The store written.
  var store: any DocumentStore {
    switch self {
    case .context(let context): return context.store
    case .store(let store): return store
    }
  }

  /// The session's context, when one syncs.
  var context: Context? {
    guard case .context(let context) = self else { return nil }
    return context
  }
}

/// How to sync.
public struct SyncOptions: Sendable {
  /// The day named in the siblings a conflict makes.
  public var mergeDate: MergeDate
  /// How many times to fetch, merge and push when the remote keeps moving, at most.
  public var maximumAttempts: Int

  /// Options for a sync.
  public init(mergeDate: MergeDate = .today(), maximumAttempts: Int = 3) {
    self.mergeDate = mergeDate
    self.maximumAttempts = maximumAttempts
  }
}

/// A step of a sync, as a progress line names it.
public enum SyncStep: Int, Sendable, CaseIterable, CustomStringConvertible {
  case committing, fetching, merging, pushing

  public var description: String {
    switch self {
    case .committing: return "committing the store"
    case .fetching: return "fetching from origin"
    case .merging: return "merging"
    case .pushing: return "pushing to origin"
    }
  }
}

/// Hears the steps of a sync as it reaches them (the network ones can take a while).
public protocol SyncObserving: AnyObject {
  /// The sync starts `step`.
  func syncReached(_ step: SyncStep)
}

/// Something a sync did beside syncing, for the user to know.
public enum SyncNote: Hashable, Sendable, CustomStringConvertible {
  /// The store file was missing or damaged: it was restored from this commit first (a
  /// damaged file is kept as `store.json.bak`).
  case restoredStore(fromCommit: String)
  /// A lock file left by a git that is gone was removed.
  case removedStaleLock(String)
  /// This machine had no notes yet: the remote's were fetched.
  case fetchedStore
  /// The repository was converted to one file per document.
  case convertedRepository
  /// The repository's documents became `.md` files (layout 2), in one commit of renames.
  case convertedToMarkdown

  /// One line.
  public var description: String {
    switch self {
    case .restoredStore(let commit): return "the store was restored from commit \(commit) first"
    case .removedStaleLock(let path): return "removed \(path), left by a git that is gone"
    case .fetchedStore: return "fetched the notes of the remote"
    case .convertedRepository:
      return "the repository now holds one file per document (converted from the store file)"
    case .convertedToMarkdown:
      return
        "the repository's documents are now .md files (layout 2): converted in one commit of renames, history kept"
    }
  }
}

/// What a sync did: how many changes came in and went out, and the conflicts it settled.
public struct SyncReport: Sendable, Equatable {
  /// Objects (documents and categories) the sync changed in the local store.
  public var incoming = 0
  /// Objects the push changed on the remote.
  public var outgoing = 0
  /// The conflicts settled, one line each.
  public var conflicts: [StoreMergeConflict] = []
  /// What else happened.
  public var notes: [SyncNote] = []
  /// Files the remote brought that docsh left alone, one line each.
  public var warnings: [SyncWarning] = []
  /// HEAD after the sync.
  public var head: CommitID?

  /// An empty report.
  public init() {}
}

// The sync: commit what was saved, fetch, merge by tree, write the store once with docsh's
// atomic save, commit the merge, move HEAD, push. The merge reads of the three commits only
// the category folders either side changed since their merge base, so that the work grows
// with what changed, plus one save.
//
// What is on disk after a failure at each step (every later sync finishes the job):
// - before the store is written (commit, fetch, reading, building the merge commit): the
//   store as it was (committed), the repository as it was plus objects and the fetched
//   remote-tracking branch;
// - writing the store: as it was (the atomic save);
// - after writing it, before HEAD moves: the merged store, and a note (the ledger's `moving`)
//   that it was written and where HEAD goes. The next save or sync moves HEAD there first
//   (``finishInterruptedMove(_:)``), so what came from the remote is never committed as a
//   local change;
// - after HEAD moved, before or during the push: a merged local commit not yet pushed.
extension StoreRepository {
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
  /// - Parameter store: the store at ``storePath``, handed by the caller: the sync reads and
  ///   writes it through this one (a context opened on it for what comes in).
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
    try withRepositoryLock { () throws(SyncError) -> SyncReport in
      try syncLocked(options, through: target, observer: observer, progress: progress)
    }
  }

  private func syncLocked(
    _ options: SyncOptions, through target: IncomingTarget, observer: (any SyncObserving)?,
    progress: (any ProgressObserver)?
  ) throws(SyncError) -> SyncReport {
    guard try isSetUp() else { throw .notSetUp(folder: storeFolder) }
    var report = SyncReport()
    try recoverInterruptedWork(into: &report)
    guard try currentBranch() != nil else { throw .detachedHead(folder: storeFolder) }
    guard try hasOrigin() else { throw .noRemote(folder: storeFolder) }
    try restoreLostStore(target, into: &report, progress: progress)

    for _ in 0..<max(1, options.maximumAttempts) {
      observer?.syncReached(.committing)
      let wasOldLayout = try hasCommitOfOldLayout()
      // Only a HEAD not known to be of layout 2 can convert: asked of git only then.
      let mayConvert = committed()?.layoutVersion != RepositoryLayout.currentVersion
      let before = mayConvert ? try headCommit() : nil
      var head = try commitLocked(target.store, progress: progress)
      if wasOldLayout { report.notes.append(.convertedRepository) }
      if mayConvert, let head, head != before,
        try git.subject(of: head) == StoreRepository.markdownConversionSubject
      {
        report.notes.append(.convertedToMarkdown)
      }
      observer?.syncReached(.fetching)
      let isEncrypted = try fetchRemote()
      let upstream = try upstreamBranch()
      let remote = try refCommit("refs/remotes/origin/" + upstream)
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
          let base = try head.flatMap { head throws(SyncError) in try mergeBase(head, remote) }
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
        isEncrypted ? try pushEncrypted(head, upstream: upstream) : try push(upstream: upstream)
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
    let localChanges = try changedPaths(from: base, to: local)
    let remoteEntries = try changedEntries(from: base, to: remote)
    let remoteChanges = remoteEntries.mapValues(\.new)
    var folders = Set<String>()
    for path in Array(localChanges.keys) + Array(remoteChanges.keys) {
      if let folder = layout.folderPath(of: path) { folders.insert(folder) }
    }
    let date = try commitDate(remote)
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
    if let path = remoteChanges.keys.first(where: { $0.hasPrefix(Self.notUTF8Mark) }) {
      throw .refusedRemote(
        RemoteRefusal(
          path: String(path.dropFirst(Self.notUTF8Mark.count)),
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
    if !parentSide.isMarked { treeChanges += LayoutMarker.changes(prefix: prefix) }
    let target: CommitID
    if isFastForward && treeChanges.isEmpty {
      target = remote
    } else {
      var changes = StoreChanges(from: parentSide.describedSnapshot, to: merge.merged)
      changes.rewrittenFiles = rewritten
      let prefix = isFastForward ? "Sync: " : "Sync with origin: "
      target = try commitWriter.makeBuildCommit(
        parent: isFastForward ? remote : local, mergedParents: isFastForward ? [] : [remote],
        changes: treeChanges, message: changes.message(prefix: prefix, storePath: pathInRepository))
    }
    let incoming = StoreIncoming(from: localSide.snapshot, to: merge.merged)
    report.incoming += incoming.count
    guard try write(incoming, through: writer, movingHead: local, to: target) else { return nil }
    return target
  }

  /// Applies `incoming` to the store with one save, then moves HEAD from `old` to `new`,
  /// with the note of ``finishInterruptedMove()`` around it.
  /// - Returns: `false` when the store changed since it was committed (nothing was done).
  private func write(
    _ incoming: StoreIncoming, through writer: IncomingTarget, movingHead old: CommitID?,
    to new: CommitID
  ) throws(SyncError) -> Bool {
    let before = try storeGeneration(writer.store) ?? 0
    if let old, committed() != RepositoryLedger.Committed(head: old, generation: .known(before)) {
      return false  // a session saved after the commit this merge starts from: merge again
    }
    try noteMove(from: old, to: new, generation: before, witness: incoming.witness)
    var generation = before
    var isClean = true
    if !incoming.isEmpty {
      (generation, isClean) = try incoming.save(
        toStoreAt: storePath, through: writer.context, store: writer.store)
    }
    try commitWriter.moveHead(to: new, from: old, reason: "sync with origin")
    // A session that saved while the store was written had its changes merged into the
    // file: the next commit compares the whole store, to commit them too.
    recordCommitted(new, generation: isClean ? .known(generation) : .unknown)
    forgetMove()
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
    let before = try storeGeneration(writer.store) ?? 0
    guard
      let stream = try StoreIncomingStream.begin(
        storeAt: storePath, through: writer.context, store: writer.store)
    else { return nil }
    defer { stream.discard() }  // nothing once committed
    var changes: [FastImportCommit.Change] = []
    var described = StoreChanges()
    var clashes: [RemoteRefusal] = []
    let layout = self.layout
    var side = try wholeTree(
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
    if !side.isMarked { changes += LayoutMarker.changes(prefix: prefix) }
    var target = remote
    let converts = side.layoutVersion < RepositoryLayout.currentVersion && !side.folders.isEmpty
    if !changes.isEmpty {
      // A conversion moves files without changing documents: named as one, no trailers.
      let message =
        converts
        ? "Sync: " + StoreRepository.markdownConversionSubject + "\n\n" + HistoryTrailer.storeKey
          + ": " + pathInRepository + "\n" + HistoryTrailer.layoutKey + ": "
          + String(RepositoryLayout.currentVersion) + "\n"
        : described.message(prefix: "Sync: ", storePath: pathInRepository)
      target = try commitWriter.makeBuildCommit(parent: remote, changes: changes, message: message)
    }
    // A remote with no category writes no store: the file stays as it is (missing, or empty).
    var generation = before
    if stream.count > 0 {
      try noteMove(from: nil, to: target, generation: before, witness: stream.witness)
      generation = try stream.commit()
    }
    try commitWriter.moveHead(to: target, from: nil, reason: "sync with origin")
    recordCommitted(target, generation: .known(generation))
    forgetMove()
    if !side.folders.isEmpty { report.notes.append(.fetchedStore) }
    if converts && target != remote { report.notes.append(.convertedToMarkdown) }
    report.incoming += stream.count
    return target
  }

  // MARK: - Refusing what a remote must not bring

  /// Fetches `origin`, with git's checks of every object on (``Git/hardening``).
  /// - Throws: ``SyncError/refusedByGitChecks(message:)`` when they refuse an object.
  /// - Parameter refspecs: where to fetch what, instead of the configured refspec (no
  ///   remote-tracking branch is written then but those named).
  func fetchOrigin(refspecs: [String] = []) throws(SyncError) {
    try git.fetch(remote: "origin", refspecs: refspecs)
  }

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

  /// What ``changedFiles(from:to:)`` puts before a path whose bytes are not UTF-8 (then
  /// printable): no UTF-8 path starts with it.
  static let notUTF8Mark = "\u{FFFF}"

  // MARK: - Reading commits

  /// The merge base of two commits; `nil` for unrelated histories.
  private func mergeBase(_ one: CommitID, _ other: CommitID) throws(SyncError) -> CommitID? {
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
    try changedEntries(from: old, to: new).mapValues { ($0.old, $0.new) }
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
      // A path that is not UTF-8 is marked, never repaired into another path.
      let path = file.isUTF8 ? file.path : StoreRepository.notUTF8Mark + file.path
      paths[path] = (file.old, file.new, file.mode)
    }
    return paths
  }

  /// git's empty tree.
  static let emptyTree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"

  /// When `commit` was made.
  func commitDate(_ commit: CommitID) throws(SyncError) -> Timestamp {
    try git.commitDate(of: commit)
  }

  /// How many documents and categories differ between two commits. A file moved into its
  /// bucket or out of it (its category crossed the fan-out limit) counts once, and not at
  /// all when it moved unchanged.
  private func changedObjectCount(from old: CommitID?, to new: CommitID) throws(SyncError) -> Int {
    var byName: [String: [(old: GitBlobID?, new: GitBlobID?)]] = [:]
    for (path, blobs) in try changedFiles(from: old, to: new) where layout.isDocumentPlace(path) {
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
    guard try storeFileHead() != nil else { return true }
    // A store that does not load holds something: never overwritten as if it were empty.
    return (try? store.makeReader().load())?.categories.isEmpty ?? false
  }

  /// The result of a push (`upToDate`: the remote held the commit already).
  enum PushResult { case pushed, upToDate, remoteMoved }

  /// Pushes `source` (HEAD, or a commit) to `origin`'s `upstream` branch.
  /// - Throws: ``SyncError/gitFailed(step:message:)`` when the remote refused for another
  ///   reason than having moved, or could not be reached.
  func push(_ source: String = "HEAD", upstream: String) throws(SyncError) -> PushResult {
    switch try git.push(source, to: "origin", branch: upstream) {
    case .pushed: return .pushed
    case .remoteMoved: return .remoteMoved
    }
  }

  // MARK: - Branches

  /// The branch HEAD names, `nil` when detached.
  func currentBranch() throws(SyncError) -> String? {
    if let known = knownHead() { return String(known.branch.dropFirst("refs/heads/".count)) }
    return try git.headBranch()
  }

  /// The branch of `origin` the current branch follows, chosen and recorded as its upstream
  /// the first time (so that a plain `git pull` works): its configured upstream, else the
  /// remote branch of the same name, else the remote's only branch (an unborn local branch is
  /// renamed to match), else the current branch's name (a remote with no branches yet).
  /// - Throws: ``SyncError/ambiguousRemoteBranch(_:)`` when several could be meant.
  func upstreamBranch() throws(SyncError) -> String {
    guard var branch = try currentBranch() else { throw .detachedHead(folder: storeFolder) }
    if let configured = try git.upstream(of: branch) { return configured }
    let listed = try git.refs(under: "refs/remotes/origin/")
    let remoteBranches = listed.map { String($0.name.dropFirst("refs/remotes/origin/".count)) }
      .filter { $0 != "HEAD" }
    let chosen: String
    if remoteBranches.isEmpty || remoteBranches.contains(branch) {
      chosen = branch
    } else if remoteBranches.count == 1, let only = remoteBranches.first {
      chosen = only
      if try git.head() == nil {
        try git.pointHead(atBranch: only)
        branch = only
      }
    } else {
      throw .ambiguousRemoteBranch(remoteBranches.sorted())
    }
    try git.setUpstream(of: branch, remote: "origin", branch: chosen)
    return chosen
  }

}
