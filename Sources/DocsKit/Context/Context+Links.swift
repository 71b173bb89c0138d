// Links between documents, `[[Name]]` and `[[Category/Name]]` in contents (``DocumentLink``):
// derived from contents whenever asked, never stored beside them. The store's index keeps
// the links of saved contents to answer backlinks without reading every content; what
// changed since the last save is read here.

/// A link of a document's content, with the document it names when there is one.
public struct ResolvedLink: Sendable {
  /// The link as written.
  public var link: DocumentLink
  /// The document it names; `nil` when none exists (a missing link).
  public var target: Document?
}

/// A link to a document from another one (or itself): where it is and its line.
public struct Backlink: Sendable {
  /// The document holding the link.
  public var source: Document
  /// The link.
  public var link: DocumentLink
  /// The text of the line the link is on.
  public var lineText: String
}

/// What a move or rename did to the links naming the document moved.
public struct LinkRewrite: Sendable {
  /// The document as moved.
  public var document: Document
  /// How many links were rewritten.
  public var links: Int
  /// In how many documents.
  public var documents: Int
}

extension Context {
  // MARK: - Resolving

  /// The document `link` names, read from a document of the category `categoryID`: a
  /// `[[Name]]` in that category, a `[[Category/Name]]` in the one it names.
  /// - Throws: ``ContextError/store(_:)`` when the store cannot read the category.
  public func target(of link: DocumentLink, from sourceCategory: ObjectID) throws(ContextError)
    -> Document?
  {
    var categoryID = sourceCategory
    if let category = link.category {
      guard let named = categoryIDsByKey[category.key] else { return nil }
      categoryID = named
    }
    return try document(named: link.name.text, in: categoryID)
  }

  /// The links of the document `id`'s content, in order, each resolved or missing.
  /// - Throws: ``ContextError`` when the document is gone or its content unreadable.
  public func links(of id: ObjectID) throws(ContextError) -> [ResolvedLink] {
    guard let record = try documentRecord(id) else { throw .noSuchDocument(id) }
    var resolved: [ResolvedLink] = []
    for link in DocumentLink.links(in: try text(of: record.content)) {
      resolved.append(
        ResolvedLink(link: link, target: try target(of: link, from: record.document.categoryID)))
    }
    return resolved
  }

  /// Every link to the document `id`, sorted by the linking document's category and name,
  /// then line.
  /// - Throws: ``ContextError`` when the document is gone or a content unreadable,
  ///   ``ContextError/interrupted`` when the interruption stops it.
  public func backlinks(to id: ObjectID) throws(ContextError) -> [Backlink] {
    guard let record = try documentRecord(id),
      let category = categoryRecords[record.document.categoryID]
    else { throw .noSuchDocument(id) }
    var found: [Backlink] = []
    let document = record.document
    for (source, content) in try linkCandidates(to: document, in: category.category) {
      try checkForInterruption(.contentSearch)
      let text = try self.text(of: content)
      // Lines as grep splits them: at each newline byte (a `\r\n` is one Character).
      var lines: [Substring.UTF8View]?
      // A link names the document when its name does, and its category (or, for a bare
      // name, the linking document's): decided without resolving it, so without loading
      // the categories of the documents that link.
      for link in DocumentLink.links(in: text)
      where link.name.key == document.name.key
        && (link.category.map { $0.key == category.category.name.key }
          ?? (source.categoryID == document.categoryID))
      {
        if lines == nil {
          lines = text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        }
        var line = lines.map { link.line - 1 < $0.count ? $0[link.line - 1] : "".utf8[...] }
        if line?.last == UInt8(ascii: "\r") { line = line?.dropLast() }
        found.append(
          Backlink(
            source: documentRecords[source.id]?.document ?? source, link: link,
            lineText: line.map { String(decoding: $0, as: UTF8.self) } ?? ""))
      }
    }
    return found.sorted { left, right in
      left.source.id == right.source.id
        ? left.link.line < right.link.line : categoryThenName(left.source, right.source)
    }
  }

