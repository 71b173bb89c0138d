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
