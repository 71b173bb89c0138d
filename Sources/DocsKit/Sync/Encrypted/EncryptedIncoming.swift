// Translating an encrypted remote's commits into local ones (the other way, local to
// encrypted, is in EncryptedOutgoing.swift): each commit checked path by path and record by
// record before anything but objects is written, then rebuilt in the plain layout from what
// it changed against its first parent.

/// Translates the encrypted remote's commits into local ones, each checked before anything
/// but objects is written.
struct EncryptedIncoming {
  /// The repository the local commits are written in (its layout, paths and commit
  /// writing).
  let repository: StoreRepository
  let git: Git
  /// The local commits are written through.
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

  /// One changed path of an encrypted commit, with its blobs before and after.
  typealias ChangedPath = (path: String, entry: (old: GitBlobID?, new: GitBlobID?, mode: String))

  /// What the records an encrypted commit changed say, opened and checked.
  struct IncomingRecords {
    /// Documents put, with the category each now lies in.
    var puts: [ObjectID: (document: SnapshotDocument, categoryID: ObjectID)] = [:]
    /// Documents deleted.
    var removed = Set<ObjectID>()
    /// Categories whose folder the commit changes (documents leaving or joining them).
    var affected = Set<ObjectID>()
    /// Categories put, with their names.
    var categoryPuts: [ObjectID: Name] = [:]
    /// Categories deleted.
    var categoryDeletes = Set<ObjectID>()
  }

  /// The local commit standing for the encrypted commit `tip`, translating it and every
  /// ancestor not translated yet, each checked (``EncryptedLayout``): a path, a mode or a
  /// file that is not an encrypted remote's is refused, naming the commit, before anything
  /// is written but objects.
  func localCommit(
    for tip: CommitID, map: inout EncryptedCommitMap, settings: inout EncryptionSettings,
    identity: () throws(SyncError) -> AgeIdentity
  ) throws(SyncError) -> CommitID {
    if let known = map.local(for: tip) { return known }
    let pending = try CommitInfo.toTranslate(
      from: [tip], known: Array(map.localByEncrypted.keys), in: git)
    guard !pending.isEmpty else {
      throw .gitFailed(step: "decrypt the commits", message: "nothing to translate at \(tip.short)")
    }
    let key = try identity()
    for info in pending {
      let local = try decrypt(info, map: map, settings: &settings, identity: key)
      map.record(local: local, encrypted: info.commit)
    }
    guard let made = map.local(for: tip) else {
      throw .gitFailed(step: "decrypt the commits", message: "no commit stands for \(tip.short)")
    }
    return made
  }

  /// A refusal of the encrypted remote's commit `commit`.
  private func refusal(_ path: String, _ rule: String, in commit: CommitID) -> SyncError {
    .refusedRemote(
      RemoteRefusal(path: PrintableText.escaped(path), rule: rule, lookup: [path]),
      commit: commit.short)
  }

  /// Writes the local commit standing for the encrypted commit `info`, whose parents are
  /// translated (in `map`).
  private func decrypt(
    _ info: CommitInfo, map: EncryptedCommitMap, settings: inout EncryptionSettings,
    identity: AgeIdentity
  ) throws(SyncError) -> CommitID {
    var localParents: [CommitID] = []
    for parent in info.parents {
      guard let local = map.local(for: parent) else {
        throw .gitFailed(
          step: "decrypt the commits", message: "the parent \(parent.short) is not translated")
      }
      localParents.append(local)
    }
    if info.parents.isEmpty {
      return try writeFirstLocalCommit(for: info, settings: &settings, identity: identity)
    }
    let (documentPaths, categoryPaths) = try checkedPaths(of: info, settings: &settings)
    let records = try openedRecords(
      documentPaths: documentPaths, categoryPaths: categoryPaths, of: info,
      settings: settings, identity: identity)
    return try writeLocalCommit(
      for: info, records: records, localParents: localParents, settings: settings)
  }

