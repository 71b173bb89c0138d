import Foundation
import Testing

@testable import DocsShell

@Suite struct InvocationParsingTests {
  @Test func parsesEveryOption() throws {
    let invocation = try Invocation(arguments: [
      "-s", "a.json", "-c", "ls", "--command=pwd", "-y", "--no-save", "--color", "never",
    ])
    #expect(invocation.storePath == "a.json")
    #expect(invocation.commands == ["ls", "pwd"])
    #expect(invocation.assumeYes)
    #expect(invocation.noSave)
    #expect(invocation.color == .never)
  }

  @Test func parsesThePagerAndStartupFileOptions() throws {
    let plain = try Invocation(arguments: [])
    #expect(!plain.noPager && !plain.noStartupFile)
    let both = try Invocation(arguments: ["--no-pager", "--no-rc"])
    #expect(both.noPager && both.noStartupFile)
  }

  @Test func findsTheStartupFileInXDGConfigThenHome() {
    #expect(
      Invocation.startupFilePath(environment: ["XDG_CONFIG_HOME": "/c", "HOME": "/h"])
        == "/c/docsh/docshrc")
    #expect(
      Invocation.startupFilePath(environment: ["XDG_CONFIG_HOME": "rel", "HOME": "/h"])
        == "/h/.config/docsh/docshrc")
    #expect(Invocation.startupFilePath(environment: [:]) == nil)
  }

  @Test func acceptsAttachedAndBundledShortOptions() throws {
    let invocation = try Invocation(arguments: ["-sstore.json", "-yc", "ls"])
    #expect(invocation.storePath == "store.json")
    #expect(invocation.assumeYes)
    #expect(invocation.commands == ["ls"])
  }

  @Test(arguments: [
    (["--bogus"], "unknown option --bogus"),
    (["-x"], "unknown option -x"),
    (["-s"], "-s needs a value"),
    (["--color", "sometimes"], "--color takes auto, always or never, not \"sometimes\""),
    (["a.docsh", "b.docsh"], "one script at a time (got a.docsh b.docsh)"),
    (["-c", "ls", "a.docsh"], "give either -c or a SCRIPT, not both"),
    (["--yes=1"], "--yes takes no value"),
  ])
  func refusesBadInvocations(arguments: [String], message: String) {
    #expect {
      try Invocation(arguments: arguments)
    } throws: { error in
      (error as? InvocationError)?.description == message
    }
  }

  @Test func findsTheStoreByOptionThenEnvironmentThenXDGThenHome() throws {
    let plain = try Invocation(arguments: [])
    let withOption = try Invocation(arguments: ["-s", "/x/s.json"])
    #expect(withOption.resolvedStorePath(environment: ["DOCSH_STORE": "/y"]) == "/x/s.json")
    #expect(
      plain.resolvedStorePath(environment: ["DOCSH_STORE": "/y", "XDG_DATA_HOME": "/d"]) == "/y")
    #expect(
      plain.resolvedStorePath(environment: ["XDG_DATA_HOME": "/d", "HOME": "/h"])
        == "/d/docsh/store.json")
    #expect(
      plain.resolvedStorePath(environment: ["XDG_DATA_HOME": "relative", "HOME": "/h"])
        == "/h/.local/share/docsh/store.json")
    #expect(plain.resolvedStorePath(environment: [:]) == nil)
  }

  @Test func findsTheHistoryFileAndLetsDevNullTurnItOff() {
    #expect(
      Invocation.historyPath(environment: ["DOCSH_HISTORY": "/dev/null", "HOME": "/h"]) == nil)
    #expect(Invocation.historyPath(environment: ["DOCSH_HISTORY": "/x/h"]) == "/x/h")
    #expect(Invocation.historyPath(environment: ["XDG_STATE_HOME": "/s"]) == "/s/docsh/history")
    #expect(Invocation.historyPath(environment: ["HOME": "/h"]) == "/h/.local/state/docsh/history")
  }
}

/// The real binary: exit statuses, all-or-nothing runs, where the store is.
@Suite struct BinaryTests {
  let folder: DocshProcess.Folder
  let store: String

