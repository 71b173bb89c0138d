// Renames carried across a merge: a link rewrite is a change like any other.
//
// When one side (X) renamed or moved a document D — its category's name and its own name,
// compared ignoring case, differ from the base's — and the other side (Y) left D where the
// base had it, every link that names D in Y's contents and in the base's contents is
// rewritten as X's `mv` rewrote X's own: to the path that names D on X's side (bare where
// the bare name reaches it there, `Category/Name` otherwise; a `#…`, a `|…` and code are
// never changed). The line merge then sees the base's link and X's as one, and takes Y's
// edits with the new name: the merged text links to D by its new name, whether Y edited the
// link's line or wrote a new link to the old name. Links are resolved as the context
// resolves them (``Context/resolve(_:from:)``): own category first, then the only document
// of the name. Nothing happens when no document changed its path on one side only: a merge
// of edits alone reads no link.

extension StoreMerge {
  /// `base`, `current` and `other` with each side's renames carried into the other side's
  /// contents and into the base's.
  static func carryingRenames(
    base: StoreSnapshot, current: StoreSnapshot, other: StoreSnapshot
  ) -> (base: StoreSnapshot, current: StoreSnapshot, other: StoreSnapshot) {
    let baseNames = SnapshotNames(base)
    let currentNames = SnapshotNames(current)
    let otherNames = SnapshotNames(other)
    let movedInCurrent = baseNames.moved(in: currentNames, keptBy: otherNames)
    let movedInOther = baseNames.moved(in: otherNames, keptBy: currentNames)
    guard !movedInCurrent.isEmpty || !movedInOther.isEmpty else { return (base, current, other) }
    var (base, current, other) = (base, current, other)
    if !movedInCurrent.isEmpty {
      other = rewriting(other, names: otherNames, moved: movedInCurrent, to: currentNames)
      base = rewriting(base, names: baseNames, moved: movedInCurrent, to: currentNames)
    }
    if !movedInOther.isEmpty {
      current = rewriting(current, names: currentNames, moved: movedInOther, to: otherNames)
      base = rewriting(base, names: baseNames, moved: movedInOther, to: otherNames)
    }
    return (base, current, other)
  }

  /// `snapshot` (whose names are `names`) with each link naming a document of `moved`
  /// rewritten to name it as `destination` has it.
  private static func rewriting(
    _ snapshot: StoreSnapshot, names: SnapshotNames, moved: Set<ObjectID>,
    to destination: SnapshotNames
  ) -> StoreSnapshot {
    var snapshot = snapshot
    for categoryIndex in snapshot.categories.indices {
      let categoryID = snapshot.categories[categoryIndex].id
      for documentIndex in snapshot.categories[categoryIndex].documents.indices {
        let document = snapshot.categories[categoryIndex].documents[documentIndex]
        var edits: [(DocumentLink, String)] = []
        for link in DocumentLink.links(in: document.content) {
          guard let target = names.resolve(link, from: document.id, in: categoryID),
            moved.contains(target),
            destination.resolve(link, from: document.id, in: categoryID) != target,
            let path = destination.path(naming: target, as: link, from: categoryID),
            DocumentLink.canName(path)
          else { continue }
          edits.append((link, path))
        }
        guard !edits.isEmpty else { continue }
        let content = Context.rewriting(document.content, edits)
        snapshot.categories[categoryIndex].documents[documentIndex].content = content
        snapshot.categories[categoryIndex].documents[documentIndex].size = content.utf8.count
      }
    }
    return snapshot
  }
}

/// The names of one side's store, for resolving links as the context does.
struct SnapshotNames {
  /// Each document's name and category.
  var placement: [ObjectID: (name: Name, categoryID: ObjectID)] = [:]
  /// The documents of each name (ignoring case), with their categories.
  var byName: [NameKey: [(id: ObjectID, categoryID: ObjectID)]] = [:]
  /// Each category's id by its name's key, and its name by id.
  var categoryIDs: [NameKey: ObjectID] = [:]
  var categoryNames: [ObjectID: Name] = [:]

  init(_ snapshot: StoreSnapshot) {
    for category in snapshot.categories {
      categoryIDs[category.name.key] = category.id
      categoryNames[category.id] = category.name
      for document in category.documents {
        placement[document.id] = (document.name, category.id)
        byName[document.name.key, default: []].append((document.id, category.id))
      }
    }
  }

  /// The documents of this side whose path (category name, name) `side` changed while
  /// `other` kept it as this side has it.
  func moved(in side: SnapshotNames, keptBy other: SnapshotNames) -> Set<ObjectID> {
    var moved: Set<ObjectID> = []
    for (id, here) in placement {
      guard let there = side.placement[id], let kept = other.placement[id],
        let path = self.path(here), let changed = side.path(there), let same = other.path(kept)
      else { continue }
      if changed != path && same == path { moved.insert(id) }
    }
    return moved
  }

  private func path(_ placed: (name: Name, categoryID: ObjectID)) -> [NameKey]? {
    categoryNames[placed.categoryID].map { [$0.key, placed.name.key] }
  }

  /// The document `link` names from the document `source` of the category `categoryID`.
  func resolve(_ link: DocumentLink, from source: ObjectID, in categoryID: ObjectID)
    -> ObjectID?
  {
    guard let name = link.name else { return source }
    let named = byName[name.key] ?? []
    if let category = link.category {
      guard let id = categoryIDs[category.key] else { return nil }
      return named.first { $0.categoryID == id }?.id
    }
    if let own = named.first(where: { $0.categoryID == categoryID }) { return own.id }
    return named.count == 1 ? named[0].id : nil
  }

  /// The path a link written as `link` from the category `categoryID` takes to name
  /// `target` here: `Category/Name` when it was written with a category or the bare name
  /// does not reach it.
  func path(naming target: ObjectID, as link: DocumentLink, from categoryID: ObjectID)
    -> String?
  {
    guard let (name, targetCategory) = placement[target],
      let categoryName = categoryNames[targetCategory]
    else { return nil }
    if link.category == nil {
      let named = byName[name.key] ?? []
      let own = named.first { $0.categoryID == categoryID }
      if own?.id == target || (own == nil && named.count == 1) { return name.text }
    }
    return categoryName.text + "/" + name.text
  }
}