  /// The document and category paths the encrypted commit `info` changed, every path, mode
  /// and size checked (and its marker and identity read) before any record is opened.
  private func checkedPaths(
    of info: CommitInfo, settings: inout EncryptionSettings
  ) throws(SyncError) -> (documents: [ChangedPath], categories: [ChangedPath]) {
    let firstEncrypted = info.parents.first
    var documentPaths: [ChangedPath] = []
    var categoryPaths: [ChangedPath] = []
    var markerSeen = firstEncrypted != nil
    // The commit's listing, by path and sorted, is let go of once it is classified.
    for (path, entry) in try reader.changedEntries(from: firstEncrypted, to: info.commit)
      .sorted(by: { $0.key < $1.key })
    {
      guard !path.hasPrefix(CommitReader.notUTF8Mark) else {
        throw refusal(
          String(path.dropFirst(CommitReader.notUTF8Mark.count)), "its name is not UTF-8",
          in: info.commit)
      }
      let place = EncryptedLayout.classify(path)
      if entry.new != nil {
        let expected = place == .trap ? "120000" : "100644"
        guard entry.mode == expected else {
          throw refusal(
            path, "an entry of mode \(entry.mode) is no file of an encrypted remote",
            in: info.commit)
        }
      }
      switch place {
      case .unknown:
        throw refusal(path, "not a file of an encrypted remote", in: info.commit)
      case .marker:
        guard let blob = entry.new,
          let bytes = try git.blobs([blob.hex], step: "read the repository").first ?? nil,
          let version = EncryptedLayout.markerVersion(bytes)
        else {
          throw refusal(
            path, "the marker of an encrypted remote is gone or damaged", in: info.commit)
        }
        guard version <= EncryptedLayout.version else { throw .encryption(.newerLayout(version)) }
        markerSeen = true
      case .identity:
        guard let blob = entry.new else {
          throw refusal(path, "the identity of an encrypted remote is gone", in: info.commit)
        }
        settings.identityBlob = blob
      case .readme, .trap:
        continue
      case .document:
        documentPaths.append((path, entry))
      case .category:
        categoryPaths.append((path, entry))
      }
    }
    guard markerSeen else {
      throw refusal(
        EncryptedLayout.markerPath, "an encrypted remote's first commit holds its marker",
        in: info.commit)
    }
    // A whole tree's listing (a remote's first commit): its pages go back before git sizes
    // every file, and those of the sizes before the records are opened.
    if firstEncrypted == nil { Allocator.returnFreedMemory() }
    try checkSizes(of: documentPaths + categoryPaths, in: info.commit)
    if firstEncrypted == nil { Allocator.returnFreedMemory() }
    return (documentPaths, categoryPaths)
  }

  /// Refuses the commit when a file it puts is larger than a document from a remote may be:
  /// sized before any byte is read, so that a blob that packs small is refused unread.
  private func checkSizes(of paths: [ChangedPath], in commit: CommitID) throws(SyncError) {
    let putting = paths.filter { $0.entry.new != nil }
    // A few thousand at a time through one `cat-file --batch-check` each: a whole tree's
    // names and answers are never held at once.
    var start = 0
    while start < putting.count {
      let batch = putting[start..<min(start + EncryptedIncoming.sizesPerRead, putting.count)]
      start += batch.count
      let sizes = try git.objectSizes(
        batch.compactMap { $0.entry.new?.hex }, step: "read the repository")
      for ((path, _), size) in zip(batch, sizes)
      where (size ?? 0) > EncryptedLayout.maximumFileSize {
        throw refusal(
          path,
          "it is \(size ?? 0) bytes, over the \(RemoteRefusal.maximumDocumentSize >> 20) MiB a document from a remote may be",
          in: commit)
      }
    }
  }

  /// How many files ``checkSizes(of:in:)`` sizes through one git process.
  static let sizesPerRead = 10_000

