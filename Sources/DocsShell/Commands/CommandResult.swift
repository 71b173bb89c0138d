import DocsKit

/// How a listing or a report is shown.
enum OutputFormat: Sendable {
  /// Text for people: tables with human sizes and short dates.
  case text
  /// Text with exact bytes and full timestamps (`ls -l`).
  case long
  /// JSON, for programs (`--json`).
  case json
}

extension ParsedArguments {
  /// JSON when `--json` was given, else text.
  var outputFormat: OutputFormat { isSet(.json) ? .json : .text }

  /// The tags given by `--tag`, validated.
  /// - Throws: ``ShellError/invalidTag(_:)`` for one that is not a tag.
  func tags() throws(ShellError) -> [Tag] {
    var tags: [Tag] = []
    for text in values(of: ValueOption<String>.tag) {
      do {
        tags.append(try Tag(text))
      } catch {
        throw .invalidTag(error)
      }
    }
    return tags
  }

  /// The two positional words of a command declared by ``ArgumentSpec/pair(_:_:options:wrongCount:)``.
  var pair: (String, String) { (positionals[0], positionals[1]) }

  /// How many of the `things` to show by `-n N`: `nil` for all (`-n 0`, or no `-n` and no
  /// default), else the number.
  /// - Throws: ``ShellError/usage(command:message:usage:)`` of `command` for a value that
  ///   is no whole number ≥ 0.
  func count(
    of things: String, default fallback: Int?, for command: CommandConfiguration
  ) throws(ShellError) -> Int? {
    guard let value = value(of: ValueOption<String>.count) else { return fallback }
    guard let number = Int(value), number >= 0 else {
      throw command.usageError("-n takes how many \(things) to show (0 for all), not \"\(value)\"")
    }
    return number == 0 ? nil : number
  }
}

/// A document with the name of its category, as `find`, `grep` and `info` show it.
struct LocatedDocument: Sendable {
  /// The category's name.
  var categoryName: String
  /// The document.
  var document: Document

  /// `CATEGORY/NAME`.
  var path: String { categoryName + "/" + document.name.text }
}

/// A link of `links`, with the place of the document it names (`nil`: missing).
struct LocatedLink: Sendable {
  var link: DocumentLink
  var target: LocatedDocument?
  /// The documents an ambiguous bare name could mean.
  var candidates: [LocatedDocument] = []
}

/// A link of `backlinks`: the linking document's place, the line and its text.
struct LocatedBacklink: Sendable {
  var source: LocatedDocument
  var backlink: Backlink
  /// For `check`: the documents an ambiguous bare name could mean.
  var candidates: [LocatedDocument] = []
}

/// The matching lines of `grep`, document by document, with the names of their categories.
struct LocatedLines: Sendable {
  /// Each document and its lines that matched.
  var documents: [MatchingLines]
  /// The name of each category of `documents`.
  var categoryNames: [ObjectID: String]

  /// The name of `document`'s category.
  func categoryName(of document: Document) -> String {
    categoryNames[document.categoryID] ?? "?"
  }
}

/// One hit of `search`, with its document's place.
struct LocatedHit: Sendable {
  /// The document and its category's name.
  var document: LocatedDocument
  /// The score, highlights and snippet.
  var hit: SearchHit
}

/// What `grep` reports: the lines, each document once (`-l`), or counts (`-c`).
enum GrepReport: Sendable {
  /// Every matching line: `CATEGORY/NAME:LINE: text`.
  case lines(LocatedLines)
  /// Each matching document once: `CATEGORY/NAME`.
  case documents([LocatedDocument])
  /// Each matching document with its number of matching lines: `CATEGORY/NAME:2`.
  case counts([(document: LocatedDocument, count: Int)])
}

/// A piece of a document's content under the name it was given by (`head`, `tail`).
struct Excerpt: Sendable {
  /// The path as typed.
  var name: String
  /// The lines kept, as they are.
  var text: String
}

/// One entry of `status`: what happened to which object.
struct StatusEntry: Sendable {
  /// What happened.
  enum Change: Sendable {
    case newCategory, renamedCategory, deletedCategory
    case newDocument, changedDocument, deletedDocument
  }

  /// What happened.
  var change: Change
  /// The category's name: the category's own, or the document's category (as it was, when
  /// deleted).
  var categoryName: String
  /// The document's name; `nil` for a category.
  var documentName: String?
  /// For a changed document: the properties that changed, in their fixed order.
  var properties: [DocumentProperty] = []

  /// `CATEGORY/` or `CATEGORY/NAME`.
  var path: String {
    documentName.map { categoryName + "/" + $0 } ?? categoryName + "/"
  }
}

