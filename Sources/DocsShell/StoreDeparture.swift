import DocsKit

#if canImport(Glibc)
  import Glibc
#endif

/// What a run of docsh does as it leaves the store: when it was the last session and a save
/// log is beside the file, the log is folded into the file (a checkpoint), so that at rest
/// the file alone holds every save.
///
/// The REPL folds before it ends (a person leaving waits a moment, with a progress line on a
/// large store). A `-c`, a script or piped input hands the fold to a child of its own,
/// detached, that waits until the store has been left alone for a moment: a script of ten
/// thousand `docsh -c` calls folds once, at its end, not once a call (as `git gc --auto`
/// packs in the background). `DOCSH_FOLD=foreground` folds before ending in every case,
/// `DOCSH_FOLD=never` leaves the log for a later session (or `docsh --checkpoint`);
/// `DOCSH_FOLD_DELAY_MS` sets the child's wait (1000 by default).
struct StoreDeparture {
  /// How long the store must be left alone before a child folds its log.
  static let defaultDelayMilliseconds = 1000

  let environment: [String: String]
  /// Opens a context of its own on the store: the fold writes what is saved, whatever the
  /// leaving session held unsaved.
  let openStore: () throws -> Context
  let errors: TextOutput

  /// Leaves the store of `context`; folds its log, or has a child fold it, when this was
  /// the last session.
  func leave(_ context: Context, folding inForeground: Bool) {
    let path = context.storeFilePath
    guard context.leaveStore(), environment["DOCSH_FOLD"] != "never" else { return }
    // Held from now until the fold is done, by this process or the child given it.
    guard let claim = FoldClaim.claim(storePath: path) else { return }
    if inForeground || environment["DOCSH_FOLD"] == "foreground" || !startChild(path, claim) {
      fold()
    }
  }

  /// Folds the log now, saying why on standard error when it cannot.
  func fold() {
    do {
      try openStore().foldSaveLog()
    } catch {
      errors.writeLine(
        "docsh: warning: the save log was not folded into the store (\(error)); it stays beside it, and the next session to leave folds it"
      )
    }
  }

  /// Starts `docsh --checkpoint` detached, holding `claim` as its descriptor 3, with
  /// nothing of the terminal nor of any other descriptor docsh was given; whether it
  /// started.
  private func startChild(_ storePath: String, _ claim: FoldClaim) -> Bool {
    guard let program = StoreDeparture.executablePath() else { return false }
    var variables = environment
    variables["DOCSH_FOLD_WHEN_IDLE"] = "1"
    // dup2 onto itself would keep the claim's close-on-exec mark: hand over a copy then.
    let source = claim.descriptor == 3 ? fcntl(3, F_DUPFD_CLOEXEC, 10) : claim.descriptor
    guard source >= 0 else { return false }
    defer { if source != claim.descriptor { Glibc.close(source) } }
    let inherited = StoreDeparture.inheritableDescriptors()
    let started = ChildSpawn.start(
      program, words: ["docsh", "--checkpoint", "--store", storePath],
      environment: variables.map { "\($0.key)=\($0.value)" }, detached: true
    ) { actions in
      // Whatever docsh inherited open (a pipe its caller waits on to close, a socket), the
      // child, which may wait for minutes, must not keep open.
      for descriptor in inherited where descriptor > 3 {
        posix_spawn_file_actions_addclose(&actions, descriptor)
      }
      posix_spawn_file_actions_adddup2(&actions, source, 3)
      for descriptor in Int32(0)...2 {
        posix_spawn_file_actions_addopen(
          &actions, descriptor, "/dev/null", descriptor == 0 ? O_RDONLY : O_WRONLY, 0)
      }
    }
    guard case .success = started else { return false }
    // The lock is the open file description's, which the child shares: unlocking it here
    // would let the next leaving run start a fold of its own while this one waits.
    claim.handOver()
    return true
  }

  /// The descriptors open in this process without close-on-exec (from `/proc/self/fd`): what
  /// a child would inherit.
  static func inheritableDescriptors() -> [Int32] {
    guard let folder = opendir("/proc/self/fd") else { return [] }
    defer { closedir(folder) }
    let own = dirfd(folder)
    var descriptors: [Int32] = []
    while let entry = readdir(folder) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
        String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
      }
      guard let descriptor = Int32(name), descriptor != own else { continue }
      let flags = fcntl(descriptor, F_GETFD)
      if flags >= 0 && flags & FD_CLOEXEC == 0 { descriptors.append(descriptor) }
    }
    return descriptors
  }

  /// This program's own file (`/proc/self/exe`), to start again as the child.
  static func executablePath() -> String? {
    var bytes = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    let count = readlink("/proc/self/exe", &bytes, bytes.count - 1)
    guard count > 0 else { return nil }
    return String(decoding: bytes[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  // MARK: - The child

  /// `docsh --checkpoint` started by ``leave(_:folding:)``: holds the claim it was given
  /// (descriptor 3) while it waits until nobody has had the store open for the delay, folds,
  /// and folds again while saves come in that no other fold will take.
  func foldWhenIdle(storePath: String) {
    var claim: FoldClaim? = FoldClaim.inherited(3)
    let delay =
      environment["DOCSH_FOLD_DELAY_MS"].flatMap { Int($0) }.map { max($0, 0) }
      ?? StoreDeparture.defaultDelayMilliseconds
    while claim != nil {
      waitUntilIdle(storePath: storePath, delay: delay)
      fold()
      claim = nil
      // A save that came in while this one folded, by a session that found the claim taken:
      // fold it too, unless another process claimed it since.
      guard StoreDeparture.logExists(beside: storePath),
        SessionPresence.nobodyIsThere(storePath: storePath)
      else { return }
      claim = FoldClaim.claim(storePath: storePath)
    }
  }

  /// Returns once no session had the store open, and its log did not change, for `delay`
  /// milliseconds.
  private func waitUntilIdle(storePath: String, delay: Int) {
    while true {
      SessionPresence.waitUntilNobodyIsThere(storePath: storePath)
      let before = StoreDeparture.logStatus(beside: storePath)
      if delay > 0 { usleep(useconds_t(min(delay, 60_000)) * 1000) }
      if SessionPresence.nobodyIsThere(storePath: storePath),
        StoreDeparture.logStatus(beside: storePath) == before
      {
        return
      }
    }
  }

  private static func logStatus(beside storePath: String) -> [Int] {
    var status = stat()
    guard lstat(storePath + ".wal", &status) == 0 else { return [] }
    return [
      Int(status.st_ino), Int(status.st_size), Int(status.st_mtim.tv_sec),
      Int(status.st_mtim.tv_nsec),
    ]
  }

  private static func logExists(beside storePath: String) -> Bool {
    !logStatus(beside: storePath).isEmpty
  }
}
