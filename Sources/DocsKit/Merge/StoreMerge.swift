/// The three-way merge of whole stores, as the merge driver and `sync` run it: BASE, the
/// common ancestor; CURRENT, this side; OTHER, the side merged in. Pure and deterministic:
/// the same three stores and date always give the same bytes.
///
/// Objects are matched by id. Per object and per property (a document's name, category and
/// content; a category's name), a change made on one side only is taken; a change made the
/// same way on both is taken once. A content both sides changed merges by lines as git
/// merges text (``LineMerge``): edits of different lines combine, and when both sides only
/// appended lines both additions are kept, CURRENT's first. What contradicts is settled
/// without losing a side:
/// - both changed a property of a document, differently (a content: edits of the same or
///   of touching lines): CURRENT's values stay, and
///   OTHER's version (its name, category and content) becomes a sibling document named
///   `NAME (conflict YYYY-MM-DD)` (`… 2`, `… 3` when that is taken); a sibling already in
///   the store with that content (from an earlier merge of the same change) is not made again;
/// - an edit against a deletion keeps the edited object;
/// - a category deleted on one side survives when the other side renamed it or left a
///   document in it that it created or changed; it then holds just those documents (the
///   unchanged ones go, as the deleting side wanted);
/// - a category renamed both ways keeps CURRENT's name;
/// - two categories created on the two sides with one name (ignoring case) become one, with
///   CURRENT's id and spelling: the documents of both are in it;
/// - two objects that end up with one name in one place keep it for CURRENT's (the one whose
///   name and place in the merged store are CURRENT's) and the other is renamed
///   `NAME (conflict YYYY-MM-DD)` — two documents created with one name keep both this way.
///
/// A document renamed or moved on one side only keeps its links on the other: before
/// anything merges, the links naming it in the other side's contents and in the base's are
/// rewritten as the renaming side's `mv` rewrote its own (``carryingRenames(base:current:other:)``).
///
/// The generation is one more than the larger of CURRENT's and OTHER's. The merged file
/// keeps CURRENT's order, with what only OTHER has after it, so that diffs stay small.
struct StoreMerge {
  /// The merged store.
  var merged: StoreSnapshot
  /// What contradicted, one entry per object, in the merged store's order.
  var conflicts: [StoreMergeConflict]

  /// Merges `current` and `other`, whose common ancestor is `base`, on `date`.
  init(base: StoreSnapshot, current: StoreSnapshot, other: StoreSnapshot, date: MergeDate) {
    // A rename on one side rewrote links there; the other side's links follow it.
    let (base, current, other) = StoreMerge.carryingRenames(
      base: base, current: current, other: other)
    var engine = Engine(base: base, current: current, other: other, date: date)
    engine.run()
    merged = engine.result()
    conflicts = engine.renderedConflicts()
  }
}

// MARK: - The engine

extension StoreMerge {
  /// One document of one side, with where it lies in that side's file.
  struct Placed {
    var document: SnapshotDocument
    var categoryID: ObjectID
    var order: Int
  }

  /// One side's store, indexed by id.
  struct Side {
    var categoryNames: [ObjectID: Name] = [:]
    var categoryOrder: [ObjectID: Int] = [:]
    var categoryIDs: [ObjectID] = []
    var documents: [ObjectID: Placed] = [:]
    var documentIDs: [ObjectID] = []

    init(_ snapshot: StoreSnapshot) {
      var order = 0
      for (index, category) in snapshot.categories.enumerated() {
        categoryNames[category.id] = category.name
        categoryOrder[category.id] = index
        categoryIDs.append(category.id)
        for document in category.documents {
          documents[document.id] = Placed(document: document, categoryID: category.id, order: order)
          documentIDs.append(document.id)
          order += 1
        }
      }
    }
  }

  /// Where an object goes in the merged file: CURRENT's objects (tier 0) in CURRENT's order,
  /// then OTHER's (tier 1); a sibling (`sub` 1) right after the document it comes from.
  struct Order: Comparable, Hashable {
    var tier: Int
    var index: Int
    var sub: Int

