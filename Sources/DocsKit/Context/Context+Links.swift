// Links between documents, `[[Name]]` and `[[Category/Name]]` in contents (``DocumentLink``):
// derived from contents whenever asked, never stored beside them. The store's index keeps
// the links of saved contents, each with its line, to answer backlinks without reading the
// linking contents; what changed since the last save is read here.

/// A link of a document's content, with the document it names when there is one.
public struct ResolvedLink: Sendable {
  /// The link as written.
  public var link: DocumentLink
  /// The document it names; `nil` when none exists (a missing link) or when its bare name
  /// names more than one (``candidates``).
  public var target: Document?
  /// The documents an ambiguous bare name could mean, sorted by category and name; empty
  /// when the link resolves or names nothing.
  public var candidates: [Document] = []
}

/// A link to a document from another one (or itself): where it is and its line.
public struct Backlink: Sendable {
  /// The document holding the link.
  public var source: Document
  /// The link.
  public var link: DocumentLink
  /// The text of the line the link is on.
  public var lineText: String
  /// For a link that resolves to nothing (``Context/missingLinks()``): the documents its
  /// bare name could mean when it names more than one; empty when it names none.
  public var candidates: [Document] = []
}

/// What a move or rename did to the links naming the document moved.
public struct LinkRewrite: Sendable {
  /// The document as moved.
  public var document: Document
  /// How many links were rewritten.
  public var links: Int
  /// In how many documents.
  public var documents: Int
  /// How many links were kept as they were because no link can name the document's new
  /// name or category (it holds `#`, `|`, `[` or `]`).
  public var kept: Int = 0
}

/// The documents of each name asked while resolving links: one lookup a name for one
/// command's work, or every document's name at once when `everything` is asked first.
struct DocumentsByName {
  var found: [NameKey: [Document]] = [:]
  var hasEverything = false
}

extension Context {
  // MARK: - Resolving

  /// The document `link` names, read from the document `source`, as Obsidian resolves it:
  /// `[[#Heading]]` names `source` itself; `[[Category/Name]]` the document of that name in
  /// that category; a bare `[[Name]]` the document of that name in `source`'s category,
  /// else the one document of that name in any category. A bare name that two or more
  /// other categories hold resolves to none: they are its candidates.
  /// - Throws: ``ContextError/store(_:)`` when the store cannot read a category.
  public func resolve(_ link: DocumentLink, from source: Document) throws(ContextError)
    -> ResolvedLink
  {
    var names = DocumentsByName()
    return try resolve(link, from: source, names: &names)
  }

  func resolve(
    _ link: DocumentLink, from source: Document, names: inout DocumentsByName
  ) throws(ContextError) -> ResolvedLink {
    guard let name = link.name else { return ResolvedLink(link: link, target: source) }
    var categoryID = source.categoryID
    if let category = link.category {
      guard let named = categoryIDsByKey[category.key] else {
        return ResolvedLink(link: link, target: nil)
      }
      categoryID = named
    }
    // With every name at hand, no category needs loading.
    let own =
      names.hasEverything
      ? names.found[name.key]?.first { $0.categoryID == categoryID }
      : try document(named: name.text, in: categoryID)
    if link.category != nil || own != nil { return ResolvedLink(link: link, target: own) }
    let everywhere = try documents(named: name, names: &names)
    if everywhere.count == 1 { return ResolvedLink(link: link, target: everywhere[0]) }
    return ResolvedLink(link: link, target: nil, candidates: everywhere)
  }

  /// Every document named `name` (ignoring case), in any category, sorted by category and
  /// name.
  func documents(named name: Name, names: inout DocumentsByName) throws(ContextError)
    -> [Document]
  {
    if let known = names.found[name.key] { return known }
    if names.hasEverything { return [] }
    // Loaded categories from the graph, the others from the store, which reads only the
    // documents of that name.
    var found: [Document] = []
    for (categoryID, members) in membersByCategory where unloadedCategories[categoryID] == nil {
      if let id = members[name.key], let record = documentRecords[id] {
        found.append(record.document)
      }
    }
    found += try storedDocuments(.named(name.key), in: unloadedCategories).map(\.document)
    found.sort(by: categoryThenName)
    names.found[name.key] = found
    return found
  }