  /// The documents that may link to `document`: those the store's index says link to its
  /// name (and category) now by their saved contents — unchanged since, their links resolve
  /// as then — and those changed since the save; every document when the store cannot say.
  private func linkCandidates(to document: Document, in category: Category) throws(ContextError)
    -> [(document: Document, content: ContentStorage)]
  {
    let indexed: [StoredDocument]?
    do {
      indexed = try store.documents(linkingTo: document.name, in: (category.id, category.name))
    } catch {
      throw .interrupted
    }
    guard let indexed else {
      return try contentSearchCandidates(in: nil)
    }
    return candidates(indexed)
  }

  /// Every link in the store whose target names no document, sorted by document and line.
  /// Reads every content.
  /// - Throws: ``ContextError`` when a content is unreadable or the work is interrupted.
  public func missingLinks() throws(ContextError) -> [Backlink] {
    var found: [Backlink] = []
    for (document, content) in try contentSearchCandidates(in: nil) {
      try checkForInterruption(.contentSearch)
      for link in DocumentLink.links(in: try text(of: content))
      where try target(of: link, from: document.categoryID) == nil {
        found.append(Backlink(source: document, link: link, lineText: ""))
      }
    }
    return found.sorted { left, right in
      left.source.id == right.source.id
        ? left.link.line < right.link.line : categoryThenName(left.source, right.source)
    }
  }

  // MARK: - Rewriting links on a move

  /// Moves (or renames) the document `id` as ``moveDocument(_:to:renamingTo:)`` does and, in
  /// the same change and undo step, rewrites the links naming it in the documents that hold
  /// them, as Obsidian does: `[[Old]]` becomes `[[New]]`, or `[[Category/New]]` from another
  /// category; a `|shown text` stays. The moved document's own `[[Name]]` links to its old
  /// category become `[[OldCategory/Name]]`, so that they still name what they named.
  /// - Throws: ``ContextError`` as ``moveDocument(_:to:renamingTo:)``, or when a linking
  ///   content is unreadable; nothing changes then.
  @discardableResult
  public func moveDocument(
    _ id: ObjectID, to categoryID: ObjectID, renamingTo name: String?, rewritingLinks: Bool
  ) throws(ContextError) -> LinkRewrite {
    guard rewritingLinks else {
      return LinkRewrite(
        document: try moveDocument(id, to: categoryID, renamingTo: name), links: 0, documents: 0)
    }
    guard let before = try documentRecord(id) else { throw .noSuchDocument(id) }
    let oldCategory = before.document.categoryID
    let incoming = try backlinks(to: id)
    // The moved document's own links that name documents of its old category by name alone.
    var outgoing: [DocumentLink] = []
    if categoryID != oldCategory {
      for resolved in try links(of: id)
      where resolved.link.category == nil && resolved.target != nil && resolved.target?.id != id {
        outgoing.append(resolved.link)
      }
    }
    return try performChanges("mv \(before.document.name)") { () throws(ContextError) in
      let moved = try moveDocument(id, to: categoryID, renamingTo: name)
      guard let newCategory = categoryRecords[categoryID]?.category.name,
        let oldCategoryName = categoryRecords[oldCategory]?.category.name
      else { return LinkRewrite(document: moved, links: 0, documents: 0) }
      var bySource: [ObjectID: [(DocumentLink, String)]] = [:]
      var order: [ObjectID] = []
      for backlink in incoming {
        let sourceCategory = backlink.source.id == id ? categoryID : backlink.source.categoryID
        let target =
          backlink.link.category == nil && sourceCategory == categoryID
          ? moved.name.text : newCategory.text + "/" + moved.name.text
        if bySource[backlink.source.id] == nil { order.append(backlink.source.id) }
        bySource[backlink.source.id, default: []].append((backlink.link, target))
      }
      for link in outgoing {
        if bySource[id] == nil { order.append(id) }
        bySource[id, default: []].append((link, oldCategoryName.text + "/" + link.name.text))
      }
      var count = 0
      var changedDocuments = 0
      for source in order {
        guard let edits = bySource[source] else { continue }
        let old = try content(of: source)
        let new = Context.rewriting(old, edits)
        guard new != old else { continue }
        try setContent(new, of: source)
        count += edits.count
        changedDocuments += 1
      }
      return LinkRewrite(
        document: documentRecords[id]?.document ?? moved, links: count,
        documents: changedDocuments)
    }
  }

