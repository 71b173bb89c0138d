/// Where the text of `new`, `write` and `append` comes from: words on the line, a
/// here-document, or — interactively, with neither — the editor or typed lines.
enum ContentInput {
  /// The words after the name, joined by single spaces and stored exactly.
  case words([String])
  /// A here-document: its lines, each ending in a newline.
  case hereDocument(String)
  /// Nothing given on the line.
  case none

  init(words: [String], hereDocument: String?) {
    if let hereDocument {
      self = .hereDocument(hereDocument)
    } else if words.isEmpty {
      self = .none
    } else {
      self = .words(words)
    }
  }

  /// The arguments of `new`, `write` and `append`: a document path, then the text. A
  /// leading `--` is dropped, so a name may start with a dash (`new -- -draft`).
  /// - Throws: `missing` when no path is given.
  static func nameAndText(
    _ arguments: [String], _ hereDocument: String?, or missing: ShellError
  ) throws(ShellError) -> (path: String, input: ContentInput) {
    let words = arguments.first == "--" ? arguments.dropFirst() : arguments[...]
    guard let path = words.first else { throw missing }
    return (path, ContentInput(words: Array(words.dropFirst()), hereDocument: hereDocument))
  }

  /// The text given on the line, if any.
  var givenText: String? {
    switch self {
    case .words(let words):
      // Joined as bytes: scripts of thousands of `new` lines spend their time here otherwise.
      var bytes: [UInt8] = []
      bytes.reserveCapacity(words.reduce(words.count) { $0 + $1.utf8.count })
      for (index, word) in words.enumerated() {
        if index > 0 { bytes.append(0x20) }
        bytes.append(contentsOf: word.utf8)
      }
      return String(decoding: bytes, as: UTF8.self)
    case .hereDocument(let text): return text
    case .none: return nil
    }
  }

  /// The text given, or asked for: in the editor seeded with `initial`, or as typed lines
  /// ended by a line holding a single `.` when no editor is set. `nil` in a non-interactive
  /// run with nothing given.
  func text(in session: Session, editing initial: String = "") throws(ShellError) -> String? {
    if let text = givenText { return text }
    guard session.settings.isInteractive else { return nil }
    if let editor = ExternalEditor.fromEnvironment(session.settings.environment) {
      return try editor.edit(initial)
    }
    session.errors.writeLine("Type the text; end with a line holding a single '.'")
    var text = ""
    while let line = session.readContentLine() {
      if line == "." { return text }
      text += line + "\n"
    }
    throw .input("the input ended before the line holding a single '.'; nothing changed")
  }
}
