import DocsKit

/// A command's name, help and arguments, declared once beside its code: parsing, the usage
/// line, `help`, and Tab completion all read it.
struct CommandConfiguration: Sendable {
  /// The word that runs it.
  var name: String
  /// Other words that run it.
  var aliases: [String] = []
  /// One line saying what it does.
  var abstract: String
  /// More lines of help, shown by `help COMMAND`.
  var discussion: String = ""
  /// An example line.
  var example: String
  /// Its options and positional arguments.
  var arguments = ArgumentSpec()
  /// Whether running it is one undo group (false for commands that manage history or files).
  var isUndoable = true
  /// Whether its output goes through the pager in the REPL when it is longer than the screen.
  var pagesOutput = false
  /// Whether it may run before the store's category list is read (the context reads it when
  /// the command needs more than the category it names); every other command has it read
  /// first, so that a list that cannot be read fails the command before it starts.
  var runsWithoutCategoryList = false

  /// The synopsis, made from the declaration: `ls [-l] [-s name|size|date] [-r] [--json] [CATEGORY]`.
  var usage: String {
    let arguments = arguments.usage
    return arguments.isEmpty ? name : name + " " + arguments
  }

  /// A usage error of this command saying `message`.
  func usageError(_ message: String) -> ShellError {
    .usage(command: name, message: message, usage: usage)
  }

  /// For an unknown option that may be a name starting with a dash (`rm -dash`), how to
  /// give it as coreutils says: ` (Try 'rm -- -dash' to name "-dash")`; empty otherwise,
  /// and for a lone letter (`wc -m`), which is an option someone expected, not a name.
  func dashNameHint(for error: ArgumentError, in words: [String]) -> String {
    guard case .unknownOption = error,
      arguments.positionals.contains(where: { $0.kind == .document || $0.kind == .category }),
      let word = words.prefix(while: { $0 != "--" }).first(where: isUnknownOption)
    else { return "" }
    return " (Try '\(name) -- \(word)' to name \"\(word)\")"
  }

  /// Whether `word`, read alone, is an option the command does not declare.
  private func isUnknownOption(_ word: String) -> Bool {
    guard word.hasPrefix("-"), word.count > 2 else { return false }
    do {
      _ = try arguments.parse([word])
      return false
    } catch {
      if case .unknownOption = error { return true }
      return false
    }
  }

  /// Parses the words after the command name and its here-document.
  /// - Throws: ``ShellError/usage(command:message:usage:)`` when they do not fit the
  ///   declaration: a here-document it takes none of, an unknown option, a missing value, too
  ///   few or too many positional words.
  func parse(_ words: [String], hereDocument: String?) throws(ShellError) -> ParsedArguments {
    if hereDocument != nil && !arguments.takesHereDocument {
      throw usageError("takes no here-document")
    }
    var parsed: ParsedArguments
    do {
      parsed = try arguments.parse(words)
    } catch {
      throw usageError(error.description + dashNameHint(for: error, in: words))
    }
    if let problem = arguments.arityProblem(parsed.positionals.count) {
      throw usageError(problem)
    }
    parsed.hereDocument = hereDocument
    return parsed
  }
}

/// A command of the shell: built from its parsed arguments, it runs against a session and
/// returns what it found or did, for a view to show.
protocol ShellCommand: Sendable {
  /// The command's name, help and arguments.
  static var configuration: CommandConfiguration { get }
  /// Takes the parsed arguments over, checking what the declaration cannot say.
  /// - Throws: ``ShellError/usage(command:message:usage:)`` when they do not make sense.
  init(_ arguments: ParsedArguments) throws(ShellError)
  /// Does what the command does.
  /// - Returns: what the command found or did, rendered by ``ResultView``.
  /// - Throws: ``ShellError`` or a model error (``ContextError``) saying why it failed; the
  ///   session is then as it was.
  func run(in session: Session) throws -> CommandResult
}

extension ShellCommand {
  /// A usage error of this command.
  static func usageError(_ message: String) -> ShellError {
    configuration.usageError(message)
  }
}

/// A command that keeps its parsed arguments as they are and reads its flags when it runs.
protocol FlagsCommand: ShellCommand {
  /// The arguments as parsed.
  var arguments: ParsedArguments { get }
  /// The command with `arguments`.
  init(arguments: ParsedArguments)
}

extension FlagsCommand {
  init(_ arguments: ParsedArguments) {
    self.init(arguments: arguments)
  }
}

/// A command that takes nothing but one or more names, as typed, and acts on each of them
/// (`mkdir`, `touch`).
protocol NamesCommand: ShellCommand {
  /// The names as typed.
  var names: [String] { get }
  /// The command with `names`.
  init(names: [String])
}

extension NamesCommand {
  init(_ arguments: ParsedArguments) {
    self.init(names: arguments.positionals)
  }

  /// The arguments of such a command: one or more `NAME`s completed as `kind`, and
  /// `whenMissing` to say when none is given.
  static func names(completing kind: ArgumentKind, whenMissing: String) -> ArgumentSpec {
    ArgumentSpec(
      positionals: [PositionalSpec("NAME", .oneOrMore, completing: kind)],
      whenMissing: whenMissing)
  }
}

/// Every command, in the order `help` lists them; completion reads the same list.
enum CommandRegistry {
  static let commands: [any ShellCommand.Type] = [
    ListCommand.self, ChangeCategoryCommand.self, PrintLocationCommand.self,
    MakeCategoryCommand.self, RemoveCategoryCommand.self,
    NewDocumentCommand.self, WriteDocumentCommand.self, AppendCommand.self,
    EditCommand.self, TodayCommand.self, TouchCommand.self, CatCommand.self, HeadCommand.self,
    TailCommand.self,
    WordCountCommand.self, InfoCommand.self, RemoveCommand.self, MoveCommand.self,
    CopyCommand.self, TagCommand.self, UntagCommand.self, TagsCommand.self, LinksCommand.self,
    BacklinksCommand.self,
    TreeCommand.self, FindCommand.self, GrepCommand.self, SearchCommand.self,
    ImportCommand.self,
    ExportCommand.self,
    StatusCommand.self, SaveCommand.self, CheckCommand.self, RevertCommand.self, UndoCommand.self,
    RedoCommand.self, SyncCommand.self, LogCommand.self, DiffCommand.self, RestoreCommand.self,
    HistoryCommand.self, SourceCommand.self, EchoCommand.self, ClearCommand.self,
    HelpCommand.self,
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
