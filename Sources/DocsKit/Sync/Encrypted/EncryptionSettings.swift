#if canImport(Glibc)
  import Glibc
#endif

/// What a repository syncing with an encrypted remote keeps locally, in
/// `.git/docsh/encryption` (0600, in the 0700 `.git/docsh`): the recipient every file is
/// encrypted to (public), the key of the files' names (``OpaqueNames``) and the blob of the
/// identity file to put in a first commit. Never the identity: whatever must decrypt asks
/// the passphrase.
struct EncryptionSettings: Equatable {
  /// The file's name in `.git/docsh`.
  static let fileName = "encryption"
  /// The file of the commits translated (``EncryptedCommitMap``), in `.git/docsh`.
  static let mapFileName = "encrypted-commits"

  /// The recipient of every file.
  var recipient: AgeRecipient
  /// The names of the files.
  var names: OpaqueNames
  /// The blob of `.docsh/identity.age` as it was last written or fetched.
  var identityBlob: GitBlobID

  /// The file's bytes.
  var bytes: [UInt8] {
    let key = OpaqueNames.hex(names.key)
    return Array(
      "docsh encryption 1\nrecipient \(recipient.encoded)\nnames \(key)\nidentity \(identityBlob.hex)\n"
        .utf8)
  }

  init(recipient: AgeRecipient, names: OpaqueNames, identityBlob: GitBlobID) {
    self.recipient = recipient
    self.names = names
    self.identityBlob = identityBlob
  }

  /// Reads the file's bytes; `nil` when they are not such a file.
  init?(parsing bytes: [UInt8]) {
    var fields: [String: String] = [:]
    let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n")
    guard lines.first == "docsh encryption 1" else { return nil }
    for line in lines.dropFirst() {
      let parts = line.split(separator: " ", maxSplits: 1)
      if parts.count == 2 { fields[String(parts[0])] = String(parts[1]) }
    }
    guard let recipientText = fields["recipient"], let keyText = fields["names"],
      let blob = fields["identity"], let recipient = try? AgeRecipient(parsing: recipientText),
      let key = EncryptionSettings.bytes(hex: keyText), key.count == 32,
      [20, 32].contains(EncryptionSettings.bytes(hex: blob)?.count)  // SHA-1 or SHA-256
    else { return nil }
    self.init(
      recipient: recipient, names: OpaqueNames(key: key), identityBlob: GitBlobID(hex: blob))
  }

  /// The bytes `hex` spells; `nil` when it spells none.
  static func bytes(hex: String) -> [UInt8]? {
    let digits = Array(hex.utf8)
    guard digits.count % 2 == 0 else { return nil }
    var bytes: [UInt8] = []
    var index = 0
    while index < digits.count {
      guard
        let byte = UInt8(String(decoding: digits[index..<(index + 2)], as: UTF8.self), radix: 16)
      else { return nil }
      bytes.append(byte)
      index += 2
    }
    return bytes
  }
}

/// Which local commit each commit of the encrypted remote stands for, both ways: the local
/// repository keeps the store in the plain layout (history, merges and saves work on it as
/// on any remote), and a sync translates commits to and from the encrypted remote's.
/// A file of lines `LOCAL ENCRYPTED`; a local commit stands for its last line's commit.
struct EncryptedCommitMap {
  private(set) var encryptedByLocal: [String: String] = [:]
  private(set) var localByEncrypted: [String: String] = [:]
  /// Lines added since read.
  private(set) var added: [(local: String, encrypted: String)] = []

  init(parsing bytes: [UInt8]) {
    for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
      let parts = line.split(separator: " ")
      guard parts.count == 2 else { continue }
      encryptedByLocal[String(parts[0])] = String(parts[1])
      localByEncrypted[String(parts[1])] = String(parts[0])
    }
  }

  /// Records that `local` and `encrypted` stand for each other.
  mutating func record(local: CommitID, encrypted: CommitID) {
    encryptedByLocal[local.hex] = encrypted.hex
    localByEncrypted[encrypted.hex] = local.hex
    added.append((local.hex, encrypted.hex))
  }

  func encrypted(for local: CommitID) -> CommitID? {
    encryptedByLocal[local.hex].map(CommitID.init)
  }
  func local(for encrypted: CommitID) -> CommitID? {
    localByEncrypted[encrypted.hex].map(CommitID.init)
  }

  /// The lines added, to append to the file.
  var addedBytes: [UInt8] { Array(added.map { "\($0.local) \($0.encrypted)\n" }.joined().utf8) }
}

/// docsh's files of an encrypted remote in `.git/docsh`: its settings
/// (``EncryptionSettings``) and the commit map (``EncryptedCommitMap``). The lowest piece of
/// the encrypted remote: it reads and writes those two files and nothing else.
struct EncryptedRemoteFiles {
  /// The repository the files are in (its paths and file reads).
  let repository: StoreRepository

  init(_ repository: StoreRepository) {
    self.repository = repository
  }

  /// The folder of docsh's files in `.git`.
  private var docshFolder: String { repository.gitDirectory + "/" + RepositoryLedger.folderName }

  /// The settings of an encrypted remote; `nil` when the repository syncs in plain text.
  /// - Throws: ``SyncError`` when the file is there but cannot be read or is damaged.
  func encryptionSettings() throws(SyncError) -> EncryptionSettings? {
    let path = docshFolder + "/" + EncryptionSettings.fileName
    guard let bytes = try repository.fileBytes(at: path) else { return nil }
    guard let settings = EncryptionSettings(parsing: bytes) else {
      throw .encryption(.damagedSettings(path: path))
    }
    return settings
  }

  /// Writes the settings (0600).
  func writeEncryptionSettings(_ settings: EncryptionSettings) throws(SyncError) {
    try writeDocshFile(EncryptionSettings.fileName, settings.bytes)
  }

  /// The commit map as written.
  func encryptedCommitMap() throws(SyncError) -> EncryptedCommitMap {
    EncryptedCommitMap(
      parsing: try repository.fileBytes(at: docshFolder + "/" + EncryptionSettings.mapFileName)
        ?? [])
  }

  /// Adds the map's new lines to its file (written whole, atomically).
  func saveEncryptedCommitMap(_ map: EncryptedCommitMap) throws(SyncError) {
    guard !map.added.isEmpty else { return }
    let path = docshFolder + "/" + EncryptionSettings.mapFileName
    let before = try repository.fileBytes(at: path) ?? []
    try writeDocshFile(EncryptionSettings.mapFileName, before + map.addedBytes)
  }

  private func writeDocshFile(_ name: String, _ bytes: [UInt8]) throws(SyncError) {
    let fileSystem = repository.fileSystem
    do {
      do {
        try fileSystem.makeDirectory(docshFolder, mode: 0o700)
      } catch  where error.code == EEXIST {}
      try AtomicFile.replace(
        path: docshFolder + "/" + name, with: bytes, keepingBackup: false, fileSystem: fileSystem)
    } catch {
      throw .store(.system(docshFolder + "/" + name, operation: error.operation, errno: error.code))
    }
  }
}
