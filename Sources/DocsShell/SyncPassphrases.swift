import DocsKit

#if canImport(Glibc)
  import Glibc
#endif

/// The passphrase of an encrypted remote, for ``StoreRepository``: read from the file
/// `DOCSH_PASSPHRASE_FILE` names (scripts and tests).
final class SyncPassphrases: PassphraseSource {
  let environment: [String: String]

  init(environment: [String: String]) {
    self.environment = environment
  }

  func passphrase(prompt: String, confirm: Bool) throws -> [UInt8] {
    // A new passphrase (sync --encrypt, --change-passphrase) from a file of its own when one
    // is named, so that a script can change it.
    let named = confirm ? environment["DOCSH_NEW_PASSPHRASE_FILE"] : nil
    guard let path = named ?? environment["DOCSH_PASSPHRASE_FILE"] else {
      throw PassphraseUnavailable(reason: "set DOCSH_PASSPHRASE_FILE to a file holding it")
    }
    let file = open(path, O_RDONLY | O_CLOEXEC)
    guard file >= 0 else { throw PassphraseUnavailable(reason: "\(path) cannot be read") }
    defer { close(file) }
    guard var bytes = try? SystemFileSystem().readToEnd(file) else {
      throw PassphraseUnavailable(reason: "\(path) cannot be read")
    }
    if bytes.last == 0x0A { bytes.removeLast() }
    guard !bytes.isEmpty else { throw PassphraseUnavailable(reason: "\(path) is empty") }
    return bytes
  }
}

/// Why no passphrase could be had.
struct PassphraseUnavailable: Error, CustomStringConvertible {
  var reason: String
  var description: String { reason }
}
