#if canImport(Glibc)
  import Glibc
#endif

/// The real ``GitRunner``: `posix_spawnp` of the program, no shell.
///
/// Standard output comes through a pipe that is read to its end; standard error and
/// standard input go through unlinked temporary files, so that however much git writes to
/// either stream nothing waits on a full pipe. The child gets the user's environment (ssh
/// agent, credential helpers, `HOME`) without the variables that would point git at another
/// repository than the folder given (`GIT_DIR`, `GIT_WORK_TREE`, `GIT_INDEX_FILE` …), plus
/// ``environment``; with `GIT_TERMINAL_PROMPT=0` unless somebody can answer a prompt. git
/// runs in the C locale (`LC_ALL=C`, no `LANGUAGE`), since docsh reads what it prints: with
/// `LANGUAGE=de` it would print `Schwerwiegend:` for `fatal:` and translate the texts docsh
/// matches.
/// SIGPIPE, SIGINT and SIGQUIT are at their defaults in the child whatever docsh does.
public struct SystemGitRunner: GitRunner {
  /// The program run: `git`, found on `PATH`.
  public let program: String
  /// Variables set for every run, over the user's (tests point `HOME` and
  /// `GIT_CONFIG_GLOBAL` at their own places).
  public let environment: [String: String]
  /// Whether a person at a terminal can answer git's prompts (passwords, host keys); when
  /// not, `GIT_TERMINAL_PROMPT=0` makes such a remote fail instead of hanging.
  public let canPrompt: Bool
  private let fileSystem: any FileSystem

  /// The variables that would make git work on another repository than the folder given.
  static let repositoryVariables: Set<String> = [
    "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_COMMON_DIR", "GIT_NAMESPACE", "GIT_PREFIX",
  ]

  /// A runner of `program` with `environment` added to every run.
  public init(
    program: String = "git", environment: [String: String] = [:], canPrompt: Bool = false,
    fileSystem: any FileSystem = SystemFileSystem()
  ) {
    self.program = program
    self.environment = environment
    self.canPrompt = canPrompt
    self.fileSystem = fileSystem
  }

  public func run(
    _ arguments: [String], in folder: String, environment extra: [String: String],
    input: [UInt8]?
  ) throws(GitLaunchError) -> GitOutput {
    let inputFile: Int32
    do {
      inputFile = try scratchFile(holding: input ?? [])
    } catch {
      throw .failed(program, errno: error.code)
    }
    defer { try? fileSystem.close(inputFile) }
    return try run(arguments, in: folder, environment: extra, inputFile: inputFile)
  }

  public func run(
    _ arguments: [String], in folder: String, environment extra: [String: String],
    inputFile: Int32
  ) throws(GitLaunchError) -> GitOutput {
    let words = [program, "-C", folder] + arguments
    var variables = SystemGitRunner.currentEnvironment()
    for name in SystemGitRunner.repositoryVariables { variables[name] = nil }
    if !canPrompt { variables["GIT_TERMINAL_PROMPT"] = "0" }
    for (name, value) in environment { variables[name] = value }
    for (name, value) in extra { variables[name] = value }
    variables["LANGUAGE"] = nil  // last: nothing may make git translate what docsh reads
    variables["LC_ALL"] = "C"

    let errors: Int32
    do {
      errors = try scratchFile(holding: nil)
    } catch {
      throw .failed(program, errno: error.code)
    }
    defer { try? fileSystem.close(errors) }
    let ends: (read: Int32, write: Int32)
    switch ChildSpawn.makePipe() {
    case .success(let made): ends = made
    case .failure(let failure): throw .failed(program, errno: failure.code)
    }
    var readEnd: Int32? = ends.read
    var writeEnd: Int32? = ends.write
    defer {
      if let readEnd { try? fileSystem.close(readEnd) }
      if let writeEnd { try? fileSystem.close(writeEnd) }
    }

    let child = try spawn(
      words, environment: variables, input: inputFile, output: ends.write, errors: errors)
    if let end = writeEnd {
      try? fileSystem.close(end)
      writeEnd = nil
    }
    // A pipe that cannot be read is a failure, never an empty successful run; the child is
    // waited for either way, so that none is left behind.
    var output: Result<[UInt8], SystemCallError> = .success([])
    if let end = readEnd {
      output = Result { () throws(SystemCallError) in try fileSystem.readToEnd(end) }
      try? fileSystem.close(end)  // read to its end or failed: nothing more comes from it
      readEnd = nil
    }
    let exitStatus: Int32
    switch ChildSpawn.waitForExit(of: child) {
    case .success(let status): exitStatus = status
    case .failure(let failure): throw .failed(program, errno: failure.code)
    }
    switch output {
    case .success(let bytes):
      return GitOutput(status: exitStatus, output: bytes, errorOutput: try readWhole(errors))
    case .failure(let failure):
      throw .failed(program, errno: failure.code)
    }
  }

