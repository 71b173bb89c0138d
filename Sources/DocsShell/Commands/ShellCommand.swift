import DocsKit

/// What the words after a command name are, so completion can offer the right names.
enum ArgumentKind: Sendable {
  /// A category name or path.
  case category
  /// A document name or `CATEGORY/NAME` path.
  case document
  /// Free text: nothing to complete.
  case text
  /// A file of the file system.
  case file
  /// A command name.
  case command
}

/// A command's name, help and completion, kept beside its code.
struct CommandConfiguration: Sendable {
  /// The word that runs it.
  var name: String
  /// Other words that run it.
  var aliases: [String] = []
  /// The synopsis: `ls [-l] [-s name|size|date] [-r] [--json] [CATEGORY]`.
  var usage: String
  /// One line saying what it does.
  var abstract: String
  /// More lines of help, shown by `help COMMAND`.
  var discussion: String = ""
  /// An example line.
  var example: String
  /// What its positional arguments are, in order; the last repeats.
  var arguments: [ArgumentKind] = []
  /// Whether running it is one undo group (false for commands that manage history or files).
  var isUndoable = true
  /// Whether its output goes through the pager in the REPL when it is longer than the screen.
  var pagesOutput = false
}

/// A command of the shell: parses its own arguments and runs against a session.
protocol ShellCommand: Sendable {
  /// The command's name, help and completion.
  static var configuration: CommandConfiguration { get }
  /// Parses the words after the command name, and a here-document if one was given.
  /// - Throws: ``ShellError/usage(command:message:usage:)`` when they do not fit.
  init(arguments: [String], hereDocument: String?) throws(ShellError)
  /// Does what the command does.
  /// - Throws: ``ShellError`` saying why it failed; the session is then as it was.
  func run(in session: Session) throws(ShellError)
}

extension ShellCommand {
  /// A usage error of this command.
  static func usageError(_ message: String) -> ShellError {
    .usage(command: configuration.name, message: message, usage: configuration.usage)
  }

  /// Refuses any argument and a here-document, for commands that take neither.
  static func refuseArguments(_ arguments: [String], _ hereDocument: String?) throws(ShellError) {
    try refuseHereDocument(hereDocument)
    guard arguments.isEmpty else { throw usageError("takes no arguments") }
  }

  /// Refuses a here-document, for commands that read none.
  static func refuseHereDocument(_ hereDocument: String?) throws(ShellError) {
    if hereDocument != nil { throw usageError("takes no here-document") }
  }
}

/// Every command, in the order `help` lists them; completion reads the same list.
enum CommandRegistry {
  static let commands: [any ShellCommand.Type] = [
    ListCommand.self, ChangeCategoryCommand.self, PrintLocationCommand.self,
    MakeCategoryCommand.self, RemoveCategoryCommand.self,
    NewDocumentCommand.self, WriteDocumentCommand.self, AppendCommand.self,
    EditCommand.self, CatCommand.self, InfoCommand.self, RemoveCommand.self, MoveCommand.self,
    FindCommand.self, GrepCommand.self, ImportCommand.self, ExportCommand.self,
    StatusCommand.self, SaveCommand.self, CheckCommand.self, RevertCommand.self, UndoCommand.self,
    RedoCommand.self, HistoryCommand.self, SourceCommand.self, HelpCommand.self,
    ExitCommand.self,
  ]

  /// Every command by each word that runs it.
  private static let commandsByName: [String: any ShellCommand.Type] = {
    var byName: [String: any ShellCommand.Type] = [:]
    for command in commands {
      for name in [command.configuration.name] + command.configuration.aliases {
        byName[name] = command
      }
    }
    return byName
  }()

  /// The command `name` runs, by name or alias.
  static func command(named name: String) -> (any ShellCommand.Type)? {
    commandsByName[name]
  }

  /// Every word that runs a command, sorted.
  static var allNames: [String] {
    commands.flatMap { [$0.configuration.name] + $0.configuration.aliases }.sorted()
  }
}

/// Options and positional words, parsed the way Unix tools do: `-lr`, `-s size`, `-ssize`,
/// `--json`, `--` to end options.
struct ParsedArguments {
  var flags: Set<String> = []
  var options: [String: String] = [:]
  var positionals: [String] = []

  /// Parses `words` for a command that knows `flags` and `options` (short names are one
  /// letter, long ones longer, without dashes).
  /// - Parameter optionsFirst: stop at the first positional (for commands whose text may
  ///   start with a dash); otherwise options may come anywhere.
  static func parse(
    _ words: [String], flags: Set<String> = [], options: Set<String> = [],
    optionsFirst: Bool = false, for command: CommandConfiguration
  ) throws(ShellError) -> ParsedArguments {
    var parsed = ParsedArguments()
    var index = 0
    var optionsEnded = false
    func fail(_ message: String) -> ShellError {
      .usage(command: command.name, message: message, usage: command.usage)
    }
    while index < words.count {
      let word = words[index]
      index += 1
      if optionsEnded || word == "-" || !word.hasPrefix("-") {
        parsed.positionals.append(word)
        if optionsFirst { optionsEnded = true }
        continue
      }
      if word == "--" {
        optionsEnded = true
        continue
      }
      if word.hasPrefix("--") {
        let name = String(word.dropFirst(2))
        if flags.contains(name) {
          parsed.flags.insert(name)
        } else if options.contains(name) {
          guard index < words.count else { throw fail("--\(name) needs a value") }
          parsed.options[name] = words[index]
          index += 1
        } else {
          throw fail("unknown option \(word)")
        }
        continue
      }
      var letters = Substring(word.dropFirst())
      while let letter = letters.first {
        letters = letters.dropFirst()
        let name = String(letter)
        if flags.contains(name) {
          parsed.flags.insert(name)
        } else if options.contains(name) {
          if !letters.isEmpty {
            parsed.options[name] = String(letters)
          } else {
            guard index < words.count else { throw fail("-\(name) needs a value") }
            parsed.options[name] = words[index]
            index += 1
          }
          break
        } else {
          throw fail("unknown option -\(name)")
        }
      }
    }
    return parsed
  }
}