  /// The plain bytes of the file `path` brings: an age file that opens with `identity` and
  /// authenticates, or a refusal naming it.
  private func opened(
    _ path: String, _ bytes: [UInt8]?, identity: AgeIdentity, in commit: CommitID
  ) throws(SyncError) -> [UInt8] {
    guard let bytes else { throw refusal(path, "its blob is missing", in: commit) }
    guard Age.isAgeFile(bytes) else { throw refusal(path, "not an age file", in: commit) }
    do {
      return try Age.decrypt(bytes, identities: [identity])
    } catch {
      throw refusal(path, "an age file that does not open (\(error))", in: commit)
    }
  }

  /// The plain bytes of a file a parent holds, checked when it came in (or written here).
  private func openedParentFile(
    _ path: String, _ bytes: [UInt8]?, identity: AgeIdentity, in commit: CommitID
  ) throws(SyncError) -> [UInt8] {
    guard let bytes, let plain = try? Age.decrypt(bytes, identities: [identity]) else {
      throw refusal(path, "the parent's file does not open", in: commit)
    }
    return plain
  }

  /// The records the changed paths hold after and before the commit `info`, each opened
  /// and checked to lie at the path its id names.
  private func openedRecords(
    documentPaths: [ChangedPath], categoryPaths: [ChangedPath], of info: CommitInfo,
    settings: EncryptionSettings, identity: AgeIdentity
  ) throws(SyncError) -> IncomingRecords {
    func read(_ blobs: [GitBlobID]) throws(SyncError) -> [[UInt8]?] {
      try git.blobs(blobs.map(\.hex), step: "read the repository")
    }
    let commit = info.commit
    var records = IncomingRecords()
    let newDocuments = documentPaths.filter { $0.entry.new != nil }
    for (item, bytes) in zip(newDocuments, try read(newDocuments.compactMap { $0.entry.new })) {
      let plain = try opened(item.path, bytes, identity: identity, in: commit)
      guard let record = EncryptedRecord.parseDocument(plain) else {
        throw refusal(item.path, "not a document record docsh reads", in: commit)
      }
      guard settings.names.documentPath(record.document.id) == item.path else {
        throw refusal(item.path, "a document whose id does not lie at this path", in: commit)
      }
      records.puts[record.document.id] = record
      records.affected.insert(record.categoryID)
    }
    let oldDocuments = documentPaths.filter { $0.entry.old != nil }
    for (item, bytes) in zip(oldDocuments, try read(oldDocuments.compactMap { $0.entry.old })) {
      let plain = try openedParentFile(item.path, bytes, identity: identity, in: commit)
      guard let record = EncryptedRecord.parseDocument(plain) else {
        throw refusal(item.path, "the parent's file does not open", in: commit)
      }
      records.affected.insert(record.categoryID)
      if item.entry.new == nil { records.removed.insert(record.document.id) }
    }
    let newCategories = categoryPaths.filter { $0.entry.new != nil }
    for (item, bytes) in zip(newCategories, try read(newCategories.compactMap { $0.entry.new })) {
      let plain = try opened(item.path, bytes, identity: identity, in: commit)
      guard let (id, name) = EncryptedRecord.parseCategory(plain) else {
        throw refusal(item.path, "not a category record docsh reads", in: commit)
      }
      guard settings.names.categoryPath(id) == item.path else {
        throw refusal(item.path, "a category whose id does not lie at this path", in: commit)
      }
      records.categoryPuts[id] = name
      records.affected.insert(id)
    }
    let oldCategories = categoryPaths.filter { $0.entry.old != nil && $0.entry.new == nil }
    for (item, bytes) in zip(oldCategories, try read(oldCategories.compactMap { $0.entry.old })) {
      let plain = try openedParentFile(item.path, bytes, identity: identity, in: commit)
      guard let (id, _) = EncryptedRecord.parseCategory(plain) else {
        throw refusal(item.path, "the parent's file does not open", in: commit)
      }
      records.categoryDeletes.insert(id)
      records.affected.insert(id)
    }
    return records
  }

