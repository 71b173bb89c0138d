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
  /// A tag name (of those the store's documents hold).
  case tag
  /// A template: a document of the templates category.
  case template
}

/// One option a command (or docsh itself) takes: its names, and the value it takes if any.
///
/// Declared once as a static constant beside the command that reads it; parsing, the usage
/// line, `--help` and Tab completion all come from the declaration.
struct OptionSpec: Hashable, Sendable {
  /// Every spelling: `-s`, `--sort`. The first is the one the usage line shows.
  let names: [String]
  /// What the value is called in the usage line (`PATH`, `name|size|date`); `nil` for a flag.
  let valueName: String?
  /// The values Tab completion offers after the option.
  let allowedValues: [String]
  /// One or more lines for `docsh --help`.
  let help: String
  /// What Tab completion offers for the value when it allows any word (``allowedValues``
  /// empty): tags for `--tag`.
  var valueKind: ArgumentKind = .text

  /// A flag: present or not.
  static func flag(_ names: String..., help: String = "") -> OptionSpec {
    OptionSpec(names: names, valueName: nil, allowedValues: [], help: help)
  }

  /// `--json`: print JSON instead of text, for the commands that can.
  static let json = OptionSpec.flag("--json", help: "print JSON")

  /// `-n N`: how many results to show (0 for all), for the commands that list many.
  static var count: OptionSpec { ValueOption<String>.count.spec }

  /// `-f`, `--force`: do it without asking.
  static let force = OptionSpec.flag("-f", "--force", help: "do not ask")

  /// Whether the option takes a value.
  var takesValue: Bool { valueName != nil }

  /// The name usage shows.
  var primaryName: String { names[0] }

  /// `[-s name|size|date]`, `[--json]`.
  var usage: String {
    "[" + primaryName + (valueName.map { " " + $0 } ?? "") + "]"
  }
}

/// A type whose values an option takes, read from the option's word: swift-argument-parser's
/// `ExpressibleByArgument`. Parsing, Tab completion, the usage line and the error text all
/// come from the conforming type, so the values are spelled in one place.
protocol ExpressibleByArgument: Sendable {
  /// The value `argument` spells, or `nil` when it spells none.
  init?(argument: String)
  /// Every word that spells a value, for completion and the error text; empty when any
  /// word may (a path, a text).
  static var allValues: [String] { get }
}

extension ExpressibleByArgument {
  static var allValues: [String] { [] }

  /// The values as a sentence lists them: `name, size or date`.
  static var allValuesInProse: String {
    guard let last = allValues.last else { return "" }
    let others = allValues.dropLast()
    return others.isEmpty ? last : others.joined(separator: ", ") + " or " + last
  }
}

extension ExpressibleByArgument where Self: CaseIterable & RawRepresentable, RawValue == String {
  init?(argument: String) { self.init(rawValue: argument) }
  static var allValues: [String] { allCases.map(\.rawValue) }
}

extension String: ExpressibleByArgument {
  init?(argument: String) { self = argument }
}

/// An option that takes a value of type `Value`: the next word, or `--name=VALUE`, `-nVALUE`.
///
/// Declared once as a static constant beside the command that reads it; its ``spec`` goes
/// into the command's ``ArgumentSpec``, and ``ParsedArguments/value(of:)`` hands back a
/// `Value`, never a string to compare again.
struct ValueOption<Value: ExpressibleByArgument>: Sendable {
  /// The option as parsing, usage, help and completion see it.
  let spec: OptionSpec

  /// The option spelled `names`; its value is called `valueName` in the usage line (by
  /// default the values `Value` allows: `name|size|date`).
  init(
    _ names: String..., valueName: String = Value.allValues.joined(separator: "|"),
    help: String = "", completing kind: ArgumentKind = .text
  ) {
    spec = OptionSpec(
      names: names, valueName: valueName, allowedValues: Value.allValues, help: help,
      valueKind: kind)
  }

