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
/// is made with its plain file and encrypted a few thousand at a time on other threads while
/// the store is read on, so that a first sync to an encrypted remote never reads the plain
/// blobs back from git (the
/// translation, ``StoreRepository/encryptedCommit(for:map:settings:identity:)``, reads every
/// one of a commit without a translated parent).
///
/// Its tree means what the translation's would: the same paths, each file opening to the same
/// record (a document's record is made from the very bytes of its plain file), the root files,
/// and a message of counts. Only the age files' random bytes differ, as they do between any
/// two encryptions.
final class EncryptedFirstCommit: StoreRecordSink {
  let settings: EncryptionSettings
  private var stream: StoreRepository.EncryptedStream
  private var pending: [(path: String, record: [UInt8])] = []
  private var pendingBytes = 0
  /// The batch being encrypted on other threads while the store is read on: its paths, and
  /// the run to wait for. One at a time, so that two batches are all that is held.
  private var encrypting: (paths: [String], run: BackgroundWork<[[UInt8]]>)?

  /// Records are encrypted this many at a time at most…
  private static let batchCount = 2_000
  /// …or once they hold this many bytes.
  private static let batchBytes = 8 << 20

  /// A commit to encrypt to `settings`' recipient, its blobs going to a new input file.
  init(settings: EncryptionSettings, fileSystem: any FileSystem) throws(SyncError) {
    self.settings = settings
    stream = try StoreRepository.EncryptedStream(fileSystem: fileSystem)
  }

  func category(id: ObjectID, name: Name) throws(SyncError) {
    try add(settings.names.categoryPath(id), EncryptedRecord.category(id: id, name: name))
  }

  func document(id: ObjectID, name: Name, categoryID: ObjectID, file: [UInt8]) throws(SyncError) {
    try add(
      settings.names.documentPath(id),
      EncryptedRecord.document(file: file, name: name, categoryID: categoryID))
  }

  private func add(_ path: String, _ record: [UInt8]) throws(SyncError) {
    stream.counts.new += 1
    pending.append((path, record))
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
      try StoreRepository.encryptAll(records, to: recipient)
    }
    encrypting = (pending.map(\.path), run)
    pending.removeAll(keepingCapacity: true)
    pendingBytes = 0
  }

  /// Waits for the batch being encrypted, and writes it into the stream.
  private func writeEncrypted() throws(SyncError) {
    guard let (paths, run) = encrypting else { return }
    encrypting = nil
    try stream.put(paths: paths, encrypted: try run.wait().get())
  }

  /// What is left to write: the last records, then the commit's changes and message.
  /// - Returns: the stream, holding every blob.
  fileprivate func finish() throws(SyncError) -> StoreRepository.EncryptedStream {
    try startBatch()
    try writeEncrypted()
    return stream
  }
}

extension StoreRepository {
  /// The ref the encrypted twin of a first commit is written on, beside ``CommitWriter/buildRef``.
  static let encryptedBuildRef = "refs/docsh/encrypted-commit"

  /// The encrypted commit to write beside a first commit, when the repository syncs with an
  /// encrypted remote; `nil` otherwise.
  func makeEncryptedFirstCommit() throws(SyncError) -> EncryptedFirstCommit? {
    guard let settings = try encryptionSettings() else { return nil }
    return try EncryptedFirstCommit(settings: settings, fileSystem: fileSystem)
  }

  /// Makes a repository's first commit with `makePlain`, handed the committer line to write
  /// it with, while on another core git writes `first` as the encrypted commit standing for
  /// it, dated the same; then records the pair in the commit map, so that the push
  /// translates nothing. Both git runs are over before it returns or throws.
  /// - Returns: the plain commit.
  func makeFirstCommit(
    encrypting first: EncryptedFirstCommit,
    plain makePlain: (String) throws(SyncError) -> CommitID
  ) throws(SyncError) -> CommitID {
    let committer = try commitWriter.committerLine()
    // `NAME <EMAIL> SECONDS ZONE`, as git gives it.
    let seconds = committer.split(separator: " ").dropLast().last.flatMap { Int64($0) }
    let stream = try first.finish()
    let commit = FastImportCommit(
      ref: StoreRepository.encryptedBuildRef,
      committer: StoreRepository.encryptedCommitter(seconds ?? Int64(time(nil))),
      message: stream.message, parent: nil,
      changes: stream.changes + (try encryptedRootFiles(settings: first.settings)))
    let input = try commitWriter.finishInput(commit, after: stream.input)
    defer { try? fileSystem.close(input) }  // read-only
    let pack: FastImportPack =
      stream.mark - FastImportCommit.firstBlobMark > 1_000 ? .incompressible : .standard
    // `input` stays open until the run is over: waited for below, before the `defer`.
    let encrypted = BackgroundWork { [git] () throws(SyncError) -> CommitID? in
      try git.fastImport(.file(input), forcing: true, pack: pack)
    }
    let plain = Result { () throws(SyncError) -> CommitID in try makePlain(committer) }
    guard let made = try encrypted.wait().get() else {
      throw .gitFailed(step: "commit the store", message: "git fast-import wrote no commit")
    }
    let local = try plain.get()
    var map = try encryptedCommitMap()
    map.record(local: local, encrypted: made)
    try saveEncryptedCommitMap(map)
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
