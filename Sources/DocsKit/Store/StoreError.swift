#if canImport(Glibc)
  import Glibc
#endif

/// Why a store could not be read or written. Each case names the file.
public enum StoreError: Error, Sendable, Equatable {
  /// The file is not well-formed JSON (or not the shape of format v1) at this line and column.
  case malformed(String, line: Int, column: Int, reason: String)
  /// The file is JSON, but its `format` is not `docsh-store`.
  case notAStore(String, format: String?)
  /// The file was written by a newer docsh.
  case newerVersion(String, version: Int, supported: Int)
  /// The file is well-formed but breaks a rule of the format (duplicate ids or names …).
  case invalidStore(String, reason: String)
  /// A system call failed.
  case system(String, operation: String, errno: Int32)
  /// A save renamed its new file over the store, then could neither sync the folder (the
  /// rename may not survive a power cut) nor put the old file back: the new one stands.
  case saveNotUndone(
    String, operation: String, errno: Int32, restoreOperation: String, restoreErrno: Int32)
  /// Another session saved the store since this one loaded it.
  case modifiedElsewhere(String, loadedGeneration: Int, currentGeneration: Int?)
  /// The store file was deleted or moved away since this session loaded it.
  case deletedElsewhere(String)
  /// Another process holds the store's lock.
  case locked(String)
  /// An earlier read of this store failed, so it will not be overwritten.
  case refusedToOverwriteDamagedStore(String)
  /// The store's save log (named here) holds a whole record that cannot be a save of the
  /// store file: docsh never writes such a record, so the log was damaged or edited.
  case damagedSaveLog(String, reason: String)
  /// The store file belongs to another user: only its owner saves into its log.
  case notOwner(String, owner: UInt32)
}

extension StoreError: CustomStringConvertible {
  public var description: String {
    switch self {
    case .malformed(let path, let line, let column, let reason):
      return "\(path):\(line):\(column): not a valid docsh store: \(reason)"
    case .notAStore(let path, let format):
      if let format {
        return "\(path): not a docsh store (its format is \"\(format)\", expected \"docsh-store\")"
      }
      return "\(path): not a docsh store (no \"format\": \"docsh-store\")"
    case .newerVersion(let path, let version, let supported):
      return
        "\(path): written by a newer docsh (format version \(version); this docsh reads up to \(supported))"
    case .invalidStore(let path, let reason):
      return "\(path): not a valid docsh store: \(reason)"
    case .system(let path, let operation, let code):
      return "\(path): \(operation) failed: \(StoreError.message(for: code))"
    case .saveNotUndone(let path, let operation, let code, let restoreOperation, let restoreCode):
      return
        "\(path): \(operation) failed: \(StoreError.message(for: code)), so the save may not survive a power cut; putting the old file back failed too (\(restoreOperation): \(StoreError.message(for: restoreCode))): the store file is the new one"
    case .modifiedElsewhere(let path, let loaded, let current):
      let now = current.map { "generation \($0)" } ?? "a different file"
      return
        "\(path): another session saved the store since it was loaded (loaded generation \(loaded), now \(now)); nothing was written — use 'revert' to load theirs"
    case .deletedElsewhere(let path):
      return
        "\(path): the store was deleted or moved since it was loaded; nothing was written — 'revert' starts from what is there now"
    case .locked(let path):
      return "\(path): another process is saving the store right now; try again"
    case .refusedToOverwriteDamagedStore(let path):
      return "\(path): the store could not be read, so it will not be overwritten"
    case .notOwner(let path, let owner):
      return
        "\(path): the store file belongs to another user (uid \(owner)); only its owner can save it; nothing was written"
    case .damagedSaveLog(let path, let reason):
      return
        "\(path): the save log is damaged (\(reason)); nothing was read or written — move it aside to open the store as its file alone holds it"
    }
  }

  /// The system's text for an `errno` value.
  static func message(for code: Int32) -> String {
    guard let text = strerror(code) else { return "error \(code)" }
    return String(cString: text)
  }
}
