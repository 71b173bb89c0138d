import DocsKit

#if canImport(Glibc)
  import Glibc
#endif

/// Why a command or a line failed: each case holds what its one line of text needs.
/// Model errors (``ContextError``) reach the error mapper as they are; ``ShellError/context(_:)``
/// is for the few places that must hold one beside shell errors.
enum ShellError: Error, Sendable {
  /// The command was called wrongly; the text says how, the usage line follows.
  case usage(command: String, message: String, usage: String)
  /// No command has this name.
  case unknownCommand(String)
  /// The line could not be split into words.
  case tokenizer(TokenizerError)
  /// The line read cannot be used (not UTF-8, too long, a NUL byte).
  case unusableLine(reason: String)
  /// Ctrl-C stopped a command (taken back) or a script between two lines.
  case interrupted
  /// The input ended inside a here-document.
  case unterminatedHereDocument(delimiter: String)
  /// The input ended before the line holding a single `.` that ends typed text.
  case typedTextEnded
  /// The path names no category.
  case noSuchCategory(String)
  /// The path names no document.
  case noSuchDocument(String, in: String)
  /// A pattern (`Q*`) matches no document of the category.
  case nothingMatches(String, in: String)
  /// A pattern given where one document is needed matches several (or none).
  case matchesSeveral(String, count: Int)
  /// Several documents (or a pattern) to move or copy, and DEST names no category.
  case destinationNotCategory(String, command: String)
  /// `new --from` names a template the templates category does not hold.
  case noSuchTemplate(String, category: String)
  /// A name typed is not a valid name (the model's one wording of the rule).
  case invalidName(NameError)
  /// A document path was given at the top level, where there are only categories.
  case notInCategory(String)
  /// The path has more parts than category and name.
  case pathTooDeep(String)
  /// A document was named where a category is needed or the other way round.
  case wrongKind(String, expected: String)
  /// `cd -` with nowhere to go back to.
  case noPreviousCategory
  /// The command needs a yes, and there is nobody to ask.
  case confirmationNeeded(String)
  /// The user answered no.
  case declined
  /// The model refused.
  case context(ContextError)
  /// The search query is not valid.
  case invalidSearch(SearchQueryError)
  /// A tag given is not a valid tag.
  case invalidTag(TagError)
  /// `check` found problems (they were shown first).
  case storeHasProblems(count: Int)
  /// The editor could not be used.
  case editor(EditorError)
  /// A file given to `source` cannot be opened.
  case unreadableScript(path: String, errno: Int32)
  /// Files source each other deeper than the limit.
  case sourcedTooDeep(limit: Int)
  /// A line of a sourced file failed.
  case failedInSourcedFile(path: String, line: Int, report: ErrorReport)
}

/// Why the editor could not be used.
enum EditorError: Error, Sendable {
  /// Neither `$VISUAL` nor `$EDITOR` is set.
  case notSet
  /// The private temporary folder could not be made.
  case noTemporaryFolder(errno: Int32)
  /// The file for the text could not be created or written.
  case cannotWrite(path: String, errno: Int32)
  /// The edited text could not be read back.
  case cannotRead(errno: Int32)
  /// The editor program could not be started.
  case cannotStart(errno: Int32)
  /// The editor exited with a failure status.
  case failed(command: String, status: Int32)
  /// The edited text is not UTF-8.
  case notUTF8
}

/// Why `import` refused; it reaches the error mapper as it is.
enum ImportError: Error, Sendable {
  /// A system call on `path` failed.
  case system(path: String, errno: Int32)
  /// `path` is neither a regular file nor a folder.
  case notRegularFile(path: String)
  /// A file name in a folder is not UTF-8.
  case nameNotUTF8(path: String)
  /// `.`, `..` or `/` names no folder name that could be a category's.
  case folderWithoutName(path: String)
  /// The folder's name is not a valid category name.
  case invalidCategoryName(path: String, NameError)
  /// The file's name is not a valid document name.
  case invalidDocumentName(path: String, NameError)
  /// The name would change by trimming: `document` or `category`.
  case nameWithBlanks(path: String, kind: String)
  /// The file is not UTF-8 text.
  case notUTF8(path: String)
  /// A folder named in a category.
  case folderInCategory(path: String)
  /// A file named at the top.
  case fileAtTop(path: String)
  /// The category exists and `--replace` was not given.
  case categoryExists(path: String, name: String)
  /// The document exists and `--replace` was not given.
  case documentExists(path: String, document: String)
  /// Two paths would give one name.
  case sameName(String, String, kind: String, name: String)
}

/// Why `export` refused or failed; it reaches the error mapper as it is.
enum ExportError: Error, Sendable {
  /// A system call on `path` failed.
  case system(path: String, errno: Int32)
  /// Something other than a folder stands at `path`.
  case notAFolder(path: String)
  /// A name that cannot be a file name.
  case unsafeName(String)
  /// A symbolic link stands where a category's folder goes.
  case linkInside(path: String, destination: String)
  /// A folder inside DEST is not a folder (a link, not followed).
  case notAFolderInside(path: String, destination: String)
  /// The file exists and `--force` was not given.
  case exists(path: String)
  /// A folder stands where a document's file goes.
  case folderInPlace(path: String)
}

/// The system's text for an `errno` value.
func systemMessage(_ code: Int32) -> String {
  guard let text = strerror(code) else { return "error \(code)" }
  return String(cString: text)
}

