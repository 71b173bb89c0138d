/// What a command that shows one document's facts as text or JSON takes (`info`, `links`,
/// `backlinks`): `[--json] NAME`, declared once, and read back as the document's path and
/// the output format.
struct DocumentQuery: Sendable {
  /// `[--json] NAME`; more than one name is refused with "name one document".
  static func arguments(whenMissing: String) -> ArgumentSpec {
    ArgumentSpec(
      options: [.json], positionals: [PositionalSpec("NAME", completing: .document)],
      whenMissing: whenMissing, whenExtra: "name one document")
  }

  /// The document's path as typed.
  let path: String
  let format: OutputFormat

  init(_ arguments: ParsedArguments) {
    path = arguments.positionals[0]
    format = arguments.outputFormat
  }
}
