// Settling names in a store merge: two objects with one name, and the siblings that hold
// OTHER's version of a document both sides changed.
extension StoreMerge.Engine {
  /// Two categories with one name: CURRENT's keeps it, the other is renamed.
  mutating func settleCategoryNames() {
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
  mutating func settleDocumentNames() {
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
  mutating func placeSiblings() {
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

  mutating func replaceSibling(_ sibling: ObjectID, by existing: ObjectID) {
    found = found.map { entry in
      if case .changedOnBothSides(let id, let properties, sibling) = entry {
        return .changedOnBothSides(id, properties, sibling: existing)
      }
      return entry
    }
  }

  /// `NAME (conflict DATE)`, or `NAME (conflict DATE 2)` and so on, the first not in
  /// `taken`, which it joins; `NAME` is shortened when the whole would be too long.
  func conflictName(for name: Name, avoiding taken: inout Set<NameKey>) -> Name {
    StoreMerge.conflictName(for: name, date: date, avoiding: &taken)
  }
}

extension StoreMerge {
  /// `NAME (conflict DATE)`, or `NAME (conflict DATE 2)` and so on, the first not in
  /// `taken`, which it joins; `NAME` is shortened when the whole would be too long. The
  /// one spelling of a conflict's sibling, for sync and for two sessions' saves.
  static func conflictName(
    for name: Name, date: MergeDate, avoiding taken: inout Set<NameKey>
  ) -> Name {
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
}

extension Substring {
  /// The substring without the trailing characters for which `predicate` holds.
  fileprivate func trimmingSuffix(while predicate: (Character) -> Bool) -> String {
    var end = endIndex
    while end > startIndex, predicate(self[index(before: end)]) { end = index(before: end) }
    return String(self[startIndex..<end])
  }
}
