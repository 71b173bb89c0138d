/// Why a repository operation (setting up, committing, syncing, reading history) failed.
///
/// Every case leaves the store and the repository as they were or consistently further
/// along (a local commit made, the remote fetched), never half way; each text is one line.
public enum SyncError: Error, Sendable, Equatable {
  /// git cannot be run.
  case gitUnavailable(GitLaunchError)
  /// A git step failed; `message` is git's own last line of standard error.
  case gitFailed(step: String, message: String)
  /// The store's folder is in no git work tree.
  case notARepository(folder: String)
  /// The store's folder is in a git work tree that docsh has not set up (no merge driver).
  case notSetUp(folder: String)
  /// The repository has no remote `origin` to sync with.
  case noRemote(folder: String)
  /// HEAD names no branch, so there is nothing to sync.
  case detachedHead(folder: String)
  /// Another git or docsh is working in the repository right now (its lock is held).
  case busy(lock: String)
  /// The store file is missing, but the last commit holds it.
  case storeMissing(path: String, commit: String)
  /// The store file does not load, but the last commit holds a store.
  case storeDamaged(path: String, reason: String, commit: String)
  /// The store file is missing or does not load in a git repository, and git could not
  /// say whether the repository holds it: it is never opened as an empty store.
  case storeMaybeLost(path: String, reason: String)
  /// Reading or writing the store file failed.
  case store(StoreError)
  /// The store in a commit (the remote's, usually) is not a valid docsh store.
  case notAStoreAtCommit(String, reason: String)
  /// The push was refused again and again because the remote kept moving.
  case pushKeptFailing(attempts: Int)
  /// The remote has several branches and none is the obvious one to follow.
  case ambiguousRemoteBranch([String])
  /// The remote's commit `commit` holds an entry docsh refuses to take in (``RemoteRefusal``):
  /// nothing was changed; reverting that commit on the remote lets the next sync through.
  case refusedRemote(RemoteRefusal, commit: String)
  /// git's checks (`fetch.fsckObjects`) refused an object the fetch brought; `message` is
  /// git's line naming it. Nothing was changed.
  case refusedByGitChecks(message: String)
  /// A commit's tree holds a layout marker (``LayoutMarker``) of a version this docsh does
  /// not read (`version`: the marker's first line, printable), a newer docsh's. Nothing was
  /// changed.
  case unknownLayout(marker: String, version: String)
  /// No commit of this name.
  case noSuchCommit(String)
  /// The store holds no document at this path at that commit.
  case noSuchDocument(path: String, commit: String)
  /// Setting up or syncing with an encrypted remote failed (``EncryptionError``).
  case encryption(EncryptionError)
}

extension SyncError: CustomStringConvertible {
  /// One line for the user: what failed and, where there is one, what to do.
  public var description: String {
    switch self {
    case .gitUnavailable(let error):
      return error.description
    case .gitFailed(let step, let message):
      // git's line may quote a remote's text (a name, a server's message).
      return "\(step): \(PrintableText.escaped(message))"
    case .notARepository(let folder):
      return "\(folder) is not in a git repository: 'sync REMOTE' sets one up"
    case .notSetUp(let folder):
      return "\(folder) is not set up for syncing: run 'sync REMOTE' once"
    case .noRemote(let folder):
      return "the repository of \(folder) has no remote 'origin': run 'sync REMOTE' once"
    case .detachedHead(let folder):
      return "the repository of \(folder) is on no branch (detached HEAD): check out a branch"
    case .busy(let lock):
      return "another git or docsh is working in the repository (\(lock) is held); try again"
    case .storeMissing(let path, let commit):
      return
        "\(path) is missing, but the last commit (\(commit)) holds the store: 'sync' writes it anew from there"
    case .storeDamaged(let path, let reason, let commit):
      return
        "\(path) does not load (\(reason)), but the last commit (\(commit)) holds the store: 'sync' restores it"
    case .storeMaybeLost(let path, let reason):
      return
        "\(path): the store file is missing or damaged in a git repository, and git could not say whether the repository holds it (\(reason)); nothing was opened — make git work there (or move .git aside) and run docsh again"
    case .store(let error):
      return error.description
    case .notAStoreAtCommit(let commit, let reason):
      return "the store in \(commit) is not a docsh store (\(reason)); nothing was changed"
    case .pushKeptFailing(let attempts):
      return
        "push to origin: refused \(attempts) times because the remote kept moving; nothing was lost — sync again"
    case .ambiguousRemoteBranch(let branches):
      return
        "origin has several branches (\(branches.joined(separator: ", "))) and none matches this one: check one out with git, then sync"
    case .refusedRemote(let refusal, let commit):
      return
        "origin's commit \(commit) is refused: \(refusal); nothing was changed: revert it on the remote (git revert \(commit), then push) and sync again"
    case .refusedByGitChecks(let message):
      return
        "fetch from origin: git's checks refuse an object of the remote (\(PrintableText.escaped(message))); nothing was changed: remove the commit that brought it from the remote's history (a revert keeps it) and sync again"
    case .unknownLayout(let marker, let version):
      return
        "\(marker) says '\(version)', a layout this docsh does not read (it reads up to docsh-layout \(RepositoryLayout.currentVersion)): update docsh; nothing was changed"
    case .noSuchCommit(let revision):
      return "no commit \"\(revision)\" in the store's history"
    case .noSuchDocument(let path, let commit):
      return "no document \(path) in the store at \(commit)"
    case .encryption(let error):
      return error.description
    }
  }
}