  /// `--tag TAG`: keep only documents holding the tag (repeatable: all of them).
  static var tag: ValueOption<String> {
    ValueOption<String>("--tag", valueName: "TAG", completing: .tag)
  }

  /// `-n N`: how many results to show (0 for all), for the commands that list many.
  static var count: ValueOption<String> { ValueOption<String>("-n", valueName: "N") }
}

/// How many words a positional argument takes.
enum Arity: Sendable {
  /// Exactly one: `NAME`.
  case one
  /// One or none: `[CATEGORY]`.
  case optional
  /// One or more: `NAME…`.
  case oneOrMore
  /// Any number: `[TEXT…]`.
  case zeroOrMore
  /// One or more words read as one text, joined by spaces: `TEXT`.
  case words
}

/// One positional argument: its name in the usage line, how many words, what it completes.
struct PositionalSpec: Sendable {
  /// The name the usage line shows: `CATEGORY`, `NAME`.
  let name: String
  /// How many words it takes.
  let arity: Arity
  /// What Tab completion offers for it.
  let kind: ArgumentKind

  init(_ name: String, _ arity: Arity = .one, completing kind: ArgumentKind) {
    self.name = name
    self.arity = arity
    self.kind = kind
  }

  /// `NAME`, `[CATEGORY]`, `NAME…`, `[TEXT…]`.
  var usage: String {
    switch arity {
    case .one, .words: return name
    case .optional: return "[" + name + "]"
    case .oneOrMore: return name + "…"
    case .zeroOrMore: return "[" + name + "…]"
    }
  }

  /// The fewest words it takes.
  var minimum: Int {
    switch arity {
    case .one, .oneOrMore, .words: return 1
    case .optional, .zeroOrMore: return 0
    }
  }

  /// The most words it takes; `nil` for no limit.
  var maximum: Int? {
    switch arity {
    case .one, .optional: return 1
    case .oneOrMore, .zeroOrMore, .words: return nil
    }
  }
}

/// Where options may stand among the words.
enum OptionPlacement: Sendable {
  /// Anywhere, as `ls -l Work -r`; `--` ends them.
  case anywhere
  /// Only before the first positional word, so that a pattern or text may start with a dash.
  case beforePositionals
  /// Nowhere: every word is positional (a leading `--` is dropped, so `new -- -draft` works).
  case none
  /// Only declared flags, bundled or not, before the first other word, which starts the
  /// positionals even when it starts with a dash (`--` too), as bash's `echo` reads its words.
  case leadingFlags
  /// Only declared options (with their values) before the first other word, which starts
  /// the positionals even when it starts with a dash; a `--` there ends the options and is
  /// dropped (`new --from Meeting -- -draft`).
  case leadingOptions
}

/// Why words do not fit a declaration, before any command-specific wording.
enum ArgumentError: Error, Equatable, Sendable {
  /// No declared option has this spelling.
  case unknownOption(String)
  /// The option needs a value and none followed.
  case missingValue(String)
  /// `--flag=VALUE` for a flag.
  case unexpectedValue(String)
  /// A value the option's type does not spell: the word, the option, the values it takes.
  case invalidValue(String, option: String, allowed: String)
}

extension ArgumentError: CustomStringConvertible {
  var description: String {
    switch self {
    case .unknownOption(let option): return "unknown option \(option)"
    case .missingValue(let option): return "\(option) needs a value"
    case .unexpectedValue(let option): return "\(option) takes no value"
    case .invalidValue(let word, let option, let allowed):
      return "\(option) takes \(allowed), not \"\(word)\""
    }
  }
}

/// One word of a command line as ``ArgumentSpec/classify(_:)`` reads it.
enum ClassifiedWord: Sendable {
  /// A positional word.
  case positional(String)
  /// An option, with its value when it takes one.
  case option(OptionSpec, value: String?)
  /// A word that does not fit the declaration.
  case problem(ArgumentError)
}