  /// How many documents are named `name` (ignoring case), in any category: counted, the
  /// unloaded categories' by the store without reading them.
  func documentCount(named name: Name) throws(ContextError) -> Int {
    var count = 0
    for (categoryID, members) in membersByCategory
    where unloadedCategories[categoryID] == nil && members[name.key] != nil {
      count += 1
    }
    guard !unloadedCategories.isEmpty else { return count }
    do {
      return try count + store.documentCount(named: name.key, in: unloadedCategories)
    } catch {
      throw .store(error)
    }
  }

  /// Fills `names` with every document's name: for work that resolves every link.
  func collectEveryName(into names: inout DocumentsByName) throws(ContextError) {
    var found: [NameKey: [Document]] = [:]
    for document in try documents(nameContaining: "") {
      found[document.name.key, default: []].append(document)
    }
    names = DocumentsByName(found: found, hasEverything: true)
  }

  /// The links of the document `id`'s content, in order, each resolved or missing.
  /// - Throws: ``ContextError`` when the document is gone or its content unreadable.
  public func links(of id: ObjectID) throws(ContextError) -> [ResolvedLink] {
    guard let record = try documentRecord(id) else { throw .noSuchDocument(id) }
    var names = DocumentsByName()
    var resolved: [ResolvedLink] = []
    for link in DocumentLink.links(in: try text(of: record.content)) {
      resolved.append(try resolve(link, from: record.document, names: &names))
    }
    return resolved
  }

  /// Every link to the document `id`, sorted by the linking document's category and name,
  /// then line.
  /// - Throws: ``ContextError`` when the document is gone or a content unreadable,
  ///   ``ContextError/interrupted`` when the interruption stops it.
  public func backlinks(to id: ObjectID) throws(ContextError) -> [Backlink] {
    try backlinks(to: id, readingContents: false)
  }

  /// ``backlinks(to:)``: the links of saved documents unchanged since as the store's index
  /// keeps them (each with its line), or, when `readingContents` (a rewrite, which edits the
  /// contents by the links' ranges, and reads them anyway), as their contents hold them.
  /// Documents changed since the save are read as the session has them.
  func backlinks(to id: ObjectID, readingContents: Bool) throws(ContextError) -> [Backlink] {
    // The document alone, not its category: the links say which documents to read.
    guard let document = try documentAndContent(id)?.document,
      let category = categoryRecords[document.categoryID]
    else { throw .noSuchDocument(id) }
    let target = LinkedDocument(
      id: document.id, name: document.name, categoryID: document.categoryID,
      categoryName: category.category.name,
      isUnique: try documentCount(named: document.name) == 1)
    let indexed: [IndexedLink]?
    do {
      indexed = try store.links(to: target)
    } catch {
      throw .interrupted
    }
    var found: [Backlink] = []
    let sources: [(document: Document, content: ContentStorage)]
    if let indexed {
      // Saved documents unchanged since: their links are as the index has them.
      let changed = changedDocumentIDs()
      var linking: [StoredDocument] = []
      var seen = Set<ObjectID>()
      for indexed in indexed where !changed.contains(indexed.source.id) {
        if readingContents {
          if seen.insert(indexed.source.id).inserted { linking.append(indexed.source) }
          continue
        }
        found.append(
          Backlink(
            source: documentRecords[indexed.source.id]?.document ?? indexed.source.document,
            link: indexed.link, lineText: indexed.lineText))
      }
      sources = candidates(linking)
    } else {
      sources = try contentSearchCandidates(in: nil)
    }
    for (source, content) in sources {
      try checkForInterruption(.contentSearch)
      for (link, lineText) in target.links(
        in: try text(of: content), from: source.id, in: source.categoryID)
      {
        found.append(
          Backlink(
            source: documentRecords[source.id]?.document ?? source, link: link,
            lineText: lineText))
      }
    }
    return found.sorted { left, right in
      left.source.id == right.source.id
        ? left.link.range.lowerBound < right.link.range.lowerBound
        : categoryThenName(left.source, right.source)
    }
  }

