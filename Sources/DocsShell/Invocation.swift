/// Why docsh's own command line was refused.
enum InvocationError: Error, Equatable, Sendable {
  /// The words do not fit the declared options.
  case arguments(ArgumentError)
  /// More than one script was named.
  case severalScripts([String])
  /// Both `-c` and a script.
  case commandsAndScript
  /// `--merge-file` without BASE, CURRENT and OTHER (and at most PATH).
  case mergeFileNeedsThreeFiles
  /// No way to find the store: no `--store`, no `DOCSH_STORE`, no `HOME`.
  case noStore
  /// The script cannot be opened.
  case unreadableScript(path: String, errno: Int32)
  /// The first word is a docsh command and no file: `docsh ls`, with the `-c` run it meant.
  case commandWithoutC(String, suggestion: String)
}

extension InvocationError {
  /// The command word of ``commandWithoutC(_:suggestion:)``; `nil` for the other cases.
  var word: String? {
    if case .commandWithoutC(let word, _) = self { return word }
    return nil
  }
}

extension InvocationError: CustomStringConvertible {
  var description: String {
    switch self {
    case .arguments(let error): return error.description
    case .severalScripts(let paths):
      return "one script at a time (got \(paths.joined(separator: " ")))"
    case .commandsAndScript: return "give either -c or a SCRIPT, not both"
    case .mergeFileNeedsThreeFiles:
      return "--merge-file takes BASE CURRENT OTHER and optionally PATH, as git's %O %A %B %P"
    case .noStore: return "no store: give --store PATH or set DOCSH_STORE or HOME"
    case .unreadableScript(let path, let code): return "\(path): \(systemMessage(code))"
    case .commandWithoutC(let word, let suggestion):
      return "\(word): no such file; to run the docsh command, type: \(suggestion)"
    }
  }
}

/// How docsh was called: `docsh [OPTIONS] [SCRIPT.docsh]`, parsed with the same declarations
/// as the shell's commands.
struct Invocation: Equatable {
  enum ColorChoice: String, Equatable, CaseIterable, ExpressibleByArgument {
    case auto, always, never
  }

  var storePath: String?
  var commands: [String] = []
  var scriptPath: String?
  var assumeYes = false
  var noSave = false
  var color = ColorChoice.auto
  var showHelp = false
  var showVersion = false
  var check = false
  var checkpoint = false
  /// `--apply-log FILE`: the save log kept aside to apply to the store.
  var applyLog: String?
  var noPager = false
  var noStartupFile = false
  /// `--merge-file BASE CURRENT OTHER [PATH]`: merge three stores into CURRENT, as git's
  /// merge driver.
  var mergeFiles: MergeFiles?

  /// The three stores of `--merge-file`, as git names them (`%O %A %B`).
  struct MergeFiles: Equatable {
    var base: String
    var current: String
    var other: String
  }

  static let version = "docsh 0.1.0"

  // MARK: - The options, declared once

  static let store = ValueOption<String>(
    "-s", "--store", valueName: "PATH",
    help: """
      the store file (default: $DOCSH_STORE, else
      $XDG_DATA_HOME/docsh/store.json, else ~/.local/share/docsh/store.json)
      """)
  static let command = ValueOption<String>(
    "-c", "--command", valueName: "TEXT",
    help: """
      run TEXT instead of the REPL (commands on separate lines or
      separated by ';'); may repeat
      """)
  static let yes = OptionSpec.flag("-y", "--yes", help: "answer yes to every confirmation")
  static let noSaveOption = OptionSpec.flag(
    "--no-save",
    help: "at the end of a non-interactive run, discard changes instead of saving")
  static let colorOption = ValueOption<ColorChoice>(
    "--color", "--colour", valueName: "WHEN",
    help: """
      auto | always | never (auto: only on a terminal, never with
      NO_COLOR set or TERM=dumb)
      """)
  static let checkOption = OptionSpec.flag(
    "--check",
    help: """
      verify the store (format, ids, names, sizes against contents) and
      exit: 0 when sound, 1 when problems were found
      """)
  static let checkpointOption = OptionSpec.flag(
    "--checkpoint",
    help: """
      fold the save log into the store file now, so that the file alone
      holds every save, and exit (refused while other sessions have the
      store open)
      """)
  static let applyLogOption = ValueOption<String>(
    "--apply-log", valueName: "FILE",
    help: """
      apply the saves a save log kept aside holds (as 'check' lists
      them) to the store, save, remove FILE, and exit
      """)
  static let noPagerOption = OptionSpec.flag(
    "--no-pager", help: "in the REPL, never page long output")
  static let noRC = OptionSpec.flag("--no-rc", help: "do not run the startup file")
  static let mergeFile = OptionSpec.flag(
    "--merge-file",
    help: """
      BASE CURRENT OTHER [PATH]: merge three stores into CURRENT, as git's
      merge driver (%O %A %B %P); conflicts on standard error, exit 0
      (3 when an input is not a docsh store; CURRENT is then untouched)
      """)
  static let help = OptionSpec.flag("-h", "--help", help: "show this help")
  static let versionOption = OptionSpec.flag("--version", help: "show the version")

