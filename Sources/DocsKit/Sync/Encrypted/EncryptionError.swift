/// Why a sync with an encrypted remote, or setting one up, failed. Each leaves the store, the
/// repository's branch and the remote as they were.
public enum EncryptionError: Error, Sendable, Equatable {
  /// The passphrase does not open the remote's identity.
  case wrongPassphrase
  /// A passphrase was needed and none could be had (no terminal, no
  /// `DOCSH_PASSPHRASE_FILE`): the reason.
  case noPassphrase(String)
  /// `sync --encrypt` names a remote that holds commits in plain text.
  case plainRemote(String)
  /// `sync --encrypt` on a store that syncs in plain text with `url`.
  case syncsInPlainText(url: String)
  /// The operation needs a store syncing with an encrypted remote.
  case notEncrypted(folder: String)
  /// The remote was written by a newer docsh (its marker's version).
  case newerLayout(Int)
  /// The remote's identity is not the one this repository encrypts to.
  case otherIdentity
  /// The remote's commit `commit` holds no identity file, or one age cannot read.
  case noIdentity(commit: String)
  /// age failed (encrypting, or reading the identity).
  case age(AgeError)
  /// The local settings file is damaged.
  case damagedSettings(path: String)
}

extension EncryptionError: CustomStringConvertible {
  /// One line for the user.
  public var description: String {
    switch self {
    case .wrongPassphrase:
      return "wrong passphrase: it does not open the remote's identity; nothing was changed"
    case .noPassphrase(let reason):
      return "the encrypted remote needs the passphrase (\(reason)); nothing was changed"
    case .plainRemote(let remote):
      return
        "\(remote) holds commits in plain text: an encrypted remote must start empty; nothing was changed"
    case .syncsInPlainText(let url):
      return
        "this store syncs in plain text with \(url), which keeps every note readable: remove that remote first (git remote remove origin in the store's folder), then sync --encrypt; nothing was changed"
    case .notEncrypted(let folder):
      return "the repository of \(folder) does not sync with an encrypted remote"
    case .newerLayout(let version):
      return
        "origin is encrypted in a newer layout (version \(version)) than this docsh reads: update docsh; nothing was changed"
    case .otherIdentity:
      return
        "origin's identity is not the one this store encrypts to (the remote was made anew?); nothing was changed"
    case .noIdentity(let commit):
      return "origin's commit \(commit) holds no identity docsh can read; nothing was changed"
    case .age(let error):
      return "age: \(error)"
    case .damagedSettings(let path):
      return "\(path) is damaged: it says how this store's remote is encrypted"
    }
  }
}

/// Asks for the passphrase of an encrypted remote (the shell: the terminal with echo off, or
/// `DOCSH_PASSPHRASE_FILE`).
public protocol PassphraseProviding: AnyObject {
  /// The passphrase, asked with `prompt`; `confirm`: asked twice (a new one).
  /// - Throws: when none can be had.
  func passphrase(prompt: String, confirm: Bool) throws -> [UInt8]
}
