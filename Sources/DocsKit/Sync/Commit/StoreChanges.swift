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
  /// It reads the changes where they are: a first commit's names every document, and a
  /// list of them all would be made only to name a few.
  func subject(prefix: String = "") -> String {
    guard count > 0 else {
      guard rewrittenFiles.isEmpty else {
        let count = rewrittenFiles.count == 1 ? "1 file" : "\(rewrittenFiles.count) files"
        return prefix + "\(count) written as docsh writes them"
      }
      return prefix + "no change to categories or documents"
    }
    var parts: [String] = []
    for (kind, word) in [(Kind.new, "new"), (.changed, "changed"), (.deleted, "deleted")] {
      let number =
        categories.lazy.filter { $0.kind == kind }.count
        + documents.lazy.filter { $0.kind == kind }.count
      if number > 0 { parts.append("\(number) \(word)") }
    }
    var line = prefix + parts.joined(separator: ", ") + ":"
    let paths = [
      AnySequence(categories.lazy.map { $0.name + "/" }), AnySequence(documents.lazy.map(\.path)),
    ].joined()
    for (index, path) in paths.enumerated() {
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
    var lines: [String] = []
    forEachTrailer(storePath: storePath) { lines.append($0) }
    return lines
  }

  /// Hands each line of ``trailers(storePath:)`` to `body` in order, so that a message
  /// naming every document of a large store is built without an array of its lines.
  private func forEachTrailer(storePath: String, _ body: (String) -> Void) {
    body(HistoryTrailer.storeKey + ": " + storePath)
    for change in documents { body(StoreChanges.trailer(of: change)) }
  }

  /// The trailer of one document's change.
  private static func trailer(of change: DocumentChange) -> String {
    switch change.kind {
    case .new, .changed:
      "\(HistoryTrailer.changedKey): \(change.id) \(change.size) \(change.fingerprint) \(change.path)"
    case .deleted:
      "\(HistoryTrailer.deletedKey): \(change.id) \(change.fingerprint) \(change.path)"
    }
  }

  /// The whole message: the subject, a blank line and the trailers.
  func message(prefix: String = "", storePath: String) -> String {
    var message = messageHead(prefix: prefix)
    // Sized first: grown by doubling, a first commit's message (a line per document) would
    // hold twice its size at its peak.
    message.reserveCapacity(message.utf8.count + trailerSize(storePath: storePath))
    forEachTrailer(storePath: storePath) { line in
      message += line
      message += "\n"
    }
    return message
  }

  /// ``message(prefix:storePath:)`` as a commit written in pieces takes it: its head, and
  /// its trailers made one at a time as they are written, never the whole text at once (10
  /// MB for a first commit of 100,000 documents).
  func messageInPieces(prefix: String = "", storePath: String) -> FastImportCommit.Message {
    let trailers = [
      AnySequence(CollectionOfOne(HistoryTrailer.storeKey + ": " + storePath)),
      AnySequence(documents.lazy.map(StoreChanges.trailer(of:))),
    ].joined()
    return FastImportCommit.Message(
      head: messageHead(prefix: prefix), lines: AnySequence(trailers),
      linesSize: trailerSize(storePath: storePath))
  }

  /// The subject, a blank line, and the files rewritten without a change of their document,
  /// one a line.
  private func messageHead(prefix: String) -> String {
    let rewritten =
      rewrittenFiles.isEmpty
      ? ""
      : "Written as docsh writes them (their documents did not change):\n"
        + rewrittenFiles.map { "  " + $0 + "\n" }.joined() + "\n"
    return subject(prefix: prefix) + "\n\n" + rewritten
  }

  /// The bytes of the trailers, each with its newline.
  private func trailerSize(storePath: String) -> Int {
    var size = 0
    forEachTrailer(storePath: storePath) { size += $0.utf8.count + 1 }
    return size
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
