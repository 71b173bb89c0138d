/// How to sync.
public struct SyncOptions: Sendable {
  /// The absolute path of the docsh binary, registered (again) as the merge driver.
  public var driverExecutable: String
  /// The day named in the siblings a conflict makes.
  public var mergeDate: MergeDate
  /// How many times to fetch, merge and push when the remote keeps moving, at most.
  public var maximumAttempts: Int

  /// Options for a sync whose merge driver is `driverExecutable`.
  public init(driverExecutable: String, mergeDate: MergeDate = .today(), maximumAttempts: Int = 3) {
    self.driverExecutable = driverExecutable
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
  /// A git merge left half done was aborted (the store as it stood was kept and synced).
  case abortedMerge
  /// A lock file left by a git that is gone was removed.
  case removedStaleLock(String)
  /// This machine had no notes yet: the remote's were fetched.
  case fetchedStore

  /// One line.
  public var description: String {
    switch self {
    case .restoredStore(let commit): return "the store was restored from commit \(commit) first"
    case .abortedMerge: return "an unfinished git merge was aborted; the store was kept"
    case .removedStaleLock(let path): return "removed \(path), left by a git that is gone"
    case .fetchedStore: return "fetched the notes of the remote"
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
  /// HEAD after the sync.
  public var head: CommitID?

  /// An empty report.
  public init() {}
}

// The sync: commit, fetch, merge in-process, write the store with docsh's atomic save,
// commit the merge, move the index and HEAD, push — git never writes the store file, and
// the index and HEAD move only once the store is safely on disk.
//
// What is on disk after a failure at each step (every later sync finishes the job):
// - before the store is written (commit, fetch, merge, building the commit, the dry run):
//   the store as it was (committed), the repository as it was plus objects and the fetched
//   remote-tracking branch;
// - writing the store: as it was (the atomic save);
// - after writing it, before HEAD moves: the merged store, valid and holding everything;
//   HEAD still at the local commit, and a note (`.git/docsh-moving`, written just before
//   the store) of where it goes. The next save or sync moves it there first
//   (``finishInterruptedMove()``), so what came from the remote is never committed as a
//   local change;
// - after HEAD moved, before or during the push: a merged local commit not yet pushed.
extension StoreRepository {
  /// Syncs the store with `origin`: commits it when it differs from the last commit,
  /// fetches, merges (fast-forward, or the three-way store merge — per object and per
  /// property, conflicts kept as siblings — with git merging the other files), writes the
  /// store with docsh's atomic save, commits the merge, pushes. A push refused because the
  /// remote moved fetches and merges again, a few times at most. Before that it restores a
  /// store file that is missing or damaged from the last commit, and aborts a git merge left
  /// half done. The first sync of a machine with no notes takes the remote's.
  ///
  /// The caller saves pending changes before and reloads its context after.
  /// - Throws: ``SyncError`` naming the step that failed; the store and the repository are
  ///   then as they were or consistently further along.
  public func sync(
    _ options: SyncOptions, observer: (any SyncObserving)? = nil
  ) throws(SyncError) -> SyncReport {
    try withRepositoryLock { () throws(SyncError) -> SyncReport in
      try syncLocked(options, observer: observer)
    }
  }

  private func syncLocked(
    _ options: SyncOptions, observer: (any SyncObserving)?
  ) throws(SyncError) -> SyncReport {
    guard try isSetUp() else { throw .notSetUp(folder: storeFolder) }
    var report = SyncReport()
    try recoverInterruptedWork(into: &report)
    try registerMergeDriver(executable: options.driverExecutable)
    guard try currentBranch() != nil else { throw .detachedHead(folder: storeFolder) }
    guard try hasOrigin() else { throw .noRemote(folder: storeFolder) }
    try restoreLostStore(into: &report)

    var before: ParsedStore??
    for _ in 0..<max(1, options.maximumAttempts) {
      var firstTimeHere = false
      if try git.commit("HEAD") == nil { firstTimeHere = try storeHoldsNothing() }
      var local = LocalState()
      if firstTimeHere {
        let bytes = try storeFileBytes()
        local = LocalState(head: nil, bytes: bytes, store: bytes.flatMap { try? parsed($0) })
      } else {
        observer?.syncReached(.committing)
        try ensureSupportFiles()
        local = try commitLocked()
      }
      if before == nil { before = .some(local.store) }
      observer?.syncReached(.fetching)
      try git.run("fetch from origin", ["fetch", "--quiet", "origin"])
      let upstream = try upstreamBranch()
      let remote = try git.commit("refs/remotes/origin/" + upstream)
      let remoteStore = try remote.map { commit throws(SyncError) in try storeBytes(at: commit) }

      if firstTimeHere {
        if let remote {
          if let bytes = remoteStore ?? nil { _ = try parsed(bytes, at: remote) }
          guard try adopt(remote, bytes: remoteStore ?? nil, replacing: local.bytes) else {
            continue  // another session saved meanwhile: start again
          }
          if remoteStore != nil { report.notes.append(.fetchedStore) }
        }
        try ensureSupportFiles()
        local = try commitLocked()
      }

      var merged = local
      if let remote, let head = local.head, head != remote,
        try !git.isAncestor(remote, of: head)
      {
        observer?.syncReached(.merging)
        let outcome: Integration
        if try git.isAncestor(head, of: remote) {
          outcome = try fastForward(local, to: remote, bytes: remoteStore ?? nil)
        } else {
          outcome = try merge(local, with: remote, upstream: upstream, options: options)
        }
        guard case .moved(let state, let conflicts) = outcome else { continue }
        merged = state
        for conflict in conflicts where !report.conflicts.contains(conflict) {
          report.conflicts.append(conflict)
        }
      }

      report.head = merged.head
      report.incoming = StoreChanges(from: before ?? nil, to: merged.store).count
      guard let head = merged.head, head != remote else { return report }
      observer?.syncReached(.pushing)
      switch try push(upstream: upstream) {
      case .pushed:
        var remoteParsed: ParsedStore?
        if let bytes = remoteStore ?? nil { remoteParsed = try parsed(bytes) }
        report.outgoing = StoreChanges(from: remoteParsed, to: merged.store).count
        return report
      case .remoteMoved:
        continue
      }
    }
    throw .pushKeptFailing(attempts: max(1, options.maximumAttempts))
  }

  /// What integrating the remote did.
  private enum Integration {
    /// HEAD and the store moved to this state, settling these conflicts.
    case moved(LocalState, [StoreMergeConflict])
    /// Another docsh session saved the store meanwhile: nothing was done; sync again.
    case storeChangedMeanwhile
  }

  // MARK: - The steps

  /// Moves an unborn branch to `remote`, the store first (in place of `replacing`, the
  /// empty or missing store this machine had), then the other files, then HEAD.
  /// - Returns: `false` when the store changed meanwhile and nothing was done.
  private func adopt(
    _ remote: CommitID, bytes: [UInt8]?, replacing old: [UInt8]?
  ) throws(SyncError) -> Bool {
    if let bytes {
      let written = try withStoreLock { () throws(SyncError) -> Bool in
        guard try storeFileBytes() == old else { return false }
        try noteMove(from: nil, to: remote)
        try writeStoreFile(bytes)
        try updateIndex(paths: [pathInRepository])
        return true
      }
      guard written else { return false }
    }
    let checkout = try git.run(
      "check out the other files", ["read-tree", "-m", "-u", remote.hex], accepting: [0, 128])
    guard checkout.succeeded else { throw StoreRepository.refusal(of: checkout) }
    try moveHead(to: remote, from: nil, reason: "sync: fetched origin")
    forgetMove()
    return true
  }

  /// Fast-forwards HEAD from `local` to `remote`: the remote's store written first, then
  /// the other files and the index, then HEAD.
  private func fastForward(
    _ local: LocalState, to remote: CommitID, bytes: [UInt8]?
  ) throws(SyncError) -> Integration {
    guard let head = local.head else { return .storeChangedMeanwhile }
    guard let bytes else {
      throw .notAStoreAtCommit(remote.short, reason: "it holds no \(pathInRepository)")
    }
    let store = try parsed(bytes, at: remote)
    guard try checkOtherFiles(from: head, to: remote) else { return .storeChangedMeanwhile }
    let written = try withStoreLock { () throws(SyncError) -> Bool in
      guard try storeFileBytes() == local.bytes else { return false }
      try noteMove(from: head, to: remote)
      if bytes != local.bytes { try writeStoreFile(bytes) }
      try updateIndex(paths: [pathInRepository])
      return true
    }
    guard written else { return .storeChangedMeanwhile }
    try moveOtherFiles(from: head, to: remote)
    try moveHead(to: remote, from: head, reason: "sync: fast-forward to origin")
    forgetMove()
    return .moved(LocalState(head: remote, bytes: bytes, store: store), [])
  }

  /// Merges `remote` into `local`: the store with docsh's three-way merge, the other files
  /// with `git merge-tree`; the merged store written first, then the merge commit's files
  /// and index, then HEAD.
  private func merge(
    _ local: LocalState, with remote: CommitID, upstream: String, options: SyncOptions
  ) throws(SyncError) -> Integration {
    guard let head = local.head else { return .storeChangedMeanwhile }
    let baseOutput = try git.run(
      "find the common ancestor", ["merge-base", head.hex, remote.hex], accepting: [0, 1])
    let base = baseOutput.succeeded ? baseOutput.lines.first.map(CommitID.init) : nil
    let versions = try git.blobs(
      [base, head, remote].map { ($0?.hex ?? head.hex) + ":" + pathInRepository },
      step: "read the three versions of the store")
    let baseBytes = base == nil ? nil : versions[0]
    let remoteBytes = versions[2]
    if remoteBytes == nil, baseBytes != nil {
      throw .notAStoreAtCommit(remote.short, reason: "it holds no \(pathInRepository)")
    }
    let baseStore = baseBytes.flatMap { try? StoreSnapshot(bytes: $0, name: "base") } ?? .empty
    let localStore = try snapshot(local.bytes, at: head)
    let remoteStore = try snapshot(remoteBytes, at: remote)
    let merge = StoreMerge(
      base: baseStore, current: localStore, other: remoteStore, date: options.mergeDate)
    let mergedBytes = merge.merged.encoded()
    let mergedStore = try parsed(mergedBytes)

    let blob = try hashObject(mergedBytes, path: pathInRepository)
    let otherFiles = try mergeOtherFiles(head, remote, unrelated: base == nil)
    let tree = try makeTree(base: otherFiles, entries: [(pathInRepository, blob)])
    let changes = StoreChanges(from: local.store, to: mergedStore)
    let message = changes.message(
      prefix: "Sync with origin/\(upstream): ", storePath: pathInRepository)
    let commit = try commitTree(tree, parents: [head, remote], message: message)
    guard try checkOtherFiles(from: head, to: commit) else { return .storeChangedMeanwhile }
    let written = try withStoreLock { () throws(SyncError) -> Bool in
      guard try storeFileBytes() == local.bytes else { return false }
      try noteMove(from: head, to: commit)
      try writeStoreFile(mergedBytes)
      try updateIndex(paths: [pathInRepository])
      return true
    }
    guard written else { return .storeChangedMeanwhile }
    try moveOtherFiles(from: head, to: commit)
    try moveHead(to: commit, from: head, reason: changes.subject(prefix: "sync: "))
    forgetMove()
    return .moved(LocalState(head: commit, bytes: mergedBytes, store: mergedStore), merge.conflicts)
  }

  /// The tree of the other files merged by git (`merge-tree`, without running the store's
  /// driver: its result is replaced by docsh's).
  /// - Throws: ``SyncError/otherFilesConflict(_:)`` when files other than the store conflict.
  private func mergeOtherFiles(
    _ local: CommitID, _ remote: CommitID, unrelated: Bool
  ) throws(SyncError) -> String {
    let output = try git.run(
      "merge the other files",
      ["-c", "merge.docsh.driver=true", "merge-tree", "--write-tree", "--name-only", "-z"]
        + (unrelated ? ["--allow-unrelated-histories"] : []) + [local.hex, remote.hex],
      accepting: [0, 1])
    let fields = output.output.split(separator: 0, omittingEmptySubsequences: false)
    guard let tree = fields.first, !tree.isEmpty else {
      throw .gitFailed(step: "merge the other files", message: output.lastErrorLine)
    }
    if !output.succeeded {
      let conflicted = fields.dropFirst().prefix { !$0.isEmpty }
        .map { String(decoding: $0, as: UTF8.self) }
        .filter { $0 != pathInRepository }
      if !conflicted.isEmpty { throw .otherFilesConflict(Array(Set(conflicted)).sorted()) }
    }
    return String(decoding: tree, as: UTF8.self)
  }

  /// Checks, without changing anything, that the other files can move from `old` to `new`.
  /// - Returns: `false` when the store itself is what is in the way: another session saved
  ///   it since it was committed.
  /// - Throws: ``SyncError/localChangesInTheWay(_:)`` naming other files with local changes.
  private func checkOtherFiles(from old: CommitID, to new: CommitID) throws(SyncError) -> Bool {
    let check = try git.run(
      "check the other files", ["read-tree", "-m", "-u", "-n", old.hex, new.hex],
      accepting: [0, 128])
    guard !check.succeeded else { return true }
    let refusal = StoreRepository.refusal(of: check)
    if case .localChangesInTheWay(let paths) = refusal, paths.contains(pathInRepository) {
      return false
    }
    throw refusal
  }

  /// Moves the index and the other files of the work tree from `old` to `new`; the store's
  /// entry already matches `new`, so git leaves the store file alone.
  func moveOtherFiles(from old: CommitID, to new: CommitID) throws(SyncError) {
    let moved = try git.run(
      "check out the other files", ["read-tree", "-m", "-u", old.hex, new.hex],
      accepting: [0, 128])
    if !moved.succeeded { throw StoreRepository.refusal(of: moved) }
  }

  /// The error for a `read-tree` that refused: the files in the way when git names them.
  private static func refusal(of output: GitOutput) -> SyncError {
    let text = String(decoding: output.errorOutput, as: UTF8.self)
    var paths: [String] = []
    for line in text.split(separator: "\n")
    where line.contains("' not uptodate") || line.contains("' would be overwritten") {
      guard let open = line.firstIndex(of: "'") else { continue }
      let rest = line[line.index(after: open)...]
      guard let close = rest.firstRange(of: "' ")?.lowerBound else { continue }
      paths.append(String(rest[..<close]))
    }
    if !paths.isEmpty { return .localChangesInTheWay(paths) }
    return .gitFailed(step: "check out the other files", message: output.lastErrorLine)
  }

  /// The result of a push.
  private enum PushResult { case pushed, remoteMoved }

  /// Pushes HEAD to `origin`'s `upstream` branch.
  /// - Throws: ``SyncError/gitFailed(step:message:)`` when the remote refused for another
  ///   reason than having moved, or could not be reached.
  private func push(upstream: String) throws(SyncError) -> PushResult {
    let output = try git.run(
      "push to origin", ["push", "--porcelain", "origin", "HEAD:refs/heads/" + upstream],
      accepting: [0, 1])
    if output.succeeded { return .pushed }
    for line in output.lines where line.hasPrefix("!") {
      let reason = line.split(separator: "\t").last.map(String.init) ?? String(line)
      if reason.contains("[rejected]")
        && (reason.contains("fetch first") || reason.contains("non-fast-forward"))
      {
        return .remoteMoved
      }
      throw .gitFailed(step: "push to origin", message: reason)
    }
    throw .gitFailed(step: "push to origin", message: output.lastErrorLine)
  }

  // MARK: - Branches

  /// The branch HEAD names, `nil` when detached.
  func currentBranch() throws(SyncError) -> String? {
    let output = try git.run(
      "read the branch", ["symbolic-ref", "--quiet", "--short", "HEAD"], accepting: [0, 1, 128])
    guard output.succeeded, let line = output.lines.first, !line.isEmpty else { return nil }
    return String(line)
  }

  /// The branch of `origin` the current branch follows, chosen and recorded as its upstream
  /// the first time (so that a plain `git pull` works): its configured upstream, else the
  /// remote branch of the same name, else the remote's only branch (an unborn local branch is
  /// renamed to match), else the current branch's name (a remote with no branches yet).
  /// - Throws: ``SyncError/ambiguousRemoteBranch(_:)`` when several could be meant.
  func upstreamBranch() throws(SyncError) -> String {
    guard var branch = try currentBranch() else { throw .detachedHead(folder: storeFolder) }
    let configured = try git.run(
      "read the upstream", ["config", "--get", "branch.\(branch).merge"], accepting: [0, 1])
    if configured.succeeded, let line = configured.lines.first, line.hasPrefix("refs/heads/") {
      return String(line.dropFirst("refs/heads/".count))
    }
    let listed = try git.run(
      "list the remote's branches",
      ["for-each-ref", "--format=%(refname)", "refs/remotes/origin/"])
    let remoteBranches = listed.lines.map { String($0.dropFirst("refs/remotes/origin/".count)) }
      .filter { $0 != "HEAD" }
    let chosen: String
    if remoteBranches.isEmpty || remoteBranches.contains(branch) {
      chosen = branch
    } else if remoteBranches.count == 1, let only = remoteBranches.first {
      chosen = only
      if try git.commit("HEAD") == nil {
        try git.run("name the branch", ["symbolic-ref", "HEAD", "refs/heads/" + only])
        branch = only
      }
    } else {
      throw .ambiguousRemoteBranch(remoteBranches.sorted())
    }
    try git.run("set the upstream", ["config", "branch.\(branch).remote", "origin"])
    try git.run("set the upstream", ["config", "branch.\(branch).merge", "refs/heads/" + chosen])
    return chosen
  }

  // MARK: - Reading versions

  /// The bytes of the store at `commit`, `nil` when it holds none.
  func storeBytes(at commit: CommitID) throws(SyncError) -> [UInt8]? {
    try git.blobs([commit.hex + ":" + pathInRepository], step: "read the store").first ?? nil
  }

  /// Whether the store file is missing or holds no category.
  private func storeHoldsNothing() throws(SyncError) -> Bool {
    guard let bytes = try storeFileBytes() else { return true }
    return (try? parsed(bytes))?.graph.categories.isEmpty ?? false
  }

  /// `bytes` parsed as the store at `commit` (the file when `nil`).
  func parsed(_ bytes: [UInt8], at commit: CommitID? = nil) throws(SyncError) -> ParsedStore {
    do {
      return try ParsedStore(
        bytes: bytes, name: commit.map { "\($0.short):\(pathInRepository)" } ?? storePath)
    } catch {
      if let commit { throw .notAStoreAtCommit(commit.short, reason: error.description) }
      throw .store(error)
    }
  }

  /// `bytes` (`nil`: no store) read in full as the store at `commit`.
  private func snapshot(_ bytes: [UInt8]?, at commit: CommitID) throws(SyncError) -> StoreSnapshot {
    guard let bytes else { return .empty }
    do {
      return try StoreSnapshot(bytes: bytes, name: "\(commit.short):\(pathInRepository)")
    } catch {
      throw .notAStoreAtCommit(commit.short, reason: error.description)
    }
  }
}
