#if canImport(Glibc)
  import Glibc
#endif

/// When a leaving command folds the save log into the store file.
public enum SaveLogPolicy {
  /// Whether the save log beside the store at `storePath` holds anything (a fold leaves it
  /// empty).
  public static func logHoldsSaves(storePath: String) -> Bool {
    var log = stat()
    return lstat(storePath + ".wal", &log) == 0 && log.st_size > 0
  }

  /// A store file up to this size (64 MiB) is folded by every command that leaves it last:
  /// a fold there writes at most that much, about a tenth of a second, so the file is
  /// complete whenever a command has returned. Above it, a one-line save must not cost a
  /// whole rewrite: the log stays beside the file until it outgrows its share
  /// (``SaveLog/foldsPast(storeSize:)``), a REPL leaves, or `docsh --checkpoint` runs.
  public static let foldAlwaysUpTo = 64 << 20

  /// Whether a command leaving the store at `storePath` last folds its log now: the log
  /// holds saves, and the file is small or the log has outgrown its share of it.
  public static func foldsOnLeaving(storePath: String) -> Bool {
    var store = stat()
    var log = stat()
    guard lstat(storePath + ".wal", &log) == 0, log.st_size > 0 else { return false }
    guard stat(storePath, &store) == 0 else { return true }
    return Int(store.st_size) <= foldAlwaysUpTo
      || Int(log.st_size) > SaveLog.foldsPast(storeSize: Int(store.st_size))
  }
}
