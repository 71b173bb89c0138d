import DocsKit

/// A JSON value for `--json` output, rendered compactly with keys in the order given.
enum JSONValue {
  case string(String)
  case integer(Int)
  /// A number with a fraction; not a number or an infinity is written `null`, as JSON has
  /// neither.
  case number(Double)
  case bool(Bool)
  case null
  case array([JSONValue])
  case object([(String, JSONValue)])

  /// A timestamp as an ISO 8601 string, or `null`.
  static func date(_ timestamp: Timestamp?) -> JSONValue {
    timestamp.map { .string($0.iso8601) } ?? .null
  }

  /// The value as JSON text.
  var rendered: String {
    var text = ""
    render(into: &text)
    return text
  }

  private func render(into text: inout String) {
    switch self {
    case .string(let value): JSONValue.appendString(value, to: &text)
    case .integer(let value): text += String(value)
    case .number(let value): text += value.isFinite ? String(value) : "null"
    case .bool(let value): text += value ? "true" : "false"
    case .null: text += "null"
    case .array(let values):
      text += "["
      for (index, value) in values.enumerated() {
        if index > 0 { text += "," }
        value.render(into: &text)
      }
      text += "]"
    case .object(let members):
      text += "{"
      for (index, (key, value)) in members.enumerated() {
        if index > 0 { text += "," }
        JSONValue.appendString(key, to: &text)
        text += ":"
        value.render(into: &text)
      }
      text += "}"
    }
  }

  private static func appendString(_ value: String, to text: inout String) {
    text += "\""
    for scalar in value.unicodeScalars {
      switch scalar {
      case "\"": text += "\\\""
      case "\\": text += "\\\\"
      case "\n": text += "\\n"
      case "\r": text += "\\r"
      case "\t": text += "\\t"
      case _ where scalar.value < 0x20 || scalar.value == 0x7F:
        let hex = String(scalar.value, radix: 16)
        text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
      default: text.unicodeScalars.append(scalar)
      }
    }
    text += "\""
  }
}
