#if canImport(Glibc)
  import Glibc
#endif

/// One saved version of a document: a commit that changed (or deleted) it.
public struct DocumentVersion: Hashable, Sendable {
  /// The commit.
  public var commit: CommitID
  /// When it was made (the commit's author date).
  public var date: Timestamp
  /// The document's category at that version (its last one, for a deletion).
  public var category: String
  /// The document's name at that version (its last one, for a deletion).
  public var name: String
  /// The document's size at that version (its last one, for a deletion).
  public var size: Int
  /// Whether this commit deleted the document.
  public var isDeletion: Bool
}

/// One commit of the store's history.
public struct StoreCommit: Hashable, Sendable {
  /// The commit.
  public var commit: CommitID
  /// When it was made (the author date).
  public var date: Timestamp
  /// Its message's first line.
  public var message: String
}

// History: the versions of one document, found by its id. docsh's commits carry trailers
// naming every document they changed (`Docsh-Changed: ID SIZE FINGERPRINT CATEGORY/NAME`),
// so one `git log` over the store's commits finds a document's versions without reading
// any version of the store; only commits made otherwise (a user's own `git merge`, say)
// are searched by git itself with `-G` on the document's line.
extension StoreRepository {
  /// The store's history in this repository.
  public var history: StoreHistory {
    StoreHistory(git: git, layout: layout, pathInRepository: pathInRepository)
  }
}

/// The history of a store in its repository: the commits that changed it, the versions of
/// one document, and a document as it was at a commit — read through git, never written.
public struct StoreHistory {
  let git: Git
  /// Where the store's objects lie in a commit's tree.
  let layout: RepositoryLayout
  /// The store file's path in the repository (the old layout's commits hold it).
  let pathInRepository: String

  /// The saved versions of the document `id`, newest first (a version that reached this
  /// branch twice, by the other machine's commit and the merge bringing it in, is listed
  /// once, at its first commit).
  /// - Parameter limit: at most this many.
  /// - Throws: ``SyncError`` when git fails.
  public func versions(ofDocument id: ObjectID, limit: Int? = nil) throws(SyncError)
    -> [DocumentVersion]
  {
    let idText = id.description
    let idBytes = Array(idText.utf8)
    // Only the commits that name the document, or that name nothing, become entries.
    let log = try storeLog { record, isDescribed in
      !isDescribed || idBytes.withUnsafeBytes { ByteScan.contains($0, in: record) }
    }
    var found: [(index: Int, version: DocumentVersion, fingerprint: String)] = []
    var undescribed: [(index: Int, entry: LogEntry)] = []
    for (index, entry) in log {
      guard entry.isDescribed else {
        undescribed.append((index, entry))
        continue
      }
      guard let trailer = entry.trailer(naming: idText) else { continue }
      found.append(
        (
          index,
          DocumentVersion(
            commit: entry.commit, date: entry.date, category: trailer.category,
            name: trailer.name, size: trailer.size, isDeletion: trailer.kind == .deleted),
          trailer.fingerprint
        ))
    }
    if !undescribed.isEmpty {
      found += try searchedVersions(of: id, in: undescribed)
      found.sort { $0.index < $1.index }
    }
    var versions: [DocumentVersion] = []
    for (position, item) in found.enumerated() {
      // The same version twice in a row: keep the older commit, the one that made it.
      if position + 1 < found.count, found[position + 1].fingerprint == item.fingerprint,
        found[position + 1].version.isDeletion == item.version.isDeletion
      {
        continue
      }
      versions.append(item.version)
    }
    if let limit { return Array(versions.prefix(max(0, limit))) }
    return versions
  }

  /// The commits that changed the store, newest first, one line each.
  /// - Throws: ``SyncError`` when git fails.
  public func commits(limit: Int? = nil) throws(SyncError) -> [StoreCommit] {
    guard try git.head() != nil else { return [] }
    return try git.commitSubjects(limit: limit)
  }

  /// The commit `revision` names (a hash, short or full, `HEAD~2`, a branch).
  /// - Throws: ``SyncError/noSuchCommit(_:)``.
  public func resolveCommit(_ revision: String) throws(SyncError) -> CommitID {
    guard !revision.hasPrefix("-"), let commit = try git.commit(revision) else {
      throw .noSuchCommit(revision)
    }
    return commit
  }