  init() throws {
    folder = try DocshProcess.Folder()
    store = folder.path("store.json")
  }

  func docsh(_ arguments: [String], input: String = "", environment: [String: String] = [:]) throws
    -> DocshProcess.Result
  {
    try DocshProcess.run(
      arguments, input: input, environment: environment, home: folder.path("home"))
  }

  @Test func printsVersionAndHelp() throws {
    let version = try docsh(["--version"])
    #expect(version.status == 0)
    #expect(version.output == Invocation.version + "\n")
    let help = try docsh(["-h"])
    #expect(help.status == 0)
    #expect(help.output.contains("usage: docsh [OPTIONS] [SCRIPT.docsh]"))
  }

  @Test func exitsWithTwoOnABadInvocation() throws {
    let result = try docsh(["--bogus"])
    #expect(result.status == 2)
    #expect(result.errors.hasPrefix("docsh: unknown option --bogus\n"))
    #expect(!FileManager.default.fileExists(atPath: store))
  }

  @Test func savesAtTheEndOfASuccessfulRun() throws {
    let first = try docsh(["-s", store, "-c", "mkdir Work; new Work/Plan hello", "-c", "ls Work"])
    #expect(first.status == 0)
    #expect(first.output.hasPrefix("Plan  5 B  "))
    let second = try docsh(["-s", store, "-c", "cat Work/Plan"])
    #expect(second.output == "hello")
  }

  @Test func stopsAtTheFirstFailureAndWritesNothingAfterTheLastSave() throws {
    let result = try docsh([
      "-s", store, "-c", "mkdir Kept\nsave\nmkdir Lost\ncat Nowhere/x\nmkdir Never",
    ])
    #expect(result.status == 1)
    #expect(result.errors == "-c:4: error: no category named \"Nowhere\"\n")
    let listing = try docsh(["-s", store, "-c", "ls"])
    #expect(listing.output.contains("Kept/"))
    #expect(!listing.output.contains("Lost/"))
    #expect(!listing.output.contains("Never/"))
  }

  @Test func reportsScriptErrorsWithFileAndLine() throws {
    let script = folder.path("bad.docsh")
    try "# comment\nmkdir A\n\nnew A/x <<END\none\nEND\nrm A/missing\n".write(
      toFile: script, atomically: true, encoding: .utf8)
    let result = try docsh(["-s", store, script])
    #expect(result.status == 1)
    #expect(result.errors == "\(script):7: error: no document named \"missing\" in \"A\"\n")
    #expect(!FileManager.default.fileExists(atPath: store))
  }

  @Test func readsCommandsFromAPipedStandardInput() throws {
    let result = try docsh(["-s", store], input: "mkdir Piped\nls\n")
    #expect(result.status == 0)
    #expect(result.output.hasPrefix("Piped/"))
  }

  @Test func discardsChangesWithNoSave() throws {
    let result = try docsh(["-s", store, "--no-save", "-c", "mkdir Gone"])
    #expect(result.status == 0)
    #expect(!FileManager.default.fileExists(atPath: store))
  }

  @Test func neverWaitsForAnAnswerWithoutYes() throws {
    _ = try docsh(["-s", store, "-c", "mkdir Work; new Work/a 1"])
    let refused = try docsh(["-s", store, "-c", "rmdir Work"])
    #expect(refused.status == 1)
    #expect(refused.errors.contains("cannot ask in a non-interactive run; use -f or --yes"))
    let stillThere = try docsh(["-s", store, "-c", "ls"])
    #expect(stillThere.output.contains("Work/"))
    let confirmed = try docsh(["-s", store, "--yes", "-c", "rmdir Work"])
    #expect(confirmed.status == 0)
    #expect(try docsh(["-s", store, "-c", "ls"]).output.isEmpty)
  }

  @Test func exitsWithThreeWhenTheStoreCannotBeRead() throws {
    try "{ not json".write(toFile: store, atomically: true, encoding: .utf8)
    let result = try docsh(["-s", store, "-c", "mkdir X"])
    #expect(result.status == 3)
    #expect(result.errors.contains("\(store):1:3: not a valid docsh store"))
    #expect(try String(contentsOfFile: store, encoding: .utf8) == "{ not json")
  }

