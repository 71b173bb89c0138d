import DocsKit
import DocsTestSupport
import Foundation
import Testing

/// One machine of a sync test driven through the real `docsh` binary: a home of its own
/// (`HOME`, its own global git config, caches), a store in `NAME/notes/`, and git run with
/// that environment. The remotes are bare repositories on local disk; nothing reaches the
/// network.
final class SyncMachine {
  /// The sandbox the machine lives in, kept as long as the machine is.
  let sandbox: GitSandbox
  let name: String
  /// The machine's `HOME`.
  let home: String
  /// Its global git config (`GIT_CONFIG_GLOBAL`).
  let globalConfig: String
  /// The store file.
  let storePath: String
  /// What every docsh and git run of this machine gets.
  let environment: [String: String]
  /// git with that environment, for the test's own git commands.
  let runner: SystemGitRunner

  /// A machine in `sandbox`'s folder; `identity` gives its global git config a user, as a
  /// configured machine has (a fresh one has none).
  init(_ name: String, in sandbox: GitSandbox, identity: Bool = true) throws {
    self.sandbox = sandbox
    self.name = name
    home = sandbox.folder.path("\(name)/home")
    globalConfig = home + "/gitconfig"
    storePath = sandbox.folder.path("\(name)/notes/store.json")
    try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
    var config = "[init]\n\tdefaultBranch = main\n[advice]\n\tdetachedHead = false\n"
    if identity { config += "[user]\n\tname = \(name) user\n\temail = \(name)@example.com\n" }
    try Data(config.utf8).write(to: URL(fileURLWithPath: globalConfig))
    environment = [
      "GIT_CONFIG_GLOBAL": globalConfig, "GIT_CONFIG_NOSYSTEM": "1",
      "XDG_CONFIG_HOME": home + "/.config", "XDG_CACHE_HOME": home + "/.cache",
      "XDG_STATE_HOME": home + "/.state", "XDG_DATA_HOME": home + "/.data",
    ]
    var gitEnvironment = environment
    gitEnvironment["HOME"] = home
    runner = SystemGitRunner(environment: gitEnvironment)
  }

  /// The store's folder, the top of its work tree once synced.
  var folder: String { (storePath as NSString).deletingLastPathComponent }

  // MARK: - docsh

  /// Runs `docsh --store STORE` with `arguments` (`["-c", "ls"]`) as this machine;
  /// `extra` is added to the environment (`PATH` with a wrapped git, say).
  @discardableResult
  func docsh(_ arguments: [String], input: String = "", extra: [String: String] = [:]) throws
    -> DocshProcess.Result
  {
    try DocshProcess.run(
      ["--store", storePath] + arguments, input: input,
      environment: environment.merging(extra) { $1 }, home: home)
  }

  /// Runs the commands `script` (`docsh -c SCRIPT`).
  @discardableResult
  func run(_ script: String, extra: [String: String] = [:]) throws -> DocshProcess.Result {
    try docsh(["-c", script], extra: extra)
  }

