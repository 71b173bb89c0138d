// The SQLite index of one store file: derived data, rebuilt from the JSON whenever there is
// any doubt. See docs/store-format.md, "The index", for the schema and the trust rules.
//
// `StoreIndex` is split by concern, as GRDB splits `Record`: opening and letting go of the
// file (+Open), the identity row and reads (+Reading), rebuilding (+Rebuild), the full text
// (+FullText), bringing it in step with a save (+Update), checking it (+Check), and the
// columns and values its rows are written and read by (+Columns).

/// What the index records of the store file it describes; it is trusted only when every
/// field equals the `fstat` of the file a session opened (and its header's generation).
struct IndexIdentity: Equatable, Sendable {
  var storePath: String
  var device: Int64
  var inode: Int64
  var size: Int64
  var modificationNanoseconds: Int64
  var changeNanoseconds: Int64
  var generation: Int

  /// Whether the file fields match (the generation is checked against the file's header).
  func describesSameFile(as other: IndexIdentity) -> Bool {
    storePath == other.storePath && device == other.device && inode == other.inode
      && size == other.size && modificationNanoseconds == other.modificationNanoseconds
      && changeNanoseconds == other.changeNanoseconds
  }
}

extension IndexIdentity {
  /// The identity of the store file at `storePath` with `status`, at `generation` (in an
  /// extension, so that the struct keeps its memberwise initializer).
  init(storePath: String, status: FileStatus, generation: Int) {
    self.init(
      storePath: storePath, device: Int64(truncatingIfNeeded: status.device),
      inode: Int64(truncatingIfNeeded: status.inode), size: Int64(status.size),
      modificationNanoseconds: status.modificationNanoseconds,
      changeNanoseconds: status.changeNanoseconds, generation: generation)
  }
}

/// The identity row as stored, with when it was recorded and whether full text is built.
struct IndexRecord: Equatable {
  var identity: IndexIdentity
  /// When the identity was recorded (CLOCK_REALTIME, nanoseconds).
  var recordedNanoseconds: Int64
  /// Whether the full-text table holds every document.
  var hasFullText: Bool

  /// A store modified less than this before the index recorded it may have been modified
  /// again in the same clock tick without any field changing: git's "racily clean" case.
  static let racyWindowNanoseconds: Int64 = 2_000_000_000

  /// Whether the store's modification time is not safely older than this record.
  var isRacy: Bool {
    recordedNanoseconds - identity.modificationNanoseconds < IndexRecord.racyWindowNanoseconds
  }
}

/// A category as the index holds it.
struct IndexedCategory {
  var rowID: Int64
  var id: ObjectID
  var name: String
  var ordinal: Int
  var placement: CategoryPlacement
  var summary: CategorySummary
}

/// The index database of one store: its schema and connection; what it does is in the
/// `StoreIndex+…` files.
final class StoreIndex {
  /// The version of the schema below; any other version is rebuilt.
  /// 2, 3: the full text is tokenized by `docsh` (accents folded in every script, stems).
  static let schemaVersion: Int64 = 3

  static let schema = """
    CREATE TABLE identity(
      singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
      store_path TEXT NOT NULL, device INTEGER NOT NULL, inode INTEGER NOT NULL,
      size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL, ctime_ns INTEGER NOT NULL,
      generation INTEGER NOT NULL, recorded_ns INTEGER NOT NULL, full_text INTEGER NOT NULL);
    CREATE TABLE categories(
      id INTEGER PRIMARY KEY, uuid BLOB NOT NULL UNIQUE, name TEXT NOT NULL,
      ordinal INTEGER NOT NULL, start INTEGER NOT NULL,
      documents_offset INTEGER NOT NULL, documents_length INTEGER NOT NULL,
      document_count INTEGER NOT NULL, total_size INTEGER NOT NULL, latest_modified INTEGER);
    CREATE TABLE documents(
      id INTEGER PRIMARY KEY, uuid BLOB NOT NULL UNIQUE, category INTEGER NOT NULL,
      position INTEGER NOT NULL, name TEXT NOT NULL, name_key TEXT NOT NULL,
      size INTEGER NOT NULL, modified INTEGER NOT NULL,
      object_offset INTEGER NOT NULL, object_length INTEGER NOT NULL,
      content_offset INTEGER NOT NULL, content_length INTEGER NOT NULL);
    CREATE INDEX documents_by_category ON documents(category, position);
    CREATE VIRTUAL TABLE full_text USING fts5(
      name, content, content='', tokenize='docsh remove_diacritics 2');
    CREATE VIRTUAL TABLE full_text_vocabulary USING fts5vocab(full_text, row);
    PRAGMA user_version = 3;
    """

  let database: SQLiteDatabase
  /// The index file's path.
  let path: String
  let fileSystem: any FileSystem
  /// The lock file `PATH.lock`, held shared while the connection is open; `nil` once closed.
  var useLock: Int32?
  /// The clock the identity row records its time by.
  let now: () -> Int64

  init(
    database: SQLiteDatabase, path: String, fileSystem: any FileSystem, useLock: Int32,
    now: @escaping () -> Int64
  ) {
    self.database = database
    self.path = path
    self.fileSystem = fileSystem
    self.useLock = useLock
    self.now = now
  }

  deinit {
    close()
  }
}
