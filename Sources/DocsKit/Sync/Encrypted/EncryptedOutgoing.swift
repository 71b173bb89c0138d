// Translating commits between the local repository (the plain layout: history, merges and
// saves work on it as with any remote) and an encrypted remote (``EncryptedLayout``): one
// commit for one, parents for parents, each translated from what it changed against its
// first parent — so a commit costs what it changed, and a document's file keeps its blob
// wherever its record did not change (age is randomized: encrypting it again would change
// every blob). The pairs are kept in ``EncryptedCommitMap``. This file goes from local to
// encrypted (a push); ``EncryptedIncoming`` goes the other way (a fetch).

/// Translates local commits into the encrypted remote's: each written through fast-import
/// from what the local commit changed, its records encrypted to the settings' recipient.
struct EncryptedOutgoing {
  /// The repository whose commits are translated (its layout, file system and commit
  /// writing).
  let repository: StoreRepository
  let git: Git
  /// The encrypted commits are written through.
  let writer: CommitWriter
  /// What each commit changed is read through.
  let reader: CommitReader

  init(_ repository: StoreRepository) {
    self.repository = repository
    git = repository.git
    writer = CommitWriter(repository: repository)
    reader = repository.commitReader
  }

  /// Where the store's objects lie in a local commit's tree.
  private var layout: RepositoryLayout { repository.layout }

  /// The encrypted commit standing for the local commit `head`, translating it and every
  /// ancestor not translated yet (recorded in `map`).
  /// - Parameters:
  ///   - identity: when known, a document a merge took unchanged from another parent keeps
  ///     that parent's blob (it is decrypted to tell); otherwise it is encrypted anew.
  func encryptedCommit(
    for head: CommitID, map: inout EncryptedCommitMap, settings: EncryptionSettings,
    identity: AgeIdentity?
  ) throws(SyncError) -> CommitID {
    if let known = map.encrypted(for: head) { return known }
    let pending = try CommitInfo.toTranslate(
      from: [head], known: Array(map.encryptedByLocal.keys), in: git)
    for info in pending {
      let encrypted = try encrypt(info, map: map, settings: settings, identity: identity)
      map.record(local: info.commit, encrypted: encrypted)
    }
    guard let made = map.encrypted(for: head) else {
      throw .gitFailed(step: "encrypt the commits", message: "no commit stands for \(head.short)")
    }
    return made
  }

  /// The documents and category records read from a local commit, as records.
  private struct LocalObjects {
    /// Each document's record (``EncryptedRecord/document(file:name:categoryID:)``).
    var documents: [ObjectID: [UInt8]] = [:]
    var categories: [ObjectID: Name] = [:]
    /// Categories of folders without a record (made elsewhere): their derived ids.
    var unrecorded: [ObjectID: Name] = [:]
  }

  /// Whether `path` of a local commit may be a document or a category record, as
  /// ``TreeReader`` reads them: dot files (git's, a tool's, the layout marker) and the
  /// marker's guard folders never are.
  private func isStoreFile(_ path: String) -> Bool {
    guard layout.isDocumentPlace(path) else { return false }
    let parts = path.dropFirst(layout.prefix.count).split(separator: "/")
    guard let folder = parts.first, let file = parts.last, !folder.hasPrefix("."),
      !LayoutMarker.isGuardFolder(String(folder))
    else {
      return false
    }
    return !file.hasPrefix(".") || file == CategoryFile.fileName
  }

  /// The documents and records at `paths` of the local commit `commit`, each document as
  /// its record (with its category's id).
  private func localObjects(
    at commit: CommitID, paths: [(path: String, blob: GitBlobID)]
  ) throws(SyncError) -> LocalObjects {
    var all = LocalObjects()
    guard !paths.isEmpty else { return all }
    let tree = try git.tree(of: commit)
    try forEachBatch(inTree: tree, paths: paths) { (batch: LocalObjects) throws(SyncError) in
      all.documents.merge(batch.documents) { $1 }
      all.categories.merge(batch.categories) { $1 }
      all.unrecorded.merge(batch.unrecorded) { $1 }
    }
    return all
  }