  /// `content` with the target of each link of `edits` replaced by its new text.
  static func rewriting(_ content: String, _ edits: [(DocumentLink, String)]) -> String {
    var bytes = Array(content.utf8)
    for (link, target) in edits.sorted(by: {
      $0.0.targetRange.lowerBound > $1.0.targetRange.lowerBound
    }) {
      guard link.targetRange.upperBound <= bytes.count else { continue }
      bytes.replaceSubrange(link.targetRange, with: Array(target.utf8))
    }
    return String(decoding: bytes, as: UTF8.self)
  }
}

extension Context {
  // MARK: - Rewriting links on a category's rename

  /// Renames the category `id` as ``renameCategory(_:to:)`` does and, in the same change and
  /// undo step, rewrites the `[[Category/Name]]` links naming its documents: `[[Old/Plan]]`
  /// becomes `[[New/Plan]]` (a `|shown text` stays). `[[Name]]` links need nothing.
  /// - Returns: the category renamed, and how many links were rewritten in how many
  ///   documents.
  /// - Throws: as ``renameCategory(_:to:)``, or when a linking content is unreadable;
  ///   nothing changes then.
  @discardableResult
  public func renameCategory(
    _ id: ObjectID, to name: String, rewritingLinks: Bool
  ) throws(ContextError) -> (category: Category, links: Int, documents: Int) {
    guard rewritingLinks, let old = categoryRecords[id]?.category else {
      return (try renameCategory(id, to: name), 0, 0)
    }
    // The links into the category, found before the rename changes what they resolve to.
    var edits: [(source: ObjectID, links: [DocumentLink])] = []
    for (source, content) in try linkCandidates(into: old) {
      try checkForInterruption(.contentSearch)
      var found: [DocumentLink] = []
      for link in DocumentLink.links(in: try text(of: content))
      where link.category?.key == old.name.key {
        if try document(named: link.name.text, in: id) != nil { found.append(link) }
      }
      if !found.isEmpty { edits.append((source.id, found)) }
    }
    return try performChanges("mv \(old.name)") { () throws(ContextError) in
      let renamed = try renameCategory(id, to: name)
      var count = 0
      var changed = 0
      for (source, links) in edits {
        let text = try content(of: source)
        let new = Context.rewriting(
          text, links.map { ($0, renamed.name.text + "/" + $0.name.text) })
        guard new != text else { continue }
        try setContent(new, of: source)
        count += links.count
        changed += 1
      }
      return (renamed, count, changed)
    }
  }

  /// The documents that may hold a `[[Category/Name]]` link into `category`: those the
  /// store's index names, and those changed since the save; every document when it cannot.
  private func linkCandidates(into category: Category) throws(ContextError)
    -> [(document: Document, content: ContentStorage)]
  {
    let indexed: [StoredDocument]?
    do {
      indexed = try store.documents(linkingInto: category.name)
    } catch {
      throw .interrupted
    }
    guard let indexed else { return try contentSearchCandidates(in: nil) }
    return candidates(indexed)
  }

  /// The documents the index found, as this session has them (its unsaved version where it
  /// changed one), and every document the session changed, which the index cannot know.
  private func candidates(
    _ indexed: [StoredDocument]
  ) -> [(document: Document, content: ContentStorage)] {
    let changed = changedDocumentIDs()
    var candidates: [(document: Document, content: ContentStorage)] = []
    for stored in indexed where !changed.contains(stored.id) {
      let record = documentRecords[stored.id]
      candidates.append(
        (record?.document ?? stored.document, record?.content ?? .fault(stored.contentLocation)))
    }
    for id in changed {
      guard let record = documentRecords[id] else { continue }
      candidates.append((record.document, record.content))
    }
    return candidates
  }
}
