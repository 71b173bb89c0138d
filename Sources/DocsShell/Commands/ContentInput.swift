import DocsKit

/// Where the text of `new`, `write` and `append` comes from: words on the line, a
/// here-document, or — interactively, with neither — the editor or typed lines.
enum ContentInput: Sendable {
  /// The words after the name, joined by single spaces and stored exactly.
  case words([String])
  /// A here-document: its lines, each ending in a newline.
  case hereDocument(String)
  /// Nothing given on the line.
  case none

  /// The arguments of `new`, `write` and `append`: `options` (only before the name, so that
  /// a name or text may start with a dash), a document path, then the text words.
  static func arguments(naming what: String, options: [OptionSpec] = []) -> ArgumentSpec {
    ArgumentSpec(
      options: options,
      positionals: [
        PositionalSpec("NAME", completing: .document),
        PositionalSpec("TEXT", .zeroOrMore, completing: .text),
      ],
      placement: options.isEmpty ? .none : .leadingOptions, takesHereDocument: true,
      whenMissing: "name the document to \(what)")
  }

  /// The text given in `arguments`: the words after the document's path, or the
  /// here-document.
  init(_ arguments: ParsedArguments) {
    if let hereDocument = arguments.hereDocument {
      self = .hereDocument(hereDocument)
    } else if arguments.positionals.count > 1 {
      self = .words(Array(arguments.positionals.dropFirst()))
    } else {
      self = .none
    }
  }

  /// Whether the text was given (words or a here-document), so nothing will be asked.
  var isGiven: Bool {
    if case .none = self { return false }
    return true
  }

  /// The text given on the line, if any.
  var givenText: String? {
    switch self {
    case .words(let words):
      // Joined as bytes, each word copied as one run: scripts of thousands of `new` lines
      // spend their time here otherwise.
      var bytes: [UInt8] = []
      bytes.reserveCapacity(words.reduce(words.count) { $0 + $1.utf8.count })
      for (index, word) in words.enumerated() {
        if index > 0 { bytes.append(0x20) }
        var word = word
        word.withUTF8 { bytes.append(contentsOf: $0) }
      }
      return String(decoding: bytes, as: UTF8.self)
    case .hereDocument(let text): return text
    case .none: return nil
    }
  }

  /// The text given, or asked for: in the editor seeded with `initial`, or as typed lines
  /// ended by a line holding a single `.` when no editor is set. `nil` in a non-interactive
  /// run with nothing given.
  /// - Throws: ``ShellError/editor(_:)`` when the editor fails, or
  ///   ``ShellError/typedTextEnded`` when typing ends before the closing `.`.
  func text(in session: Session, editing initial: String = "") throws(ShellError) -> String? {
    if let text = givenText { return text }
    guard session.settings.isInteractive else { return nil }
    if let editor = ExternalEditor.fromEnvironment(session.settings.environment) {
      do {
        return try editor.edit(initial)
      } catch {
        throw .editor(error)
      }
    }
    session.tell("Type the text; end with a line holding a single '.'")
    var text = ""
    while let line = session.collaborators.typedLines.readTypedLine() {
      if line == "." { return text }
      text += line + "\n"
    }
    throw .typedTextEnded
  }

}

/// What `new`, `write` and `append` are given: the document's path and where its text comes
/// from.
struct ContentTarget: Sendable {
  /// The document's path as typed.
  let path: String
  /// Where the text comes from.
  let input: ContentInput

  /// The path and the text of `arguments` (declared by ``ContentInput/arguments(naming:)``).
  init(_ arguments: ParsedArguments) {
    path = arguments.positionals[0]
    input = ContentInput(arguments)
  }

  /// The existing document the path names and the text given or asked for, for `write` and
  /// `append`.
  /// - Throws: `missing` when no text can be had; what resolving the path throws.
  func documentAndText(in session: Session, or missing: ShellError) throws(ShellError)
    -> (Document, String)
  {
    let document = try ShellPath(path).document(in: session.context, from: session.currentCategory)
    guard let text = try input.text(in: session) else { throw missing }
    return (document, text)
  }
}

/// `new`, `write` and `append`: commands made of a ``ContentTarget`` alone.
protocol ContentCommand: ShellCommand {
  /// The command for `target`.
  init(target: ContentTarget)
}

extension ContentCommand {
  init(_ arguments: ParsedArguments) {
    self.init(target: ContentTarget(arguments))
  }
}