extension ShellError: CustomStringConvertible {
  var description: String {
    switch self {
    case .usage(let command, let message, let usage):
      return "\(command): \(message) (usage: \(usage))"
    case .unknownCommand(let name):
      return "unknown command \"\(shown(name))\" (type 'help' for the list)"
    case .tokenizer(let error):
      return error.description
    case .unusableLine(let reason):
      return reason
    case .interrupted:
      return "interrupted"
    case .unterminatedHereDocument(let delimiter):
      return "the here-document has no line \"\(delimiter)\" before the end of input"
    case .typedTextEnded:
      return "the input ended before the line holding a single '.'; nothing changed"
    case .noSuchCategory(let name):
      return "no category named \"\(shown(name))\""
    case .noSuchDocument(let name, let category):
      return "no document named \"\(shown(name))\" in \"\(category)\""
    case .nothingMatches(let pattern, let category):
      return "nothing matches \"\(shown(pattern))\" in \"\(category)\""
    case .matchesSeveral(let pattern, let count):
      return "\"\(shown(pattern))\" matches \(count) documents; name one"
    case .destinationNotCategory(let destination, let command):
      return
        "\(command): several documents go to a category, and \"\(shown(destination))\" is none (create it with mkdir)"
    case .invalidName(let error):
      return error.description
    case .noSuchTemplate(let name, let category):
      return
        "no template named \"\(shown(name))\" in \"\(category)\" (templates are the documents of the category DOCSH_TEMPLATES names)"
    case .notInCategory(let name):
      return
        "\"\(shown(name))\": documents live in categories; cd into one or write CATEGORY/\(shown(name))"
    case .pathTooDeep(let path):
      // The rule a name breaks, worded where names are checked, and what a path may be.
      return NameError.containsSlash(path).description + " (a path is at most /CATEGORY/NAME)"
    case .wrongKind(let path, let expected):
      return "\"\(shown(path))\" is not \(expected)"
    case .noPreviousCategory:
      return "cd: no previous category"
    case .confirmationNeeded(let question):
      return "\(question) — cannot ask in a non-interactive run; use -f or --yes"
    case .declined:
      return "nothing changed"
    case .context(let error):
      return error.description
    case .invalidSearch(let error):
      return "search: " + error.description
    case .invalidTag(let error):
      return error.description
    case .storeHasProblems(let count):
      return "the store has \(count) problem\(count == 1 ? "" : "s")"
    case .editor(let error):
      return error.description
    case .unreadableScript(let path, let code):
      return "source: \(path): \(systemMessage(code))"
    case .sourcedTooDeep(let limit):
      return "source: files source each other more than \(limit) deep"
    case .failedInSourcedFile(let path, let line, let report):
      return "\(path):\(line): \(report.message)"
    }
  }
}

/// Whatever the user typed, echoed at most this long, so one error stays one line.
private func shown(_ text: String) -> String {
  text.count <= 80 ? text : text.prefix(79) + "…"
}

extension EditorError: CustomStringConvertible {
  var description: String {
    switch self {
    case .notSet:
      return "edit: no editor is set; set $VISUAL or $EDITOR, or use write"
    case .noTemporaryFolder(let code):
      return "cannot create a private temporary folder: \(systemMessage(code))"
    case .cannotWrite(let path, let code):
      return "cannot write \(path): \(systemMessage(code))"
    case .cannotRead(let code):
      return "cannot read the edited text: \(systemMessage(code))"
    case .cannotStart(let code):
      return "cannot start the editor: \(systemMessage(code))"
    case .failed(let command, let status):
      return "the editor (\(command)) exited with status \(status); nothing changed"
    case .notUTF8:
      return "the edited text is not valid UTF-8; nothing changed"
    }
  }
}

extension ImportError: CustomStringConvertible {
  var description: String { "import: " + reason }

  private var reason: String {
    switch self {
    case .system(let path, let code):
      return "\(path): \(systemMessage(code))"
    case .notRegularFile(let path):
      return "\(path): not a regular file"
    case .nameNotUTF8(let path):
      return "\(path): the file name is not valid UTF-8"
    case .folderWithoutName(let path):
      return "\(path): name the folder by its own name (it becomes the category's name)"
    case .invalidCategoryName(let path, let error):
      return "\(path): the folder name cannot be a category name: \(error)"
    case .invalidDocumentName(let path, let error):
      return "\(path): the file name cannot be a document name: \(error)"
    case .nameWithBlanks(let path, let kind):
      return "\(path): a \(kind) name cannot begin or end with white space"
    case .notUTF8(let path):
      return "\(path): not valid UTF-8 text"
    case .folderInCategory(let path):
      return "\(path) is a folder; folders become categories at the top (cd / first)"
    case .fileAtTop(let path):
      return
        "\(path) is a file; documents live in categories: cd into one first (or import a folder)"
    case .categoryExists(let path, let name):
      return
        "\(path): a category named \"\(name)\" exists (use --replace to import into it)"
    case .documentExists(let path, let document):
      return "\(path): \"\(document)\" exists (use --replace to replace it)"
    case .sameName(let first, let second, let kind, let name):
      return "\(first) and \(second) would both be the \(kind) \"\(name)\""
    }
  }
}

extension ExportError: CustomStringConvertible {
  var description: String { "export: " + reason }

  private var reason: String {
    switch self {
    case .system(let path, let code):
      return "\(path): \(systemMessage(code))"
    case .notAFolder(let path):
      return "\(path) exists and is not a folder"
    case .unsafeName(let name):
      return "\"\(name)\" cannot be a file name"
    case .linkInside(let path, let destination):
      return "\(path) is a symbolic link; export does not follow links inside \(destination)"
    case .notAFolderInside(let path, let destination):
      return "\(path) is not a folder (links inside \(destination) are not followed)"
    case .exists(let path):
      return "\(path) exists (use --force to replace it)"
    case .folderInPlace(let path):
      return "\(path) is a folder; it cannot be replaced by a document"
    }
  }
}
