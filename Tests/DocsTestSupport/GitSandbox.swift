import DocsKit
import Foundation

/// A place for tests that run the real git: a temporary folder with its own `HOME` and
/// global config (`GIT_CONFIG_GLOBAL`, `GIT_CONFIG_NOSYSTEM`), so that the user's git
/// config is never read or written, and bare remotes on local disk — no network.
public final class GitSandbox {
  /// The folder everything lives in.
  public let folder: TemporaryFolder
  /// The `HOME` git sees.
  public let home: String
  /// The global config git reads and writes.
  public let globalConfig: String
  /// The variables every git run of this sandbox gets.
  public let environment: [String: String]
  /// A runner of the real git with that environment.
  public let runner: SystemGitRunner

  /// A sandbox whose global config names a user when `identity` is set (a fresh machine
  /// has none) and makes `main` the first branch of a new repository.
  public init(_ label: String = "git", identity: Bool = true) throws {
    folder = try TemporaryFolder(label)
    home = folder.path("home")
    globalConfig = folder.path("home/gitconfig")
    try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
    var config = "[init]\n\tdefaultBranch = main\n[advice]\n\tdetachedHead = false\n"
    if identity { config += "[user]\n\tname = Test User\n\temail = test@example.com\n" }
    try Data(config.utf8).write(to: URL(fileURLWithPath: globalConfig))
    environment = [
      "HOME": home, "GIT_CONFIG_GLOBAL": globalConfig, "GIT_CONFIG_NOSYSTEM": "1",
      "XDG_CONFIG_HOME": folder.path("home/.config"),
    ]
    runner = SystemGitRunner(environment: environment)
  }

  /// A new bare repository at `name` in the sandbox, for a remote; its path.
  public func makeBareRemote(_ name: String = "remote.git") throws -> String {
    let path = folder.path(name)
    let output = try git(["init", "--quiet", "--bare", path], in: folder.path)
    guard output.succeeded else {
      throw SandboxError("git init --bare failed: \(output.lastErrorLine)")
    }
    return path
  }

  /// Runs git with `arguments` in `folder` with the sandbox's environment.
  @discardableResult
  public func git(_ arguments: [String], in folder: String, input: [UInt8]? = nil) throws
    -> GitOutput
  {
    try runner.run(arguments, in: folder, environment: [:], input: input)
  }

  /// Runs git and returns its standard output without the last newline.
  /// - Throws: when git fails.
  @discardableResult
  public func text(_ arguments: [String], in folder: String) throws -> String {
    let output = try git(arguments, in: folder)
    guard output.succeeded else {
      throw SandboxError("git \(arguments.joined(separator: " ")): \(output.lastErrorLine)")
    }
    var text = output.text
    while text.hasSuffix("\n") { text.removeLast() }
    return text
  }
}

/// A test's own setup went wrong.
public struct SandboxError: Error, CustomStringConvertible {
  /// What went wrong.
  public var description: String

  /// An error saying `description`.
  public init(_ description: String) { self.description = description }
}
