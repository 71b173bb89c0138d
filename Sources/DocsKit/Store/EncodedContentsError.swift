/// Why a pass over the stored contents (``StoreReading/withEncodedContents(at:_:)``)
/// stopped: the store could not hand a content over, or the visitor stopped it. The two are
/// kept apart so that a caller can tell a damaged or unreadable store from its own error.
public enum EncodedContentsError<Stop: Error>: Error {
  /// The store could not read a content: a system call failed, or the file ends before a
  /// content its graph places there.
  case store(StoreError)
  /// The visitor threw `Stop`.
  case visitor(Stop)

  /// The error as the visitor's type, a store failure made one by `storeFailure`.
  func unwrapped(_ storeFailure: (StoreError) -> Stop) -> Stop {
    switch self {
    case .store(let error): storeFailure(error)
    case .visitor(let error): error
    }
  }
}
