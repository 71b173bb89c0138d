/// Where a piece of a loaded store lives: a byte range of the store file, or of its save log
/// (what was saved since the file was last written whole), that the store can read again.
public struct StoredLocation: Hashable, Sendable {
  /// Which of the store's two files a location is in.
  public enum File: UInt8, Hashable, Sendable {
    /// The store file itself (`store.json`).
    case store
    /// Its save log (`store.json.wal`), the saves appended since.
    case log
  }

  /// The offset of the first byte.
  public let offset: Int
  /// The number of bytes.
  public let length: Int
  /// The file the bytes are in.
  public let file: File

  /// Makes a location from an offset and a length in `file`.
  public init(offset: Int, length: Int, in file: File = .store) {
    self.offset = offset
    self.length = length
    self.file = file
  }

  /// The offset just past the last byte.
  public var end: Int { offset + length }

  /// The same bytes seen from `shift` bytes further on in the same file.
  func moved(by shift: Int) -> StoredLocation {
    StoredLocation(offset: offset + shift, length: length, in: file)
  }
}

/// A document's content: either text in memory, or a fault the store resolves on demand.
enum ContentStorage: Hashable, Sendable {
  /// Not loaded yet: the encoded content lives at this location of the loaded file.
  case fault(StoredLocation)
  /// In memory, as set by the user or loaded from a fault.
  case text(String)
}

/// Where a category lies in a store file: its object, and the run of its document objects
/// (from the first's `{` to the last's `}`; empty, just after the `[`, when it has none).
struct CategoryPlacement: Hashable, Sendable {
  /// The offset of the category object's `{`.
  var start: Int
  /// The run of its documents.
  var documents: StoredLocation
}

/// A category whose documents a store has not handed over: what listings show of it, and an
/// opaque handle the store resolves its documents with when they are first needed (a fault,
/// one level up from contents).
public struct UnloadedCategory: Hashable, Sendable {
  /// Its documents counted, sized and dated, as the store recorded them.
  public var summary: CategorySummary
  /// Where its documents lie in the loaded file.
  var placement: CategoryPlacement
  /// Whether a record of the save log made, renamed or changed it: then the run of the
  /// store file is not (or not only) its documents.
  var touchedByLog = false
}

/// A category as a store hands it over or takes it back.
public struct StoredCategory: Sendable {
  /// The category's identity.
  public var id: ObjectID
  /// The category's name.
  public var name: Name
  /// Where it lies in the file read, when the store knows.
  var placement: CategoryPlacement?
  /// Set when the store did not hand its documents over with the graph.
  public var unloaded: UnloadedCategory?
  /// Whether a record of the save log made, renamed or changed it.
  var touchedByLog = false

  /// A category with its documents in the graph.
  public init(id: ObjectID, name: Name) {
    self.id = id
    self.name = name
  }
}

/// A document as a store hands it over or takes it back: metadata plus where its content is.
public struct StoredDocument: Sendable {
  /// The document's identity.
  public var id: ObjectID
  /// The document's name.
  public var name: Name
  /// The identity of its category.
  public var categoryID: ObjectID
  /// The stored size in bytes.
  public var size: Int
  /// The stored modification time.
  public var modified: Timestamp
  /// The stored tags, sorted by key.
  public var tags: [Tag] = []
  /// Where the encoded content lies in the loaded file.
  public var contentLocation: StoredLocation
  /// Where the whole document object lies in the loaded file; while the document is
  /// unchanged the store may copy these bytes instead of encoding it again.
  public var location: StoredLocation
}

extension StoredDocument {
  /// The document as the context holds it.
  var document: Document {
    Document(
      id: id, name: name, categoryID: categoryID, size: size, modified: modified, tags: tags)
  }
}

/// The saved documents a lookup names (``DocumentStore/documents(_:in:)``).
public enum DocumentLookup: Sendable, Equatable {
  /// Those whose name has this key.
  case named(NameKey)
  /// The one of this id.
  case identified(ObjectID)

  /// Whether `document` is one of them.
  func names(_ document: StoredDocument) -> Bool {
    switch self {
    case .named(let key): return document.name.key == key
    case .identified(let id): return document.id == id
    }
  }
}

/// Everything a store read: categories and documents in file order, plus its generation.
public struct LoadedGraph: Sendable {
  /// The generation of the store read, its save log included (0 when there was no file).
  public var generation: Int
  /// The epoch of the store file read: what its save log must extend; `nil` for a file of
  /// version 1, or none.
  public var epoch: StoreEpoch?
  /// The categories, in file order.
  public var categories: [StoredCategory]
  /// The documents of every category, in file order, grouped by category.
  public var documents: [StoredDocument]
  /// The graph's indexes, when the store already built them to check the graph.
  var index: GraphIndex?
  /// Set when the store opened without reading its category list (``CategoryDeferringStore``):
  /// `categories` and `documents` are empty, and the list is read when first needed.
  var categoriesDeferred = false

