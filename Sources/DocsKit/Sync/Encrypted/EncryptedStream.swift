import Dispatch
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

// The pieces both translations between the local repository and an encrypted remote use
// (``EncryptedOutgoing``, ``EncryptedIncoming``, and ``EncryptedFirstCommit``): the commits
// to translate, and the fast-import stream of an encrypted commit with its records encrypted
// on every core.

/// One commit to translate.
struct CommitInfo {
  var commit: CommitID
  var parents: [CommitID]
  /// When it was committed (seconds since 1970).
  var seconds: Int64
  /// Its tree.
  var tree: String

  /// The commits reachable from `tips` and from none of `known`, parents first.
  static func toTranslate(from tips: [CommitID], known: [String], in git: Git) throws(SyncError)
    -> [CommitInfo]
  {
    try git.commits(reachableFrom: tips, excluding: known).map {
      CommitInfo(commit: $0.commit, parents: $0.parents, seconds: $0.seconds, tree: $0.tree)
    }
  }
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
    let encrypted = try EncryptedStream.encryptAll(puts.map(\.record), to: recipient)
    try put(paths: puts.map(\.path), encrypted: encrypted)
  }

  /// Writes the age files `encrypted` into the stream, each at its path of `paths`.
  mutating func put(paths: [String], encrypted: [[UInt8]]) throws(SyncError) {
    for (path, bytes) in zip(paths, encrypted) {
      changes.append(.putMark(path, try putBlob(bytes)))
    }
  }

  /// Writes `bytes` into the stream as the next blob, which no change names yet.
  /// - Returns: its mark.
  mutating func putBlob(_ bytes: [UInt8]) throws(SyncError) -> Int {
    do {
      try input.append(FastImportCommit.blobCommand(bytes, mark: mark))
    } catch {
      throw .store(.system("git's input", operation: error.operation, errno: error.code))
    }
    mark += 1
    return mark - 1
  }

  /// The commit's message: counts only.
  var message: String {
    var parts: [String] = []
    if counts.new > 0 { parts.append("\(counts.new) new") }
    if counts.changed > 0 { parts.append("\(counts.changed) changed") }
    if counts.deleted > 0 { parts.append("\(counts.deleted) deleted") }
    return "docsh: " + (parts.isEmpty ? "no change" : parts.joined(separator: ", ")) + "\n"
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

  /// The files of a first commit of an encrypted remote that come from no object: the
  /// marker, the identity, the README and the link an older docsh refuses.
  static func rootFiles(settings: EncryptionSettings, git: Git) throws(SyncError)
    -> [FastImportCommit.Change]
  {
    let target = try git.writeBlob(Array("../\(EncryptedLayout.readmePath)".utf8))
    return [
      .put(EncryptedLayout.markerPath, EncryptedLayout.markerBytes),
      .putBlob(EncryptedLayout.identityPath, settings.identityBlob),
      .put(EncryptedLayout.readmePath, EncryptedLayout.readmeBytes),
      .putEntry(EncryptedLayout.trapPath, mode: "120000", target),
    ]
  }
}
