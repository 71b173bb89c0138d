#if canImport(Glibc)
  import Glibc
#endif

/// What one run of git gave back: its exit status and everything it wrote.
public struct GitOutput: Sendable, Equatable {
  /// The exit status; 128 + N when signal N ended it.
  public var status: Int32
  /// Everything written to standard output.
  public var output: [UInt8]
  /// Everything written to standard error.
  public var errorOutput: [UInt8]

  /// An output of `status` with these bytes.
  public init(status: Int32, output: [UInt8] = [], errorOutput: [UInt8] = []) {
    self.status = status
    self.output = output
    self.errorOutput = errorOutput
  }

  /// Whether git exited 0.
  public var succeeded: Bool { status == 0 }

  /// Standard output as text (invalid UTF-8 repaired).
  public var text: String { String(decoding: output, as: UTF8.self) }

  /// The lines of standard output, without the empty one after the last newline.
  public var lines: [Substring] {
    let text = self.text
    var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    if lines.last?.isEmpty == true { lines.removeLast() }
    return lines
  }

  /// git's own reason for a failure, from standard error: its first `fatal:` line (the
  /// cause; later ones and advice follow it), else its last `error:` line, else its last
  /// line — without the `fatal: ` or `error: ` in front.
  public var lastErrorLine: String {
    let text = String(decoding: errorOutput, as: UTF8.self)
    let lines = text.split(whereSeparator: { $0 == "\n" || $0 == "\r" })
      .map { $0.trimmingCharacters(in: " \t") }
      .filter { !$0.isEmpty }
    if let fatal = lines.first(where: { $0.hasPrefix("fatal: ") }) {
      return String(fatal.dropFirst("fatal: ".count))
    }
    if let error = lines.last(where: { $0.hasPrefix("error: ") }) {
      return String(error.dropFirst("error: ".count))
    }
    return lines.last.map(String.init) ?? "git exited with status \(status)"
  }
}

/// Why git could not be run at all.
public enum GitLaunchError: Error, Sendable, Equatable {
  /// No program of this name on `PATH` (or at this path).
  case notFound(String)
  /// Starting it failed with this `errno` (no memory, no descriptors, a pipe that failed).
  case failed(String, errno: Int32)
}

extension GitLaunchError: CustomStringConvertible {
  /// One line for the user.
  public var description: String {
    switch self {
    case .notFound(let program):
      return "'\(program)' was not found: install git (Debian: apt-get install git) to sync"
    case .failed(let program, let code):
      return "cannot run '\(program)': \(StoreError.message(for: code))"
    }
  }
}

/// Runs the `git` program: the one seam between DocsKit and git, as ``FileSystem`` is for
/// system calls, so that a test can fail any step of a sync.
///
/// A runner starts git with an argument array (never through a shell), in a folder, with the
/// user's environment plus `environment`, standard input from `input` (empty when `nil`),
/// and hands back the exit status and both outputs. A failing git is not an error here: the
/// status says it.
public protocol GitRunner: Sendable {
  /// Runs git with `arguments` in `folder`.
  /// - Parameters:
  ///   - environment: variables set (over the user's) for this run only.
  ///   - input: the bytes git reads on standard input.
  /// - Throws: ``GitLaunchError`` when git cannot be started at all.
  func run(
    _ arguments: [String], in folder: String, environment: [String: String], input: [UInt8]?
  ) throws(GitLaunchError) -> GitOutput

  /// Runs git with `arguments` in `folder`, its standard input the file open at
  /// `inputFile` from its start (input too large to hold in memory).
  /// - Throws: ``GitLaunchError`` when git cannot be started at all.
  func run(
    _ arguments: [String], in folder: String, environment: [String: String], inputFile: Int32
  ) throws(GitLaunchError) -> GitOutput

  /// The variables set for every run, over the user's: what git sees besides the process's
  /// own environment (docsh keeps what git said only while they stay the same).
  var environment: [String: String] { get }
}

extension GitRunner {
  /// None: git sees the process's environment.
  public var environment: [String: String] { [:] }

  /// Reads the file into memory and runs git with it as `input`: for runners that hand git
  /// its input another way (a test's fake, a fault injector around the real runner).
  public func run(
    _ arguments: [String], in folder: String, environment: [String: String], inputFile: Int32
  ) throws(GitLaunchError) -> GitOutput {
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
      let count = chunk.withUnsafeMutableBytes { buffer in
        pread(inputFile, buffer.baseAddress, buffer.count, off_t(bytes.count))
      }
      if count < 0 {
        if errno == EINTR { continue }
        throw .failed("git", errno: errno)
      }
      if count == 0 { break }
      bytes += chunk.prefix(count)
    }
    return try run(arguments, in: folder, environment: environment, input: bytes)
  }
}

extension Substring {
  /// The substring without the characters of `characters` at either end.
  func trimmingCharacters(in characters: String) -> Substring {
    var result = self
    while let first = result.first, characters.contains(first) { result = result.dropFirst() }
    while let last = result.last, characters.contains(last) { result = result.dropLast() }
    return result
  }
}
