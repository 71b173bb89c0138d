import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// What every child process docsh starts (git, the editor, the pager) has in common: its
/// words as C strings, SIGINT, SIGQUIT and SIGPIPE at their defaults with no signal
/// blocked (whatever docsh does with them itself), and how its end is read.
public enum ChildSpawn {
  /// Held around every spawn and around every pipe made with ``makePipe()``: a child
  /// inherits each descriptor not yet marked close-on-exec, and a pipe's write end kept by
  /// an unrelated child would make its reader wait for that child to end. (Swift's Glibc
  /// has no `pipe2`, so the mark is a second call.)
  private static let descriptorCreation = Mutex(())

  /// A pipe whose two ends close on exec (`dup2` clears the flag on a child's copy).
  /// - Returns: the read and write ends, or the `errno` that `pipe(2)` gave.
  public static func makePipe() -> Result<(read: Int32, write: Int32), SpawnFailure> {
    descriptorCreation.withLock { _ in
      var ends: [Int32] = [-1, -1]
      guard pipe(&ends) == 0 else { return .failure(SpawnFailure(code: errno)) }
      for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
      return .success((ends[0], ends[1]))
    }
  }

  /// Starts `program` with `words` (`words[0]` its own name).
  /// - Parameters:
  ///   - environment: `NAME=value` entries; `nil` passes docsh's own.
  ///   - searchingPath: whether a `program` without a slash is looked for on `PATH`.
  ///   - fileActions: adds the child's `dup2`s and closes.
  ///   - detached: whether the child starts a session of its own (`setsid`), away from the
  ///     terminal: a hangup of docsh's terminal does not reach it.
  /// - Returns: the child's process id, or the `errno` that `posix_spawn` gave.
  public static func start(
    _ program: String, words: [String], environment: [String]? = nil,
    searchingPath: Bool = false, detached: Bool = false,
    fileActions: (inout posix_spawn_file_actions_t) -> Void = { _ in }
  ) -> Result<pid_t, SpawnFailure> {
    var argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) }
    argv.append(nil)
    defer { for pointer in argv { free(pointer) } }
    var envp: [UnsafeMutablePointer<CChar>?] = (environment ?? []).map { strdup($0) }
    envp.append(nil)
    defer { for pointer in envp { free(pointer) } }

    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var defaults = sigset_t()
    sigemptyset(&defaults)
    for signal in [SIGINT, SIGQUIT, SIGPIPE] { sigaddset(&defaults, signal) }
    posix_spawnattr_setsigdefault(&attributes, &defaults)
    var noMask = sigset_t()
    sigemptyset(&noMask)
    posix_spawnattr_setsigmask(&attributes, &noMask)
    // POSIX_SPAWN_SETSID (glibc 2.26), which Swift's Glibc leaves out with _GNU_SOURCE.
    let setSessionID: Int32 = 0x80
    posix_spawnattr_setflags(
      &attributes,
      Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | (detached ? setSessionID : 0)))

    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    fileActions(&actions)

    var child = pid_t()
    func spawn(_ variables: UnsafePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
      searchingPath
        ? posix_spawnp(&child, program, &actions, &attributes, argv, variables)
        : posix_spawn(&child, program, &actions, &attributes, argv, variables)
    }
    let spawned = descriptorCreation.withLock { _ in
      environment == nil ? spawn(environ) : spawn(envp)
    }
    return spawned == 0 ? .success(child) : .failure(SpawnFailure(code: spawned))
  }

  /// Waits for `child` to end.
  /// - Returns: its exit status, or 128 + N when a signal N ended it.
  public static func waitForExit(of child: pid_t) -> Result<Int32, SpawnFailure> {
    var status: Int32 = 0
    while waitpid(child, &status, 0) < 0 {
      guard errno == EINTR else { return .failure(SpawnFailure(code: errno)) }
    }
    // WIFEXITED / WEXITSTATUS, spelled out: Swift does not import the macros.
    return .success(status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F))
  }
}

/// Why a child process could not be started or waited for: an `errno` value.
public struct SpawnFailure: Error, Equatable, CustomStringConvertible {
  public let code: Int32
  public init(code: Int32) { self.code = code }
  public var description: String { String(cString: strerror(code)) }
}
