import Foundation
import Testing

@testable import DocsShell

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

  /// The commands both completion scripts offer for `-c` are exactly the registry's.
  @Test(arguments: ["completions/docsh.bash", "completions/_docsh"])
  func completesTheCommandsOfDashC(path: String) throws {
    let text = try Self.text(path)
    let list =
      path.hasSuffix(".bash")
      ? try #require(text.firstMatch(of: /--command\)\s*mapfile[^']*'([^']*)'/)).output.1
      : try #require(text.firstMatch(of: /:command:\(([^)]*)\)/)).output.1
    let offered = list.split(whereSeparator: \.isWhitespace).map(String.init)
    #expect(offered.sorted() == CommandRegistry.allNames, "\(path)")
  }

  @Test func theBashCompletionCompletesCommandsAndMergeFiles() throws {
    let folder = try DocshProcess.Folder()
    for name in ["base.json", "script.docsh"] {
      #expect(FileManager.default.createFile(atPath: folder.path(name), contents: Data()))
    }
    func complete(_ words: String) throws -> String {
      try Self.run([
        "bash", "-c",
        "source '\(Self.root.path)/completions/docsh.bash'; cd '\(folder.path)'; COMP_WORDS=(\(words)); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _docsh; printf '%s\\n' \"${COMPREPLY[@]}\"",
      ]).output
    }
    #expect(try complete("docsh -c sy") == "sync\n")
    #expect(try complete("docsh -c re") == "revert\nredo\nrestore\n")
    // After --merge-file any file, not only scripts.
    #expect(try complete("docsh --merge-file b") == "base.json\n")
    #expect(try complete("docsh b") == "\n")
    #expect(try complete("docsh s") == "script.docsh\n")
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

  // MARK: - Against the declarations

  /// What `--help` lists of docsh's own options: every short name and the first long one
  /// (aliases such as `--colour` are accepted but not listed).
  static var documentedInvocationOptions: Set<String> {
    Set(
      Invocation.arguments.options.flatMap { option in
        option.names.filter { !$0.hasPrefix("--") }
          + option.names.filter { $0.hasPrefix("--") }.prefix(1)
      })
  }

  /// The options a text names: `-s`, `--no-save` (after roff's `\-` is undone).
  static func options(in text: some StringProtocol) -> Set<String> {
    let plain = String(text).replacingOccurrences(of: "\\-", with: "-")
    // An option starts a word: at the start or after a character that is no letter, digit or dash.
    return Set(
      plain.matches(of: /(?:^|[^\w-])(--?[a-z][a-z-]*)/.anchorsMatchLineEndings()).map {
        String($0.output.1)
      })
  }

  /// The options each completion script and the man page's OPTIONS section offer for docsh
  /// itself are exactly the declared ones, so none can be added or dropped in one place only.
  @Test(arguments: ["completions/docsh.bash", "completions/_docsh", "docs/docsh.1"])
  func offersExactlyTheDeclaredInvocationOptions(path: String) throws {
    let text = try Self.text(path)
    let offered: Set<String>
    switch path {
    case "completions/docsh.bash":
      let lists = text.matches(of: /compgen -W '([^']*)'/).map { String($0.output.1) }
      offered = Self.options(in: try #require(lists.first { $0.contains("--") }))
    case "completions/_docsh":
      let specs = text.split(separator: "\n").filter {
        $0.trimmingCharacters(in: .whitespaces).hasPrefix("'") && !$0.contains("'1:")
      }
      offered = Self.options(in: specs.joined(separator: "\n"))
    default:
      let start = try #require(text.range(of: ".SH OPTIONS\n"))
      let end = try #require(
        text.range(of: ".SH COMMANDS", range: start.upperBound..<text.endIndex))
      let lines = text[start.upperBound..<end.lowerBound].split(separator: "\n")
      let headings = zip(lines, lines.dropFirst()).filter { $0.0 == ".TP" }.map(\.1)
      offered = Self.options(in: headings.joined(separator: "\n"))
    }
    #expect(offered == Self.documentedInvocationOptions, "\(path)")
  }

  /// The man page names every command of the registry and no other, and the options it
  /// shows for a command are that command's declared ones.
  @Test func theManPageKnowsEveryCommandAndOnlyDeclaredOptions() throws {
    let text = try Self.text("docs/docsh.1")
    let start = try #require(text.range(of: "The commands are\n"))
    let end = try #require(text.range(of: ".TP", range: start.upperBound..<text.endIndex))
    let listed = Set(
      text[start.upperBound..<end.lowerBound].matches(of: /[a-z]+/).map { String($0.output) }
    )
    .subtracting(["and", "br"])
    let names = Set(CommandRegistry.commands.map { $0.configuration.name })
    #expect(listed == names)
    for heading in text.matches(of: /\n\.BI "([a-z]+) ([^\n]*)/) {
      let name = String(heading.output.1)
      let command = try #require(CommandRegistry.command(named: name), "\(name)")
      let declared = Set(command.configuration.arguments.options.flatMap(\.names))
      #expect(Self.options(in: heading.output.2).isSubset(of: declared), "\(name)")
    }
  }

  /// The README's command reference shows each command's usage line as docsh prints it.
  @Test func theReadmeShowsEveryCommandsUsage() throws {
    let readme = try Self.text("README.md")
    let start = try #require(readme.range(of: "### Commands\n"))
    let end = try #require(readme.range(of: "\n### ", range: start.upperBound..<readme.endIndex))
    let reference = readme[start.upperBound..<end.lowerBound]
    for command in CommandRegistry.commands {
      let usage = command.configuration.usage.replacingOccurrences(of: "|", with: "\\|")
      #expect(reference.contains("`\(usage)`"), "README lacks `\(usage)`")
    }
  }
}
