#if canImport(Glibc)
  import Glibc
#endif

/// How docsh was called: `docsh [OPTIONS] [SCRIPT.docsh]`.
struct Invocation: Equatable {
  enum ColorChoice: String, Equatable {
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
  var noPager = false
  var noStartupFile = false

  static let version = "docsh 0.1.0"

  static let help = """
    usage: docsh [OPTIONS] [SCRIPT.docsh]

    A shell for a store of plain-text documents in categories.

    options:
      -s, --store PATH    the store file (default: $DOCSH_STORE, else
                          $XDG_DATA_HOME/docsh/store.json, else ~/.local/share/docsh/store.json)
      -c, --command TEXT  run TEXT instead of the REPL (commands on separate lines or
                          separated by ';'); may repeat
      -y, --yes           answer yes to every confirmation
          --no-save       at the end of a non-interactive run, discard changes instead of saving
          --color WHEN    auto | always | never (auto: only on a terminal, never with
                          NO_COLOR set or TERM=dumb)
          --check         verify the store (format, ids, names, sizes against contents) and
                          exit: 0 when sound, 1 when problems were found
          --no-pager      in the REPL, never page long output of cat, ls, grep, help, history
          --no-rc         do not run the startup file
      -h, --help          show this help
          --version       show the version

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

  /// Why the command line was refused.
  struct Failure: Error, Equatable, CustomStringConvertible {
    var description: String
  }

  /// Parses the arguments after the program name.
  /// - Throws: ``Failure`` saying what is wrong with them.
  init(arguments: [String]) throws(Failure) {
    var index = 0
    var positionals: [String] = []
    var optionsEnded = false
    func nextValue(for option: String) throws(Failure) -> String {
      guard index < arguments.count else { throw Failure(description: "\(option) needs a value") }
      defer { index += 1 }
      return arguments[index]
    }
    while index < arguments.count {
      let argument = arguments[index]
      index += 1
      if optionsEnded || argument == "-" || !argument.hasPrefix("-") {
        positionals.append(argument)
        continue
      }
      if argument == "--" {
        optionsEnded = true
        continue
      }
      if argument.hasPrefix("--") {
        var name = argument
        var inline: String?
        if let equals = argument.firstIndex(of: "=") {
          name = String(argument[..<equals])
          inline = String(argument[argument.index(after: equals)...])
        }
        func value() throws(Failure) -> String {
          if let inline { return inline }
          return try nextValue(for: name)
        }
        let takesValue = ["--store", "--command", "--color", "--colour"].contains(name)
        if inline != nil && !takesValue { throw Failure(description: "\(name) takes no value") }
        switch name {
        case "--store": storePath = try value()
        case "--command": commands.append(try value())
        case "--yes": assumeYes = true
        case "--no-save": noSave = true
        case "--color", "--colour":
          let word = try value()
          guard let choice = ColorChoice(rawValue: word) else {
            throw Failure(description: "--color takes auto, always or never, not \"\(word)\"")
          }
          color = choice
        case "--help": showHelp = true
        case "--version": showVersion = true
        case "--check": check = true
        case "--no-pager": noPager = true
        case "--no-rc": noStartupFile = true
        default: throw Failure(description: "unknown option \(name)")
        }
        continue
      }
      // Short options, bundled as in -yc TEXT or -sPATH.
      var letters = Substring(argument.dropFirst())
      while let letter = letters.first {
        letters = letters.dropFirst()
        switch letter {
        case "y": assumeYes = true
        case "h": showHelp = true
        case "s", "c":
          let text = letters.isEmpty ? try nextValue(for: "-\(letter)") : String(letters)
          letters = ""
          if letter == "s" { storePath = text } else { commands.append(text) }
        default: throw Failure(description: "unknown option -\(letter)")
        }
      }
    }
    guard positionals.count <= 1 else {
      throw Failure(description: "one script at a time (got \(positionals.joined(separator: " ")))")
    }
    scriptPath = positionals.first
    if scriptPath != nil && !commands.isEmpty {
      throw Failure(description: "give either -c or a SCRIPT, not both")
    }
  }

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