  /// A graph of categories and documents as a store read them.
  public init(generation: Int, categories: [StoredCategory], documents: [StoredDocument]) {
    self.generation = generation
    self.categories = categories
    self.documents = documents
  }

  /// An empty graph, as a missing store file loads.
  public static let empty = LoadedGraph(generation: 0, categories: [], documents: [])
}

/// A document as the context hands it to a store for saving.
public struct DocumentToSave: Sendable {
  /// The document's metadata.
  public var document: Document
  /// The content, when it is in memory; `nil` when the store still has it at
  /// `unchangedLocation`.
  public var content: String?
  /// Where the unchanged document object lies in the loaded file; `nil` when it changed.
  public var unchangedLocation: StoredLocation?
  /// Where the document's encoded content lies in the loaded file, when it was not loaded.
  public var contentLocation: StoredLocation?
  /// The document's place in the loaded file's order; consecutive unchanged documents can
  /// be copied as one run.
  public var sequence: Int
}

/// A category and its documents as the context hands them to a store for saving.
public struct CategoryToSave: Sendable {
  /// The category.
  public var category: Category
  /// Its documents, in the order to write them.
  public var documents: [DocumentToSave]
  /// Set when its documents were never loaded: the store copies them as they are.
  public var unloadedDocuments: UnloadedCategory?

  /// A category to save with `documents`, or with its unloaded documents copied as they are.
  public init(
    category: Category, documents: [DocumentToSave], unloadedDocuments: UnloadedCategory? = nil
  ) {
    self.category = category
    self.documents = documents
    self.unloadedDocuments = unloadedDocuments
  }
}

/// What a successful save reports back: the new generation and where everything now lies.
public struct SaveReceipt: Sendable {
  /// The generation now on disk.
  public var generation: Int
  /// For each saved document, where its object and content now lie in the new file.
  public var locations: [ObjectID: (document: StoredLocation, content: StoredLocation)]
  /// For each saved category, where it now lies in the new file.
  var placements: [ObjectID: CategoryPlacement] = [:]
  /// The save log's record the save appended, when it appended one.
  var record: SaveLogRecord?

  /// A receipt for a save that reached `generation`.
  public init(
    generation: Int, locations: [ObjectID: (document: StoredLocation, content: StoredLocation)]
  ) {
    self.generation = generation
    self.locations = locations
  }
}

/// The persistent side of a ``Context``, in its three roles: reading (``StoreReading``),
/// looking up in an index (``StoreSearching``) and writing (``StoreWriting``), as GRDB
/// parts `DatabaseReader` from `DatabaseWriter`. Each store answers every requirement
/// itself: no role has a default.
///
/// The shell never talks to a store directly; a faster engine can replace the JSON store
/// without the shell noticing.
public typealias DocumentStore = StoreReading & StoreSearching & StoreWriting

/// Reading a store: its graph as last saved, its contents on demand, what is wrong with it,
/// and what other sessions did to it since.
public protocol StoreReading: AnyObject {
  /// A human name for the store, used in messages: its path.
  var displayName: String { get }

  /// The path of the store file itself, its symbolic links followed once loaded: where its
  /// lock files are.
  var filePath: String { get }

  /// Reads the whole graph as last saved, without contents.
  /// - Throws: ``StoreError`` when the store cannot be read or is not a valid store.
  func load() throws(StoreError) -> LoadedGraph

  /// Reads and decodes the content at `location` of the loaded file.
  /// - Throws: ``StoreError`` when it cannot be read or decoded.
  func readContent(at location: StoredLocation) throws(StoreError) -> String

  /// Hands the encoded contents at `locations` (JSON string literals, quotes included) to
  /// `visit` with their index in `locations`, reading the loaded file in one sequential
  /// pass rather than one read per content.
  /// - Throws: ``EncodedContentsError/store(_:)`` when the file cannot be read or ends
  ///   before a content, ``EncodedContentsError/visitor(_:)`` with what `visit` throws.
  func withEncodedContents<Stop: Error>(
    at locations: [StoredLocation], _ visit: (Int, UnsafeRawBufferPointer) throws(Stop) -> Void
  ) throws(EncodedContentsError<Stop>)

  /// Verifies the store as it is on disk and reports every problem found; changes nothing.
  func check() -> StoreCheckReport