  /// docsh's own arguments.
  static let arguments = ArgumentSpec(
    options: [
      store.spec, command.spec, yes, noSaveOption, colorOption.spec, checkOption,
      checkpointOption, applyLogOption.spec, noPagerOption, noRC, mergeFile, help, versionOption,
    ],
    positionals: [PositionalSpec("SCRIPT.docsh", .zeroOrMore, completing: .file)])

  /// Parses the arguments after the program name.
  /// - Throws: ``InvocationError`` saying what is wrong with them.
  init(arguments words: [String]) throws(InvocationError) {
    let parsed: ParsedArguments
    do {
      parsed = try Invocation.arguments.parse(words)
    } catch {
      throw .arguments(error)
    }
    storePath = parsed.value(of: Invocation.store)
    commands = parsed.values(of: Invocation.command)
    assumeYes = parsed.isSet(Invocation.yes)
    noSave = parsed.isSet(Invocation.noSaveOption)
    do {
      color = try parsed.value(of: Invocation.colorOption) ?? .auto
    } catch {
      throw .arguments(error)
    }
    showHelp = parsed.isSet(Invocation.help)
    showVersion = parsed.isSet(Invocation.versionOption)
    check = parsed.isSet(Invocation.checkOption)
    checkpoint = parsed.isSet(Invocation.checkpointOption)
    applyLog = parsed.value(of: Invocation.applyLogOption)
    noPager = parsed.isSet(Invocation.noPagerOption)
    noStartupFile = parsed.isSet(Invocation.noRC)
    if parsed.isSet(Invocation.mergeFile) {
      let files = parsed.positionals
      guard (3...4).contains(files.count) else { throw .mergeFileNeedsThreeFiles }
      mergeFiles = MergeFiles(base: files[0], current: files[1], other: files[2])
      return
    }
    guard parsed.positionals.count <= 1 else { throw .severalScripts(parsed.positionals) }
    scriptPath = parsed.positionals.first
    if scriptPath != nil && !commands.isEmpty { throw .commandsAndScript }
  }

  /// For `docsh ls Work` (a docsh command where a SCRIPT goes, and no file of that name as
  /// `exists` says): the error that suggests `docsh -c 'ls Work'`, as git suggests the
  /// command it guesses; `nil` when the words are anything else.
  static func commandWithoutC(
    in words: [String], exists: (String) -> Bool
  ) -> InvocationError? {
    let classified = arguments.classify(words)
    guard
      let position = classified.firstIndex(where: {
        if case .positional = $0 { return true }
        return false
      }),
      case .positional(let word) = classified[position],
      CommandRegistry.command(named: word) != nil, !exists(word),
      let start = words.firstIndex(of: word)
    else { return nil }
    let before = words[..<start].map(quotedForShell)
    let commandText = words[start...].map(Tokenizer.escapeWord).joined(separator: " ")
    let suggestion = (["docsh"] + before + ["-c", Tokenizer.singleQuoted(commandText)])
      .joined(separator: " ")
    return .commandWithoutC(word, suggestion: suggestion)
  }