  /// The document `id` as it was at `commit`, content included; `nil` when the store then
  /// held no such document. Reads either layout: one file per document, or (commits of
  /// docsh before 0.4) the store file.
  /// - Throws: ``SyncError`` when git fails or that version does not load.
  public func document(_ id: ObjectID, at commit: CommitID) throws(SyncError) -> SavedDocument? {
    if let store = try legacyStore(at: commit) {
      guard let stored = store.graph.documents.first(where: { $0.id == id }) else { return nil }
      return try saved(stored, in: store, at: commit)
    }
    // Where the document was at that commit: its path in the newest trailer naming it at or
    // before the commit, else found by reading the commit's files.
    for (_, entry) in try storeLog(
      from: commit,
      keeping: { record, isDescribed in
        isDescribed
          && Array(id.description.utf8).withUnsafeBytes { ByteScan.contains($0, in: record) }
      })
    {
      guard let trailer = entry.trailer(naming: id.description) else { continue }
      if trailer.kind == .deleted { return nil }
      if let found = try documentFile(
        inCategory: trailer.category, named: trailer.name, at: commit), found.id == id
      {
        return found
      }
      break
    }
    return try wholeTree(of: commit).snapshot.categories.lazy.compactMap {
      category in
      category.documents.first { $0.id == id }.map { document in
        SavedDocument(
          id: id, name: document.name.text, categoryID: category.id,
          categoryName: category.name.text, content: document.content, size: document.size,
          modified: document.modified)
      }
    }.first
  }

  /// The document at `category`/`name` (ignoring case, as names compare) as it was at
  /// `commit`; `nil` when there was none.
  /// - Throws: ``SyncError`` when git fails or that version does not load.
  public func document(
    inCategory category: String, named name: String, at commit: CommitID
  ) throws(SyncError) -> SavedDocument? {
    if let store = try legacyStore(at: commit) {
      let categoryKey = NameKey(category)
      let nameKey = NameKey(name)
      guard
        let categoryID = store.graph.categories.first(where: { $0.name.key == categoryKey })?.id,
        let stored = store.graph.documents.first(where: {
          $0.categoryID == categoryID && $0.name.key == nameKey
        })
      else { return nil }
      return try saved(stored, in: store, at: commit)
    }
    return try documentFile(inCategory: category, named: name, at: commit)
  }

  /// The document whose file is `category`/`name` at `commit` (the names as spelled, then
  /// ignoring case); `nil` when there is none.
  private func documentFile(
    inCategory category: String, named name: String, at commit: CommitID
  ) throws(SyncError) -> SavedDocument? {
    guard let categoryName = try? Name(category), let documentName = try? Name(name) else {
      return nil
    }
    let reader = TreeReader(git: git, layout: layout)
    var folder = layout.folder(of: categoryName)
    // The file of either layout: `NAME.md` (layout 2), else `NAME` (layout 1).
    let layouts = [layout, layout.inVersion(1)]
    var found = false
    for layout in layouts where !found {
      let file = folder + "/" + layout.fileName(of: documentName)
      let bucketed = layout.path(of: documentName, in: categoryName, fannedOut: true)
      found = try git.object(commit.hex + ":" + file) != nil
      if !found { found = try git.object(commit.hex + ":" + bucketed) != nil }
    }
    if !found {
      // Spelled otherwise at that commit: find the folder and the file ignoring case, in
      // the folder or in the bucket of the name (which ignores case too).
      guard
        let found = try reader.listing(commit.hex + ":" + layout.prefix).first(where: {
          $0.isFolder && FileNameEncoding.decode($0.name)?.key == categoryName.key
        })
      else { return nil }
      folder = layout.prefix + found.name
      let bucket = RepositoryLayout.bucket(of: documentName)
      guard
        try reader.listing(commit.hex + ":" + folder, recursive: true).contains(where: {
          let parts = $0.name.split(separator: "/")
          return (parts.count == 1 || (parts.count == 2 && parts[0] == bucket))
            && layouts.contains { layout in
              parts.last.flatMap { layout.documentName(ofFile: String($0)) }?.key
                == documentName.key
            }
        })
      else { return nil }
    }
    let reading = try reader.read(commit, folders: [folder], date: try git.commitDate(of: commit))
    // The name as spelled, else ignoring case.
    guard let id = reading.folders.first(where: { $0.value == folder })?.key,
      let holder = reading.snapshot.categories.first(where: { $0.id == id }),
      let document = holder.documents.first(where: { $0.name.text == documentName.text })
        ?? holder.documents.first(where: { $0.name.key == documentName.key })
    else { return nil }
    return SavedDocument(
      id: document.id, name: document.name.text, categoryID: holder.id,
      categoryName: holder.name.text, content: document.content, size: document.size,
      modified: document.modified)
  }

  /// The store file at `commit`, parsed, when the commit is of the old layout.
  private func legacyStore(at commit: CommitID) throws(SyncError) -> ParsedStore? {
    guard
      let bytes = try git.blobs([commit.hex + ":" + pathInRepository], step: "read the store")
        .first ?? nil
    else { return nil }
    do {
      return try ParsedStore(bytes: bytes, name: "\(commit.short):\(pathInRepository)")
    } catch {
      throw .notAStoreAtCommit(commit.short, reason: error.description)
    }
  }

