// Tags: a many-to-many relationship between documents and tags. A document holds its tags
// (sorted by key, each once); the context keeps the inverse, the documents of each tag
// (``documentsByTag``), in step through ``setDocument(_:to:)``. The delete rules: deleting
// a document takes it out of its tags and leaves them on the others; a tag no document
// holds any more is gone (there is no tag object to outlive its documents). Tagging is not
// an edit of the document: its modification date stays.

/// A tag with the number of documents that hold it.
public struct TagCount: Hashable, Sendable {
  /// The tag, as first written.
  public var tag: Tag
  /// How many documents hold it.
  public var count: Int
}

extension Context {
  // MARK: - Changing tags

  /// Puts `tags` on each of the documents `ids`, in one undo step; a tag another document
  /// already holds takes that spelling (a tag is shown as first written).
  /// - Returns: how many documents changed (those holding every tag already did not).
  /// - Throws: ``ContextError`` when a document is gone or the store cannot read it.
  @discardableResult
  public func tag(_ ids: [ObjectID], with tags: [Tag]) throws(ContextError) -> Int {
    var spelled: [Tag] = []
    for tag in tags.normalizedTags() { spelled.append(try spelling(of: tag)) }
    return try changeTags(of: ids, undoName: "tag \(spelled.map(\.text).joined(separator: " "))") {
      ($0 + spelled).normalizedTags()
    }
  }

  /// Takes `tags` off each of the documents `ids`, in one undo step.
  /// - Returns: how many documents changed.
  /// - Throws: ``ContextError`` when a document is gone or the store cannot read it.
  @discardableResult
  public func untag(_ ids: [ObjectID], removing tags: [Tag]) throws(ContextError) -> Int {
    let keys = Set(tags.map(\.key))
    return try changeTags(
      of: ids, undoName: "untag \(tags.map(\.text).joined(separator: " "))"
    ) { $0.filter { !keys.contains($0.key) } }
  }

  private func changeTags(
    of ids: [ObjectID], undoName: String, _ change: ([Tag]) -> [Tag]
  ) throws(ContextError) -> Int {
    var changed: [DocumentRecord] = []
    var seen = Set<ObjectID>()
    for id in ids where seen.insert(id).inserted {
      guard var record = try documentRecord(id) else { throw .noSuchDocument(id) }
      let tags = change(record.document.tags)
      guard tags.map(\.text) != record.document.tags.map(\.text) else { continue }
      record.document.tags = tags
      record.location = nil
      changed.append(record)
    }
    guard !changed.isEmpty else { return 0 }
    performChanges(undoName) {
      for record in changed { setDocument(record.document.id, to: record) }
    }
    return changed.count
  }

  /// `tag` as the graph already spells it, when a document holds it; else as written.
  private func spelling(of tag: Tag) throws(ContextError) -> Tag {
    if let holder = documentsByTag[tag.key]?.first,
      let held = documentRecords[holder]?.document.tags.first(where: { $0.key == tag.key })
    {
      return held
    }
    guard !unloadedCategories.isEmpty else { return tag }
    let stored: [StoredDocument]
    do {
      stored = try store.documents(taggedWith: [tag.key], in: unloadedCategories)
    } catch {
      throw .store(error)
    }
    return stored.lazy.compactMap { $0.tags.first { $0.key == tag.key } }.first ?? tag
  }

  // MARK: - Asking about tags

  /// Every tag with the number of documents holding it, sorted by tag.
  /// - Throws: ``ContextError/store(_:)`` when the store cannot answer for its unloaded
  ///   categories.
  public func tags() throws(ContextError) -> [TagCount] {
    if let deferred = try deferredTags() { return deferred }
    var counts: [TagKey: TagCount] = [:]
    for (key, holders) in documentsByTag {
      guard let first = holders.first,
        let tag = documentRecords[first]?.document.tags.first(where: { $0.key == key })
      else { continue }
      counts[key] = TagCount(tag: tag, count: holders.count)
    }
    return Context.counting(try unloadedTagged(with: []), into: counts)
  }

  /// `counts` with the tags of the saved documents `stored` counted in, sorted by tag.
  static func counting(_ stored: [StoredDocument], into counts: [TagKey: TagCount]) -> [TagCount] {
    var counts = counts
    for document in stored {
      for tag in document.tags {
        counts[tag.key, default: TagCount(tag: tag, count: 0)].count += 1
      }
    }
    return counts.values.sorted { $0.tag < $1.tag }
  }

  /// Every document holding all of `tags` whose name contains `text` (ignoring case),
  /// sorted by category and name; with no tags, every document holding any.
  /// - Throws: ``ContextError/store(_:)`` when the store cannot answer for its unloaded
  ///   categories.
  public func documents(
    taggedWith tags: [Tag], nameContaining text: String = ""
  ) throws(ContextError) -> [Document] {
    let keys = Array(Set(tags.map(\.key)))
    var found: [Document] = []
    if let first = keys.first {
      for id in documentsByTag[first] ?? [] {
        guard let document = documentRecords[id]?.document else { continue }
        if keys.count == 1 || document.holdsAll(keys) { found.append(document) }
      }
    } else {
      for record in documentRecords.values where !record.document.tags.isEmpty {
        found.append(record.document)
      }
    }
    found += try unloadedTagged(with: keys).map(\.document)
    let needle = NameKey(text).folded
    if !needle.isEmpty { found = found.filter { $0.name.key.contains(needle) } }
    return found.sorted(by: categoryThenName)
  }

  /// The documents of unloaded categories holding all of `keys` (any tag, when empty).
  private func unloadedTagged(with keys: [TagKey]) throws(ContextError) -> [StoredDocument] {
    guard !unloadedCategories.isEmpty else { return [] }
    do {
      let stored = try store.documents(taggedWith: keys, in: unloadedCategories)
      return stored.filter { $0.document.holdsAll(keys) && !$0.tags.isEmpty }
    } catch {
      throw .store(error)
    }
  }
}

extension Document {
  /// Whether the document holds a tag of every key of `keys`.
  func holdsAll(_ keys: [TagKey]) -> Bool {
    keys.allSatisfy { key in tags.contains { $0.key == key } }
  }
}

extension Context {
  /// ``search(_:in:limit:)`` narrowed to the documents holding every tag of `tags`: the
  /// best `limit` of those.
  /// - Throws: as ``search(_:in:limit:)``.
  public func search(
    _ query: SearchQuery, in category: ObjectID? = nil, limit: Int? = 20, taggedWith tags: [Tag]
  ) throws(ContextError) -> [SearchHit] {
    guard !tags.isEmpty else { return try search(query, in: category, limit: limit) }
    let keys = tags.map(\.key)
    let hits = try search(query, in: category, limit: nil).filter { $0.document.holdsAll(keys) }
    guard let limit, limit > 0 else { return hits }
    return Array(hits.prefix(limit))
  }
}
