#if canImport(Glibc)
  import Glibc
#endif

// Who has a store open, and who folds its save log: two lock files beside the store file,
// never removed. Every process with the store open holds `NAME.sessions` shared; the last
// to leave (the one that can hold it exclusively) sees that the log must be folded, so that
// at rest the store file alone holds every save. A fold that is waiting to run holds
// `NAME.fold` exclusively, from the moment the leaving process claims it to the end of the
// fold, so that nobody starts a second one, and so that anyone can wait for the store to be
// at rest.

/// A process's presence among the sessions of a store: a shared `flock` on `NAME.sessions`.
public final class SessionPresence {
  private let fileSystem: any FileSystem
  private var descriptor: Int32?

  /// The presence file's name beside the store file `storeName`.
  static func fileName(forStore storeName: String) -> String { storeName + ".sessions" }

  /// Joins the sessions of the store `storeName` in the folder `folder`; `nil` when the
  /// presence file cannot be made or locked (a read-only folder: no log can be there either).
  init?(folder: String, storeName: String, fileSystem: any FileSystem) {
    self.fileSystem = fileSystem
    let path = (folder == "/" ? "" : folder) + "/" + SessionPresence.fileName(forStore: storeName)
    guard
      let file = try? fileSystem.open(
        path, flags: O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, mode: 0o600)
    else { return nil }
    // Held exclusively only for the instant a leaving session looks whether it is the last.
    for attempt in 0..<500 {
      if (try? fileSystem.lockShared(file)) == true {
        descriptor = file
        return
      }
      if attempt < 499 { usleep(2_000) }
    }
    try? fileSystem.close(file)  // never locked: nothing to let go of
    return nil
  }

  deinit {
    if let descriptor { fileSystem.unlockAndClose(descriptor) }
  }

  /// Whether this is the only process with the store open (also when this process has no
  /// presence: a store with no file or in a read-only folder, which holds no log either).
  /// Stays among the sessions after.
  func isAlone() -> Bool {
    guard let descriptor else { return true }
    // Converting a shared lock lets go of it first, whether the exclusive one is had or not:
    // take the shared one back after, as joining does. Straight to flock(2), not through the
    // file system seam: a presence lock that fails only ever means "not alone" (no fold),
    // never a failed save.
    var alone = false
    while true {
      if flock(descriptor, LOCK_EX | LOCK_NB) == 0 {
        alone = true
        break
      }
      if errno != EINTR { break }
    }
    for attempt in 0..<500 {
      if flock(descriptor, LOCK_SH | LOCK_NB) == 0 { break }
      if attempt < 499 { usleep(2_000) }
    }
    return alone
  }

  /// Leaves the sessions; whether this one was the last (no other process holds the file).
  /// The presence is gone after, either way.
  func leave() -> Bool {
    guard let descriptor else { return false }
    self.descriptor = nil
    defer { fileSystem.unlockAndClose(descriptor) }
    // flock converts a shared lock to an exclusive one by letting go first: of two leaving
    // at once, at least the second to try finds nobody.
    return (try? fileSystem.lockExclusively(descriptor)) == true
  }

  /// Waits until no process has the store at `storePath` (links followed) open, then lets
  /// others in again at once.
  public static func waitUntilNobodyIsThere(storePath: String) {
    let file = open(storePath + ".sessions", O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
    guard file >= 0 else { return }
    while flock(file, LOCK_EX) != 0 && errno == EINTR {}
    flock(file, LOCK_UN)
    close(file)
  }

  /// Whether no process has the store at `storePath` (links followed) open now.
  public static func nobodyIsThere(storePath: String) -> Bool {
    let (folder, name) = splitPath(storePath)
    return nobodyIsThere(folder: folder, storeName: name, fileSystem: SystemFileSystem())
  }

  /// Whether no process has the store `storeName` in `folder` open now.
  static func nobodyIsThere(folder: String, storeName: String, fileSystem: any FileSystem) -> Bool {
    let path = (folder == "/" ? "" : folder) + "/" + fileName(forStore: storeName)
    guard let file = try? fileSystem.open(path, flags: O_RDONLY | O_NOFOLLOW | O_CLOEXEC, mode: 0)
    else { return true }
    defer { fileSystem.unlockAndClose(file) }
    return (try? fileSystem.lockExclusively(file)) == true
  }
}

/// The claim on folding a store's save log: an exclusive `flock` on `NAME.fold`, held by
/// the process that folds.
public final class FoldClaim {
  /// The locked file.
  let descriptor: Int32

  private init(descriptor: Int32) {
    self.descriptor = descriptor
  }

  deinit {
    // Unlocks only once the fold is done.
    flock(descriptor, LOCK_UN)
    Glibc.close(descriptor)
  }

  /// The claim file's name beside the store file `storeName`.
  static func fileName(forStore storeName: String) -> String { storeName + ".fold" }

  /// Claims the fold of the store at `storePath` (the store file's own path, links
  /// followed); `nil` when the file cannot be had, or, unless `waiting`, when another
  /// process holds the claim (a fold runs already).
  public static func claim(storePath: String, waiting: Bool = false) -> FoldClaim? {
    let path = storePath + ".fold"
    let file = Glibc.open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
    guard file >= 0 else { return nil }
    while flock(file, waiting ? LOCK_EX : LOCK_EX | LOCK_NB) != 0 {
      if waiting && errno == EINTR { continue }
      Glibc.close(file)
      return nil
    }
    return FoldClaim(descriptor: file)
  }

  /// Waits until no fold of the store at `storePath` is claimed: then the store is at rest
  /// (its file alone holding every save) unless a session has it open.
  public static func waitForRest(storePath: String) {
    let file = Glibc.open(storePath + ".fold", O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
    guard file >= 0 else { return }
    while flock(file, LOCK_EX) != 0 && errno == EINTR {}
    flock(file, LOCK_UN)
    Glibc.close(file)
  }
}
