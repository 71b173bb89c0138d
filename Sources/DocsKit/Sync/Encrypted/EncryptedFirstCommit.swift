import Dispatch
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// Hears each category and document of the store as a whole-store commit makes its file
/// (``StoreTreeDifference``), in the store's order, whether or not the file changed.
protocol StoreRecordSink: AnyObject {
  /// The category `id`, named `name`.
  /// - Throws: ``SyncError`` when what the sink writes cannot be written.
  func category(id: ObjectID, name: Name) throws(SyncError)
  /// The document `id`, named `name`, of the category `categoryID`, whose file in the plain
  /// layout is `file`.
  /// - Throws: ``SyncError`` when what the sink writes cannot be written.
  func document(id: ObjectID, name: Name, categoryID: ObjectID, file: [UInt8]) throws(SyncError)
}

/// The encrypted remote's commit standing for a repository's first commit, written from the
/// store in the pass that writes that commit's files: each category's and document's record
/// is made with its plain file and encrypted a few hundred at a time on other threads while
/// the store is read on, so that a first sync to an encrypted remote never reads the plain
/// blobs back from git (the
/// translation, ``EncryptedOutgoing/encryptedCommit(for:map:settings:identity:)``, reads every
/// one of a commit without a translated parent).
///
/// Its tree means what the translation's would: the same paths, each file opening to the same
/// record (a document's record is made from the very bytes of its plain file), the root files,
/// and a message of counts. Only the age files' random bytes differ, as they do between any
/// two encryptions.
final class EncryptedFirstCommit: StoreRecordSink {
  let settings: EncryptionSettings
  private var stream: EncryptedStream
  private var pending: [(key: RecordKey, record: [UInt8])] = []
  private var pendingBytes = 0
  /// The batch being encrypted on other threads while the store is read on: its records'
  /// keys, and the run to wait for. One at a time, so that two batches are all that is held.
  private var encrypting: (keys: [RecordKey], run: BackgroundWork<[[UInt8]]>)?
  /// The record of each blob written, in the order of their marks: 17 bytes a record where
  /// a change naming its path held about 120 (12 MB for 100,000 documents).
  private var written: [RecordKey] = []

  /// Whose record a blob is: its path is made from it again when the commit is written.
  private enum RecordKey {
    case category(ObjectID)
    case document(ObjectID)

    func path(in names: OpaqueNames) -> String {
      switch self {
      case .category(let id): names.categoryPath(id)
      case .document(let id): names.documentPath(id)
      }
    }
  }

  /// Records are encrypted this many at a time at most…
  private static let batchCount = 500
  /// …or once they hold this many bytes (two batches and one encrypted are held at once).
  private static let batchBytes = 2 << 20

  /// A commit to encrypt to `settings`' recipient, its blobs going to a new input file.
  init(settings: EncryptionSettings, fileSystem: any FileSystem) throws(SyncError) {
    self.settings = settings
    stream = try EncryptedStream(fileSystem: fileSystem)
  }

  func category(id: ObjectID, name: Name) throws(SyncError) {
    try add(.category(id), EncryptedRecord.category(id: id, name: name))
  }

  func document(id: ObjectID, name: Name, categoryID: ObjectID, file: [UInt8]) throws(SyncError) {
    try add(.document(id), EncryptedRecord.document(file: file, name: name, categoryID: categoryID))
  }

  private func add(_ key: RecordKey, _ record: [UInt8]) throws(SyncError) {
    stream.counts.new += 1
    pending.append((key, record))
    pendingBytes += record.count
    if pending.count >= EncryptedFirstCommit.batchCount
      || pendingBytes >= EncryptedFirstCommit.batchBytes
    {
      try startBatch()
    }
  }

  /// Writes the batch encrypted before into the stream, and starts encrypting the pending
  /// records while the caller goes on reading the store.
  private func startBatch() throws(SyncError) {
    try writeEncrypted()
    guard !pending.isEmpty else { return }
    let records = pending.map(\.record)
    let recipient = settings.recipient
    let run = BackgroundWork { () throws(SyncError) -> [[UInt8]] in
      try EncryptedStream.encryptAll(records, to: recipient)
    }
    encrypting = (pending.map(\.key), run)
    pending.removeAll(keepingCapacity: true)
    pendingBytes = 0
  }

  /// Waits for the batch being encrypted, and writes it into the stream.
  private func writeEncrypted() throws(SyncError) {
    guard let (keys, run) = encrypting else { return }
    encrypting = nil
    for bytes in try run.wait().get() { _ = try stream.putBlob(bytes) }
    written += keys
  }

  /// Writes the last records.
  /// - Returns: the stream, holding every blob.
  private func finish() throws(SyncError) -> EncryptedStream {
    try startBatch()
    try writeEncrypted()
    return stream
  }

