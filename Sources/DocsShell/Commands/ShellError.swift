import DocsKit

/// Why a command failed: one line the user reads, in the command's words.
enum ShellError: Error {
  /// The command was called wrongly; the text says how, the usage line follows.
  case usage(command: String, message: String, usage: String)
  /// No command has this name.
  case unknownCommand(String)
  /// The path names no category.
  case noSuchCategory(String)
  /// The path names no document.
  case noSuchDocument(String, in: String)
  /// A document path was given at the top level, where there are only categories.
  case notInCategory(String)
  /// The path has more parts than category and name.
  case pathTooDeep(String)
  /// A document was named where a category is needed or the other way round.
  case wrongKind(String, expected: String)
  /// The command needs a yes, and there is nobody to ask.
  case confirmationNeeded(String)
  /// The user answered no.
  case declined
  /// The model refused.
  case context(ContextError)
  /// Reading input (here-document, typed lines, editor, source file) failed.
  case input(String)
}

extension ShellError: CustomStringConvertible {
  var description: String {
    // Whatever the user typed is echoed at most this long, so one error stays one line.
    func shown(_ text: String) -> String {
      text.count <= 80 ? text : text.prefix(79) + "…"
    }
    switch self {
    case .usage(let command, let message, let usage):
      return "\(command): \(message) (usage: \(usage))"
    case .unknownCommand(let name):
      return "unknown command \"\(shown(name))\" (type 'help' for the list)"
    case .noSuchCategory(let name):
      return "no category named \"\(shown(name))\""
    case .noSuchDocument(let name, let category):
      return "no document named \"\(shown(name))\" in \"\(category)\""
    case .notInCategory(let name):
      return
        "\"\(shown(name))\": documents live in categories; cd into one or write CATEGORY/\(shown(name))"
    case .pathTooDeep(let path):
      return "\"\(shown(path))\": a path is at most /CATEGORY/NAME"
    case .wrongKind(let path, let expected):
      return "\"\(shown(path))\" is not \(expected)"
    case .confirmationNeeded(let question):
      return "\(question) — cannot ask in a non-interactive run; use -f or --yes"
    case .declined:
      return "nothing changed"
    case .context(let error):
      return error.description
    case .input(let message):
      return message
    }
  }
}

extension ShellError {
  /// Runs `body`, turning a model error into a shell error.
  static func catching<Result>(_ body: () throws(ContextError) -> Result) throws(ShellError)
    -> Result
  {
    do {
      return try body()
    } catch {
      throw .context(error)
    }
  }
}