    init(_ tier: Int, _ index: Int, _ sub: Int = 0) {
      self.tier = tier
      self.index = index
      self.sub = sub
    }

    static let last = Order(3, 0)

    static func < (lhs: Order, rhs: Order) -> Bool {
      (lhs.tier, lhs.index, lhs.sub) < (rhs.tier, rhs.index, rhs.sub)
    }
  }

  struct Engine {
    /// A category of the merged store.
    struct MergedCategory {
      var id: ObjectID
      var name: Name
      /// Sorts categories: CURRENT's order first, then OTHER's.
      var sortKey: Order
      /// Whether the merged name is CURRENT's for this category: it wins a clash of names.
      var nameIsCurrent: Bool
      /// When one side deleted it: kept only if a merged document needs it or it was renamed.
      var deletedBy: Which?
      var renamedBySurvivor = false
    }

    /// A document of the merged store.
    struct MergedDocument {
      var document: SnapshotDocument
      var categoryID: ObjectID
      var sortKey: Order
      /// Whether its name and category are CURRENT's: it wins a clash of names.
      var placementIsCurrent: Bool
      /// Whether it was created on its side (no base): a clash of two such is "created on
      /// both sides".
      var isNew: Bool
    }

    enum Which { case current, other }

    /// A conflict found, its paths rendered at the end with the final names.
    enum Found {
      case changedOnBothSides(ObjectID, [DocumentProperty], sibling: ObjectID)
      case changedHereDeletedThere(document: ObjectID)
      case deletedHereChangedThere(document: ObjectID)
      case categoryChangedHereDeletedThere(ObjectID)
      case categoryDeletedHereChangedThere(ObjectID)
      case renamedBothWays(ObjectID, otherName: String)
      case createdOnBothSides(ObjectID, originalName: Name, categoryID: ObjectID)
      case nameTaken(ObjectID, originalName: Name, categoryID: ObjectID)
      case categoryNameTaken(ObjectID, originalName: Name)
    }

    let base: Side
    let current: Side
    let other: Side
    let generation: Int
    let date: MergeDate

    var categories: [ObjectID: MergedCategory] = [:]
    /// OTHER's new categories merged into CURRENT's new one of the same name.
    var unified: [ObjectID: ObjectID] = [:]
    var documents: [ObjectID: MergedDocument] = [:]
    /// Siblings to add: OTHER's version of a document both sides changed.
    var siblings: [(source: ObjectID, document: MergedDocument)] = []
    var found: [Found] = []
    /// Every id in use anywhere, so that a new sibling's id is fresh.
    var usedIDs: Set<ObjectID> = []

    init(base: StoreSnapshot, current: StoreSnapshot, other: StoreSnapshot, date: MergeDate) {
      self.base = Side(base)
      self.current = Side(current)
      self.other = Side(other)
      generation = max(current.generation, other.generation) + 1
      self.date = date
      for side in [self.base, self.current, self.other] {
        usedIDs.formUnion(side.categoryIDs)
        usedIDs.formUnion(side.documentIDs)
      }
    }

    mutating func run() {
      mergeCategories()
      mergeDocuments()
      keepCategoriesStillUsed()
      settleCategoryNames()
      settleDocumentNames()
      placeSiblings()
    }

    // MARK: Categories

