import DocsKit

/// Where templates and daily notes live: read from the environment, as docsh's other
/// settings are (`DOCSH_STORE`, `DOCSH_PAGER`).
struct NoteSettings: Sendable, Equatable {
  /// The category `new --from` finds templates in: `DOCSH_TEMPLATES`, else `Templates`.
  var templatesCategory: String
  /// The category of `today`'s notes: `DOCSH_JOURNAL`, else `Journal`.
  var journalCategory: String
  /// The template a new daily note is made from, when the templates category holds it:
  /// `DOCSH_DAILY_TEMPLATE`, else `Daily`.
  var dailyTemplate: String

  /// The settings `environment` gives; an unset or blank variable gives the default.
  init(environment: [String: String]) {
    func setting(_ name: String, default fallback: String) -> String {
      let value = environment[name]?.trimmingBlanks() ?? ""
      return value.isEmpty ? fallback : value
    }
    templatesCategory = setting("DOCSH_TEMPLATES", default: "Templates")
    journalCategory = setting("DOCSH_JOURNAL", default: "Journal")
    dailyTemplate = setting("DOCSH_DAILY_TEMPLATE", default: "Daily")
  }
}

extension Session {
  /// Where templates and daily notes live.
  var noteSettings: NoteSettings { NoteSettings(environment: settings.environment) }

  /// The template `name` names: a document of the templates category, or, with a `/`, the
  /// document at that path.
  /// - Throws: ``ShellError/noSuchTemplate(_:category:)`` when there is none.
  func template(named name: String) throws -> Document {
    if name.contains("/") { return try document(named: name) }
    let categoryName = noteSettings.templatesCategory
    guard let category = context.category(named: categoryName),
      let template = try context.document(named: name, in: category.id)
    else { throw ShellError.noSuchTemplate(name, category: categoryName) }
    return template
  }
}

/// The values a template's placeholders take, as zk and Obsidian's Templates fill them:
/// `{{date}}` (ISO 8601, local), `{{time}}` (`14:53`, local), `{{title}}` (the new
/// document's name) and `{{category}}` (its category's). Spaces inside the braces and the
/// case of the word do not matter; any other `{{…}}` is left as it is.
struct TemplateValues: Sendable, Equatable {
  var date: String
  var time: String
  var title: String
  var category: String

  /// `text` with every placeholder replaced by its value.
  func fill(_ text: String) -> String {
    var result = ""
    var rest = Substring(text)
    while let open = rest.firstRange(of: "{{") {
      result += rest[..<open.lowerBound]
      let afterOpen = rest[open.upperBound...]
      guard let close = afterOpen.firstRange(of: "}}") else {
        rest = rest[open.lowerBound...]
        break
      }
      let word = String(afterOpen[..<close.lowerBound]).trimmingBlanks().lowercased()
      if let value = value(of: word) {
        result += value
      } else {
        result += rest[open.lowerBound..<close.upperBound]
      }
      rest = afterOpen[close.upperBound...]
    }
    return result + rest
  }

  private func value(of word: String) -> String? {
    switch word {
    case "date": return date
    case "time": return time
    case "title": return title
    case "category": return category
    default: return nil
    }
  }
}
