/// Where things lie in the tree of an encrypted remote, and what its files hold.
///
/// Invariants of a commit of an encrypted remote (``EncryptedLayout/classify(_:)`` checks
/// each path a commit changes against them; anything else is refused):
/// - `.docsh/encrypted` (the marker, plain: `docsh encrypted remote` and `version: N`),
///   `.docsh/identity.age` (the X25519 identity's text, age-encrypted to the passphrase with
///   the scrypt recipient) and `README.txt` (how to read the files without docsh) — no
///   byte of them comes from the store;
/// - `documents/XX/NAME`, one per document: an age file (X25519 recipient) of its
///   ``EncryptedRecord/document(_:categoryID:)`` record; `NAME` is 32 lowercase hex digits
///   of an HMAC of its id under a key derived from the identity (``OpaqueNames``), `XX` its
///   first two, so a document keeps its path across renames and moves and a save rewrites a
///   bucket of a few hundred entries;
/// - `categories/NAME`, one per category: an age file of its ``CategoryFile`` record;
/// - the folder ``trapFolder`` holding a symbolic link: a docsh before encrypted sync reads
///   it as a category holding a link, and refuses the whole commit (taken in, a link would
///   be a document; so it stops before taking in or pushing anything).
///
/// Commit messages say only counts, authors are ``author``; what leaks is the number and
/// sizes of the files, and the times of the commits.
enum EncryptedLayout {
  /// The marker's path.
  static let markerPath = ".docsh/encrypted"
  /// The identity's path.
  static let identityPath = ".docsh/identity.age"
  /// The README's path.
  static let readmePath = "README.txt"
  /// The folder of documents.
  static let documentsFolder = "documents"
  /// The folder of category records.
  static let categoriesFolder = "categories"
  /// A folder an older docsh takes for a category and refuses, for the link in it.
  static let trapFolder = "encrypted remote - needs a docsh with encrypted sync"
  /// The symbolic link in ``trapFolder``.
  static let trapPath = trapFolder + "/read README.txt"
  /// The version of the layout this docsh writes and reads.
  static let version = 1
  /// The author and committer of every commit of an encrypted remote: nobody's name.
  static let authorName = "docsh <docsh@docsh.invalid>"

  /// The author and committer line of a commit of an encrypted remote made at `seconds`.
  static func committer(_ seconds: Int64) -> String {
    authorName + " \(seconds) +0000"
  }

  /// The largest file of an encrypted remote: the largest document, its record's header and
  /// age's overhead (a header and 16 bytes a 64 KiB chunk).
  static let maximumFileSize =
    RemoteRefusal.maximumDocumentSize + (RemoteRefusal.maximumDocumentSize >> 16) * 16 + 8192

  /// The marker's bytes.
  static let markerBytes = Array("docsh encrypted remote\nversion: \(version)\n".utf8)

  /// The version a marker names; `nil` when it is no marker.
  static func markerVersion(_ bytes: [UInt8]) -> Int? {
    let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n")
    guard lines.count >= 2, lines[0] == "docsh encrypted remote", lines[1].hasPrefix("version: ")
    else { return nil }
    return Int(lines[1].dropFirst("version: ".count))
  }

  /// The README of an encrypted remote.
  static let readmeBytes = Array(
    """
    This git repository is a docsh store, end-to-end encrypted: every document and category
    is an age file (https://age-encryption.org/v1) under a name that says nothing of it.

    To read it without docsh, with the passphrase and the age program:

        age -d -o identity.txt .docsh/identity.age      # asks for the passphrase
        age -d -i identity.txt documents/3f/3f...       # any file of documents/ or categories/

    A document file opens to a few lines (its category's id and its name), then the
    document as docsh writes it in plain text: a front-matter header (id, date, tags) and
    its text. A category file holds its id and name. Keep identity.txt secret.

    """.utf8)

  /// What a path of an encrypted remote's tree is.
  enum Place: Equatable {
    case marker, identity, readme, trap
    /// A document's file, named by the hex digits given.
    case document(String)
    /// A category's file, named by the hex digits given.
    case category(String)
    /// None of docsh's: refused.
    case unknown
  }

  /// What `path` is.
  static func classify(_ path: String) -> Place {
    switch path {
    case markerPath: return .marker
    case identityPath: return .identity
    case readmePath: return .readme
    case trapPath: return .trap
    default: break
    }
    let parts = path.split(separator: "/", omittingEmptySubsequences: false)
    if parts.count == 3, parts[0] == documentsFolder, isOpaqueName(parts[2]),
      parts[1] == parts[2].prefix(2)
    {
      return .document(String(parts[2]))
    }
    if parts.count == 2, parts[0] == categoriesFolder, isOpaqueName(parts[1]) {
      return .category(String(parts[1]))
    }
    return .unknown
  }

  /// Whether `name` is 32 lowercase hex digits.
  private static func isOpaqueName(_ name: Substring) -> Bool {
    name.utf8.count == 32
      && name.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
  }
}

