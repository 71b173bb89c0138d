/// Why the context refused a change or a query. Every case says what the user got wrong or
/// what failed, in words the shell can show as they are.
public enum ContextError: Error, Sendable {
  /// The name given is not a valid name.
  case invalidName(NameError)
  /// Another category already has this name (compared ignoring case and normalization).
  case duplicateCategoryName(String, existing: String)
  /// Another document of the category already has this name.
  case duplicateDocumentName(String, existing: String, in: String)
  /// The category does not exist (any more).
  case noSuchCategory(ObjectID)
  /// The document does not exist (any more).
  case noSuchDocument(ObjectID)
  /// There is no change to undo.
  case nothingToUndo
  /// There is no undone change to redo.
  case nothingToRedo
  /// The regular expression does not compile.
  case invalidPattern(String, reason: String)
  /// The search query is not valid.
  case invalidSearch(SearchQueryError)
  /// The store cannot search: its tokenizer could not be made.
  case searchUnavailable(SearchUnavailable)
  /// The store failed.
  case store(StoreError)
  /// Another session saved changes that conflict with this session's.
  case conflicts([MergeConflict])
  /// The person at the terminal stopped the work (Ctrl-C); it changed nothing.
  case interrupted
  /// The work needs the changes saved first (folding the save log writes what is saved).
  case unsavedChanges
  /// The save log is folded only when no other session has the store open.
  case otherSessionsOpen
}

extension ContextError: CustomStringConvertible {
  public var description: String {
    switch self {
    case .invalidName(let error):
      return error.description
    case .duplicateCategoryName(let name, let existing):
      return name == existing
        ? "a category named \"\(name)\" already exists"
        : "a category named \"\(existing)\" already exists (names ignore case): cannot also have \"\(name)\""
    case .duplicateDocumentName(let name, let existing, let category):
      return name == existing
        ? "a document named \"\(name)\" already exists in \"\(category)\""
        : "a document named \"\(existing)\" already exists in \"\(category)\" (names ignore case): cannot also have \"\(name)\""
    case .noSuchCategory(let id):
      return "no category with id \(id)"
    case .noSuchDocument(let id):
      return "no document with id \(id)"
    case .nothingToUndo:
      return "nothing to undo"
    case .nothingToRedo:
      return "nothing to redo"
    case .invalidPattern(let pattern, let reason):
      return "invalid regular expression \"\(pattern)\": \(reason)"
    case .invalidSearch(let error):
      return "invalid search: \(error)"
    case .searchUnavailable(let error):
      return "search: \(error)"
    case .store(let error):
      return error.description
    case .interrupted:
      return "interrupted"
    case .unsavedChanges:
      return "there are unsaved changes: save or revert them first"
    case .otherSessionsOpen:
      return
        "another session has the store open: its save log is folded into the file when the last session leaves"
    case .conflicts(let conflicts):
      let list = conflicts.map(\.description).joined(separator: "; ")
      let resolvable = conflicts.allSatisfy(\.isResolvableByKeepingMine)
      let advice =
        resolvable
        ? "nothing was written — 'save --diff' shows both versions; 'save --mine' keeps yours, 'save --theirs' takes theirs for these properties, 'save --theirs-whole' their whole documents, 'save --both' keeps yours and adds theirs as NAME (conflict DATE); your other unsaved changes are kept in each case"
        : "nothing was written — rename one of them and save again"
      let count = conflicts.count == 1 ? "a conflict" : "\(conflicts.count) conflicts"
      return "another session saved \(count) with your changes: \(list); \(advice)"
    }
  }
}
