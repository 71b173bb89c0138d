import DocsTestSupport
import Foundation
import Synchronization
import Testing

@testable import DocsKit

/// Every git process docsh starts holds bounded memory (``Git/memoryBounds``): the settings
/// reach each process, those at the other end of a fetch or push to a repository on this
/// machine included, and the packs git writes under them stay valid.
@Suite struct GitMemoryBoundsTests {
  /// A runner that answers `remote get-url` with `url` (`--push`: `pushURLs`) and every
  /// other command with success, recording each call's arguments and environment.
  final class RecordingRunner: GitRunner {
    let url: String
    let pushURLs: [String]
    let calls = Mutex<[(arguments: [String], environment: [String: String])]>([])

    init(url: String, pushURLs: [String]? = nil) {
      self.url = url
      self.pushURLs = pushURLs ?? [url]
    }

    func run(
      _ arguments: [String], in folder: String, environment: [String: String], input: [UInt8]?
    ) throws(GitLaunchError) -> GitOutput {
      calls.withLock { $0.append((arguments, environment)) }
      if arguments.starts(with: ["remote", "get-url", "--push"]) {
        return GitOutput(status: 0, output: Array(pushURLs.map { $0 + "\n" }.joined().utf8))
      }
      if arguments.starts(with: ["remote", "get-url"]) {
        return GitOutput(status: 0, output: Array((url + "\n").utf8))
      }
      return GitOutput(status: 0)
    }

    /// The calls of the git command `name`.
    func calls(of name: String) -> [(arguments: [String], environment: [String: String])] {
      calls.withLock { $0.filter { $0.arguments.first == name } }
    }
  }

  /// What `environment` sets through `GIT_CONFIG_COUNT`, as git reads it (the last wins).
  static func configuration(in environment: [String: String]) -> [String: String] {
    var settings: [String: String] = [:]
    for index in 0..<(environment["GIT_CONFIG_COUNT"].flatMap { Int($0) } ?? 0) {
      if let key = environment["GIT_CONFIG_KEY_\(index)"] {
        settings[key] = environment["GIT_CONFIG_VALUE_\(index)"]
      }
    }
    return settings
  }

  static let boundsOption =
    "git -c core.packedGitWindowSize=1m -c core.packedGitLimit=16m"
    + " -c core.deltaBaseCacheLimit=16m -c pack.windowMemory=16m -c pack.deltaCacheSize=16m"

  @Test(arguments: [
    ("/srv/notes.git", true), ("file:///srv/notes.git", true), ("../notes.git", true),
    ("notes.git", true), ("./odd:name.git", true), ("host:notes.git", false),
    ("git@example.com:me/notes.git", false), ("ssh://example.com/notes.git", false),
    ("https://example.com/me/notes.git", false),
  ])
  func aRemoteIsOnThisMachineByGitsOwnRule(url: String, local: Bool) {
    #expect(GitSettings.isOnThisMachine(url: url) == local)
  }

  @Test func everyGitRunCarriesTheBoundsAfterWhatTheEnvironmentAlreadyGives() throws {
    let runner = RecordingRunner(url: "/srv/notes.git")
    let git = Git(runner: runner, folder: "/nowhere")
    try git.fetch(remote: "origin")
    _ = try git.push("HEAD", to: "origin", branch: "main")
    _ = try git.head()
    let calls = runner.calls.withLock { $0 }
    #expect(calls.count == 5)
    for call in calls {
      let settings = Self.configuration(in: call.environment)
      for bound in GitSettings.memoryBounds {
        #expect(settings[bound.key] == bound.value, "\(call.arguments)")
      }
      #expect(settings["core.hooksPath"] == "/dev/null")
    }
  }

  @Test func aFetchOrPushWithARepositoryOnThisMachineBoundsTheGitAtTheOtherEnd() throws {
    let runner = RecordingRunner(url: "/srv/notes.git")
    let git = Git(runner: runner, folder: "/nowhere")
    try git.fetch(remote: "origin", refspecs: ["+refs/heads/main:refs/remotes/origin/main"])
    _ = try git.push("HEAD", to: "origin", branch: "main")
    let fetch = try #require(runner.calls(of: "fetch").first)
    #expect(fetch.arguments.contains("--upload-pack=" + Self.boundsOption + " upload-pack"))
    #expect(fetch.arguments.suffix(2) == ["origin", "+refs/heads/main:refs/remotes/origin/main"])
    let push = try #require(runner.calls(of: "push").first)
    #expect(push.arguments.contains("--receive-pack=" + Self.boundsOption + " receive-pack"))
    #expect(push.arguments.suffix(2) == ["origin", "HEAD:refs/heads/main"])
  }