/// The names of the files of documents and categories in an encrypted remote: an HMAC of the
/// object's id under a key derived from the identity — stable (a document keeps its path
/// across every commit, so git's history of a file is a document's), and telling nothing of
/// the id to whoever lacks the identity (an id derived from a name could be guessed).
struct OpaqueNames: Equatable {
  /// The key (32 bytes).
  let key: [UInt8]

  /// The names of the encrypted remote of `identity`.
  init(identity: AgeIdentity) {
    key = HKDF.derive(
      ikm: Array(identity.encoded.utf8), salt: [], info: Array("docsh opaque names v1".utf8))
  }

  /// The names of a key kept before (``key``).
  init(key: [UInt8]) { self.key = key }

  /// The path of the document `id`'s file.
  func documentPath(_ id: ObjectID) -> String {
    let name = hex("document", id)
    return EncryptedLayout.documentsFolder + "/" + name.prefix(2) + "/" + name
  }

  /// The path of the category `id`'s file.
  func categoryPath(_ id: ObjectID) -> String {
    EncryptedLayout.categoriesFolder + "/" + hex("category", id)
  }

  private func hex(_ kind: String, _ id: ObjectID) -> String {
    let mac = Sodium.hmacSHA256(key: key, Array(kind.utf8), [0], Array(id.description.utf8))
    return OpaqueNames.hex(mac.prefix(16))
  }

  /// `bytes` as lowercase hex digits, two a byte.
  static func hex(_ bytes: some Sequence<UInt8>) -> String {
    bytes.map { byte in
      let digits = String(byte, radix: 16)
      return digits.count == 1 ? "0" + digits : digits
    }.joined()
  }
}

/// The plain text of a document's or a category's file in an encrypted remote, before age
/// encrypts it.
enum EncryptedRecord {
  /// The first line of a document's record.
  static let documentTag = "docsh document"

  /// A document's record: `docsh document`, `category: ID`, `name: NAME`, then its file as
  /// the plain layout writes it (``DocumentFile``: header with id, date and tags, then its
  /// content exactly).
  static func document(_ document: SnapshotDocument, categoryID: ObjectID) -> [UInt8] {
    self.document(
      file: DocumentFile.render(
        id: document.id, modified: document.modified, tags: document.tags,
        content: document.content),
      name: document.name, categoryID: categoryID)
  }

  /// A document's record from its file's bytes as they are (a file docsh wrote).
  static func document(file: [UInt8], name: Name, categoryID: ObjectID) -> [UInt8] {
    Array("\(documentTag)\ncategory: \(categoryID)\nname: \(name.text)\n".utf8) + file
  }

  /// The id of a file as docsh writes it (`---`, `id: ID`, `modified: …` first), read
  /// without parsing the rest; `nil` for any other file (parsed whole then).
  static func idOfDocshFile(_ bytes: [UInt8]) -> ObjectID? {
    let start = Array("---\nid: ".utf8)
    let next = Array("\nmodified: ".utf8)
    let idEnd = start.count + 36
    guard bytes.count > idEnd + next.count, bytes.starts(with: start),
      bytes[idEnd..<(idEnd + next.count)].elementsEqual(next)
    else { return nil }
    return ObjectID(String(decoding: bytes[start.count..<idEnd], as: UTF8.self))
  }

  /// A category's record: its ``CategoryFile``.
  static func category(id: ObjectID, name: Name) -> [UInt8] {
    CategoryFile.render(id: id, name: name)
  }

  /// Reads a document's record; `nil` when `bytes` are none.
  static func parseDocument(_ bytes: [UInt8]) -> (document: SnapshotDocument, categoryID: ObjectID)?
  {
    var lines: [String] = []
    var start = 0
    while lines.count < 3 {
      guard let newline = bytes[start...].firstIndex(of: 0x0A),
        let line = String(validating: bytes[start..<newline], as: UTF8.self)
      else { return nil }
      lines.append(line)
      start = newline + 1
    }
    guard lines[0] == documentTag, lines[1].hasPrefix("category: "), lines[2].hasPrefix("name: "),
      let categoryID = ObjectID(lines[1].dropFirst("category: ".count)),
      let name = try? Name(String(lines[2].dropFirst("name: ".count))),  // invalid: no record
      case .docsh(let id, let modified, let content, let tags) = DocumentFile.parse(
        Array(bytes[start...]))
    else { return nil }
    return (
      SnapshotDocument(
        id: id, name: name, size: content.utf8.count, modified: modified, content: content,
        tags: tags),
      categoryID
    )
  }

  /// Reads a category's record; `nil` when `bytes` are none.
  static func parseCategory(_ bytes: [UInt8]) -> (id: ObjectID, name: Name)? {
    guard case .category(let id, let name, _) = CategoryFile.parse(bytes) else { return nil }
    return (id, name)
  }
}