  /// Writes the local commit for `info`: the categories `records` touches, read from the
  /// first parent's translation, changed as the records say, and written in the plain
  /// layout.
  private func writeLocalCommit(
    for info: CommitInfo, records: IncomingRecords, localParents: [CommitID],
    settings: EncryptionSettings
  ) throws(SyncError) -> CommitID {
    let reader = TreeReader(git: git, layout: layout)
    let date = Timestamp(millisecondsSince1970: info.seconds * 1000)
    let parent = localParents.first
    var reading = TreeReading()
    var folders = Set<String>()
    if let parent {
      let all = try reader.read(parent, folders: [], date: date)
      folders = Set(records.affected.compactMap { all.folders[$0] })
      reading = try reader.read(parent, folders: folders, date: date)
    }
    // A new category's folder is written whole (fanned out by its count).
    for (id, name) in records.categoryPuts where reading.folders[id] == nil {
      folders.insert(layout.folder(of: name))
    }
    let categories = try mergedCategories(
      reading.snapshot.categories, records: records, settings: settings, in: info.commit)
    let merged = StoreSnapshot(generation: 0, categories: categories)
    var changes = layout.changes(from: reading, to: merged, folders: folders)
    // A first commit (or one on an unmarked parent) is marked as the layout it is written in.
    if !reading.isMarked { changes += LayoutMarker.changes(prefix: repository.prefix) }
    let message = StoreChanges(from: reading.describedSnapshot, to: merged).message(
      prefix: "", storePath: repository.pathInRepository)
    return try writer.makeBuildCommit(
      parent: parent, mergedParents: Array(localParents.dropFirst()), changes: changes,
      message: message, committer: EncryptedLayout.committer(info.seconds))
  }

  /// How many document records are read and opened at once by
  /// ``firstLocalCommitInput(for:settings:identity:)``.
  static let recordsPerRead = 500

  /// Writes the local commit for `info`, an encrypted commit without parents (a remote's
  /// first, which holds the whole store): its whole fast-import stream is written to a file
  /// first (``firstLocalCommitInput(for:settings:identity:)``), every table that built it
  /// is let go of and its pages given back, and only then does fast-import run on it — so
  /// that docsh's tables and fast-import's are never held at once.
  private func writeFirstLocalCommit(
    for info: CommitInfo, settings: inout EncryptionSettings, identity: AgeIdentity
  ) throws(SyncError) -> CommitID {
    let input = try firstLocalCommitInput(for: info, settings: &settings, identity: identity)
    defer { try? repository.fileSystem.close(input) }  // read-only: nothing to lose
    Allocator.returnFreedMemory()
    // What CommitWriter.makeBuildCommit(parent:changes:message:after:committer:) runs, the
    // stream being written already: the commit on docsh's own ref, moved from anywhere.
    guard let made = try git.fastImport(.file(input), forcing: true) else {
      throw .gitFailed(step: "commit the store", message: "git fast-import wrote no commit")
    }
    return made
  }

