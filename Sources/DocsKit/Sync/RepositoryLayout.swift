/// Where the store's objects lie in a commit's tree: a folder per category, named after it
/// (``FileNameEncoding``), holding its record (``CategoryFile``) and a file per document
/// (``DocumentFile``), under the repository's ``StoreRepository/prefix``.
struct RepositoryLayout {
  /// Put in front of every path (`""` when the store's folder is the repository's top).
  let prefix: String

  /// The path of the folder of the category `name`.
  func folder(of category: Name) -> String {
    prefix + FileNameEncoding.encode(category)
  }

  /// The path of the record of the category `name`.
  func recordPath(of category: Name) -> String {
    prefix + FileNameEncoding.recordPath(category: category)
  }

  /// The path of the document `name` of the category `category`.
  func path(of document: Name, in category: Name) -> String {
    prefix + FileNameEncoding.path(category: category, document: document)
  }

  /// The bytes of a document's file.
  static func fileBytes(of document: SavedDocument) -> [UInt8] {
    DocumentFile.render(id: document.id, modified: document.modified, content: document.content)
  }

  /// The fingerprint the history's trailers give a version of a document: a stable hash of
  /// its category's name, its name and its file's bytes, as 16 hex digits — what a commit
  /// made elsewhere shows of it too, so that one version reaching a branch through two
  /// commits is one version.
  static func fingerprint(of document: SavedDocument, fileBytes: [UInt8]) -> String {
    var hash = StableHash()
    hash.combine(Array(document.categoryName.utf8))
    hash.combine([0x2F])
    hash.combine(Array(document.name.utf8))
    hash.combine([0])
    hash.combine(fileBytes)
    let digits = String(hash.value, radix: 16)
    return String(repeating: "0", count: 16 - digits.count) + digits
  }

  /// The fingerprint of a deletion of the document `id`: the same for every deletion of it,
  /// so that one deletion reaching a branch through two commits is one version.
  static func deletionFingerprint(of id: ObjectID) -> String {
    var hash = StableHash()
    hash.combine(id.high)
    hash.combine(id.low)
    hash.combine(Array("deleted".utf8))
    let digits = String(hash.value, radix: 16)
    return String(repeating: "0", count: 16 - digits.count) + digits
  }

  /// The changes to the tree that commit `saved`, made against the tree of the save before:
  /// renamed categories' folders moved (through a temporary name, so that two categories can
  /// swap names), the old files of changed documents and the folders of deleted categories
  /// removed, then the records and files of what the save wrote put in.
  func treeChanges(for saved: SavedChanges) -> [FastImportCommit.Change] {
    var changes: [FastImportCommit.Change] = []
    var renamedFolders: [NameKey: String] = [:]  // old name's key → temporary folder
    var renamedCategories: [(temporary: String, to: Name)] = []
    var deletedCategories: Set<NameKey> = []
    for category in saved.categories {
      switch (category.before, category.after) {
      case (let before?, let after?):
        let temporary = prefix + ".docsh-moving-" + category.id.description
        changes.append(.rename(folder(of: before), temporary))
        renamedFolders[before.key] = temporary
        renamedCategories.append((temporary, after))
      case (let before?, nil):
        deletedCategories.insert(before.key)
      default:
        break
      }
    }
    for document in saved.documents {
      guard let before = document.before, !deletedCategories.contains(before.category.key)
      else { continue }
      if let temporary = renamedFolders[before.category.key] {
        changes.append(.delete(temporary + "/" + FileNameEncoding.encode(before.name)))
      } else {
        changes.append(.delete(path(of: before.name, in: before.category)))
      }
    }
    for category in saved.categories where category.after == nil {
      if let before = category.before { changes.append(.delete(folder(of: before))) }
    }
    for (temporary, name) in renamedCategories {
      changes.append(.rename(temporary, folder(of: name)))
    }
    for category in saved.categories {
      guard let after = category.after else { continue }
      changes.append(.put(recordPath(of: after), CategoryFile.render(id: category.id, name: after)))
    }
    for document in saved.documents {
      guard let after = document.after else { continue }
      // Names from the graph, validated when they were set.
      let path = path(
        of: Name(unchecked: after.name), in: Name(unchecked: after.categoryName))
      changes.append(.put(path, RepositoryLayout.fileBytes(of: after)))
    }
    return changes
  }
}

extension RepositoryLayout {
  /// The category folder `path` lies in (a document or record path); `nil` for a file at
  /// the top or outside the prefix.
  func folderPath(of path: String) -> String? {
    guard path.hasPrefix(prefix) else { return nil }
    let rest = path.dropFirst(prefix.count)
    guard let slash = rest.firstIndex(of: "/") else { return nil }
    return prefix + rest[..<slash]
  }

  /// The changes that make the category folders of `parent` (a reading of the commit the
  /// changes apply to) hold `merged`'s categories: for every category of `merged` that
  /// lies in `folders` there or in `parent`, or is new or renamed, its record and
  /// documents; docsh's files of those folders that `merged` no longer holds deleted. Files
  /// docsh does not read are left as they are.
  func changes(
    from parent: TreeReading, to merged: StoreSnapshot, folders: Set<String>
  ) -> [FastImportCommit.Change] {
    var parentNames: [ObjectID: String] = [:]
    for category in parent.snapshot.categories { parentNames[category.id] = category.name.text }
    var desired: [String: [UInt8]] = [:]
    var touchedFolders = folders
    for category in merged.categories {
      let folder = folder(of: category.name)
      let parentFolder = parent.folders[category.id]
      guard
        folders.contains(folder) || parentFolder.map(folders.contains) == true
          || parentNames[category.id] != category.name.text
      else { continue }
      touchedFolders.insert(folder)
      if let parentFolder { touchedFolders.insert(parentFolder) }
      desired[recordPath(of: category.name)] = CategoryFile.render(
        id: category.id, name: category.name)
      for document in category.documents {
        desired[path(of: document.name, in: category.name)] = DocumentFile.render(
          id: document.id, modified: document.modified, content: document.content)
      }
    }
    // Categories gone from `merged`: their folders lose docsh's files.
    for (id, folder) in parent.folders where !merged.categories.contains(where: { $0.id == id }) {
      touchedFolders.insert(folder)
    }
    var changes: [FastImportCommit.Change] = []
    for path in parent.docshFiles.sorted()
    where desired[path] == nil && folderPath(of: path).map(touchedFolders.contains) == true {
      changes.append(.delete(path))
    }
    for (path, bytes) in desired.sorted(by: { $0.key < $1.key })
    where parent.files[path] != GitBlobID(of: bytes) {
      changes.append(.put(path, bytes))
    }
    return changes
  }

  /// The files other than docsh's that the remote changed and this side did not (a user's
  /// files at the top, files a sync warned about): taken as the remote has them.
  func otherFileChanges(
    _ remoteChanges: [String: GitBlobID?], localChanges: [String: GitBlobID?],
    managed: Set<String>
  ) -> [FastImportCommit.Change] {
    var changes: [FastImportCommit.Change] = []
    for (path, blob) in remoteChanges.sorted(by: { $0.key < $1.key })
    where localChanges[path] == nil && !managed.contains(path) {
      changes.append(blob.map { .putBlob(path, $0) } ?? .delete(path))
    }
    return changes
  }
}