  /// What the store found wrong beside its file when it loaded, without refusing to load
  /// (a save log of another version of the file, left unapplied); `nil` when nothing.
  var loadWarning: String? { get }

  /// What other sessions did to the store since this one loaded or last saved it, asked
  /// cheaply (the `stat` of the file and of its log, the frames of new records).
  func movementSinceLoad() -> StoreMovement
}

/// Looking the saved documents up in an index of the store: categories handed over
/// unloaded and faulted in by the index's rows, names, tags, links and words. A store that
/// keeps no index answers "nothing unloaded" and `nil` ("cannot say"), and the context
/// looks through its graph itself.
public protocol StoreSearching: AnyObject {
  /// The documents of a category that ``StoreReading/load()`` handed over as `unloaded`, in
  /// file order.
  /// - Throws: ``StoreError`` when they cannot be read.
  func documents(of category: ObjectID, _ unloaded: UnloadedCategory) throws(StoreError)
    -> [StoredDocument]

  /// Which category handed over unloaded holds the document `id`; `nil` when none does.
  func unloadedCategory(holding id: ObjectID) -> ObjectID?

  /// The documents of the categories in `categories` (all handed over unloaded) whose name's
  /// key (``NameKey``) contains `needle`, already folded; every document when it is empty.
  /// - Throws: ``StoreError`` when they cannot be read.
  func documents(
    nameContaining needle: String, in categories: [ObjectID: UnloadedCategory]
  ) throws(StoreError) -> [StoredDocument]

  /// The documents of the categories in `categories` (all handed over unloaded) that
  /// `lookup` names, exactly: reading only them where the store can, so that resolving a
  /// name or an id costs that document, not its category.
  /// - Throws: ``StoreError`` when they cannot be read.
  func documents(
    _ lookup: DocumentLookup, in categories: [ObjectID: UnloadedCategory]
  ) throws(StoreError) -> [StoredDocument]

  /// How many documents of the categories in `categories` (all handed over unloaded) have
  /// a name of key `key`: those ``documents(_:in:)`` finds for `.named(key)`, counted
  /// without reading them where the store can.
  /// - Throws: ``StoreError`` when they cannot be counted.
  func documentCount(named key: NameKey, in categories: [ObjectID: UnloadedCategory])
    throws(StoreError) -> Int

  /// The documents of the categories in `categories` (all handed over unloaded) holding a
  /// tag of each key of `keys` (a superset will do: the caller filters); every document
  /// holding any tag when `keys` is empty.
  /// - Throws: ``StoreError`` when they cannot be read.
  func documents(
    taggedWith keys: [TagKey], in categories: [ObjectID: UnloadedCategory]
  ) throws(StoreError) -> [StoredDocument]

  /// The links of saved contents naming `target` (see ``LinkedDocument``), each with the
  /// text of its line, in no order; `nil` when the store keeps no index of links and cannot
  /// answer (the context then reads every content).
  /// - Throws: ``WorkInterrupted`` when the interruption stopped it filling the index.
  func links(to target: LinkedDocument) throws(WorkInterrupted) -> [IndexedLink]?

  /// The saved documents whose contents hold a `[[Category/Name]]` link naming `category`
  /// (a superset); `nil` when the store cannot say.
  /// - Throws: ``WorkInterrupted`` when the interruption stopped it filling the index.
  func documents(linkingInto category: Name) throws(WorkInterrupted) -> [StoredDocument]?

  /// A ranked full-text search of the saved documents, when the store keeps a full-text
  /// index; `nil` when it cannot answer (the context then searches itself).
  /// - Throws: ``WorkInterrupted`` when the interruption stopped it filling the index.
  func search(_ request: IndexSearchRequest) throws(WorkInterrupted) -> IndexSearchResult?

  /// The tokenizer of the store's ranked search: the context tokenizes a query, and the
  /// documents it matches itself, as the store's full-text index tokenizes the saved ones.
  /// - Throws: ``SearchUnavailable`` when it cannot be made.
  func makeSearchTokenizer() throws(SearchUnavailable) -> IndexTokenizer

  /// Why the store works without its index, when it does: at most one per store.
  var indexWarning: IndexWarning? { get }
}

/// A store whose save lock is held: ``StoreWriting/withSaveLock(_:)`` hands one to its body,
/// and what must run under the lock (a save's observer committing it, a sync replacing the
/// file) takes it as a parameter, never a flag saying the lock is held. Only a store makes
/// one, and it stands for the lock only inside that body.
public struct LockedStore {
  /// The store whose lock is held.
  public let store: any StoreWriting

  init(_ store: any StoreWriting) {
    self.store = store
  }
}