  /// `word` as a POSIX shell reads it back: as it is when it holds only safe characters,
  /// else in single quotes.
  private static func quotedForShell(_ word: String) -> String {
    let safe = word.unicodeScalars.allSatisfy {
      $0.properties.isAlphabetic || $0.properties.numericType != nil
        || "-_./=:,@%+".unicodeScalars.contains($0)
    }
    return safe && !word.isEmpty ? word : Tokenizer.singleQuoted(word)
  }

  // MARK: - Help

  /// `docsh --help`, its options section made from the declarations.
  static var helpText: String {
    var lines = [
      "usage: docsh [OPTIONS] [SCRIPT.docsh]", "",
      "A shell for a store of plain-text documents in categories.", "", "options:",
    ]
    let column = 22
    for option in arguments.options {
      let shorts = option.names.filter { !$0.hasPrefix("--") }
      // Aliases such as --colour are accepted but not listed.
      let longs = option.names.filter { $0.hasPrefix("--") }.prefix(1)
      var names = (shorts + longs).joined(separator: ", ")
      if shorts.isEmpty { names = "    " + names }
      if let value = option.valueName { names += " " + value }
      let helpLines = option.help.split(separator: "\n", omittingEmptySubsequences: false)
      var first = "  " + names
      first += String(repeating: " ", count: max(2, column - first.count))
      lines.append(first + (helpLines.first.map(String.init) ?? ""))
      for more in helpLines.dropFirst() {
        lines.append(String(repeating: " ", count: column) + more)
      }
    }
    return (lines + ["", helpEpilogue]).joined(separator: "\n")
  }

  private static let helpEpilogue = """
    With no -c and no SCRIPT, docsh is a REPL when standard input is a terminal and reads
    commands from standard input otherwise. A non-interactive run stops at the first failing
    command and saves nothing after its last explicit 'save'; when every command succeeds,
    changes are saved at the end (unless --no-save).

    The REPL (only the REPL: never -c, a SCRIPT or piped input) first runs the startup file
    $XDG_CONFIG_HOME/docsh/docshrc, else ~/.config/docsh/docshrc; an error there is shown as
    FILE:LINE: error: …, skips the rest of the file, and the REPL starts anyway. Output
    longer than the screen goes through $DOCSH_PAGER, else $PAGER, else less -FRX.

    exit status: 0 success, 1 a command failed, 2 bad invocation, 3 the store could not be
    read or written. Type 'help' inside docsh for the commands.
    """

  // MARK: - Files

  /// The store file: `--store`, else `$DOCSH_STORE`, else `$XDG_DATA_HOME/docsh/store.json`,
  /// else `~/.local/share/docsh/store.json`.
  func resolvedStorePath(environment: [String: String]) -> String? {
    if let storePath { return storePath }
    if let path = environment["DOCSH_STORE"], !path.isEmpty { return path }
    return Invocation.xdgPath(
      "XDG_DATA_HOME", fallback: ".local/share", file: "docsh/store.json", environment: environment)
  }

  /// The history file: `$DOCSH_HISTORY` (`/dev/null` turns it off), else
  /// `$XDG_STATE_HOME/docsh/history`, else `~/.local/state/docsh/history`.
  static func historyPath(environment: [String: String]) -> String? {
    if let path = environment["DOCSH_HISTORY"], !path.isEmpty {
      return path == "/dev/null" ? nil : path
    }
    return xdgPath(
      "XDG_STATE_HOME", fallback: ".local/state", file: "docsh/history", environment: environment)
  }

  /// The startup file of the REPL: `$XDG_CONFIG_HOME/docsh/docshrc`, else
  /// `~/.config/docsh/docshrc`.
  static func startupFilePath(environment: [String: String]) -> String? {
    xdgPath("XDG_CONFIG_HOME", fallback: ".config", file: "docsh/docshrc", environment: environment)
  }

  /// `$VARIABLE/file` when the variable holds an absolute path (as the XDG spec demands),
  /// else `$HOME/fallback/file`.
  static func xdgPath(
    _ variable: String, fallback: String, file: String, environment: [String: String]
  ) -> String? {
    if let base = environment[variable], base.hasPrefix("/") { return base + "/" + file }
    guard let home = environment["HOME"], !home.isEmpty else { return nil }
    return home + "/" + fallback + "/" + file
  }
}
