import DocsKit

/// The passphrases of an encrypted remote, for ``StoreRepository``: ``PassphraseSource``'s
/// (`DOCSH_PASSPHRASE_FILE`, else the terminal without echo), and a new one from the file
/// `DOCSH_NEW_PASSPHRASE_FILE` names when set, so that a script can change it. Nothing is
/// kept here: the repository keeps the identity a passphrase opened for the session, and a
/// wrong passphrase is asked again next time.
final class SyncPassphrases: PassphraseProviding {
  /// The variable naming the file of a new passphrase.
  static let newFileVariable = "DOCSH_NEW_PASSPHRASE_FILE"

  private let source: PassphraseSource
  private let newFile: String?

  init(environment: [String: String]) {
    source = PassphraseSource(environment: environment)
    let path = environment[Self.newFileVariable]
    newFile = path?.isEmpty == false ? path : nil
  }

  func passphrase(prompt: String, confirm: Bool) throws -> [UInt8] {
    if confirm, let newFile { return try PassphraseSource.read(file: newFile) }
    return try source.passphrase(prompt: prompt, confirm: confirm)
  }
}
