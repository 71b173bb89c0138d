import Testing

@testable import DocsShell

/// The declarations every command's parsing, usage, help and completion come from.
@Suite struct ArgumentDeclarationTests {
  /// Every declaration: each command's, and docsh's own.
  static let declarations: [(name: String, spec: ArgumentSpec)] =
    CommandRegistry.commands.map { ($0.configuration.name, $0.configuration.arguments) }
    + [("docsh", Invocation.arguments)]

  @Test func everyOptionSpellingIsUniquePerCommand() {
    for (name, spec) in Self.declarations {
      var seen: [String: Int] = [:]
      for spelling in spec.options.flatMap(\.names) { seen[spelling, default: 0] += 1 }
      let repeated = seen.filter { $0.value > 1 }.keys.sorted()
      #expect(repeated.isEmpty, "\(name) declares \(repeated) more than once")
    }
  }

  /// `mv SOURCE… DEST` as cp(1) and mv(1): an unbounded positional may come before
  /// positionals of one word each, never before another unbounded or optional one, so the
  /// words split one way only.
  @Test func atMostOneUnboundedPositionalAndOnlySingleWordsAfterIt() {
    for (name, spec) in Self.declarations {
      guard let unbounded = spec.positionals.firstIndex(where: { $0.maximum == nil }) else {
        continue
      }
      for positional in spec.positionals[(unbounded + 1)...] {
        #expect(
          positional.arity == .one,
          "\(name): \(positional.name) follows an unbounded positional but is not one word")
      }
    }
  }

  @Test func optionValuesComeFromTheirType() throws {
    typealias SortWord = ListCommand.SortWord
    #expect(ListCommand.sort.spec.allowedValues == ["name", "size", "date"])
    #expect(ListCommand.sort.spec.valueName == "name|size|date")
    #expect(Invocation.colorOption.spec.allowedValues == ["auto", "always", "never"])
    let parsed = try ListCommand.configuration.arguments.parse(["--sort=size"])
    #expect(try parsed.value(of: ListCommand.sort) == .size)
    let undeclared = try ListCommand.configuration.arguments.parse(["-s", "modified"])
    #expect(
      throws: ArgumentError.invalidValue("modified", option: "-s", allowed: "name, size or date")
    ) {
      try undeclared.value(of: ListCommand.sort)
    }
    #expect(SortWord.allValuesInProse == "name, size or date")
  }

  /// Completion counts positionals with the same pass parsing uses: for words that parse,
  /// both see the same positionals.
  @Test(arguments: [
    ["ls", "-l", "Work", "-r"], ["ls", "-s", "size", "Work"], ["ls", "--sort=date", "--", "-x"],
    ["grep", "-i", "-F", "TODO", "-x"], ["grep", "TODO", "-i"], ["echo", "-n", "-x", "a"],
    ["head", "-5", "Plan"], ["new", "--", "-draft"], ["mv", "a", "b"], ["ls", "-lr", "-"],
  ])
  func completionCountsThePositionalsParsingFinds(words: [String]) throws {
    let command = try #require(CommandRegistry.command(named: words[0]))
    let spec = command.configuration.arguments
    let typed = Array(words.dropFirst())
    let parsed = try spec.parse(typed)
    #expect(spec.positionalCount(in: typed) == parsed.positionals.count)
  }
}