  /// The fast-import stream of the local commit for `info`, a remote's first encrypted
  /// commit, as a descriptor reading it from its start (the caller closes it): its paths
  /// checked (``checkedPaths(of:settings:)``), its records opened a few hundred at a time,
  /// each document's file going into the stream as soon as it is opened and only its name,
  /// size, mark and fingerprint kept, so that the store is never held in memory whole. The
  /// checks are those of ``openedRecords(documentPaths:categoryPaths:of:settings:identity:)``
  /// and ``mergedCategories(_:records:settings:in:)``, all made before anything but objects
  /// is written; the commit is the one ``writeLocalCommit(for:records:localParents:settings:)``
  /// would write.
  private func firstLocalCommitInput(
    for info: CommitInfo, settings: inout EncryptionSettings, identity: AgeIdentity
  ) throws(SyncError) -> Int32 {
    let commit = info.commit
    let blobs = try writer.makeInput()
    let names: [ObjectID: Name]
    var streamed: [ObjectID: [StreamedDocument]]
    do {
      // The changed paths are let go of once the records they name are opened.
      let (documentPaths, categoryPaths) = try checkedPaths(of: info, settings: &settings)
      // The categories first: each document's record names its category.
      names = try firstCategoryNames(
        categoryPaths, settings: settings, identity: identity, in: commit)
      // The documents, a batch at a time; their contents go to the blobs only.
      streamed = try streamFirstDocuments(
        documentPaths, names: names, into: blobs, settings: settings, identity: identity,
        in: commit)
    }
    // In the order mergedCategories gives: categories by id, their documents by id; every
    // one new, named in the message by the fingerprint of its file as written.
    var changes: [FastImportCommit.Change] = []
    var described = StoreChanges()
    for id in names.keys.sorted() {
      guard let name = names[id] else { continue }
      let members = (streamed.removeValue(forKey: id) ?? []).sorted { $0.id < $1.id }
      let fannedOut = layout.isFannedOut(documentCount: members.count)
      changes.append(
        .put(
          layout.recordPath(of: name),
          RepositoryLayout.recordBytes(id: id, name: name, fannedOut: fannedOut)))
      described.categories.append(StoreChanges.CategoryChange(kind: .new, name: name.text))
      for document in members {
        changes.append(
          .putMark(layout.path(of: document.name, in: name, fannedOut: fannedOut), document.mark))
        described.documents.append(
          StoreChanges.DocumentChange(
            id: document.id, kind: .new, category: name.text, name: document.name.text,
            size: document.size, fingerprint: document.fingerprint))
      }
    }
    changes += LayoutMarker.changes(prefix: repository.prefix)
    let made = FastImportCommit(
      ref: CommitWriter.buildRef, committer: EncryptedLayout.committer(info.seconds),
      message: described.message(prefix: "", storePath: repository.pathInRepository),
      parent: nil, changes: changes)
    return try writer.finishInput(made, after: blobs)
  }

  /// The names of the categories a remote's first commit holds, each record opened and
  /// checked: at its id's path, and no two names equal but for case or normalization.
  private func firstCategoryNames(
    _ categoryPaths: [ChangedPath], settings: EncryptionSettings, identity: AgeIdentity,
    in commit: CommitID
  ) throws(SyncError) -> [ObjectID: Name] {
    var names: [ObjectID: Name] = [:]
    let newCategories = categoryPaths.filter { $0.entry.new != nil }
    let categoryBytes = try git.blobs(
      newCategories.compactMap { $0.entry.new?.hex }, step: "read the repository")
    for (item, bytes) in zip(newCategories, categoryBytes) {
      let plain = try opened(item.path, bytes, identity: identity, in: commit)
      guard let (id, name) = EncryptedRecord.parseCategory(plain) else {
        throw refusal(item.path, "not a category record docsh reads", in: commit)
      }
      guard settings.names.categoryPath(id) == item.path else {
        throw refusal(item.path, "a category whose id does not lie at this path", in: commit)
      }
      names[id] = name
    }
    var categoryKeys = Set<NameKey>()
    for id in names.keys.sorted() {
      guard let name = names[id], categoryKeys.insert(name.key).inserted else {
        throw refusal(
          settings.names.categoryPath(id),
          "two categories whose names are equal but for case or Unicode normalization",
          in: commit)
      }
    }
    return names
  }

  /// What ``streamFirstDocuments(_:names:into:settings:identity:in:)`` keeps of a document
  /// whose file it wrote to git's input: what its path and its line of the message need.
  private struct StreamedDocument {
    var id: ObjectID
    var name: Name
    var size: Int
    /// The mark of its blob in the stream.
    var mark: Int
    var fingerprint: String
  }

