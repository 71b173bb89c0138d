/// The three-way merge of whole stores, as the merge driver and `sync` run it: BASE, the
/// common ancestor; CURRENT, this side; OTHER, the side merged in. Pure and deterministic:
/// the same three stores and date always give the same bytes.
///
/// Objects are matched by id. Per object and per property (a document's name, category and
/// content; a category's name), a change made on one side only is taken; a change made the
/// same way on both is taken once. What contradicts is settled without losing a side:
/// - both changed a property of a document, differently: CURRENT's values stay, and
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
/// The generation is one more than the larger of CURRENT's and OTHER's. The merged file
/// keeps CURRENT's order, with what only OTHER has after it, so that diffs stay small.
struct StoreMerge {
  /// The merged store.
  var merged: StoreSnapshot
  /// What contradicted, one entry per object, in the merged store's order.
  var conflicts: [StoreMergeConflict]

  /// Merges `current` and `other`, whose common ancestor is `base`, on `date`.
  init(base: StoreSnapshot, current: StoreSnapshot, other: StoreSnapshot, date: MergeDate) {
    var engine = Engine(base: base, current: current, other: other, date: date)
    engine.run()
    merged = engine.result()
    conflicts = engine.renderedConflicts()
  }
}

// MARK: - The engine

/// One document of one side, with where it lies in that side's file.
private struct Placed {
  var document: SnapshotDocument
  var categoryID: ObjectID
  var order: Int
}

/// One side's store, indexed by id.
private struct Side {
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
private struct Order: Comparable, Hashable {
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

private struct Engine {
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
    let content = pick(.content) { $0.document.content }

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
      document.size = content == c.document.content ? c.document.size : o.document.size
      document.modified = max(c.document.modified, o.document.modified)
    }
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

  // MARK: Names

  /// Two categories with one name: CURRENT's keeps it, the other is renamed.
  private mutating func settleCategoryNames() {
    var groups: [NameKey: [ObjectID]] = [:]
    for category in categories.values { groups[category.name.key, default: []].append(category.id) }
    var taken = Set(categories.values.map(\.name.key))
    let clashes = groups.values.filter { $0.count > 1 }.sorted {
      earliest($0.compactMap { categories[$0]?.sortKey })
        < earliest($1.compactMap { categories[$0]?.sortKey })
    }
    for ids in clashes {
      let ordered = ids.sorted { lhs, rhs in
        let left = categories[lhs]
        let right = categories[rhs]
        let leftWins = left?.nameIsCurrent ?? false
        let rightWins = right?.nameIsCurrent ?? false
        if leftWins != rightWins { return leftWins }
        return (left?.sortKey ?? .last) < (right?.sortKey ?? .last)
      }
      for id in ordered.dropFirst() {
        guard let original = categories[id]?.name else { continue }
        let renamed = conflictName(for: original, avoiding: &taken)
        categories[id]?.name = renamed
        found.append(.categoryNameTaken(id, originalName: original))
      }
    }
  }

  /// Two documents with one name in one category: CURRENT's keeps it, the other is renamed.
  private mutating func settleDocumentNames() {
    var groups: [ObjectID: [NameKey: [ObjectID]]] = [:]
    for document in documents.values {
      groups[document.categoryID, default: [:]][document.document.name.key, default: []].append(
        document.document.id)
    }
    for categoryID in groups.keys.sorted(by: { categoryOrder($0) < categoryOrder($1) }) {
      guard let byName = groups[categoryID] else { continue }
      var taken = Set(byName.keys)
      let clashes = byName.values.filter { $0.count > 1 }.sorted {
        earliest($0.compactMap { documents[$0]?.sortKey })
          < earliest($1.compactMap { documents[$0]?.sortKey })
      }
      for ids in clashes {
        let ordered = ids.sorted { lhs, rhs in
          guard let left = documents[lhs], let right = documents[rhs] else { return lhs < rhs }
          if left.placementIsCurrent != right.placementIsCurrent { return left.placementIsCurrent }
          return left.sortKey < right.sortKey
        }
        guard let winner = ordered.first.flatMap({ documents[$0] }) else { continue }
        for id in ordered.dropFirst() {
          guard let loser = documents[id] else { continue }
          let original = loser.document.name
          let renamed = conflictName(for: original, avoiding: &taken)
          documents[id]?.document.name = renamed
          found.append(
            winner.isNew && loser.isNew
              ? .createdOnBothSides(id, originalName: original, categoryID: categoryID)
              : .nameTaken(id, originalName: original, categoryID: categoryID))
        }
      }
    }
  }