    private mutating func mergeCategories() {
      var newInCurrent: [NameKey: ObjectID] = [:]
      for id in current.categoryIDs
      where base.categoryNames[id] == nil && other.categoryNames[id] == nil {
        if let name = current.categoryNames[id] { newInCurrent[name.key] = id }
      }
      for id in union(current.categoryIDs, other.categoryIDs, base.categoryIDs) {
        let b = base.categoryNames[id]
        let c = current.categoryNames[id]
        let o = other.categoryNames[id]
        let key = sortKey(ofCategory: id)
        switch (c, o) {
        case (let c?, let o?):
          var name = c
          if c.text != o.text {
            if let b, c.text == b.text {
              name = o
            } else if b == nil || o.text != b?.text {
              found.append(.renamedBothWays(id, otherName: o.text))
            }
          }
          categories[id] = MergedCategory(
            id: id, name: name, sortKey: key, nameIsCurrent: name.text == c.text)
        case (let c?, nil):
          var category = MergedCategory(id: id, name: c, sortKey: key, nameIsCurrent: true)
          if let b {
            category.deletedBy = .other
            category.renamedBySurvivor = b.text != c.text
          }
          categories[id] = category
        case (nil, let o?):
          if b == nil, let same = newInCurrent[o.key] {
            unified[id] = same  // both created it: one category
            continue
          }
          var category = MergedCategory(id: id, name: o, sortKey: key, nameIsCurrent: false)
          if let b {
            category.deletedBy = .current
            category.renamedBySurvivor = b.text != o.text
          }
          categories[id] = category
        case (nil, nil):
          break
        }
      }
    }

    private func sortKey(ofCategory id: ObjectID) -> Order {
      if let order = current.categoryOrder[id] { return Order(0, order) }
      if let order = other.categoryOrder[id] { return Order(1, order) }
      return Order(2, base.categoryOrder[id] ?? 0)
    }

    /// Keeps a category deleted on one side when the other renamed it or a merged document
    /// lies in it; drops it otherwise.
    private mutating func keepCategoriesStillUsed() {
      var used: Set<ObjectID> = []
      for document in documents.values { used.insert(document.categoryID) }
      for sibling in siblings { used.insert(sibling.document.categoryID) }
      for (id, category) in categories {
        guard let deletedBy = category.deletedBy else { continue }
        if category.renamedBySurvivor || used.contains(id) {
          found.append(
            deletedBy == .other
              ? .categoryChangedHereDeletedThere(id) : .categoryDeletedHereChangedThere(id))
          categories[id]?.deletedBy = nil
        } else {
          categories[id] = nil
        }
      }
    }

    // MARK: Documents

    private mutating func mergeDocuments() {
      for id in union(current.documentIDs, other.documentIDs, base.documentIDs) {
        let b = base.documents[id]
        let c = current.documents[id]
        var o = other.documents[id]
        if let placed = o, let target = unified[placed.categoryID] { o?.categoryID = target }
        switch (c, o) {
        case (let c?, let o?):
          mergeBoth(id, base: b, current: c, other: o)
        case (let c?, nil):
          guard let b else {
            keep(c, from: .current, isNew: true)
            break
          }
          if isChanged(c, since: b) {
            keep(c, from: .current, isNew: false)
            found.append(.changedHereDeletedThere(document: id))
          }
        case (nil, let o?):
          guard let b else {
            keep(o, from: .other, isNew: true)
            break
          }
          if isChanged(o, since: b) {
            keep(o, from: .other, isNew: false)
            found.append(.deletedHereChangedThere(document: id))
          }
        case (nil, nil):
          break
        }
      }
    }

    private func isChanged(_ side: Placed, since base: Placed) -> Bool {
      side.document.name.text != base.document.name.text || side.categoryID != base.categoryID
        || side.document.content != base.document.content
        || side.document.tags.map(\.text) != base.document.tags.map(\.text)
    }

    private mutating func keep(_ placed: Placed, from which: Which, isNew: Bool) {
      documents[placed.document.id] = MergedDocument(
        document: placed.document, categoryID: placed.categoryID,
        sortKey: Order(which == .current ? 0 : 1, placed.order),
        placementIsCurrent: which == .current, isNew: isNew)
    }