  /// Every link in the store that resolves to no document, sorted by document and line:
  /// missing, or a bare name of several documents (with them as its candidates). Reads
  /// every content.
  /// - Throws: ``ContextError`` when a content is unreadable or the work is interrupted.
  public func missingLinks() throws(ContextError) -> [Backlink] {
    var found: [Backlink] = []
    var names = DocumentsByName()
    try collectEveryName(into: &names)
    for (document, content) in try contentSearchCandidates(in: nil) {
      try checkForInterruption(.contentSearch)
      for link in DocumentLink.links(in: try text(of: content)) {
        let resolved = try resolve(link, from: document, names: &names)
        guard resolved.target == nil else { continue }
        found.append(
          Backlink(source: document, link: link, lineText: "", candidates: resolved.candidates))
      }
    }
    return found.sorted { left, right in
      left.source.id == right.source.id
        ? left.link.line < right.link.line : categoryThenName(left.source, right.source)
    }
  }

  // MARK: - Rewriting links on a move

  /// Moves (or renames) the document `id` as ``moveDocument(_:to:renamingTo:)`` does and, in
  /// the same change and undo step, rewrites links so that each still names what it named,
  /// as Obsidian does: `[[Old]]` becomes `[[New]]`, or `[[Category/New]]` where the bare name
  /// would not reach it; a `#heading`, a `|shown text` and a leading `!` or `/` stay. The
  /// moved document's own bare links that would now reach another document (or none) gain
  /// their category, and so do other documents' bare links to a document whose name the
  /// moved one now shares. A name a link cannot hold (with `#`, `|`, `[` or `]`) leaves
  /// the links naming it as they were: they are counted in ``LinkRewrite/kept``.
  /// Code spans and fenced code blocks are never changed.
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
    // Each link that names a document by name, with the document it names now.
    var watched: [(source: ObjectID, link: DocumentLink, target: ObjectID)] = []
    for backlink in try backlinks(to: id, readingContents: true) where backlink.link.name != nil {
      watched.append((backlink.source.id, backlink.link, id))
    }
    for resolved in try links(of: id) where resolved.link.category == nil {
      guard resolved.link.name != nil, let target = resolved.target, target.id != id else {
        continue
      }
      watched.append((id, resolved.link, target.id))
    }
    if let newName = name.flatMap({ try? Name($0) }) {
      var names = DocumentsByName()
      for other in try documents(named: newName, names: &names) where other.id != id {
        for backlink in try backlinks(to: other.id, readingContents: true)
        where backlink.link.category == nil && backlink.link.name != nil {
          watched.append((backlink.source.id, backlink.link, other.id))
        }
      }
    }
    return try performChanges("mv \(before.document.name)") { () throws(ContextError) in
      let moved = try moveDocument(id, to: categoryID, renamingTo: name)
      let (count, changed, kept) = try keepNaming(watched)
      return LinkRewrite(
        document: documentRecords[id]?.document ?? moved, links: count, documents: changed,
        kept: kept)
    }
  }

  /// Rewrites each link of `watched` whose path no longer names its target to one that does:
  /// a bare name where it reaches the target, else `Category/Name`. How many links it
  /// rewrote, in how many documents, and how many it kept because no link can name their
  /// target.
  private func keepNaming(
    _ watched: [(source: ObjectID, link: DocumentLink, target: ObjectID)]
  ) throws(ContextError) -> (links: Int, documents: Int, kept: Int) {
    var bySource: [ObjectID: [(DocumentLink, String)]] = [:]
    var order: [ObjectID] = []
    var kept = 0
    var names = DocumentsByName()
    for (sourceID, link, targetID) in watched {
      guard let source = try documentRecord(sourceID)?.document,
        let target = try documentRecord(targetID)?.document,
        let targetCategory = categoryRecords[target.categoryID]?.category.name
      else { continue }
      if try resolve(link, from: source, names: &names).target?.id == targetID,
        link.name?.key == target.name.key
      {
        continue
      }
      var path = targetCategory.text + "/" + target.name.text
      if link.category == nil {
        let bare = DocumentLink(
          category: nil, name: target.name, subpath: nil, shownText: nil, isEmbed: false,
          target: target.name.text, line: link.line, range: link.range, pathRange: link.pathRange)
        if try resolve(bare, from: source, names: &names).target?.id == targetID {
          path = target.name.text
        }
      }
      guard DocumentLink.canName(path) else {
        kept += 1
        continue
      }
      if bySource[sourceID] == nil { order.append(sourceID) }
      bySource[sourceID, default: []].append((link, path))
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
    return (count, changedDocuments, kept)
  }

  /// `content` with the path of each link of `edits` replaced by its new text.
  static func rewriting(_ content: String, _ edits: [(DocumentLink, String)]) -> String {
    var bytes = Array(content.utf8)
    for (link, path) in edits.sorted(by: {
      $0.0.pathRange.lowerBound > $1.0.pathRange.lowerBound
    }) {
      guard link.pathRange.upperBound <= bytes.count else { continue }
      bytes.replaceSubrange(link.pathRange, with: Array(path.utf8))
    }
    return String(decoding: bytes, as: UTF8.self)
  }
}