  @Test func exitsWithThreeWhenTheStoreCannotBeWritten() throws {
    // A store whose folder is a file cannot be created.
    try "".write(toFile: folder.path("blocker"), atomically: true, encoding: .utf8)
    let result = try docsh(["-s", folder.path("blocker/store.json"), "-c", "mkdir X"])
    #expect(result.status == 3)
    #expect(result.errors.contains("blocker/store.json"))
  }

  @Test func usesTheStoreFromTheEnvironment() throws {
    let result = try docsh(["-c", "mkdir FromEnv"], environment: ["DOCSH_STORE": store])
    #expect(result.status == 0)
    #expect(FileManager.default.fileExists(atPath: store))
    let xdg = try docsh(["-c", "mkdir X"], environment: ["XDG_DATA_HOME": folder.path("data")])
    #expect(xdg.status == 0)
    #expect(FileManager.default.fileExists(atPath: folder.path("data/docsh/store.json")))
    let home = try docsh(["-c", "mkdir H"])
    #expect(home.status == 0)
    #expect(
      FileManager.default.fileExists(atPath: folder.path("home/.local/share/docsh/store.json")))
  }

  @Test func exportsAndImportsThroughTheBinary() throws {
    let exported = folder.path("exported")
    let first = try docsh([
      "-s", store, "-c", "mkdir 'Café ☕' -- -rf; new 'Café ☕/.menu' espresso; new -rf/-rf gone",
      "-c", "export \(exported)",
    ])
    #expect(first.status == 0, "\(first.errors)")
    #expect(
      try String(contentsOfFile: exported + "/Café ☕/.menu.md", encoding: .utf8) == "espresso")
    let other = folder.path("other.json")
    let second = try docsh(["-s", other, "-c", "import '\(exported)/Café ☕' \(exported)/-rf"])
    #expect(second.status == 0, "\(second.errors)")
    let before = try docsh(["-s", store, "-c", "ls --json 'Café ☕'; ls --json -- -rf"])
    let after = try docsh(["-s", other, "-c", "ls --json 'Café ☕'; ls --json -- -rf"])
    #expect(after.output == before.output)
    #expect(after.output.contains("\".menu\""))
    // Again: every name exists now, so nothing is imported and the run fails.
    let again = try docsh(["-s", other, "-c", "import \(exported)/-rf"])
    #expect(again.status == 1)
    #expect(
      again.errors
        == "-c:1: error: import: \(exported)/-rf: a category named \"-rf\" exists (use --replace to import into it)\n"
    )
  }

  @Test(arguments: ["tour", "journal", "reading-list", "tags-and-links"])
  func runsTheExamples(name: String) throws {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .deletingLastPathComponent()
      .deletingLastPathComponent()
    let script = root.appendingPathComponent("examples/\(name).docsh").path
    let result = try docsh(["-s", store, script])
    #expect(result.status == 0, "\(result.errors)")
    let listing = try docsh(["-s", store, "-c", "ls --json"])
    let categories =
      try JSONSerialization.jsonObject(with: Data(listing.output.utf8)) as? [[String: Any]]
    let expected: [String: [String]] = [
      "tour": ["Reading list", "Work"], "journal": ["Journal"],
      "reading-list": ["Finished", "Reading", "To read"], "tags-and-links": ["Notes", "Projects"],
    ]
    #expect(categories?.compactMap { $0["name"] as? String } == expected[name])
  }

  @Test func aReaderThatStopsEarlyLosesNoChanges() throws {
    // `docsh … | head -c 1`: the pipe closes while docsh still writes; the run still saves.
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    process.arguments = [
      "-c",
      "\"$0\" -s \"$1\" -c 'mkdir Kept; help; help; help; help' | head -c 1 > /dev/null; exit 0",
      DocshProcess.executable.path, store,
    ]
    process.environment = ["HOME": folder.path("home"), "PATH": "/usr/bin:/bin"]
    try process.run()
    process.waitUntilExit()
    #expect(try docsh(["-s", store, "-c", "ls"]).output.hasPrefix("Kept/"))
  }
}
