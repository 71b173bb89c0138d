import Foundation
import Testing

/// The man page, the completion scripts and the README against `docsh --help`, so that
/// none of them can drift from the options docsh really has; and `make install-data`.
@Suite struct DocumentationTests {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()

  static func text(_ path: String) throws -> String {
    try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
  }

  static func isInstalled(_ program: String) -> Bool {
    ["/usr/bin", "/bin", "/usr/local/bin"].contains {
      FileManager.default.isExecutableFile(atPath: "\($0)/\(program)")
    }
  }

  /// Runs `arguments` in the repository; its status, standard output and error.
  static func run(_ arguments: [String]) throws -> (status: Int32, output: String, errors: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = arguments
    process.currentDirectoryURL = root
    let output = Pipe()
    let errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    try process.run()
    let outputData = output.fileHandleForReading.readDataToEndOfFile()
    let errorData = errors.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (
      process.terminationStatus, String(decoding: outputData, as: UTF8.self),
      String(decoding: errorData, as: UTF8.self)
    )
  }

  /// Every option `docsh --help` lists in its options section: `-s`, `--store`, ….
  static func helpOptions() throws -> [String] {
    let folder = try DocshProcess.Folder()
    let help = try DocshProcess.run(["--help"], home: folder.path("home")).output
    guard let start = help.range(of: "options:\n") else { return [] }
    let section = help[start.upperBound...].prefix { _ in true }
    let lines = section.split(separator: "\n", omittingEmptySubsequences: false).prefix {
      !$0.isEmpty
    }
    var options: [String] = []
    for line in lines {
      let words = line.split(separator: " ").map {
        $0.hasSuffix(",") ? String($0.dropLast()) : String($0)
      }
      for word in words.prefix(3) where word.wholeMatch(of: /--?[a-z][a-z-]*/) != nil {
        options.append(word)
      }
    }
    return options
  }

  /// Whether `option` stands in `text` as a word of its own (`-s` is not found in `--store`).
  static func mentions(_ text: String, _ option: String) -> Bool {
    var searchStart = text.startIndex
    while let range = text.range(of: option, range: searchStart..<text.endIndex) {
      let before =
        range.lowerBound == text.startIndex ? nil : text[text.index(before: range.lowerBound)]
      let after = range.upperBound == text.endIndex ? nil : text[range.upperBound]
      let isWordCharacter = { (character: Character?) in
        character.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" } ?? false
      }
      if !isWordCharacter(before) && !isWordCharacter(after) { return true }
      searchStart = range.upperBound
    }
    return false
  }

  @Test func helpListsTheOptionsThisTestChecks() throws {
    let options = try Self.helpOptions()
    for option in [
      "-s", "--store", "-c", "--command", "--no-pager", "--no-rc", "--check", "--version",
    ] {
      #expect(options.contains(option), "\(option) not found in --help: \(options)")
    }
  }

  @Test(arguments: ["docs/docsh.1", "completions/docsh.bash", "completions/_docsh", "README.md"])
  func mentionsEveryOptionOfHelp(path: String) throws {
    var text = try Self.text(path)
    if path.hasSuffix(".1") { text = text.replacingOccurrences(of: "\\-", with: "-") }
    let options = try Self.helpOptions()
    #expect(!options.isEmpty)
    for option in options {
      #expect(Self.mentions(text, option), "\(path) does not mention \(option)")
    }
  }

  @Test func theBashCompletionIsValidAndCompletesOptions() throws {
    let syntax = try Self.run(["bash", "-n", "completions/docsh.bash"])
    #expect(syntax.status == 0, "\(syntax.errors)")
    let completed = try Self.run([
      "bash", "-c",
      "source completions/docsh.bash; COMP_WORDS=(docsh --no-); COMP_CWORD=1; _docsh; printf '%s\\n' \"${COMPREPLY[@]}\"",
    ])
    #expect(completed.output == "--no-save\n--no-pager\n--no-rc\n", "\(completed.errors)")
    let color = try Self.run([
      "bash", "-c",
      "source completions/docsh.bash; COMP_WORDS=(docsh --color a); COMP_CWORD=2; _docsh; printf '%s\\n' \"${COMPREPLY[@]}\"",
    ])
    #expect(color.output == "auto\nalways\n")
  }

  @Test(
    .enabled(
      if: isInstalled("zsh"), "zsh is not installed: the zsh completion's syntax is not checked"))
  func theZshCompletionIsValid() throws {
    let syntax = try Self.run(["zsh", "-n", "completions/_docsh"])
    #expect(syntax.status == 0, "\(syntax.errors)")
  }

  @Test(.enabled(if: isInstalled("groff"), "groff is not installed: the man page is not rendered"))
  func theManPageRendersWithoutWarnings() throws {
    let rendered = try Self.run(["groff", "-man", "-Tutf8", "-ww", "docs/docsh.1"])
    #expect(rendered.status == 0)
    #expect(rendered.errors == "")
    // grotty makes bold by overstriking (S\bS): take the overstrikes away first.
    let plain = rendered.output.replacing(/.\x{8}/, with: "")
    #expect(plain.contains("a shell for plain-text documents in categories"))
    #expect(plain.contains("STARTUP FILE"))
  }

  @Test(.enabled(if: isInstalled("make"), "make is not installed"))
  func installDataPutsTheManPageAndCompletionsInPlace() throws {
    let folder = try DocshProcess.Folder()
    let result = try Self.run([
      "make", "-s", "install-data", "DESTDIR=\(folder.url.path)", "PREFIX=/usr",
    ])
    #expect(result.status == 0, "\(result.errors)")
    for (installed, source) in [
      ("usr/share/man/man1/docsh.1", "docs/docsh.1"),
      ("usr/share/bash-completion/completions/docsh", "completions/docsh.bash"),
      ("usr/share/zsh/site-functions/_docsh", "completions/_docsh"),
    ] {
      let copy = try String(contentsOfFile: folder.path(installed), encoding: .utf8)
      #expect(copy == (try Self.text(source)), "\(installed)")
    }
  }
}