  /// Opens the document records of a remote's first commit ``recordsPerRead`` at a time,
  /// checks each, and writes its file to `blobs` at once, keeping no content: what it keeps
  /// of each document, by its category.
  private func streamFirstDocuments(
    _ documentPaths: [ChangedPath], names: [ObjectID: Name], into blobs: GitInputFile,
    settings: EncryptionSettings, identity: AgeIdentity, in commit: CommitID
  ) throws(SyncError) -> [ObjectID: [StreamedDocument]] {
    var streamed: [ObjectID: [StreamedDocument]] = [:]
    var nextMark = FastImportCommit.firstBlobMark
    var documentKeys: [ObjectID: Set<NameKey>] = [:]
    let newDocuments = documentPaths.filter { $0.entry.new != nil }
    var start = 0
    while start < newDocuments.count {
      let batch = newDocuments[
        start..<min(start + EncryptedIncoming.recordsPerRead, newDocuments.count)]
      start += batch.count
      let read = try git.blobs(batch.compactMap { $0.entry.new?.hex }, step: "read the repository")
      for (item, bytes) in zip(batch, read) {
        let plain = try opened(item.path, bytes, identity: identity, in: commit)
        guard let (document, categoryID) = EncryptedRecord.parseDocument(plain) else {
          throw refusal(item.path, "not a document record docsh reads", in: commit)
        }
        guard settings.names.documentPath(document.id) == item.path else {
          throw refusal(item.path, "a document whose id does not lie at this path", in: commit)
        }
        guard let category = names[categoryID] else {
          throw refusal(item.path, "its category is in no record", in: commit)
        }
        guard documentKeys[categoryID, default: []].insert(document.name.key).inserted else {
          throw refusal(
            item.path,
            "two documents of one category whose names are equal but for case or Unicode normalization",
            in: commit)
        }
        let saved = SavedDocument(
          id: document.id, name: document.name.text, categoryID: categoryID,
          categoryName: category.text, content: document.content, size: document.size,
          modified: document.modified, tags: document.tags)
        let file = RepositoryLayout.fileBytes(of: saved)
        do {
          try blobs.append(FastImportCommit.blobCommand(file, mark: nextMark))
        } catch {
          throw .store(.system("git's input", operation: error.operation, errno: error.code))
        }
        streamed[categoryID, default: []].append(
          StreamedDocument(
            id: document.id, name: document.name, size: document.size, mark: nextMark,
            fingerprint: RepositoryLayout.fingerprint(of: saved, fileBytes: file)))
        nextMark += 1
      }
    }
    return streamed
  }

  /// The categories of the parent's translation with `records` applied; two names one file
  /// or folder would hold are refused, and neither is taken.
  private func mergedCategories(
    _ parentCategories: [SnapshotCategory], records: IncomingRecords,
    settings: EncryptionSettings, in commit: CommitID
  ) throws(SyncError) -> [SnapshotCategory] {
    var categories = parentCategories
    categories.removeAll {
      records.categoryDeletes.contains($0.id) && records.categoryPuts[$0.id] == nil
    }
    for (id, name) in records.categoryPuts.sorted(by: { $0.key < $1.key }) {
      if let index = categories.firstIndex(where: { $0.id == id }) {
        categories[index].name = name
      } else {
        categories.append(SnapshotCategory(id: id, name: name, documents: []))
      }
    }
    let moving = records.removed.union(records.puts.keys)
    for index in categories.indices {
      categories[index].documents.removeAll { moving.contains($0.id) }
    }
    for (id, record) in records.puts.sorted(by: { $0.key < $1.key }) {
      guard let index = categories.firstIndex(where: { $0.id == record.categoryID }) else {
        throw refusal(settings.names.documentPath(id), "its category is in no record", in: commit)
      }
      categories[index].documents.append(record.document)
    }
    var categoryKeys = Set<NameKey>()
    for category in categories {
      guard categoryKeys.insert(category.name.key).inserted else {
        throw refusal(
          settings.names.categoryPath(category.id),
          "two categories whose names are equal but for case or Unicode normalization",
          in: commit)
      }
      var keys = Set<NameKey>()
      for document in category.documents where !keys.insert(document.name.key).inserted {
        throw refusal(
          settings.names.documentPath(document.id),
          "two documents of one category whose names are equal but for case or Unicode normalization",
          in: commit)
      }
    }
    return categories
  }
}