/// Everything a command (or docsh itself) takes, declared once: options, positionals, whether
/// a here-document may follow, and the words that say what is missing or too much.
struct ArgumentSpec: Sendable {
  /// The options, in the order the usage line shows them.
  var options: [OptionSpec] = []
  /// The positional arguments, in order.
  var positionals: [PositionalSpec] = []
  /// Where options may stand.
  var placement = OptionPlacement.anywhere
  /// Whether the command reads a here-document (`new NAME <<END`).
  var takesHereDocument = false
  /// What the usage error says when a positional word is missing.
  var whenMissing = ""
  /// What the usage error says when there are more words than the positionals take.
  var whenExtra = "takes no arguments"
  /// The option a word of digits after a dash gives its value to (`head -5` as `head -n 5`),
  /// as coreutils still reads the old form; `nil` for none.
  var numericShorthand: OptionSpec? = nil

  /// The options and positionals as the usage line shows them: `[-l] [-r] [CATEGORY]`.
  var usage: String {
    (options.map(\.usage) + positionals.map(\.usage)).joined(separator: " ")
  }

  /// The option spelled `name`, if declared.
  func option(named name: String) -> OptionSpec? {
    options.first { $0.names.contains(name) }
  }

  /// Every spelling of every option, sorted, for Tab completion.
  var optionNames: [String] {
    options.flatMap(\.names).sorted()
  }

  /// Splits `words` into options and positionals the way Unix tools do: `-lr`, `-s size`,
  /// `-ssize`, `--sort size`, `--sort=size`, `--` to end options, `-` as a word.
  /// - Throws: ``ArgumentError`` for an unknown option or a missing or unexpected value.
  func parse(_ words: [String]) throws(ArgumentError) -> ParsedArguments {
    var parsed = ParsedArguments()
    parsed.positionals.reserveCapacity(words.count)
    // After leading options every word is a positional: a script's long lines of text are
    // taken as they are, not classified word by word.
    let (classified, rest) =
      placement == .leadingOptions
      ? classifyLeadingOptions(words) : (classify(words), words.endIndex)
    for word in classified {
      switch word {
      case .positional(let text): parsed.positionals.append(text)
      case .option(let option, let value): parsed.record(option, value: value)
      case .problem(let error): throw error
      }
    }
    parsed.positionals.append(contentsOf: words[rest...])
    return parsed
  }

  /// The positional words among `words` typed so far (options and their values skipped,
  /// and so are words that do not fit: the line is still being typed).
  func positionalCount(in words: [String]) -> Int {
    classify(words).count {
      if case .positional = $0 { return true }
      return false
    }
  }

  /// What each of `words` is, in one pass that both parsing and completion read: a
  /// positional word, an option with its value, or a word that does not fit (an unknown
  /// option, a missing or unexpected value), after which the pass goes on.
  func classify(_ words: [String]) -> [ClassifiedWord] {
    // A command that takes nothing at all takes no options either: `pwd -x` is one word too many.
    if placement == .none || (options.isEmpty && positionals.isEmpty) {
      return (words.first == "--" ? Array(words.dropFirst()) : words).map { .positional($0) }
    }
    if placement == .leadingFlags {
      var index = 0
      var classified: [ClassifiedWord] = []
      while index < words.count, let flags = declaredFlags(words[index]) {
        classified += flags.map { .option($0, value: nil) }
        index += 1
      }
      return classified + words[index...].map { .positional($0) }
    }
    if placement == .leadingOptions {
      let (leading, rest) = classifyLeadingOptions(words)
      return leading + words[rest...].map { .positional($0) }
    }
    var classified: [ClassifiedWord] = []
    var index = 0
    var optionsEnded = false
    while index < words.count {
      let word = words[index]
      index += 1
      if optionsEnded || word == "-" || !word.hasPrefix("-") {
        classified.append(.positional(word))
        if placement == .beforePositionals { optionsEnded = true }
      } else if word == "--" {
        optionsEnded = true
      } else if word.hasPrefix("--") {
        classified.append(classifyLong(word, next: words, at: &index))
      } else if let shorthand = numericShorthand,
        word.utf8.dropFirst().allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
      {
        classified.append(.option(shorthand, value: String(word.dropFirst())))
      } else {
        classified += classifyShort(word, next: words, at: &index)
      }
    }
    return classified
  }