    private mutating func mergeBoth(
      _ id: ObjectID, base b: Placed?, current c: Placed, other o: Placed
    ) {
      var conflicting: [DocumentProperty] = []
      /// CURRENT's value unless only OTHER changed it; a contradiction is recorded.
      func pick<Value: Equatable>(
        _ property: DocumentProperty, _ value: (Placed) -> Value
      ) -> Value {
        let mine = value(c)
        let theirs = value(o)
        if mine == theirs { return mine }
        if let b, mine == value(b) { return theirs }
        if b == nil || theirs != b.map(value) { conflicting.append(property) }
        return mine
      }
      let name = pick(.name) { $0.document.name.text }
      let categoryID = pick(.category) { $0.categoryID }
      // A content both sides changed merges by lines; only overlapping edits contradict.
      let content =
        b.flatMap { mergedContent(base: $0, current: c, other: o) }
        ?? pick(.content) { $0.document.content }

      var document = c.document
      let takesCurrent =
        name == c.document.name.text && categoryID == c.categoryID && content == c.document.content
      let takesOther =
        name == o.document.name.text && categoryID == o.categoryID && content == o.document.content
      if takesCurrent && takesOther {
        // The same name, place and content: what differs is at most a date, and one side's
        // touch (or the later of one edit made on both) is the later one.
        document = c.document
        document.modified = max(c.document.modified, o.document.modified)
      } else if takesCurrent {
        document = c.document
      } else if takesOther {
        document = o.document
      } else {
        document.name = name == c.document.name.text ? c.document.name : o.document.name
        document.content = content
        document.size =
          content == c.document.content
          ? c.document.size : content == o.document.content ? o.document.size : content.utf8.count
        document.modified = max(c.document.modified, o.document.modified)
      }
      // Tags merge element by element, never in conflict.
      document.tags = Tag.merged(
        base: b?.document.tags, current: c.document.tags, other: o.document.tags)
      let placementIsCurrent = name == c.document.name.text && categoryID == c.categoryID
      let sortKey =
        categoryID == c.categoryID || categoryID != o.categoryID
        ? Order(0, c.order) : Order(1, o.order)
      documents[id] = MergedDocument(
        document: document, categoryID: categoryID, sortKey: sortKey,
        placementIsCurrent: placementIsCurrent, isNew: b == nil)

      guard !conflicting.isEmpty else { return }
      // OTHER's version as OTHER had it, beside it; named when every other name is settled.
      var sibling = o.document
      sibling.id = freshID(for: id, content: o.document.content)
      siblings.append(
        (
          id,
          MergedDocument(
            document: sibling, categoryID: o.categoryID,
            sortKey: Order(sortKey.tier, sortKey.index, 1),
            placementIsCurrent: false, isNew: true)
        ))
      found.append(
        .changedOnBothSides(
          id, DocumentProperty.allCases.filter(conflicting.contains), sibling: sibling.id))
    }

    /// The content both sides changed, differently, merged by lines; `nil` when they did not
    /// both change it or their edits overlap.
    private func mergedContent(base b: Placed, current c: Placed, other o: Placed) -> String? {
      let (base, mine, theirs) = (b.document.content, c.document.content, o.document.content)
      guard mine != base, theirs != base, mine != theirs,
        case .merged(let text) = LineMerge.merge(base: base, mine: mine, theirs: theirs)
      else { return nil }
      return text
    }

    /// A new id made from `source` and `content`, the same on every run, used by nothing.
    private mutating func freshID(for source: ObjectID, content: String) -> ObjectID {
      var attempt: UInt64 = 0
      while true {
        var hasher = StableHash()
        hasher.combine(source.high)
        hasher.combine(source.low)
        hasher.combine(attempt)
        hasher.combine(Array(content.utf8))
        hasher.combine(Array(date.description.utf8))
        let high = hasher.value & ~0xF000 | 0x4000
        hasher.combine(0x5EED)
        let low = hasher.value & ~0xC000_0000_0000_0000 | 0x8000_0000_0000_0000
        let id = ObjectID(high: high, low: low)
        if usedIDs.insert(id).inserted { return id }
        attempt += 1
      }
    }

    // MARK: Results