/// Writing a store: saves (appended to its log, or the whole file), folds, its lock, and
/// the sessions that share it; and what a sync asks of the store it writes through (its
/// generation on disk, a reader of the file apart from what was loaded, replacing the whole
/// file), so that no code outside the store layer opens, renames or parses its files.
public protocol StoreWriting: AnyObject {
  /// Runs `body` holding the lock that saves take, so that what `body` reads of the store
  /// and then saves cannot be overtaken by another session. Saves inside use the lock held;
  /// `body` is handed the lock (``LockedStore``) to pass on to what must run under it.
  /// - Throws: ``StoreError`` when the lock cannot be taken, or what `body` throws.
  func withSaveLock<Result>(
    _ body: (LockedStore) throws(StoreError) -> Result
  ) throws(StoreError) -> Result

  /// The generation of the store as it is on disk now (another session's saves included):
  /// its file's header's, or its save log's last whole record's, found from the header and
  /// the records' frame lines without reading the records; `nil` when there is no store
  /// file or its header does not say. Changes nothing this store loaded.
  /// - Throws: ``StoreError/system(_:operation:errno:)`` when the files cannot be read.
  func currentGeneration() throws(StoreError) -> Int?

  /// A reader of the store as it is on disk, apart from this store: loading it leaves what
  /// this one loaded (and the faults pointing into it) as it was, as GRDB's pool hands out
  /// reader connections beside its writer.
  func makeReader() -> any StoreReading

  /// Replaces the whole store file by `bytes` (a store encoded whole) with the atomic save,
  /// the file before kept as `NAME.bak`, and sets aside a save log that extended the file
  /// replaced (kept as `NAME.wal.ignored-DATE`, never applied to the new file).
  /// - Parameter lock: the store's save lock, held by the caller.
  /// - Throws: ``StoreError``: the file is then as it was; or, when only the log could not
  ///   be set aside, the new file stands and the error names the log.
  func replaceWhole(with bytes: [UInt8], _ lock: LockedStore) throws(StoreError)

  /// Writes the graph given atomically and durably, as the whole store file, unless another
  /// session saved since this store loaded; the generation moves on by one.
  /// - Throws: ``StoreError``; the file on disk is then as it was.
  func save(_ categories: [CategoryToSave]) throws(StoreError) -> SaveReceipt

  /// Whether a save can be appended to the store's log (``append(_:)``), as far as the file
  /// loaded says: `false` when it must be written whole (there is no file yet, or it is of
  /// version 1), so that a save need not make a delta the log will not take.
  var takesAppends: Bool { get }

  /// Saves what `delta` changes, costing what it changes (an append to the store's save
  /// log), unless another session saved since this store loaded; `nil` when the store must
  /// be written whole instead (``save(_:)``).
  /// - Throws: ``StoreError``; the files on disk are then as they were.
  func append(_ delta: StoreDelta) throws(StoreError) -> SaveReceipt?

  /// Begins replacing the whole store file by one written a category at a time (a machine's
  /// first sync writes the store so, holding one category in memory at a time), unless
  /// another session saved since this store loaded: nothing changes on disk until the
  /// replacement is committed. The save lock is held until it is committed or discarded;
  /// the graph loaded before must be loaded again after.
  /// - Throws: ``StoreError`` when it cannot begin; the store is then as it was.
  func beginReplacement() throws(StoreError) -> StoreReplacement

  /// Writes the graph given, which is the store as loaded, as the whole store file: the
  /// save log folded into it, the generation kept.
  /// - Throws: ``StoreError``; the files on disk are then as they were.
  func fold(_ categories: [CategoryToSave]) throws(StoreError) -> SaveReceipt

  /// How large the save log is beside the store file, in bytes, as loaded or last saved
  /// (both 0 for a store without one).
  var logSize: (log: Int, store: Int) { get }

  /// Whether no other process has the store open: only then is its save log folded, so
  /// that no session finds the file it loaded replaced under it.
  var isOnlySession: Bool { get }

  /// Leaves the store's sessions: whether this was the last of them with a save log beside
  /// the file, which must then be folded into it (``Context/foldSaveLog()``) for the file
  /// alone to hold every save at rest.
  func leave() -> Bool

  /// Records that the graph loaded breaks a rule of the format, so the store must never
  /// be overwritten: every later ``save(_:)`` is refused.
  func markDamaged()
}

/// What other sessions did to a store since a session loaded it.
public enum StoreMovement: Equatable, Sendable {
  /// Nothing: the store is as loaded.
  case none
  /// They saved this many times into its log.
  case saves(Int)
  /// The file was written whole (a fold, a sync, another program): how many saves that
  /// holds is not known without reading it.
  case replaced
}