extension Context {
  // MARK: - Rewriting links on a category's rename

  /// Renames the category `id` as ``renameCategory(_:to:)`` does and, in the same change and
  /// undo step, rewrites the `[[Category/Name]]` links naming its documents: `[[Old/Plan]]`
  /// becomes `[[New/Plan]]` (a `#heading` and a `|shown text` stay). `[[Name]]` links need
  /// nothing. A name a link cannot hold (with `#`, `|`, `[` or `]`) keeps them as they were.
  /// - Returns: the category renamed, and how many links were rewritten in how many
  ///   documents.
  /// - Throws: as ``renameCategory(_:to:)``, or when a linking content is unreadable;
  ///   nothing changes then.
  @discardableResult
  public func renameCategory(
    _ id: ObjectID, to name: String, rewritingLinks: Bool
  ) throws(ContextError) -> (category: Category, links: Int, documents: Int, kept: Int) {
    guard rewritingLinks, let old = categoryRecords[id]?.category else {
      return (try renameCategory(id, to: name), 0, 0, 0)
    }
    // The links into the category, found before the rename changes what they resolve to.
    var edits: [(source: ObjectID, links: [DocumentLink])] = []
    for (source, content) in try linkCandidates(into: old) {
      try checkForInterruption(.contentSearch)
      var found: [DocumentLink] = []
      for link in DocumentLink.links(in: try text(of: content))
      where link.category?.key == old.name.key {
        if let linkName = link.name, try document(named: linkName.text, in: id) != nil {
          found.append(link)
        }
      }
      if !found.isEmpty { edits.append((source.id, found)) }
    }
    return try performChanges("mv \(old.name)") { () throws(ContextError) in
      let renamed = try renameCategory(id, to: name)
      guard DocumentLink.canName(renamed.name.text) else {
        return (renamed, 0, 0, edits.reduce(0) { $0 + $1.links.count })
      }
      var count = 0
      var changed = 0
      for (source, links) in edits {
        let text = try content(of: source)
        let new = Context.rewriting(
          text, links.map { ($0, renamed.name.text + "/" + ($0.name?.text ?? "")) })
        guard new != text else { continue }
        try setContent(new, of: source)
        count += links.count
        changed += 1
      }
      return (renamed, count, changed, 0)
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
