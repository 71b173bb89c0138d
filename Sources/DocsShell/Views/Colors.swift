#if canImport(Glibc)
  import Glibc
#endif

/// A look for terminal text, as the parameters of an ANSI SGR sequence (`1;34` is bold blue).
struct TerminalStyle: Hashable, Sendable {
  /// The SGR parameters, without `ESC [` and `m`.
  var parameters: String

  /// Makes a style from SGR parameters such as `1;34`.
  init(parameters: String) {
    self.parameters = parameters
  }

  /// Category names: bold blue.
  static let category = TerminalStyle(parameters: "1;34")
  /// Sizes: green.
  static let size = TerminalStyle(parameters: "32")
  /// Error messages: bold red.
  static let error = TerminalStyle(parameters: "1;31")
  /// Warnings: yellow.
  static let warning = TerminalStyle(parameters: "33")
  /// Less important text such as dates and headers: dim.
  static let dim = TerminalStyle(parameters: "2")
  /// The words a search or match found: bold red, as grep marks them.
  static let match = TerminalStyle(parameters: "1;31")
  /// Hunk headers of a diff: cyan, as git colors them.
  static let hunk = TerminalStyle(parameters: "36")
  /// Emphasis: bold.
  static let bold = TerminalStyle(parameters: "1")
}

/// Whether output is colored; when it is not, styling returns text unchanged.
struct Colors: Sendable {
  /// Whether styles are applied.
  var enabled: Bool

  /// Makes colors that are on or off.
  init(enabled: Bool) {
    self.enabled = enabled
  }

  /// No colors at all.
  static let disabled = Colors(enabled: false)

  /// `text` wrapped in the escape sequences of `style`, or unchanged when disabled or `nil`.
  func styled(_ text: String, _ style: TerminalStyle?) -> String {
    guard !text.isEmpty, let marks = marks(style) else { return text }
    return marks.open + text + marks.close
  }

  /// The escape sequences written before and after text of `style`; `nil` when disabled or
  /// `nil`.
  func marks(_ style: TerminalStyle?) -> (open: String, close: String)? {
    guard enabled, let style else { return nil }
    return ("\u{1B}[" + style.parameters + "m", "\u{1B}[0m")
  }

  /// Colors on only for a terminal with `NO_COLOR` unset or empty and `TERM` not `dumb`.
  static func automatic(isTerminal: Bool, environment: (String) -> String?) -> Colors {
    let noColor = environment("NO_COLOR").map { !$0.isEmpty } ?? false
    return Colors(enabled: isTerminal && !noColor && environment("TERM") != "dumb")
  }

  /// ``automatic(isTerminal:environment:)`` for a file descriptor and the process environment.
  static func automatic(forFileDescriptor descriptor: Int32 = 1) -> Colors {
    automatic(isTerminal: isatty(descriptor) == 1) { name in
      getenv(name).map { String(cString: $0) }
    }
  }
}