  /// ``localObjects(at:paths:)`` a few thousand files at a time, handed to `body` (the
  /// categories with the first), so that a whole store is never held at once.
  /// Records are looked up in the tree `tree`, not through its commit: git would read the
  /// commit, message and all (a first commit names every document), for each lookup.
  private func forEachBatch(
    inTree tree: String, paths: [(path: String, blob: GitBlobID)],
    _ body: (LocalObjects) throws(SyncError) -> Void
  ) throws(SyncError) {
    guard !paths.isEmpty else { return }
    let folders = Set(paths.compactMap { layout.folderPath(of: $0.path) }).sorted()
    var first = LocalObjects()
    var folderIDs: [String: ObjectID] = [:]
    let changedRecords = Set(
      paths.lazy.map(\.path).filter { $0.hasSuffix("/" + CategoryFile.fileName) })
    var start = 0
    while start < paths.count {
      let batch = paths[start..<min(paths.count, start + 2_000)]
      // The folders' records come with the first files, through the same process.
      let recordRevisions =
        start == 0 ? folders.map { tree + ":" + $0 + "/" + CategoryFile.fileName } : []
      var contents = try git.blobs(
        recordRevisions + batch.map(\.blob.hex), step: "read the repository")[...]
      var objects = start == 0 ? first : LocalObjects()
      if start == 0 {
        for (folder, record) in zip(folders, contents.prefix(folders.count)) {
          if let record, let (id, name) = EncryptedRecord.parseCategory(record) {
            folderIDs[folder] = id
            // A category changes only where its record does.
            if changedRecords.contains(folder + "/" + CategoryFile.fileName) {
              objects.categories[id] = name
            }
          } else {
            let id = TreeReader.derivedID("category", Array(folder.utf8))
            folderIDs[folder] = id
            let last = folder.split(separator: "/").last.map(String.init) ?? folder
            if let name = FileNameEncoding.decode(last) { objects.unrecorded[id] = name }
          }
        }
        contents = contents.dropFirst(folders.count)
        first = LocalObjects()
      }
      start += batch.count
      for ((path, blob), bytes) in zip(batch, contents) {
        guard let bytes, let folder = layout.folderPath(of: path),
          let categoryID = folderIDs[folder],
          !path.hasSuffix("/" + CategoryFile.fileName),
          let last = path.split(separator: "/").last,
          let name = layout.documentName(ofFile: String(last))
        else { continue }
        if let id = EncryptedRecord.idOfDocshFile(bytes) {
          objects.documents[id] = EncryptedRecord.document(
            file: bytes, name: name, categoryID: categoryID)
          continue
        }
        switch DocumentFile.parse(bytes) {
        case .docsh(let id, let modified, let content, let tags):
          objects.documents[id] = EncryptedRecord.document(
            SnapshotDocument(
              id: id, name: name, size: content.utf8.count, modified: modified, content: content,
              tags: tags), categoryID: categoryID)
        case .plain(let content, let tags):
          let id = TreeReader.derivedID("document", Array(path.utf8) + Array(blob.hex.utf8))
          objects.documents[id] = EncryptedRecord.document(
            SnapshotDocument(
              id: id, name: name, size: content.utf8.count,
              modified: Timestamp(millisecondsSince1970: 0), content: content, tags: tags),
            categoryID: categoryID)
        case .invalid:
          continue  // no document: never sent (a sync of the plain layout warns of it)
        }
      }
      try body(objects)
    }
  }

  /// Writes the encrypted commit standing for the local commit `info`, whose parents are
  /// translated (in `map`).
  private func encrypt(
    _ info: CommitInfo, map: EncryptedCommitMap, settings: EncryptionSettings,
    identity: AgeIdentity?
  ) throws(SyncError) -> CommitID {
    var encryptedParents: [CommitID] = []
    for parent in info.parents {
      // A parent translated before the map knew it (a history older than the remote) has
      // none: the commit then stands on the translated ones.
      if let encrypted = map.encrypted(for: parent) { encryptedParents.append(encrypted) }
    }
    let first = info.parents.first { map.encrypted(for: $0) != nil }
    let changed = try reader.changedEntries(from: first, to: info.commit).filter {
      isStoreFile($0.key)
    }
    let before =
      try first.map { first throws(SyncError) in
        try localObjects(
          at: first,
          paths: changed.compactMap { path, entry in entry.old.map { (path, $0) } }.sorted {
            $0.path < $1.path
          })
      } ?? LocalObjects()
    var stream = try EncryptedStream(fileSystem: repository.fileSystem)
    let after = try encryptChanged(
      info, paths: changed.compactMap { path, entry in entry.new.map { (path, $0) } },
      before: before, otherParents: encryptedParents.dropFirst(), settings: settings,
      identity: identity, into: &stream)
    for id in before.categories.keys.sorted() where after.categories[id] == nil {
      stream.counts.deleted += 1
      stream.changes.append(.delete(settings.names.categoryPath(id)))
    }
    for id in before.documents.keys.sorted() where !after.documents.contains(id) {
      stream.counts.deleted += 1
      stream.changes.append(.delete(settings.names.documentPath(id)))
    }
    if encryptedParents.isEmpty {
      stream.changes += try EncryptedStream.rootFiles(settings: settings, git: git)
    } else if encryptedParents.count > 1,
      let first = encryptedParents.first,
      try git.object(first.hex + ":" + EncryptedLayout.identityPath) != settings.identityBlob.hex
    {
      // A merge keeps the newest identity file (a passphrase changed on either side).
      stream.changes.append(.putBlob(EncryptedLayout.identityPath, settings.identityBlob))
    }
    // age files neither compress nor delta: a commit of many spends no time trying (one of
    // a few keeps its trees compressed and deltified, which is what it adds to the remote).
    return try writer.makeBuildCommit(
      parent: encryptedParents.first, mergedParents: Array(encryptedParents.dropFirst()),
      changes: stream.changes, message: stream.message, after: stream.input,
      committer: EncryptedLayout.committer(info.seconds),
      pack: stream.mark - FastImportCommit.firstBlobMark > 1_000 ? .incompressible : .standard)
  }

