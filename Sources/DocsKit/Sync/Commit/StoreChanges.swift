/// What differs between two versions of a store, object by object (by id): what a commit
/// message says, what its trailers record for history, and what a sync counts as changes.
struct StoreChanges {
  /// What happened to an object.
  enum Kind: Equatable {
    case new, changed, deleted
  }

  /// A document that differs.
  struct DocumentChange: Equatable {
    var id: ObjectID
    var kind: Kind
    /// The category's name and the document's, in the newer version (the older for a
    /// deleted one).
    var category: String
    var name: String
    var size: Int
    /// A fingerprint of the document's version: its encoded object and its category.
    var fingerprint: String

    var path: String { category + "/" + name }
  }

  /// A category that differs (created, renamed or deleted).
  struct CategoryChange: Equatable {
    var kind: Kind
    var name: String
  }

  /// The documents that differ: new and changed ones in the newer file's order, then the
  /// deleted ones in the older's.
  var documents: [DocumentChange] = []
  /// The categories that differ, in the same order.
  var categories: [CategoryChange] = []

  /// The documents (`CATEGORY/NAME`) whose files a commit rewrites though they did not
  /// change: the message names them too.
  var rewrittenFiles: [String] = []

  /// How many objects differ.
  var count: Int { documents.count + categories.count }

  /// No change.
  init() {}

  /// Compares two snapshots of (parts of) a store, object by object
  /// (``SnapshotDifference``).
  init(from old: StoreSnapshot, to new: StoreSnapshot) {
    let difference = SnapshotDifference(from: old, to: new)
    for category in difference.categories {
      switch (category.before, category.after) {
      case (nil, let name?): categories.append(CategoryChange(kind: .new, name: name.text))
      case (_?, let name?): categories.append(CategoryChange(kind: .changed, name: name.text))
      case (let name?, nil): categories.append(CategoryChange(kind: .deleted, name: name.text))
      case (nil, nil): break
      }
    }
    for change in difference.documents {
      guard let (document, category) = change.after else {
        guard let (document, category) = change.before else { continue }
        documents.append(
          DocumentChange(
            id: document.id, kind: .deleted, category: category.name.text,
            name: document.name.text, size: 0,
            fingerprint: RepositoryLayout.deletionFingerprint(of: document.id)))
        continue
      }
      let saved = SavedDocument(
        id: document.id, name: document.name.text, categoryID: category.id,
        categoryName: category.name.text, content: document.content, size: document.size,
        modified: document.modified, tags: document.tags)
      documents.append(
        DocumentChange(
          id: document.id, kind: change.before == nil ? .new : .changed,
          category: category.name.text, name: document.name.text, size: document.size,
          fingerprint: RepositoryLayout.fingerprint(
            of: saved, fileBytes: RepositoryLayout.fileBytes(of: saved))))
    }
  }

  /// What the save `saved` changed: its categories and documents, in the store's order.
  init(_ saved: StoreDelta) {
    for category in saved.categories {
      switch (category.before, category.after) {
      case (nil, let after?): categories.append(CategoryChange(kind: .new, name: after.text))
      case (_?, let after?): categories.append(CategoryChange(kind: .changed, name: after.text))
      case (let before?, nil):
        categories.append(CategoryChange(kind: .deleted, name: before.text))
      case (nil, nil): break
      }
    }
    for document in saved.documents {
      if let after = document.saved {
        documents.append(
          DocumentChange(
            id: document.id, kind: document.before == nil ? .new : .changed,
            category: after.categoryName, name: after.name, size: after.size,
            fingerprint: RepositoryLayout.fingerprint(
              of: after, fileBytes: RepositoryLayout.fileBytes(of: after))))
      } else if let before = document.before {
        documents.append(
          DocumentChange(
            id: document.id, kind: .deleted, category: before.category.text,
            name: before.name.text, size: 0,
            fingerprint: RepositoryLayout.deletionFingerprint(of: document.id)))
      }
    }
  }

  // MARK: - Commit messages

  /// The longest subject line a commit gets.
  static let subjectLimit = 100

