/// Why a store file could not be parsed, and at which byte.
struct StoreReadFailure: Error {
  enum Kind {
    /// Not JSON, or not the shape of format v1.
    case malformed
    /// JSON whose `format` is not `docsh-store`.
    case notAStore(String?)
    /// A newer version of the format.
    case newerVersion(Int)
    /// The read itself failed.
    case system(SystemCallError)
  }

  var kind: Kind
  var offset: Int
  var reason: String
}

extension StoreReadFailure {
  /// This failure as the ``StoreError`` a person reads, for the store named `name`: the one
  /// place a parse failure becomes a message with its position. `position` gives the line
  /// and column (from 1) of a byte offset, read from wherever the bytes are (a file, a
  /// snapshot in memory); only a malformed store asks it.
  func storeError(
    in name: String, position: (_ offset: Int) -> (line: Int, column: Int)
  ) -> StoreError {
    switch kind {
    case .system(let error):
      return .system(name, operation: error.operation, errno: error.code)
    case .notAStore(let format):
      return .notAStore(name, format: format)
    case .newerVersion(let version):
      return .newerVersion(name, version: version, supported: StoreReader.supportedVersion)
    case .malformed:
      let (line, column) = position(offset)
      return .malformed(name, line: line, column: column, reason: reason)
    }
  }
}