  /// The id of the document last at `category`/`name` in the store's history (ignoring
  /// case), for a document deleted since; `nil` when docsh's commits name none there.
  /// - Throws: ``SyncError`` when git fails.
  public func documentID(lastInCategory category: String, named name: String) throws(SyncError)
    -> ObjectID?
  {
    let categoryKey = NameKey(category)
    let nameKey = NameKey(name)
    for (_, entry) in try storeLog(keeping: { _, isDescribed in isDescribed }) {
      for trailer in entry.trailers
      where NameKey(trailer.category) == categoryKey && NameKey(trailer.name) == nameKey {
        return trailer.id
      }
    }
    return nil
  }

  // MARK: - Reading the log

  /// One commit of `git log` over the store, with its message.
  private struct LogEntry {
    var commit: CommitID
    var date: Timestamp
    var parents: [String]
    /// The message, as git printed it.
    var body: ArraySlice<UInt8>
    /// Whether its trailers list every document it changed in the store.
    var isDescribed: Bool

    /// Its trailers naming documents.
    var trailers: [StoreChanges.DocumentChange] {
      String(decoding: body, as: UTF8.self).split(separator: "\n").compactMap(
        HistoryTrailer.documentChange)
    }

    /// Its trailer naming the document `id`, found without decoding the others.
    func trailer(naming id: String) -> StoreChanges.DocumentChange? {
      for key in [HistoryTrailer.changedKey, HistoryTrailer.deletedKey] {
        let needle = Array("\n\(key): \(id) ".utf8)
        guard let start = StoreHistory.firstIndex(of: needle, in: body) else { continue }
        let lineStart = start + 1
        let lineEnd = body[lineStart...].firstIndex(of: 0x0A) ?? body.endIndex
        return HistoryTrailer.documentChange(
          Substring(String(decoding: body[lineStart..<lineEnd], as: UTF8.self)))
      }
      return nil
    }
  }

  /// The commits that changed the store, newest first, with their whole messages: those
  /// whose raw record `wanted` keeps (told whether its trailers describe it), each with its
  /// place in the whole log. Records are looked at as bytes, so that the many a query does
  /// not want cost no decoding.
  private func storeLog(
    from start: CommitID? = nil,
    keeping wanted: (UnsafeRawBufferPointer, _ isDescribed: Bool) -> Bool
  ) throws(SyncError) -> [(index: Int, entry: LogEntry)] {
    let log: [UInt8]
    do {
      log = try git.logRecords(from: start)
    } catch {
      // A branch without commits has no history; any other failure is one.
      if case .gitFailed = error, try git.head() == nil { return [] }
      throw error
    }
    let marker = Array((HistoryTrailer.storeKey + ": " + pathInRepository + "\n").utf8)
    var entries: [(index: Int, entry: LogEntry)] = []
    // Records and their first fields are found with memchr: the log of a large store holds
    // messages of megabytes (a first commit names every document).
    for (index, bounds) in StoreHistory.byteRanges(of: log, separatedBy: 0x1E).enumerated() {
      let record = log[bounds]
      let isDescribed = record.withUnsafeBytes { bytes in
        marker.withUnsafeBytes { ByteScan.contains($0, in: bytes) }
      }
      guard record.withUnsafeBytes({ wanted($0, isDescribed) }) else { continue }
      let fields = StoreHistory.byteRanges(
        of: log, separatedBy: 0x1F, in: bounds, maximumCount: 4
      ).map { log[$0] }
      guard fields.count == 4,
        let seconds = Int64(String(decoding: fields[1], as: UTF8.self))
      else { continue }
      entries.append(
        (
          index,
          LogEntry(
            commit: CommitID(String(decoding: fields[0], as: UTF8.self)),
            date: Timestamp(millisecondsSince1970: seconds * 1000),
            parents: String(decoding: fields[2], as: UTF8.self).split(separator: " ").map(
              String.init),
            body: fields[3], isDescribed: isDescribed)
        ))
    }
    return entries
  }

  /// The ranges of `bytes` (within `bounds`, all of it when `nil`) between the bytes
  /// `separator`, empty ones left out but for fields, at most `maximumCount` (the last one
  /// running to the end, separators and all), found with `memchr`.
  static func byteRanges(
    of bytes: [UInt8], separatedBy separator: UInt8, in bounds: Range<Int>? = nil,
    maximumCount: Int = .max
  ) -> [Range<Int>] {
    let bounds = bounds ?? 0..<bytes.count
    let keepsEmpty = maximumCount != .max
    var ranges: [Range<Int>] = []
    bytes.withUnsafeBufferPointer { buffer in
      guard let base = buffer.baseAddress else { return }
      var start = bounds.lowerBound
      while start <= bounds.upperBound {
        var end = bounds.upperBound
        if ranges.count + 1 < maximumCount, start < bounds.upperBound,
          let found = memchr(base + start, Int32(separator), bounds.upperBound - start)
        {
          end = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
        }
        if keepsEmpty || end > start { ranges.append(start..<end) }
        if end == bounds.upperBound { break }
        start = end + 1
      }
    }
    return ranges
  }

