#if canImport(Glibc)
  import Glibc
#endif

/// Which of the three files of a merge driver's call a file is.
public enum MergeFileRole: String, Sendable, Hashable {
  /// The common ancestor (`%O`).
  case base = "BASE"
  /// This side, which receives the result (`%A`).
  case current = "CURRENT"
  /// The side merged in (`%B`).
  case other = "OTHER"
}

/// Why `docsh --merge-file` merged nothing. CURRENT is then byte for byte as it was.
public enum MergeFileError: Error, Sendable, Equatable {
  /// The file is not a docsh store: conflict markers, another format, cut short, broken
  /// rules. The shell exits 3 for this one.
  case notAStore(MergeFileRole, StoreError)
  /// The file could not be read.
  case unreadable(MergeFileRole, path: String, errno: Int32)
  /// The merged store could not be written into CURRENT.
  case unwritable(path: String, operation: String, errno: Int32)

  /// Whether an input is not a store (exit status 3) rather than a failing system call.
  public var isNotAStore: Bool {
    if case .notAStore = self { return true }
    return false
  }
}

extension MergeFileError: CustomStringConvertible {
  /// One line saying what failed and that nothing was written.
  public var description: String {
    switch self {
    case .notAStore(let role, let error):
      return "\(role.rawValue) is not a docsh store: \(error); nothing was merged"
    case .unreadable(let role, let path, let code):
      return
        "\(role.rawValue) \(path): cannot be read: \(StoreError.message(for: code)); nothing was merged"
    case .unwritable(let path, let operation, let code):
      return
        "\(path): \(operation) failed: \(StoreError.message(for: code)); the merged store was not written"
    }
  }
}

/// The merge driver git runs for the store (`docsh --merge-file %O %A %B %P`): three store
/// files merged by meaning, the result written into CURRENT.
public enum MergeDriver {
  /// Merges the stores in the files `base`, `current` and `other` (an empty BASE is an empty
  /// store, as git passes when both sides added the file) and replaces CURRENT by the
  /// result, atomically and durably, keeping its permissions.
  /// - Parameter date: the day named in the siblings made for conflicts.
  /// - Returns: the conflicts, settled, one line each for standard error.
  /// - Throws: ``MergeFileError``; CURRENT is then as it was.
  public static func mergeFiles(
    base: String, current: String, other: String, date: MergeDate,
    fileSystem: any FileSystem = SystemFileSystem()
  ) throws(MergeFileError) -> [StoreMergeConflict] {
    let baseStore = try read(base, as: .base, fileSystem: fileSystem)
    let currentStore = try read(current, as: .current, fileSystem: fileSystem)
    let otherStore = try read(other, as: .other, fileSystem: fileSystem)
    let merge = StoreMerge(base: baseStore, current: currentStore, other: otherStore, date: date)
    do {
      try AtomicFile.replace(
        path: current, with: merge.merged.encoded(), keepingBackup: false, fileSystem: fileSystem)
    } catch {
      throw .unwritable(path: current, operation: error.operation, errno: error.code)
    }
    return merge.conflicts
  }

  /// The store in the file at `path`.
  private static func read(
    _ path: String, as role: MergeFileRole, fileSystem: any FileSystem
  ) throws(MergeFileError) -> StoreSnapshot {
    let bytes: [UInt8]
    do {
      let file = try fileSystem.open(path, flags: O_RDONLY | O_CLOEXEC, mode: 0)
      defer { try? fileSystem.close(file) }
      bytes = try fileSystem.readToEnd(file)
    } catch {
      throw .unreadable(role, path: path, errno: error.code)
    }
    if bytes.isEmpty && role == .base { return .empty }
    do {
      return try StoreSnapshot(bytes: bytes, name: path)
    } catch {
      if StoreSnapshot.hasConflictMarkers(bytes) {
        throw .notAStore(
          role, .invalidStore(path, reason: "it holds the conflict markers of a text merge"))
      }
      throw .notAStore(role, error)
    }
  }
}

extension StoreSnapshot {
  /// Whether `bytes` hold a line starting `<<<<<<< `, as a text merge leaves.
  static func hasConflictMarkers(_ bytes: [UInt8]) -> Bool {
    let marker = Array("<<<<<<<".utf8)
    var lineStart = true
    for index in bytes.indices {
      if lineStart, bytes[index] == marker[0], bytes[index...].starts(with: marker) { return true }
      lineStart = bytes[index] == 0x0A
    }
    return false
  }
}