  /// The changes that put each blob written at its record's path, made as they are read.
  private var writtenChanges: some Sequence<FastImportCommit.Change> {
    let names = settings.names
    return written.lazy.enumerated().map { offset, key in
      .putMark(key.path(in: names), FastImportCommit.firstBlobMark + offset)
    }
  }
}

extension EncryptedFirstCommit {
  /// The ref the encrypted twin of a first commit is written on, beside
  /// ``CommitWriter/buildRef``.
  static let buildRef = "refs/docsh/encrypted-commit"

  /// The encrypted commit to write beside a first commit of `repository`, when it syncs with
  /// an encrypted remote; `nil` otherwise.
  static func make(for repository: StoreRepository) throws(SyncError) -> EncryptedFirstCommit? {
    guard let settings = try EncryptedRemoteFiles(repository).encryptionSettings() else {
      return nil
    }
    return try EncryptedFirstCommit(settings: settings, fileSystem: repository.fileSystem)
  }

  /// The encrypted commit's stream, written to its end: its blobs, then the commit dated as
  /// `committer` (`NAME <EMAIL> SECONDS ZONE`, the plain commit's) with its changes and a
  /// message of counts. Nothing of the store is held after: the records, their paths and
  /// the changes naming them go with this object, the stream being in its file.
  /// - Returns: the stream, to hand to ``commit(_:in:plain:)``.
  func finish(committer: String, in repository: StoreRepository) throws(SyncError) -> Finished {
    let seconds = committer.split(separator: " ").dropLast().last.flatMap { Int64($0) }
    let stream = try finish()
    let commit = FastImportCommit(
      ref: EncryptedFirstCommit.buildRef,
      committer: EncryptedLayout.committer(seconds ?? Int64(time(nil))),
      message: stream.message, parent: nil,
      changes: try EncryptedStream.rootFiles(settings: settings, git: repository.git))
    let input = try CommitWriter(repository: repository).finishInput(
      commit, after: stream.input, leading: writtenChanges)
    written = []
    let pack: FastImportPack =
      stream.mark - FastImportCommit.firstBlobMark > 1_000 ? .incompressible : .standard
    return Finished(input: input, pack: pack)
  }

  /// An encrypted first commit's stream written to its end (``finish(committer:in:)``).
  struct Finished {
    /// A descriptor reading the whole stream from its start.
    let input: Int32
    /// How its pack is written.
    let pack: FastImportPack
  }

  /// Makes `repository`'s first commit with `makePlain`, while on another core git writes
  /// `encrypted` as the encrypted commit standing for it; then records the pair in the
  /// commit map, so that the push translates nothing. Both git runs are over before it
  /// returns or throws; `encrypted`'s input is closed then.
  /// - Returns: the plain commit.
  static func commit(
    _ encrypted: Finished, in repository: StoreRepository,
    plain makePlain: () throws(SyncError) -> CommitID
  ) throws(SyncError) -> CommitID {
    let git = repository.git
    let fileSystem = repository.fileSystem
    let input = encrypted.input
    defer { try? fileSystem.close(input) }  // read-only
    let pack = encrypted.pack
    // `input` stays open until the run is over: waited for below, before the `defer`.
    let run = BackgroundWork { [git] () throws(SyncError) -> CommitID? in
      try git.fastImport(.file(input), forcing: true, pack: pack)
    }
    let plain = Result { () throws(SyncError) -> CommitID in try makePlain() }
    guard let made = try run.wait().get() else {
      throw .gitFailed(step: "commit the store", message: "git fast-import wrote no commit")
    }
    let local = try plain.get()
    let files = EncryptedRemoteFiles(repository)
    var map = try files.encryptedCommitMap()
    map.record(local: local, encrypted: made)
    try files.saveEncryptedCommitMap(map)
    return local
  }
}

/// Work started at once on another thread, its result had with ``wait()``: the records of
/// a batch encrypted while the store is read on, or one git run while another runs.
private final class BackgroundWork<Value: Sendable>: Sendable {
  private let result = Mutex<Result<Value, SyncError>?>(nil)
  private let group = DispatchGroup()

  /// Starts `work`.
  init(_ work: @escaping @Sendable () throws(SyncError) -> Value) {
    DispatchQueue.global().async(group: group) { [self] in
      let outcome = Result { () throws(SyncError) -> Value in try work() }
      result.withLock { $0 = outcome }
    }
  }

  /// What the work made or threw, once it is over.
  func wait() -> Result<Value, SyncError> {
    group.wait()
    // Set before the group is left: never `nil` here.
    return result.withLock { $0 } ?? .failure(.gitFailed(step: "wait", message: "no result"))
  }
}