  /// The leading options of a ``OptionPlacement/leadingOptions`` declaration, and the index
  /// of the first positional word: every word from it on is one.
  private func classifyLeadingOptions(_ words: [String]) -> ([ClassifiedWord], rest: Int) {
    var classified: [ClassifiedWord] = []
    var index = 0
    // A word that does not start with "-" ends the options: the rest (a script's long
    // lines of text, mostly) are positionals, taken as they are.
    while index < words.count, words[index].utf8.first == UInt8(ascii: "-") {
      let word = words[index]
      if word == "--" {
        index += 1
        break
      }
      let name = word.split(separator: "=", maxSplits: 1).first.map(String.init) ?? word
      if word.hasPrefix("--"), option(named: name) != nil {
        index += 1
        classified.append(classifyLong(word, next: words, at: &index))
      } else if let flags = declaredFlags(word) {
        index += 1
        classified += flags.map { .option($0, value: nil) }
      } else {
        break
      }
    }
    return (classified, index)
  }

  /// `--name`, `--name VALUE` or `--name=VALUE`; a value that is the next word moves `index`.
  private func classifyLong(
    _ word: String, next words: [String], at index: inout Int
  ) -> ClassifiedWord {
    var name = word
    var inline: String?
    if let equals = word.firstIndex(of: "=") {
      name = String(word[..<equals])
      inline = String(word[word.index(after: equals)...])
    }
    guard let option = option(named: name) else { return .problem(.unknownOption(name)) }
    guard option.takesValue else {
      return inline == nil ? .option(option, value: nil) : .problem(.unexpectedValue(name))
    }
    if let inline { return .option(option, value: inline) }
    guard index < words.count else { return .problem(.missingValue(name)) }
    defer { index += 1 }
    return .option(option, value: words[index])
  }

  /// Short options, bundled as in `-lr`, `-yc TEXT` or `-ssize`; a value that is the next
  /// word moves `index`.
  private func classifyShort(
    _ word: String, next words: [String], at index: inout Int
  ) -> [ClassifiedWord] {
    var classified: [ClassifiedWord] = []
    var letters = Substring(word.dropFirst())
    while let letter = letters.first {
      letters = letters.dropFirst()
      let name = "-" + String(letter)
      guard let option = option(named: name) else {
        return classified + [.problem(.unknownOption(name))]
      }
      guard option.takesValue else {
        classified.append(.option(option, value: nil))
        continue
      }
      if !letters.isEmpty { return classified + [.option(option, value: String(letters))] }
      guard index < words.count else { return classified + [.problem(.missingValue(name))] }
      index += 1
      return classified + [.option(option, value: words[index - 1])]
    }
    return classified
  }

  /// The declared flags `word` bundles (`-n`, `-nn`), or `nil` when it is anything else.
  private func declaredFlags(_ word: String) -> [OptionSpec]? {
    guard word.count > 1, word.hasPrefix("-"), !word.hasPrefix("--") else { return nil }
    var flags: [OptionSpec] = []
    for letter in word.dropFirst() {
      guard let option = option(named: "-" + String(letter)), !option.takesValue else {
        return nil
      }
      flags.append(option)
    }
    return flags
  }

  /// Checks the number of positional words against the declaration.
  /// - Returns: `nil` when it fits, else the usage message: ``whenMissing`` or ``whenExtra``.
  func arityProblem(_ count: Int) -> String? {
    let minimum = positionals.reduce(0) { $0 + $1.minimum }
    if count < minimum { return whenMissing }
    var maximum = 0
    for positional in positionals {
      guard let most = positional.maximum else { return nil }
      maximum += most
    }
    return count > maximum ? whenExtra : nil
  }