    func result() -> StoreSnapshot {
      var members: [ObjectID: [MergedDocument]] = [:]
      for document in documents.values {
        members[document.categoryID, default: []].append(document)
      }
      let ordered = categories.values.sorted { $0.sortKey < $1.sortKey }
      return StoreSnapshot(
        generation: generation,
        categories: ordered.map { category in
          SnapshotCategory(
            id: category.id, name: category.name,
            documents: (members[category.id] ?? [])
              .sorted {
                $0.sortKey != $1.sortKey ? $0.sortKey < $1.sortKey : $0.document.id < $1.document.id
              }
              .map(\.document))
        })
    }

    func renderedConflicts() -> [StoreMergeConflict] {
      func categoryName(_ id: ObjectID) -> String {
        let name = categories[id]?.name ?? current.categoryNames[id] ?? other.categoryNames[id]
        return (name ?? base.categoryNames[id])?.text ?? "?"
      }
      func path(_ id: ObjectID) -> String {
        guard let document = documents[id] else { return "?" }
        return categoryName(document.categoryID) + "/" + document.document.name.text
      }
      var rendered: [(key: Order, conflict: StoreMergeConflict)] = []
      func add(
        _ documentID: ObjectID?, categoryID: ObjectID? = nil, _ conflict: StoreMergeConflict
      ) {
        if let documentID, let document = documents[documentID] {
          rendered.append((document.sortKey, conflict))
        } else if let categoryID, let category = categories[categoryID] {
          rendered.append((Order(category.sortKey.tier, -1, category.sortKey.index), conflict))
        } else {
          rendered.append((.last, conflict))
        }
      }
      for entry in found {
        switch entry {
        case .changedOnBothSides(let id, let properties, let sibling):
          add(
            id,
            StoreMergeConflict(
              path: path(id), kind: .changedOnBothSides(properties, otherVersion: path(sibling))))
        case .changedHereDeletedThere(let id):
          add(id, StoreMergeConflict(path: path(id), kind: .changedHereDeletedThere))
        case .deletedHereChangedThere(let id):
          add(id, StoreMergeConflict(path: path(id), kind: .deletedHereChangedThere))
        case .categoryChangedHereDeletedThere(let id):
          add(
            nil, categoryID: id,
            StoreMergeConflict(path: categoryName(id) + "/", kind: .changedHereDeletedThere))
        case .categoryDeletedHereChangedThere(let id):
          add(
            nil, categoryID: id,
            StoreMergeConflict(path: categoryName(id) + "/", kind: .deletedHereChangedThere))
        case .renamedBothWays(let id, let otherName):
          add(
            nil, categoryID: id,
            StoreMergeConflict(
              path: categoryName(id) + "/", kind: .renamedBothWays(otherName: otherName)))
        case .createdOnBothSides(let id, let originalName, let categoryID):
          add(
            id,
            StoreMergeConflict(
              path: categoryName(categoryID) + "/" + originalName.text,
              kind: .createdOnBothSides(otherRenamedTo: path(id))))
        case .nameTaken(let id, let originalName, let categoryID):
          add(
            id,
            StoreMergeConflict(
              path: categoryName(categoryID) + "/" + originalName.text,
              kind: .nameTaken(renamedTo: path(id))))
        case .categoryNameTaken(let id, let originalName):
          add(
            nil, categoryID: id,
            StoreMergeConflict(
              path: originalName.text + "/", kind: .nameTaken(renamedTo: categoryName(id) + "/")))
        }
      }
      return rendered.enumerated()
        .sorted {
          $0.element.key != $1.element.key ? $0.element.key < $1.element.key : $0.offset < $1.offset
        }
        .map(\.element.conflict)
    }

    func categoryOrder(_ id: ObjectID) -> Order {
      categories[id]?.sortKey ?? .last
    }

    /// The first of `keys` in sort order.
    func earliest(_ keys: [Order]) -> Order { keys.min() ?? .last }

    /// The ids of `lists` in order, each once.
    private func union(_ lists: [ObjectID]...) -> [ObjectID] {
      var seen: Set<ObjectID> = []
      var ordered: [ObjectID] = []
      for list in lists {
        for id in list where seen.insert(id).inserted { ordered.append(id) }
      }
      return ordered
    }
  }
}
