import DocsTestSupport
import Foundation
import Testing

@testable import DocsKit

/// The real git runner: an argument array, no shell, both outputs however large, the
/// environment kept and completed, a missing git a clear error.
@Suite struct GitRunnerTests {
  let sandbox: GitSandbox

  init() throws {
    sandbox = try GitSandbox("runner")
  }

  @Test func gitRunsInTheFolderGivenWithTheArgumentsAsTheyAre() throws {
    let folder = sandbox.folder.path("has space; and $(quotes)")
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    #expect(try sandbox.git(["init", "--quiet"], in: folder).succeeded)
    let output = try sandbox.git(["rev-parse", "--show-toplevel"], in: folder)
    #expect(output.status == 0)
    #expect(
      output.lines == [Substring(URL(fileURLWithPath: folder).resolvingSymlinksInPath().path)])
    // An argument that a shell would split or expand reaches git as one word.
    let message = "one 'word' $HOME `date`"
    let echoed = try sandbox.git(["-c", "alias.say=!printf %s", "say", message], in: folder)
    #expect(echoed.text == message)
  }

  @Test func standardInputReachesGit() throws {
    let output = try sandbox.git(
      ["hash-object", "--stdin"], in: sandbox.folder.path, input: Array("hello\n".utf8))
    #expect(output.lines == ["ce013625030ba8dba906f756967f9e9ca394464a"])
  }

  @Test func megabytesOnBothStreamsInEitherOrderNeverDeadlock() throws {
    let script =
      "!f() { head -c 3000000 /dev/zero | tr '\\0' e >&2; head -c 3000000 /dev/zero | tr '\\0' o; head -c 100 /dev/zero | tr '\\0' E >&2; }; f"
    let input = [UInt8](repeating: 0x61, count: 2_000_000)
    let output = try sandbox.git(
      ["-c", "alias.both=" + script, "both"], in: sandbox.folder.path, input: input)
    #expect(output.status == 0)
    #expect(output.output.count == 3_000_000)
    #expect(output.output.allSatisfy { $0 == UInt8(ascii: "o") })
    #expect(output.errorOutput.count == 3_000_100)
    #expect(output.errorOutput.last == UInt8(ascii: "E"))
  }

  @Test func aFailingGitIsAStatusAndItsLastLineNotAnError() throws {
    let output = try sandbox.git(
      ["rev-parse", "--verify", "no-such-thing"], in: sandbox.folder.path)
    #expect(output.status == 128)
    #expect(output.lastErrorLine.hasPrefix("not a git repository"))
  }

  @Test func theUsersEnvironmentIsKeptPlusTheRunnersAndTheCallsVariables() throws {
    let runner = SystemGitRunner(environment: sandbox.environment.merging(["DOCSH_A": "a"]) { $1 })
    let output = try runner.run(
      ["-c", "alias.env=!env", "env"], in: sandbox.folder.path, environment: ["DOCSH_B": "b"],
      input: nil)
    let variables = Set(output.lines.map(String.init))
    #expect(variables.contains("DOCSH_A=a"))
    #expect(variables.contains("DOCSH_B=b"))
    #expect(variables.contains("HOME=\(sandbox.home)"))
    let path = try #require(ProcessInfo.processInfo.environment["PATH"])
    // git puts its own folder first for an alias; the rest is the user's.
    #expect(variables.contains { $0.hasPrefix("PATH=") && $0.hasSuffix(path) })
  }

  @Test(arguments: [false, true])
  func gitMayPromptOnlyWhenSomebodyCanAnswer(canPrompt: Bool) throws {
    let runner = SystemGitRunner(environment: sandbox.environment, canPrompt: canPrompt)
    let output = try runner.run(
      ["-c", "alias.env=!env", "env"], in: sandbox.folder.path, environment: [:], input: nil)
    let promptOff = output.lines.contains("GIT_TERMINAL_PROMPT=0")
    #expect(promptOff == !canPrompt)
  }

  @Test func gitSpeaksEnglishWhateverLanguageTheUserChose() throws {
    let german = ["LANGUAGE": "de", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"]
    // The translations are installed here: plain git, asked the same, answers in German.
    let plain = Process()
    plain.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    plain.arguments = ["git", "-C", sandbox.folder.path, "rev-parse", "--verify", "nothing"]
    plain.environment = ProcessInfo.processInfo.environment.merging(
      sandbox.environment.merging(german) { $1 }
    ) { $1 }
    let errors = Pipe()
    plain.standardError = errors
    try plain.run()
    plain.waitUntilExit()
    let plainText = String(
      decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    #expect(!plainText.hasPrefix("fatal:"), "git printed English without being asked: \(plainText)")

    let runner = SystemGitRunner(environment: sandbox.environment.merging(german) { $1 })
    let output = try runner.run(
      ["rev-parse", "--verify", "nothing"], in: sandbox.folder.path, environment: german,
      input: nil)
    #expect(String(decoding: output.errorOutput, as: UTF8.self).hasPrefix("fatal: "))
    #expect(output.lastErrorLine.hasPrefix("not a git repository"))
  }

  @Test func aMissingGitIsAClearError() throws {
    let runner = SystemGitRunner(program: "/no/such/folder/git")
    #expect(throws: GitLaunchError.notFound("/no/such/folder/git")) {
      try runner.run(["--version"], in: sandbox.folder.path, environment: [:], input: nil)
    }
    #expect(
      GitLaunchError.notFound("git").description
        == "'git' was not found: install git (Debian: apt-get install git) to sync")
  }
}