  /// Runs `script`, which must succeed; its standard output.
  @discardableResult
  func succeed(
    _ script: String, extra: [String: String] = [:],
    sourceLocation: SourceLocation = #_sourceLocation
  ) throws -> String {
    let result = try run(script, extra: extra)
    #expect(
      result.status == 0, "\(name): \(script) exited \(result.status): \(result.errors)",
      sourceLocation: sourceLocation)
    return result.output
  }

  /// `sync` (or `sync REMOTE` the first time), which must succeed; what it printed, the
  /// day in conflict names replaced by `DATE`.
  @discardableResult
  func sync(
    _ remote: String? = nil, sourceLocation: SourceLocation = #_sourceLocation
  ) throws -> String {
    let result = try run(remote.map { "sync '\($0)'" } ?? "sync")
    #expect(
      result.status == 0, "\(name): sync exited \(result.status): \(result.errors)",
      sourceLocation: sourceLocation)
    #expect(result.errors == "", "\(name): sync", sourceLocation: sourceLocation)
    return SyncMachine.withoutDates(result.output)
  }

  /// `text` with the day of every conflict sibling's name (`Plan (conflict 2026-12-01)`)
  /// replaced by `DATE`: the binary names them after today.
  static func withoutDates(_ text: String) -> String {
    text.replacing(/\(conflict \d{4}-\d{2}-\d{2}/, with: "(conflict DATE")
  }

  // MARK: - The store as any reader sees it

  /// Every category (`Work/` → "") and document (`Work/Plan` → its content) of the store
  /// file, read with DocsKit; conflict dates replaced by `DATE`.
  func contents() throws -> [String: String] {
    let context = try Context(store: JSONStore(path: storePath))
    var result: [String: String] = [:]
    for category in context.categories() {
      result[SyncMachine.withoutDates(category.name.text + "/")] = ""
      for document in try context.documents(in: category.id) {
        result[SyncMachine.withoutDates(category.name.text + "/" + document.name.text)] =
          try context.content(of: document.id)
      }
    }
    return result
  }

  /// The store file's bytes.
  func storeBytes() throws -> Data {
    try Data(contentsOf: URL(fileURLWithPath: storePath))
  }

  // MARK: - git

  /// Runs git in the store's folder as this machine.
  @discardableResult
  func git(_ arguments: [String], input: [UInt8]? = nil) throws -> GitOutput {
    try runner.run(arguments, in: folder, environment: [:], input: input)
  }

  /// git's standard output without its last newline; the test fails when git does.
  @discardableResult
  func gitText(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws
    -> String
  {
    let output = try git(arguments)
    #expect(
      output.succeeded, "git \(arguments.joined(separator: " ")): \(output.lastErrorLine)",
      sourceLocation: sourceLocation)
    var text = output.text
    while text.hasSuffix("\n") { text.removeLast() }
    return text
  }

  /// The subjects of the branch's commits, newest first.
  func subjects() throws -> [String] {
    try gitText(["log", "--format=%s"]).split(separator: "\n").map(String.init)
  }

  /// What HEAD's tree holds, read as a person's tools would (a file per document, a folder
  /// per category), as `Category/Name` → content.
  func committedContents() throws -> [String: String] {
    var result: [String: String] = [:]
    let paths = try gitText(["ls-tree", "-r", "--name-only", "HEAD"]).split(separator: "\n")
    for path in paths {
      let parts = path.split(separator: "/")
      // The layout's marker (`.docsh/layout`) and guard folders (each holding only
      // `.docsh-layout`) are no categories.
      guard parts.count == 2, parts[1] != ".docsh-layout",
        let category = FileNameEncoding.decode(String(parts[0]))
      else { continue }
      result[SyncMachine.withoutDates(category.text + "/")] = ""
      // A document is NAME.md.
      guard parts[1].hasSuffix(".md"),
        let name = FileNameEncoding.decode(String(parts[1].dropLast(3)))
      else { continue }
      let bytes = try git(["cat-file", "blob", "HEAD:" + path]).output
      if case .docsh(_, _, let content, _) = DocumentFile.parse(bytes) {
        result[SyncMachine.withoutDates(category.text + "/" + name.text)] = content
      }
    }
    return result
  }

  /// Whether HEAD's tree holds exactly what the store file holds.
  func headHoldsTheStore() throws -> Bool {
    try committedContents() == contents()
  }
}

/// A laptop and a desktop in one sandbox, and the bare remote they sync with.
struct TwoMachines {
  let sandbox: GitSandbox
  let remote: String
  let laptop: SyncMachine
  let desktop: SyncMachine

  init(_ label: String) throws {
    sandbox = try GitSandbox(label)
    remote = try sandbox.makeBareRemote()
    laptop = try SyncMachine("laptop", in: sandbox)
    desktop = try SyncMachine("desktop", in: sandbox)
  }

  /// The number the environment variable `name` holds, else `fallback`: a test's seed or
  /// size, changed to replay or to try harder.
  static func setting<Number: FixedWidthInteger>(_ name: String, else fallback: Number)
    -> Number
  {
    ProcessInfo.processInfo.environment[name].flatMap { Number($0) } ?? fallback
  }
}

/// A folder of programs put first on `PATH`: a `git` that writes each call's arguments to a
/// log (one line each) before running the real one, and can run something first.
struct WrappedGit {
  let folder: String
  /// The file the calls are written to.
  let log: String

  /// A wrapper in `folder`; `before` is shell code run before every call (`$*` holds its
  /// arguments).
  init(in folder: String, before: String = "") throws {
    self.folder = folder
    log = folder + "/calls"
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    let script = """
      #!/bin/sh
      printf '%s\\n' "$*" >> '\(log)'
      \(before)
      exec /usr/bin/git "$@"

      """
    let path = folder + "/git"
    try Data(script.utf8).write(to: URL(fileURLWithPath: path))
    try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path)
  }

  /// The environment that makes docsh run this git.
  var environment: [String: String] { ["PATH": folder + ":/usr/bin:/bin"] }

  /// Forgets the calls made so far.
  func reset() throws {
    try Data().write(to: URL(fileURLWithPath: log))
  }

  /// The calls made so far, one line of arguments each.
  func calls() -> [String] {
    guard let text = try? String(contentsOfFile: log, encoding: .utf8) else { return [] }
    return text.split(separator: "\n").map(String.init)
  }
}
