// Bringing back what a save log kept aside holds: its documents as unsaved changes of this
// context, never at the cost of a newer version the store holds.

/// What applying a kept save log did.
public struct KeptLogApplication: Sendable, Equatable {
  /// Documents created or brought to the log's version.
  public var applied = 0
  /// Documents the store holds in a newer version: the log's came in beside them, named
  /// `NAME (from save log)`.
  public var keptBeside = 0
  /// Documents whose version in the log the store holds already.
  public var unchanged = 0
  /// Deletions the log holds, not applied: the documents stay.
  public var deletionsNotApplied = 0
  /// Records of the log that could not be read.
  public var unreadable = 0
}

extension Context {
  /// The category a document of a kept log goes to when the log does not name its
  /// category (it was made by a record that cannot be read).
  public static let recoveredCategoryName = "Recovered"

  /// Applies what the save log kept aside at `path` holds, as unsaved changes: each
  /// document it put comes back as the log last had it — created again when the store no
  /// longer holds it, brought to the log's version when the store's is not newer, and
  /// beside the store's as `NAME (from save log)` when the store's is newer. Deletions are
  /// not applied. `save` then commits them.
  /// - Throws: ``ContextError`` when the log cannot be read or a document cannot be put.
  public func applyKeptLog(at path: String) throws(ContextError) -> KeptLogApplication {
    let contents: KeptLogContents
    do {
      contents = try JSONStore.readKeptLog(at: path)
    } catch {
      throw .store(error)
    }
    var result = KeptLogApplication(
      deletionsNotApplied: contents.deletions, unreadable: contents.unreadable)
    for var saved in contents.documents {
      if saved.categoryName.isEmpty {
        saved.categoryName =
          category(withID: saved.categoryID)?.name.text ?? Context.recoveredCategoryName
      }
      if let current = try document(withID: saved.id) {
        let content = try content(of: saved.id)
        if content == saved.content && current.name.text == saved.name
          && current.tags == saved.tags
        {
          result.unchanged += 1
          continue
        }
        if current.modified > saved.modified {
          let sibling = try freeName("\(saved.name) (from save log)", in: current.categoryID)
          let made = try createDocument(
            named: sibling, in: current.categoryID, content: saved.content,
            modified: saved.modified)
          if !saved.tags.isEmpty { _ = try tag([made.id], with: saved.tags) }
          result.keptBeside += 1
          continue
        }
      }
      let restored = try restoreDocument(saved)
      // Restoring keeps the tags of a document the store holds: the log's are its last.
      let added = saved.tags.filter { !restored.tags.contains($0) }
      let removed = restored.tags.filter { !saved.tags.contains($0) }
      if !added.isEmpty { _ = try tag([restored.id], with: added) }
      if !removed.isEmpty { _ = try untag([restored.id], removing: removed) }
      result.applied += 1
    }
    return result
  }

  /// `name`, or `name 2`, `name 3` … the first that no document of the category holds.
  private func freeName(_ name: String, in categoryID: ObjectID) throws(ContextError) -> String {
    var candidate = name
    var number = 2
    while try document(named: candidate, in: categoryID) != nil {
      candidate = "\(name) \(number)"
      number += 1
    }
    return candidate
  }
}
