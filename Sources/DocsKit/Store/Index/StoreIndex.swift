// The SQLite index of one store file: derived data, rebuilt from the JSON whenever there is
// any doubt. See docs/store-format.md, "The index", for the schema and the trust rules.
//
// `StoreIndex` is split by concern, as GRDB splits `Record`: opening and letting go of the
// file (+Open), the identity row and reads (+Reading), rebuilding (+Rebuild), the full text
// (+FullText), bringing it in step with a save (+Update), checking it (+Check), and the
// columns and values its rows are written and read by (+Columns).

/// What the index records of the store it describes: the store file, and how far into its
/// save log. It is trusted only when every file field equals the `fstat` of the file a
/// session opened (and its header's generation), and the log holds, where the index says,
/// the record it says it applied last.
struct IndexIdentity: Equatable, Sendable {
  var storePath: String
  var device: Int64
  var inode: Int64
  var size: Int64
  var modificationNanoseconds: Int64
  var changeNanoseconds: Int64
  /// The store file's generation, as its header states it.
  var generation: Int
  /// How far into the store file's save log the index goes.
  var log = LogPosition.none

  /// Whether the file fields match (the generation is checked against the file's header).
  func describesSameFile(as other: IndexIdentity) -> Bool {
    storePath == other.storePath && device == other.device && inode == other.inode
      && size == other.size && modificationNanoseconds == other.modificationNanoseconds
      && changeNanoseconds == other.changeNanoseconds
  }

  /// The generation of the store the index describes: the file's, or the log's last record's.
  var storeGeneration: Int { log.last == nil ? generation : log.generation }
}

/// A point in a save log: where its whole records read so far end, and the last of them.
struct LogPosition: Equatable, Sendable {
  /// Where the records end; 0 for no log.
  var end: Int
  /// The offset of the last record, its checksum and the generation it produced; `nil`
  /// when no record was read (no log, or one with no record).
  var last: (start: Int, checksum: UInt32)?
  /// The generation of the last record.
  var generation: Int

  /// No log, or none of it.
  static let none = LogPosition(end: 0, last: nil, generation: 0)

  /// Where `frame` ends, it being the last record.
  init(after frame: SaveLogFrame) {
    self.init(
      end: frame.end, last: (frame.start, frame.checksum), generation: frame.generation)
  }

  init(end: Int, last: (start: Int, checksum: UInt32)?, generation: Int) {
    self.end = end
    self.last = last
    self.generation = generation
  }

  /// The position of `attached`, or none.
  init(_ attached: AttachedLog?) {
    if let attached, let frame = attached.last {
      self.init(after: frame)
    } else {
      self = .none
    }
  }

  static func == (left: LogPosition, right: LogPosition) -> Bool {
    left.end == right.end && left.generation == right.generation
      && left.last?.start == right.last?.start && left.last?.checksum == right.last?.checksum
  }
}

extension IndexIdentity {
  /// The identity of the store file at `storePath` with `status`, at `generation` (in an
  /// extension, so that the struct keeps its memberwise initializer).
  init(storePath: String, status: FileStatus, generation: Int, log: LogPosition = .none) {
    self.init(
      storePath: storePath, device: Int64(truncatingIfNeeded: status.device),
      inode: Int64(truncatingIfNeeded: status.inode), size: Int64(status.size),
      modificationNanoseconds: status.modificationNanoseconds,
      changeNanoseconds: status.changeNanoseconds, generation: generation, log: log)
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
  /// Whether a record of the save log made, renamed or changed it.
  var touchedByLog = false
}

/// The index database of one store: its schema and connection; what it does is in the
/// `StoreIndex+…` files.
final class StoreIndex {
  /// The version of the schema below; any other version is rebuilt.
  /// 2, 3: the full text is tokenized by `docsh` (accents folded in every script, stems).
  /// 4: rows of documents whose last save is in the save log, and how far into it the index
  /// goes.
  /// 5: each document's tags, the documents of each tag, and the links of each content.
  /// 6: links as Obsidian writes them (`#heading`, `/Category/Name`), none inside code.
  /// 7: documents by name key (`documents_by_name`): a name resolves without reading its
  /// category's rows, and a name unique in the store is known without reading every row;
  /// categories by ordinal, which an open reads them in (without it, sorted at every open).
  /// 8: each link's line (its text, where it starts, where the link starts in it), so that
  /// backlinks are answered from the rows without reading the linking contents; rows for
  /// `[[#Heading]]` too (no name key), the linking document's links to itself. The tag rows
  /// of a new document are written by ``insertDocument(_:category:position:base:rowID:)``,
  /// not by a trigger: its frame and statement journal cost a quarter of a document's row
  /// (6.4 K of 26.6 K instructions in SQLite), for a tag most new documents do not have.
  static let schemaVersion: Int64 = 8