  /// Where `needle` first starts in `bytes` (an index of `bytes`).
  static func firstIndex(of needle: [UInt8], in bytes: ArraySlice<UInt8>) -> Int? {
    guard !needle.isEmpty else { return nil }
    let found = bytes.withUnsafeBytes { haystack in
      needle.withUnsafeBytes { ByteScan.firstIndex(of: $0, in: haystack) }
    }
    return found.map { bytes.startIndex + $0 }
  }

  /// The versions of `id` in commits that carry no trailers (a user's commits, made in a
  /// clone), each found by reading the document files the commit changed against its first
  /// parent (or, for commits of the old layout, the store file then).
  private func searchedVersions(
    of id: ObjectID, in entries: [(index: Int, entry: LogEntry)]
  ) throws(SyncError) -> [(index: Int, version: DocumentVersion, fingerprint: String)] {
    var versions: [(index: Int, version: DocumentVersion, fingerprint: String)] = []
    for (index, entry) in entries {
      let parent = entry.parents.first.map(CommitID.init)
      // A path that is not UTF-8 is no document's: git names it, docsh cannot.
      let paths = try git.changedFiles(from: parent, to: entry.commit).filter {
        $0.isUTF8 && layout.isDocumentPlace($0.path)
          && !$0.path.hasSuffix("/" + CategoryFile.fileName)
      }.map(\.path).sorted()
      guard !paths.isEmpty else { continue }
      let now = try git.blobs(paths.map { entry.commit.hex + ":" + $0 }, step: "search the history")
      let then =
        try parent.map { parent throws(SyncError) in
          try git.blobs(paths.map { parent.hex + ":" + $0 }, step: "search the history")
        } ?? paths.map { _ in nil }
      if let found = version(of: id, in: paths, now: now, then: then, at: entry) {
        versions.append((index, found.version, found.fingerprint))
      }
    }
    return versions
  }

  /// The version of `id` that a commit changing the files `paths` (`now` their bytes at the
  /// commit, `then` at its parent) made: the file that holds it now, else its deletion.
  private func version(
    of id: ObjectID, in paths: [String], now: [[UInt8]?], then: [[UInt8]?], at entry: LogEntry
  ) -> (version: DocumentVersion, fingerprint: String)? {
    for (position, path) in paths.enumerated() {
      guard let bytes = now[position],
        case .docsh(id, _, let content, _) = DocumentFile.parse(bytes)
      else { continue }
      let (category, name) = layout.names(at: path)
      let saved = SavedDocument(
        id: id, name: name, categoryID: id, categoryName: category, content: content,
        size: content.utf8.count, modified: entry.date)
      return (
        DocumentVersion(
          commit: entry.commit, date: entry.date, category: category, name: name,
          size: content.utf8.count, isDeletion: false),
        RepositoryLayout.fingerprint(of: saved, fileBytes: bytes)
      )
    }
    for (position, path) in paths.enumerated() where now[position] == nil {
      guard let bytes = then[position], case .docsh(id, _, _, _) = DocumentFile.parse(bytes)
      else { continue }
      let (category, name) = layout.names(at: path)
      return (
        DocumentVersion(
          commit: entry.commit, date: entry.date, category: category, name: name, size: 0,
          isDeletion: true),
        RepositoryLayout.deletionFingerprint(of: id)
      )
    }
    return nil
  }

  /// Every category and document of `commit`'s tree (as a sync reads a whole tree, without
  /// a limit on a document's size: this is the user's own history).
  private func wholeTree(of commit: CommitID) throws(SyncError) -> TreeReading {
    let reader = TreeReader(git: git, layout: layout)
    let folders = try reader.categoryFolders(of: commit)
    return try reader.read(commit, folders: folders, date: try git.commitDate(of: commit))
  }

  private func saved(
    _ stored: StoredDocument, in store: ParsedStore, at commit: CommitID
  ) throws(SyncError) -> SavedDocument {
    let content: String
    do {
      content = try store.decodedContent(of: stored)
    } catch {
      throw .notAStoreAtCommit(commit.short, reason: error.description)
    }
    return SavedDocument(
      id: stored.id, name: stored.name.text, categoryID: stored.categoryID,
      categoryName: store.graph.categories.first { $0.id == stored.categoryID }?.name.text ?? "?",
      content: content, size: stored.size, modified: stored.modified, tags: stored.tags)
  }
}
