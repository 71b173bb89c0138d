extension StoreRepository {
  /// HEAD's branch and origin's (``RepositoryBranches``).
  var branches: RepositoryBranches { RepositoryBranches(repository: self) }
}

/// The branches a sync works with: HEAD's, the branch of `origin` it follows (chosen and
/// recorded the first time), and fetching from and pushing to `origin`.
///
/// It holds the repository for what it knows of HEAD without git
/// (``StoreRepository/knownHead()``) and its folder, which errors name.
struct RepositoryBranches {
  /// The repository.
  let repository: StoreRepository
  /// Its git.
  let git: Git

  /// The branches of `repository`.
  init(repository: StoreRepository) {
    self.repository = repository
    git = repository.git
  }

  // MARK: - Branches

  /// The branch HEAD names, `nil` when detached.
  func currentBranch() throws(SyncError) -> String? {
    if let known = repository.knownHead() {
      return String(known.branch.dropFirst("refs/heads/".count))
    }
    return try git.headBranch()
  }

  /// The branch of `origin` the current branch follows, chosen and recorded as its upstream
  /// the first time (so that a plain `git pull` works): its configured upstream, else the
  /// remote branch of the same name, else the remote's only branch (an unborn local branch is
  /// renamed to match), else the current branch's name (a remote with no branches yet).
  /// - Throws: ``SyncError/ambiguousRemoteBranch(_:)`` when several could be meant.
  func upstreamBranch() throws(SyncError) -> String {
    guard var branch = try currentBranch() else {
      throw .detachedHead(folder: repository.storeFolder)
    }
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

  // MARK: - Fetching and pushing

  /// Fetches `origin`, with git's checks of every object on (``Git/hardening``).
  /// - Throws: ``SyncError/refusedByGitChecks(message:)`` when they refuse an object.
  /// - Parameter refspecs: where to fetch what, instead of the configured refspec (no
  ///   remote-tracking branch is written then but those named).
  func fetchOrigin(refspecs: [String] = []) throws(SyncError) {
    try git.fetch(remote: "origin", refspecs: refspecs)
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
}
