import Foundation
import Testing

@testable import DocsShell

@Suite struct PagerTests {
  /// A pager program that records what it was given and exits with `status`.
  final class Recorder: PagerLaunching {
    var calls: [(command: String, output: String)] = []
    let status: Int32

    init(status: Int32 = 0) {
      self.status = status
    }

    func run(_ command: String, input output: [UInt8]) -> Int32 {
      calls.append((command, String(decoding: output, as: UTF8.self)))
      return status
    }
  }

  static func lines(_ count: Int) -> String {
    (1...count).map { "line \($0)\n" }.joined()
  }

  /// A harness whose REPL pages through a recorder, in a window of `rows` rows.
  func makeHarness(rows: Int, status: Int32 = 0) throws -> (ShellHarness, Recorder) {
    let recorder = Recorder(status: status)
    let harness = try ShellHarness(
      pager: Pager(command: "test-pager", rows: { rows }, launcher: recorder))
    harness.run("mkdir Work; cd Work")
    harness.run("new Long", more: [])
    harness.run(
      "write Long <<END", more: Self.lines(50).split(separator: "\n").map(String.init) + ["END"])
    harness.run("new Short <<END", more: ["one", "two", "END"])
    return (harness, recorder)
  }

  @Test(arguments: [("", 0), ("a", 1), ("a\n", 1), ("a\nb", 2), ("\n\n\n", 3)])
  func countsLines(text: String, count: Int) {
    #expect(Pager.lineCount(of: Array(text.utf8)) == count)
  }

  @Test func pagesWhatDoesNotFitAboveThePrompt() {
    let pager = Pager(command: "x", rows: { 10 })
    #expect(!pager.needsPaging(Array(Self.lines(9).utf8)))
    #expect(pager.needsPaging(Array(Self.lines(10).utf8)))
  }

  @Test func longOutputGoesThroughThePagerAndNowhereElse() throws {
    let (harness, recorder) = try makeHarness(rows: 10)
    let result = harness.run("cat Long")
    #expect(result.output == "")
    #expect(recorder.calls.count == 1)
    #expect(recorder.calls.first?.command == "test-pager")
    #expect(recorder.calls.first?.output == Self.lines(50))
  }

  @Test func shortOutputIsWrittenAsItIs() throws {
    let (harness, recorder) = try makeHarness(rows: 10)
    #expect(harness.run("cat Short").output == "one\ntwo\n")
    #expect(harness.run("ls").output.contains("Short"))
    #expect(recorder.calls.isEmpty)
  }

  @Test func onlyTheCommandsThatPageDoSo() throws {
    let (harness, recorder) = try makeHarness(rows: 2)
    #expect(harness.run("info Long").output.contains("name:"))
    #expect(harness.run("pwd").output == "/Work\n")
    #expect(recorder.calls.isEmpty)
    // Every command whose output can pass a screen pages the same way (issue 40: find printed
    // a thousand lines past the pager).
    for command in ["ls", "help", "grep line", "cat Long", "find o", "wc Long Short"] {
      #expect(harness.run(command).output == "", "\(command) was not paged")
    }
    #expect(recorder.calls.count == 6)
  }

  @Test func aPagerThatCannotRunLosesNothing() throws {
    let (harness, _) = try makeHarness(rows: 10, status: 127)
    let result = harness.run("cat Long")
    #expect(result.output == Self.lines(50))
    #expect(
      result.errors
        == "docsh: the pager (test-pager) could not run; set DOCSH_PAGER or use --no-pager\n")
  }

  @Test func theEnvironmentChoosesThePager() throws {
    let rows = { 24 }
    #expect(
      Pager.fromEnvironment(["DOCSH_PAGER": "most", "PAGER": "more"], rows: rows)?.command == "most"
    )
    #expect(Pager.fromEnvironment(["PAGER": "more"], rows: rows)?.command == "more")
    #expect(Pager.fromEnvironment(["DOCSH_PAGER": "cat", "PAGER": "more"], rows: rows) == nil)
    #expect(Pager.fromEnvironment(["PAGER": " "], rows: rows) == nil)
    // The default, less -FRX, only when less is installed.
    let folder = try DocshProcess.Folder()
    #expect(Pager.fromEnvironment(["PATH": folder.url.path], rows: rows) == nil)
    let less = folder.path("less")
    try "#!/bin/sh\n".write(toFile: less, atomically: true, encoding: .utf8)
    chmod(less, 0o755)
    #expect(Pager.fromEnvironment(["PATH": folder.url.path], rows: rows)?.command == "less -FRX")
  }

  @Test func theHeightFallsBackToLinesThenTwentyFour() {
    #expect(Pager.terminalRows(of: -1, environment: ["LINES": "33"]) == 33)
    #expect(Pager.terminalRows(of: -1, environment: ["LINES": "zero"]) == 24)
    #expect(Pager.terminalRows(of: -1, environment: [:]) == 24)
  }
}