  /// The index of documents by name key, made after the rows when the index is rebuilt:
  /// filled row by row, its pages spilled out of SQLite's cache at 1 M documents, and the
  /// rebuild took ten times as long.
  static let documentsByNameSQL =
    "CREATE INDEX documents_by_name ON documents(name_key, category)"

  static let schema = """
    CREATE TABLE identity(
      singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
      store_path TEXT NOT NULL, device INTEGER NOT NULL, inode INTEGER NOT NULL,
      size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL, ctime_ns INTEGER NOT NULL,
      generation INTEGER NOT NULL, recorded_ns INTEGER NOT NULL, full_text INTEGER NOT NULL,
      log_end INTEGER NOT NULL, log_last INTEGER, log_checksum INTEGER,
      log_generation INTEGER NOT NULL);
    CREATE TABLE categories(
      id INTEGER PRIMARY KEY, uuid BLOB NOT NULL UNIQUE, name TEXT NOT NULL,
      ordinal INTEGER NOT NULL, start INTEGER NOT NULL,
      documents_offset INTEGER NOT NULL, documents_length INTEGER NOT NULL,
      document_count INTEGER NOT NULL, total_size INTEGER NOT NULL, latest_modified INTEGER,
      in_log INTEGER NOT NULL);
    CREATE INDEX categories_by_ordinal ON categories(ordinal);
    CREATE TABLE documents(
      id INTEGER PRIMARY KEY, uuid BLOB NOT NULL UNIQUE, category INTEGER NOT NULL,
      position INTEGER NOT NULL, name TEXT NOT NULL, name_key TEXT NOT NULL,
      size INTEGER NOT NULL, modified INTEGER NOT NULL,
      object_offset INTEGER NOT NULL, object_length INTEGER NOT NULL,
      content_offset INTEGER NOT NULL, content_length INTEGER NOT NULL,
      in_log INTEGER NOT NULL, tags TEXT, tag_keys TEXT);
    CREATE INDEX documents_by_category ON documents(category, position);
    \(documentsByNameSQL);
    CREATE TABLE document_tags(
      tag_key TEXT NOT NULL, document INTEGER NOT NULL, PRIMARY KEY (tag_key, document))
      WITHOUT ROWID;
    CREATE TABLE links(
      source INTEGER NOT NULL, line INTEGER NOT NULL, category_key TEXT, name_key TEXT,
      start INTEGER NOT NULL, line_start INTEGER NOT NULL, line_text TEXT NOT NULL);
    CREATE INDEX links_by_target ON links(name_key);
    CREATE INDEX links_by_source ON links(source);
    CREATE TRIGGER documents_retagged AFTER UPDATE OF tag_keys ON documents
      WHEN OLD.tag_keys IS NOT NEW.tag_keys
    BEGIN
      DELETE FROM document_tags WHERE document = OLD.id
        AND tag_key IN (SELECT value FROM json_each(OLD.tag_keys));
      INSERT OR IGNORE INTO document_tags SELECT value, NEW.id FROM json_each(NEW.tag_keys);
    END;
    CREATE TRIGGER documents_gone AFTER DELETE ON documents
    BEGIN
      DELETE FROM document_tags WHERE document = OLD.id
        AND tag_key IN (SELECT value FROM json_each(OLD.tag_keys));
      DELETE FROM links WHERE source = OLD.id;
    END;
    CREATE VIRTUAL TABLE full_text USING fts5(
      name, content, content='', tokenize='docsh remove_diacritics 2');
    CREATE VIRTUAL TABLE full_text_vocabulary USING fts5vocab(full_text, row);
    PRAGMA user_version = \(schemaVersion);
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
