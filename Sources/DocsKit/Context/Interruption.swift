/// Long work that can be stopped part way, named by what it is doing when it asks whether to
/// stop. The shell adds its own (import, export, a sourced file) with ``init(_:)``.
public struct InterruptibleWork: Hashable, Sendable, CustomStringConvertible {
  /// The short name a test seam or a message uses (`grep`, `index`).
  public let name: String

  /// Work called `name`.
  public init(_ name: String) {
    self.name = name
  }

  /// Searching contents line by line (`grep`).
  public static let contentSearch = InterruptibleWork("grep")
  /// Ranked search matched in memory (changed documents, or no index).
  public static let rankedSearch = InterruptibleWork("search")
  /// Filling the full-text index, the first search of a store.
  public static let fullTextIndex = InterruptibleWork("index")
  /// Rebuilding the index of the store's categories and documents from the file.
  public static let storeIndex = InterruptibleWork("reindex")
  /// Bringing a category's documents into memory (a large category's first `ls`).
  public static let loadingCategory = InterruptibleWork("load")
  /// Looking for documents by name (`find`).
  public static let nameSearch = InterruptibleWork("find")
  /// Reading every content of the store to check it.
  public static let check = InterruptibleWork("check")

  public var description: String { name }
}

/// Tells long work whether the person at the terminal asked it to stop (Ctrl-C in the shell).
///
/// Long loops ask once per document or file, so the answer must be cheap (a flag read).
/// Work that is told to stop throws (``ContextError/interrupted``) and leaves everything as
/// it was: a context search changes nothing, an index being filled is rolled back.
public protocol Interruption: AnyObject {
  /// Whether `work`, running now, should stop.
  func isRequested(during work: InterruptibleWork) -> Bool
}

/// Work the interruption stopped, thrown where the store layer answers the context.
public struct WorkInterrupted: Error, Sendable, Equatable {
  /// What was stopped.
  public let work: InterruptibleWork

  /// `work` stopped.
  public init(_ work: InterruptibleWork) {
    self.work = work
  }
}

extension Context {
  /// Throws when the person at the terminal asked the work in progress to stop.
  /// - Throws: ``ContextError/interrupted`` then.
  func checkForInterruption(_ work: InterruptibleWork) throws(ContextError) {
    if let interruption, interruption.isRequested(during: work) { throw .interrupted }
  }
}