  @Test func aPushToARemoteWhosePushURLIsElsewhereAsksForNothingButGitsOwnCommand() throws {
    let runner = RecordingRunner(url: "/srv/notes.git", pushURLs: ["/srv/notes.git", "host:notes"])
    let git = Git(runner: runner, folder: "/nowhere")
    try git.fetch(remote: "origin")
    _ = try git.push("HEAD", to: "origin", branch: "main")
    #expect(
      try #require(runner.calls(of: "fetch").first).arguments.contains {
        $0.hasPrefix("--upload-pack=")
      })
    #expect(
      !(try #require(runner.calls(of: "push").first).arguments.contains {
        $0.hasPrefix("--receive-pack")
      }))
  }

  @Test(arguments: ["git@example.com:me/notes.git", "https://example.com/me/notes.git"])
  func aRemoteElsewhereIsAskedForNothingButGitsOwnCommand(url: String) throws {
    let runner = RecordingRunner(url: url)
    let git = Git(runner: runner, folder: "/nowhere")
    try git.fetch(remote: "origin")
    _ = try git.push("HEAD", to: "origin", branch: "main")
    for call in runner.calls(of: "fetch") + runner.calls(of: "push") {
      #expect(!call.arguments.contains { $0.hasPrefix("--upload-pack") })
      #expect(!call.arguments.contains { $0.hasPrefix("--receive-pack") })
    }
  }

  /// Two machines through a bare remote on local disk, with git's trace2 events on: every
  /// git process of a push and a fetch — `pack-objects`, `upload-pack`, `receive-pack` and
  /// `index-pack` at both ends — reports the bounds as its configuration, and every
  /// repository passes `git fsck --strict` afterwards.
  @Test func everyGitProcessOfAPushAndAFetchRunsBoundedAndThePacksAreValid() throws {
    let sandbox = try GitSandbox("memory-bounds")
    let remote = try sandbox.makeBareRemote()
    let trace = sandbox.folder.path("trace2.json")
    let traced = SystemGitRunner(
      environment: sandbox.environment.merging([
        "GIT_TRACE2_EVENT": trace,
        "GIT_TRACE2_CONFIG_PARAMS": GitSettings.memoryBounds.map(\.key).joined(separator: ","),
      ]) { $1 })
    let laptop = try Machine("laptop", in: sandbox, number: 1, runner: traced)
    let desktop = try Machine("desktop", in: sandbox, number: 2, runner: traced)
    // Versions of a document of 80 KB, pushed together: pack-objects searches deltas.
    let base = (0..<3000).map { "line \($0) of a long plan\n" }.joined()
    try laptop.edit { try put(base, at: "Work", "Plan", in: $0) }
    try laptop.setUp(remote: remote)
    try laptop.sync()
    for version in 1...3 {
      try laptop.edit { try put(base + "version \(version)\n", at: "Work", "Plan", in: $0) }
    }
    try laptop.sync()
    try desktop.setUp(remote: remote)
    try desktop.sync()
    #expect(try desktop.contents()["Work/Plan"] == base + "version 3\n")

    let processes = try Self.processes(inTrace: trace)
    let names = Set(processes.values.map(\.name))
    for name in ["pack-objects", "upload-pack", "receive-pack", "index-pack", "fetch", "push"] {
      #expect(names.contains(name), "\(names.sorted())")
    }
    // git lists the refs of the repository it pushes to (`rev-list --alternate-refs`) through
    // a `for-each-ref --git-dir=…` it runs with that repository's own configuration only.
    let bounded = processes.values.filter {
      !($0.name == "for-each-ref" && $0.arguments.contains { $0.hasPrefix("--git-dir=") })
    }
    #expect(bounded.count > 10)
    for process in bounded {
      for bound in GitSettings.memoryBounds {
        #expect(
          process.settings[bound.key.lowercased()] == bound.value,
          "\(process.name): \(process.settings)")
      }
    }
    for repository in [remote, laptop.folder, desktop.folder] {
      let fsck = try sandbox.git(["fsck", "--full", "--strict", "--no-dangling"], in: repository)
      #expect(fsck.succeeded, "\(repository): \(String(decoding: fsck.errorOutput, as: UTF8.self))")
    }
  }

  /// A git process as its trace2 events tell it.
  struct TracedProcess {
    var name = ""
    var arguments: [String] = []
    /// The configuration it reported (`def_param`), keys in lower case.
    var settings: [String: String] = [:]
  }

  /// The git processes of a trace2 event file, by their session ids.
  static func processes(inTrace path: String) throws -> [String: TracedProcess] {
    var processes: [String: TracedProcess] = [:]
    let text = try String(contentsOfFile: path, encoding: .utf8)
    for line in text.split(separator: "\n") {
      let object = try JSONSerialization.jsonObject(with: Data(line.utf8))
      guard let event = object as? [String: Any], let sid = event["sid"] as? String,
        let kind = event["event"] as? String
      else { continue }
      switch kind {
      case "start":
        processes[sid, default: TracedProcess()].arguments = event["argv"] as? [String] ?? []
      case "cmd_name":
        processes[sid, default: TracedProcess()].name = event["name"] as? String ?? ""
      case "def_param":
        if let key = event["param"] as? String, let value = event["value"] as? String {
          processes[sid, default: TracedProcess()].settings[key] = value
        }
      default: break
      }
    }
    return processes
  }
}