  /// Writes into `stream` the records of the local files `paths` of the commit `info` that
  /// differ from `before`, encrypted, or the blob another parent holds for the same record;
  /// answers the categories and documents the commit holds there.
  private func encryptChanged(
    _ info: CommitInfo, paths: [(path: String, blob: GitBlobID)], before: LocalObjects,
    otherParents: ArraySlice<CommitID>, settings: EncryptionSettings, identity: AgeIdentity?,
    into stream: inout EncryptedStream
  ) throws(SyncError) -> (categories: [ObjectID: Name], documents: Set<ObjectID>) {
    var seen = Set<ObjectID>()
    var categoriesAfter: [ObjectID: Name] = [:]
    try forEachBatch(inTree: info.tree, paths: paths.sorted { $0.path < $1.path }) {
      (after: LocalObjects) throws(SyncError) in
      var puts: [(path: String, record: [UInt8])] = []
      for (id, name) in after.categories.sorted(by: { $0.key < $1.key })
      where before.categories[id] != name {
        if before.categories[id] == nil {
          stream.counts.new += 1
        } else {
          stream.counts.changed += 1
        }
        puts.append((settings.names.categoryPath(id), EncryptedRecord.category(id: id, name: name)))
      }
      for (id, name) in after.unrecorded.sorted(by: { $0.key < $1.key })
      where after.categories[id] == nil && before.unrecorded[id] == nil {
        stream.counts.new += 1
        puts.append((settings.names.categoryPath(id), EncryptedRecord.category(id: id, name: name)))
      }
      categoriesAfter.merge(after.categories) { $1 }
      // Documents a merge took as another parent has them keep that parent's blob.
      let reusable = try blobsOfOtherParents(
        otherParents, paths: after.documents.keys.map(settings.names.documentPath),
        identity: identity)
      for (id, record) in after.documents.sorted(by: { $0.key < $1.key }) {
        seen.insert(id)
        // Moved in the plain layout only (its category renamed, or fanned out): unchanged.
        if before.documents[id] == record { continue }
        if before.documents[id] == nil {
          stream.counts.new += 1
        } else {
          stream.counts.changed += 1
        }
        let path = settings.names.documentPath(id)
        if let blob = reusable[path]?[record] {
          stream.changes.append(.putBlob(path, blob))
        } else {
          puts.append((path, record))
        }
      }
      try stream.put(puts, to: settings.recipient)
    }
    return (categoriesAfter, seen)
  }

  /// For each of `paths`, the blob each of `parents` holds there by the plain record it
  /// decrypts to; nothing without `identity`.
  private func blobsOfOtherParents(
    _ parents: ArraySlice<CommitID>, paths: [String], identity: AgeIdentity?
  ) throws(SyncError) -> [String: [[UInt8]: GitBlobID]] {
    guard let identity, !parents.isEmpty, !paths.isEmpty else { return [:] }
    var found: [String: [[UInt8]: GitBlobID]] = [:]
    for parent in parents {
      let revisions = paths.map { parent.hex + ":" + $0 }
      let blobs = try git.blobs(revisions, step: "read the repository")
      for (path, bytes) in zip(paths, blobs) {
        guard let bytes, let plain = try? Age.decrypt(bytes, identities: [identity]) else {
          continue  // not there, or not readable: encrypted anew, which costs a blob
        }
        found[path, default: [:]][plain] = GitBlobID(of: bytes)
      }
    }
    return found
  }
}