  private func spawn(
    _ words: [String], environment: [String: String], input: Int32, output: Int32, errors: Int32
  ) throws(GitLaunchError) -> pid_t {
    let entries = environment.sorted { $0.key < $1.key }.map { $0.key + "=" + $0.value }
    let started = ChildSpawn.start(
      program, words: words, environment: entries, searchingPath: true
    ) { actions in
      // dup2 clears close-on-exec on the child's copies; every original is close-on-exec.
      posix_spawn_file_actions_adddup2(&actions, input, 0)
      posix_spawn_file_actions_adddup2(&actions, output, 1)
      posix_spawn_file_actions_adddup2(&actions, errors, 2)
    }
    switch started {
    case .success(let child): return child
    case .failure(let failure) where failure.code == ENOENT: throw .notFound(program)
    case .failure(let failure): throw .failed(program, errno: failure.code)
    }
  }

  /// An unlinked temporary file, open for reading from its start, holding `bytes` (or
  /// empty and open for writing too when `nil`, for the child's standard error).
  private func scratchFile(holding bytes: [UInt8]?) throws(SystemCallError) -> Int32 {
    let folder = SystemGitRunner.temporaryFolder()
    let directory = try fileSystem.open(folder, flags: O_RDONLY | O_DIRECTORY | O_CLOEXEC, mode: 0)
    defer { try? fileSystem.close(directory) }
    let (name, file) = try AtomicFile.createUniqueFile(
      prefix: ".docsh-git.", in: directory, access: O_RDWR, fileSystem: fileSystem)
    defer { try? fileSystem.unlink(at: directory, name) }
    guard let bytes else { return file }
    do {
      try fileSystem.writeFully(file, bytes)
      // A second descriptor reads from the start; the one written is done.
      let reader = try fileSystem.open(
        at: directory, name, flags: O_RDONLY | O_NOFOLLOW | O_CLOEXEC, mode: 0)
      try? fileSystem.close(file)
      return reader
    } catch {
      try? fileSystem.close(file)
      throw error
    }
  }

  /// Everything in `file` from its start.
  /// - Throws: ``GitLaunchError/failed(_:errno:)`` when it cannot be read.
  private func readWhole(_ file: Int32) throws(GitLaunchError) -> [UInt8] {
    let size: Int
    do {
      size = try fileSystem.status(of: file).size
    } catch {
      throw .failed(program, errno: error.code)
    }
    guard size > 0 else { return [] }
    var bytes = [UInt8](repeating: 0, count: size)
    let count = bytes.withUnsafeMutableBytes { buffer in
      Result { () throws(SystemCallError) in try fileSystem.readFully(file, into: buffer, at: 0) }
    }
    switch count {
    case .success(let count): return Array(bytes.prefix(count))
    case .failure(let failure): throw .failed(program, errno: failure.code)
    }
  }

  /// `TMPDIR`, else `/tmp`.
  static func temporaryFolder() -> String {
    if let value = getenv("TMPDIR"), let text = String(validatingCString: value), !text.isEmpty {
      return text
    }
    return "/tmp"
  }

  /// The process's environment now.
  static func currentEnvironment() -> [String: String] {
    var variables: [String: String] = [:]
    var pointer = environ
    while let entry = pointer.pointee {
      if let text = String(validatingCString: entry), let equals = text.firstIndex(of: "=") {
        variables[String(text[..<equals])] = String(text[text.index(after: equals)...])
      }
      pointer += 1
    }
    return variables
  }
}