  /// One line saying what changed, like `status`: `2 new, 1 changed: Work/Plan, Work/Notes, Home/`.
  func subject(prefix: String = "") -> String {
    let everything: [(Kind, String)] =
      categories.map { ($0.kind, $0.name + "/") } + documents.map { ($0.kind, $0.path) }
    guard !everything.isEmpty else {
      guard rewrittenFiles.isEmpty else {
        let count = rewrittenFiles.count == 1 ? "1 file" : "\(rewrittenFiles.count) files"
        return prefix + "\(count) written as docsh writes them"
      }
      return prefix + "no change to categories or documents"
    }
    var parts: [String] = []
    for (kind, word) in [(Kind.new, "new"), (.changed, "changed"), (.deleted, "deleted")] {
      let number = everything.filter { $0.0 == kind }.count
      if number > 0 { parts.append("\(number) \(word)") }
    }
    var line = prefix + parts.joined(separator: ", ") + ":"
    for (index, (_, path)) in everything.enumerated() {
      let piece = (index == 0 ? " " : ", ") + path
      if line.count + piece.count > StoreChanges.subjectLimit - 3 {
        line += index == 0 ? " …" : ", …"
        break
      }
      line += piece
    }
    return line
  }

  /// The trailers that let history find a document's versions without reading every
  /// version of the store: one line per document that changed.
  func trailers(storePath: String) -> [String] {
    [HistoryTrailer.storeKey + ": " + storePath]
      + documents.map { change in
        switch change.kind {
        case .new, .changed:
          return
            "\(HistoryTrailer.changedKey): \(change.id) \(change.size) \(change.fingerprint) \(change.path)"
        case .deleted:
          return "\(HistoryTrailer.deletedKey): \(change.id) \(change.fingerprint) \(change.path)"
        }
      }
  }

  /// The whole message: the subject, a blank line and the trailers.
  func message(prefix: String = "", storePath: String) -> String {
    // Every file rewritten without a change of its document is named, one a line.
    let rewritten =
      rewrittenFiles.isEmpty
      ? ""
      : "Written as docsh writes them (their documents did not change):\n"
        + rewrittenFiles.map { "  " + $0 + "\n" }.joined() + "\n"
    return subject(prefix: prefix) + "\n\n" + rewritten
      + trailers(storePath: storePath).joined(separator: "\n") + "\n"
  }
}

/// The keys of the trailers docsh's commits carry (see ``StoreChanges/trailers(storePath:)``).
enum HistoryTrailer {
  /// Marks a commit whose trailers list every document it changed in the store at this path
  /// (against its first parent).
  static let storeKey = "Docsh-Store"
  /// `ID SIZE FINGERPRINT CATEGORY/NAME` of a document created or changed.
  static let changedKey = "Docsh-Changed"
  /// `ID FINGERPRINT CATEGORY/NAME` of a document deleted.
  static let deletedKey = "Docsh-Deleted"
  /// `files` on the commit that converted a repository of the old layout (the store file
  /// tracked) to one file per document.
  static let layoutKey = "Docsh-Layout"

  /// The change a `Docsh-Changed` or `Docsh-Deleted` line records (`.changed` for a created
  /// document too, and size 0 for a deleted one); `nil` for any other line.
  static func documentChange(_ line: Substring) -> StoreChanges.DocumentChange? {
    let kind: StoreChanges.Kind
    let rest: Substring
    if line.hasPrefix(changedKey + ": ") {
      kind = .changed
      rest = line.dropFirst(changedKey.count + 2)
    } else if line.hasPrefix(deletedKey + ": ") {
      kind = .deleted
      rest = line.dropFirst(deletedKey.count + 2)
    } else {
      return nil
    }
    let isDeletion = kind == .deleted
    let fields = rest.split(
      separator: " ", maxSplits: isDeletion ? 2 : 3, omittingEmptySubsequences: false)
    guard fields.count == (isDeletion ? 3 : 4), let id = ObjectID(fields[0]),
      let path = fields.last, let slash = path.firstIndex(of: "/")
    else { return nil }
    return StoreChanges.DocumentChange(
      id: id, kind: kind, category: String(path[..<slash]),
      name: String(path[path.index(after: slash)...]),
      size: isDeletion ? 0 : Int(fields[1]) ?? 0, fingerprint: String(fields[isDeletion ? 1 : 2]))
  }
}
