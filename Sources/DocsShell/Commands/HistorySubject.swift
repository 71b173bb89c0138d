import DocsKit

/// The document `log`, `diff` and `restore` are about, as typed: one that exists now, or the
/// path of one that did (`Work/Old-plan` after `rm`, even when its category is gone too).
struct HistorySubject: Sendable {
  /// The category's name, as typed or as the current category is named.
  var categoryName: String
  /// The document's name as typed.
  var name: String
  /// The document as it is now; `nil` when no document has that path now.
  var current: Document?

  /// `CATEGORY/NAME`.
  var path: String { categoryName + "/" + name }

  /// Reads `text` from where the user is; paths of documents deleted since (and of deleted
  /// categories) are taken as typed.
  /// - Throws: ``ShellError`` when `text` cannot name a document at all.
  init(_ text: String, in session: Session) throws(ShellError) {
    let path = ShellPath(text)
    do throws(ShellError) {
      let (category, name) = try path.entry(in: session.context, from: session.currentCategory)
      categoryName = category.name.text
      self.name = name
      do {
        current = try session.context.document(named: name, in: category.id)
      } catch {
        throw ShellError.context(error)
      }
    } catch {
      guard case .noSuchCategory = error else { throw error }
      // A category gone since: `/Old/Plan` or `Old/Plan` at the top.
      let parts = text.split(separator: "/", omittingEmptySubsequences: true)
      guard parts.count == 2 else { throw error }
      categoryName = String(parts[0])
      name = String(parts[1])
      current = nil
    }
  }

  /// The document's id: now, or the last one docsh's commits recorded at this path.
  /// - Throws: ``SyncError/noSuchDocument(path:commit:)`` when the history knows none.
  func id(in repository: StoreRepository) throws(SyncError) -> ObjectID {
    if let current { return current.id }
    guard let id = try repository.history.documentID(lastInCategory: categoryName, named: name)
    else {
      throw .noSuchDocument(path: path, commit: "any commit")
    }
    return id
  }

  /// The document as it was at `commit`: by its id when it exists now, else by its path.
  /// - Throws: ``SyncError/noSuchDocument(path:commit:)`` when the commit holds none.
  func saved(at commit: CommitID, in repository: StoreRepository) throws(SyncError)
    -> SavedDocument
  {
    let saved: SavedDocument?
    if let current {
      saved = try repository.history.document(current.id, at: commit)
    } else {
      saved = try repository.history.document(inCategory: categoryName, named: name, at: commit)
    }
    guard let saved else { throw .noSuchDocument(path: path, commit: commit.short) }
    return saved
  }
}
