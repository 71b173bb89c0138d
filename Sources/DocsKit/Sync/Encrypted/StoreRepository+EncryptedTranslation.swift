import Dispatch
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

// Translating commits between the local repository (the plain layout: history, merges and
// saves work on it as with any remote) and an encrypted remote (``EncryptedLayout``): one
// commit for one, parents for parents, each translated from what it changed against its
// first parent — so a commit costs what it changed, and a document's file keeps its blob
// wherever its record did not change (age is randomized: encrypting it again would change
// every blob). The pairs are kept in ``EncryptedCommitMap``.
extension StoreRepository {
  /// One commit to translate.
  struct CommitInfo {
    var commit: CommitID
    var parents: [CommitID]
    /// When it was committed (seconds since 1970).
    var seconds: Int64
    /// Its tree.
    var tree: String
  }

  /// The commits reachable from `tips` and from none of `known`, parents first.
  func commitsToTranslate(from tips: [CommitID], known: [String]) throws(SyncError) -> [CommitInfo]
  {
    try git.commits(reachableFrom: tips, excluding: known).map {
      CommitInfo(commit: $0.commit, parents: $0.parents, seconds: $0.seconds, tree: $0.tree)
    }
  }

  /// The author and committer line of a commit of an encrypted remote made at `seconds`.
  static func encryptedCommitter(_ seconds: Int64) -> String {
    EncryptedLayout.authorName + " \(seconds) +0000"
  }

  // MARK: - Local to encrypted

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
    let pending = try commitsToTranslate(
      from: [head], known: Array(map.encryptedByLocal.keys))
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

  /// `records` encrypted to `recipient`, in order, on every core (age's X25519 share is
  /// most of a small file's cost).
  static func encryptAll(_ records: [[UInt8]], to recipient: AgeRecipient) throws(SyncError)
    -> [[UInt8]]
  {
    let workers = max(1, min(8, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))))
    guard workers > 1, records.count > 16 else {
      var encrypted: [[UInt8]] = []
      for record in records {
        do {
          encrypted.append(try Age.encrypt(record, to: [recipient]))
        } catch {
          throw .encryption(.age(error))
        }
      }
      return encrypted
    }
    let results = Mutex<[[UInt8]?]>(Array(repeating: nil, count: records.count))
    let failure = Mutex<AgeError?>(nil)
    DispatchQueue.concurrentPerform(iterations: workers) { worker in
      var made: [(Int, [UInt8])] = []
      var index = worker
      while index < records.count {
        do throws(AgeError) {
          made.append((index, try Age.encrypt(records[index], to: [recipient])))
        } catch {
          failure.withLock { $0 = $0 ?? error }
          return
        }
        index += workers
      }
      results.withLock { results in
        for (index, bytes) in made { results[index] = bytes }
      }
    }
    if let error = failure.withLock({ $0 }) { throw .encryption(.age(error)) }
    return results.withLock { $0.map { $0 ?? [] } }
  }

  /// The fast-import stream of one encrypted commit as it is written: blobs, the changes
  /// that name them, and what they count.
  struct EncryptedStream {
    let input: GitInputFile
    var changes: [FastImportCommit.Change] = []
    var mark = FastImportCommit.firstBlobMark
    var counts = (new: 0, changed: 0, deleted: 0)

    /// A stream whose blobs go to a new input file of git's.
    init(fileSystem: any FileSystem) throws(SyncError) {
      do {
        input = try GitInputFile(fileSystem: fileSystem)
        try input.append(FastImportCommit.streamHeader)
      } catch {
        throw .store(.system("git's input", operation: error.operation, errno: error.code))
      }
    }

    /// Encrypts the records of `puts` to `recipient` and writes them into the stream.
    mutating func put(
      _ puts: [(path: String, record: [UInt8])], to recipient: AgeRecipient
    ) throws(SyncError) {
      let encrypted = try StoreRepository.encryptAll(puts.map(\.record), to: recipient)
      try put(paths: puts.map(\.path), encrypted: encrypted)
    }

    /// Writes the age files `encrypted` into the stream, each at its path of `paths`.
    mutating func put(paths: [String], encrypted: [[UInt8]]) throws(SyncError) {
      for (path, bytes) in zip(paths, encrypted) {
        do {
          try input.append(FastImportCommit.blobCommand(bytes, mark: mark))
        } catch {
          throw .store(.system("git's input", operation: error.operation, errno: error.code))
        }
        changes.append(.putMark(path, mark))
        mark += 1
      }
    }

    /// The commit's message: counts only.
    var message: String {
      var parts: [String] = []
      if counts.new > 0 { parts.append("\(counts.new) new") }
      if counts.changed > 0 { parts.append("\(counts.changed) changed") }
      if counts.deleted > 0 { parts.append("\(counts.deleted) deleted") }
      return "docsh: " + (parts.isEmpty ? "no change" : parts.joined(separator: ", ")) + "\n"
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
    let changed = try commitReader.changedEntries(from: first, to: info.commit).filter {
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
    var stream = try EncryptedStream(fileSystem: fileSystem)
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
      stream.changes += try encryptedRootFiles(settings: settings)
    } else if encryptedParents.count > 1,
      let first = encryptedParents.first,
      try git.object(first.hex + ":" + EncryptedLayout.identityPath) != settings.identityBlob.hex
    {
      // A merge keeps the newest identity file (a passphrase changed on either side).
      stream.changes.append(.putBlob(EncryptedLayout.identityPath, settings.identityBlob))
    }
    // age files neither compress nor delta: a commit of many spends no time trying (one of
    // a few keeps its trees compressed and deltified, which is what it adds to the remote).
    return try commitWriter.makeBuildCommit(
      parent: encryptedParents.first, mergedParents: Array(encryptedParents.dropFirst()),
      changes: stream.changes, message: stream.message, after: stream.input,
      committer: StoreRepository.encryptedCommitter(info.seconds),
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

  /// The files of a first commit of an encrypted remote that come from no object: the
  /// marker, the identity, the README and the link an older docsh refuses.
  func encryptedRootFiles(settings: EncryptionSettings) throws(SyncError)
    -> [FastImportCommit.Change]
  {
    let target = try writeBlob(Array("../\(EncryptedLayout.readmePath)".utf8))
    return [
      .put(EncryptedLayout.markerPath, EncryptedLayout.markerBytes),
      .putBlob(EncryptedLayout.identityPath, settings.identityBlob),
      .put(EncryptedLayout.readmePath, EncryptedLayout.readmeBytes),
      .putEntry(EncryptedLayout.trapPath, mode: "120000", target),
    ]
  }

  /// Writes `bytes` as a blob of the repository.
  func writeBlob(_ bytes: [UInt8]) throws(SyncError) -> GitBlobID {
    try git.writeBlob(bytes)
  }
}