/// The unsaved changes, as `status` shows them.
struct StatusReport: Sendable {
  /// How many objects changed.
  var count: Int
  /// One entry per change, in the order shown: categories (new, renamed, deleted), then
  /// documents (new, changed, deleted).
  var entries: [StatusEntry]
  /// How many commits of the store's repository its remote does not have yet, as last
  /// fetched; `nil` for a store in no repository, or one with no remote.
  var unpushedCommits: Int? = nil
  /// What other sessions saved since this session's changes began, while it has changes
  /// (``StoreMovement/none`` otherwise): `save` merges them.
  var savedElsewhere: StoreMovement = .none
}

/// What `diff` shows: a document's content at a commit against now.
struct DiffReport: Sendable {
  /// `CATEGORY/NAME`.
  var path: String
  /// The commit the old content is from.
  var commit: CommitID
  /// The hunks; none when the texts are the same.
  var hunks: [DiffHunk]
}

/// What `tree` shows: the categories, each with its documents, in name order.
struct TreeReport: Sendable {
  /// One category and the names of its documents.
  struct Branch: Sendable {
    var categoryName: String
    var documentNames: [String]
  }

  /// The category at the root; `nil` when the tree starts at the top.
  var rootCategory: String?
  /// The categories shown (one when ``rootCategory`` is set).
  var branches: [Branch]
}

/// What a command found or did: plain values for ``ResultView`` to show as text, a table or
/// JSON. Commands never format; views never change the model.
enum CommandResult: Sendable {
  /// Nothing to show.
  case nothing
  /// Lines for standard error, for the person at the terminal: `Undid mkdir Work.`
  case messages([String])
  /// Where the user is (`pwd`, `cd -`).
  case location(String)
  /// The categories with their summaries (`ls` at the top).
  case categories([CategoryListing], OutputFormat)
  /// Documents of a category (`ls CATEGORY`).
  case documents([Document], OutputFormat)
  /// One document's metadata (`info`).
  case documentInfo(LocatedDocument, OutputFormat)
  /// Documents found by name (`find`).
  case foundDocuments([LocatedDocument], OutputFormat)
  /// The links of a document (`links`).
  case links([LocatedLink], OutputFormat)
  /// The links to a document (`backlinks`).
  case backlinks([LocatedBacklink], OutputFormat)
  /// Every tag with its number of documents (`tags`).
  case tagCounts([TagCount], OutputFormat)
  /// What `grep` found.
  case matches(GrepReport, OutputFormat)
  /// What `search` found, best first.
  case searchHits([LocatedHit], OutputFormat)
  /// Contents to print as they are (`cat`, `echo`).
  case contents([String])
  /// Contents to print one after the other with their lines numbered (`cat -n`).
  case numberedContents([String])
  /// Pieces of documents, each under its name when there are several (`head`, `tail`).
  case excerpts([Excerpt])
  /// Lines, words and bytes of documents (`wc`).
  case wordCounts(WordCountReport)
  /// The unsaved changes (`status`).
  case status(StatusReport, OutputFormat)
  /// What `check` found.
  case checkReport(StoreCheckReport, missingLinks: [LocatedBacklink] = [])
  /// Every command with its abstract (`help`).
  case commandList([CommandConfiguration])
  /// One command's usage, help and example (`help COMMAND`).
  case commandHelp(CommandConfiguration)
  /// What a sync did (`sync`).
  case syncReport(SyncReport)
  /// The saved versions of a document, newest first (`log NAME`).
  case versions([DocumentVersion], OutputFormat)
  /// The store's commits, newest first (`log`).
  case commits([StoreCommit], OutputFormat)
  /// How a document changed from a saved version to now (`diff`).
  case diff(DiffReport)
  /// Both versions of each document a save found in conflict (`save --diff`).
  case conflictVersions([ConflictVersions])
  /// Categories and documents as a tree (`tree`).
  case tree(TreeReport)
  /// The lines typed, oldest first (`history`).
  case history([String])
  /// A request to the interpreter: run the lines of this file in the session (`source`).
  case runFile(String)
  /// A request to the interpreter: leave (`exit`).
  case exit
  /// `clear`: the screen cleared, on a terminal.
  case clearScreen

  /// The failure to report after the result is shown, for commands that show what they found
  /// and still fail (`check` of a store with problems).
  var failureAfterShowing: ShellError? {
    guard case .checkReport(let report, _) = self, !report.isSound else { return nil }
    return .storeHasProblems(count: report.problems.count)
  }
}