  /// What the word at `position` among the positional words completes to; the last
  /// positional repeats when it takes several words.
  func kind(ofPositionalAt position: Int) -> ArgumentKind? {
    var start = 0
    for positional in positionals {
      guard let most = positional.maximum else { return positional.kind }
      if position < start + most { return positional.kind }
      start += most
    }
    return nil
  }

  /// The option whose value is the word after `word`, if `word` ends with one that takes a
  /// value and does not hold it (`-s`, `-ls`, `--sort`; not `--sort=size` or `-ssize`).
  func option(takingTheWordAfter word: String) -> OptionSpec? {
    if word.hasPrefix("--") {
      guard !word.contains("="), let option = option(named: word), option.takesValue else {
        return nil
      }
      return option
    }
    for (offset, letter) in word.dropFirst().enumerated() {
      guard let option = option(named: "-" + String(letter)) else { return nil }
      if option.takesValue { return offset == word.count - 2 ? option : nil }
    }
    return nil
  }
}

extension ArgumentSpec {
  /// Two positionals, both needed: `mv SOURCE DEST`, `restore NAME COMMIT`; `wrongCount`
  /// says what to give when there are fewer or more.
  static func pair(
    _ first: PositionalSpec, _ second: PositionalSpec, options: [OptionSpec] = [],
    wrongCount: String
  ) -> ArgumentSpec {
    ArgumentSpec(
      options: options, positionals: [first, second], whenMissing: wrongCount,
      whenExtra: wrongCount)
  }
}

/// Words split by an ``ArgumentSpec``: which options were given, with their values, and the
/// positional words in order.
struct ParsedArguments: Sendable {
  /// The positional words.
  var positionals: [String] = []
  /// The here-document given after the command, if any.
  var hereDocument: String?
  private var given: Set<String> = []
  private var values: [String: [String]] = [:]

  /// Notes that `option` was given, with its value.
  fileprivate mutating func record(_ option: OptionSpec, value: String?) {
    given.insert(option.primaryName)
    if let value { values[option.primaryName, default: []].append(value) }
  }

  /// Whether `option` was given (under any of its names).
  func isSet(_ option: OptionSpec) -> Bool {
    given.contains(option.primaryName)
  }

  /// Whether the option was given (under any of its names).
  func isSet<Value>(_ option: ValueOption<Value>) -> Bool {
    isSet(option.spec)
  }

  /// The value given last for `option`, read as its type; `nil` when it was not given.
  /// - Throws: ``ArgumentError/invalidValue(_:option:allowed:)`` for a word that spells no
  ///   value of the type.
  func value<Value>(of option: ValueOption<Value>) throws(ArgumentError) -> Value? {
    guard let word = values[option.spec.primaryName]?.last else { return nil }
    return try read(word, for: option)
  }

  /// Every value given for `option`, in order (for options that may repeat, like `-c`).
  /// - Throws: ``ArgumentError/invalidValue(_:option:allowed:)`` for the first word that
  ///   spells no value of the type.
  func values<Value>(of option: ValueOption<Value>) throws(ArgumentError) -> [Value] {
    var read: [Value] = []
    for word in values[option.spec.primaryName] ?? [] {
      read.append(try self.read(word, for: option))
    }
    return read
  }

  /// The text given last for `option`, if it was given: any word is a text.
  func value(of option: ValueOption<String>) -> String? {
    values[option.spec.primaryName]?.last
  }

  /// Every text given for `option`, in order.
  func values(of option: ValueOption<String>) -> [String] {
    values[option.spec.primaryName] ?? []
  }

  private func read<Value>(
    _ word: String, for option: ValueOption<Value>
  ) throws(ArgumentError) -> Value {
    guard let value = Value(argument: word) else {
      throw .invalidValue(
        word, option: option.spec.primaryName, allowed: Value.allValuesInProse)
    }
    return value
  }
}