  /// Adds each sibling, named `NAME (conflict DATE)`, unless the store already holds OTHER's
  /// version under such a name (an earlier merge of the same change made it).
  private mutating func placeSiblings() {
    for (source, var sibling) in siblings {
      let categoryID =
        categories[sibling.categoryID] != nil
        ? sibling.categoryID : documents[source]?.categoryID ?? sibling.categoryID
      sibling.categoryID = categoryID
      let name = sibling.document.name
      let prefix = NameKey(name.text + " (conflict ").folded
      let existing = documents.values.filter { candidate in
        candidate.categoryID == categoryID && candidate.document.content == sibling.document.content
          && candidate.document.id != source
          && (candidate.document.name.key == name.key
            || candidate.document.name.key.folded.hasPrefix(prefix))
      }.min { $0.sortKey < $1.sortKey }
      if let existing {
        replaceSibling(sibling.document.id, by: existing.document.id)
        continue
      }
      var taken = Set(
        documents.values.filter { $0.categoryID == categoryID }.map(\.document.name.key))
      sibling.document.name = conflictName(for: name, avoiding: &taken)
      documents[sibling.document.id] = sibling
    }
  }

  private mutating func replaceSibling(_ sibling: ObjectID, by existing: ObjectID) {
    found = found.map { entry in
      if case .changedOnBothSides(let id, let properties, sibling) = entry {
        return .changedOnBothSides(id, properties, sibling: existing)
      }
      return entry
    }
  }

  /// `NAME (conflict DATE)`, or `NAME (conflict DATE 2)` and so on, the first not in
  /// `taken`, which it joins; `NAME` is shortened when the whole would be too long.
  private func conflictName(for name: Name, avoiding taken: inout Set<NameKey>) -> Name {
    var number = 1
    while true {
      let suffix = " (conflict \(date)" + (number == 1 ? ")" : " \(number))")
      var stem = Substring(name.text)
      while stem.utf8.count + suffix.utf8.count > Name.maximumByteCount, !stem.isEmpty {
        stem = stem.dropLast()
      }
      let text = stem.trimmingSuffix(while: \.isWhitespace) + suffix
      if let candidate = try? Name(text), taken.insert(candidate.key).inserted {
        return candidate
      }
      number += 1
    }
  }

  // MARK: Results

  func result() -> StoreSnapshot {
    var members: [ObjectID: [MergedDocument]] = [:]
    for document in documents.values { members[document.categoryID, default: []].append(document) }
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
      categories[id]?.name.text ?? current.categoryNames[id]?.text ?? other.categoryNames[id]?.text
        ?? base.categoryNames[id]?.text ?? "?"
    }
    func path(_ id: ObjectID) -> String {
      guard let document = documents[id] else { return "?" }
      return categoryName(document.categoryID) + "/" + document.document.name.text
    }
    var rendered: [(key: Order, conflict: StoreMergeConflict)] = []
    func add(_ documentID: ObjectID?, categoryID: ObjectID? = nil, _ conflict: StoreMergeConflict) {
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

  private func categoryOrder(_ id: ObjectID) -> Order {
    categories[id]?.sortKey ?? .last
  }

  /// The first of `keys` in sort order.
  private func earliest(_ keys: [Order]) -> Order { keys.min() ?? .last }

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

// MARK: - Helpers

/// FNV-1a over 64 bits: a hash that is the same in every process (Swift's `Hasher` is
/// seeded per process), for ids and fingerprints that must not change between runs.
struct StableHash {
  private(set) var value: UInt64 = 0xCBF2_9CE4_8422_2325

  mutating func combine(_ bytes: some Sequence<UInt8>) {
    for byte in bytes {
      value ^= UInt64(byte)
      value &*= 0x100_0000_01B3
    }
  }

  mutating func combine(_ number: UInt64) {
    withUnsafeBytes(of: number.littleEndian) { combine($0) }
  }
}

extension Substring {
  /// The substring without the trailing characters for which `predicate` holds.
  fileprivate func trimmingSuffix(while predicate: (Character) -> Bool) -> String {
    var end = endIndex
    while end > startIndex, predicate(self[index(before: end)]) { end = index(before: end) }
    return String(self[startIndex..<end])
  }
}
