// Syncing with an encrypted remote: setting one up (`sync --encrypt REMOTE`), a second
// machine joining one (`sync REMOTE` with the passphrase), fetching (the remote's commits
// checked, decrypted and translated into `refs/remotes/origin/*`, so that merges and history
// work as with any remote), pushing (the local commits translated and encrypted to the
// recipient: no passphrase needed) and changing the passphrase (a commit rewriting only
// `.docsh/identity.age`).

/// The encrypted remote of a repository: setting it up or joining it, its identity and
/// passphrase (kept for the session by the repository), fetching its branches translated
/// (``EncryptedIncoming``) and pushing local commits translated (``EncryptedOutgoing``).
/// It never syncs: the sync calls it to fetch and to push.
struct EncryptedRemote {
  /// The repository syncing with the remote (its paths, lock and session state).
  let repository: StoreRepository
  let git: Git
  /// The passphrase's commit is written through.
  let writer: CommitWriter
  /// Fetches from origin and pushes to it, and knows the upstream branch.
  let branches: RepositoryBranches

  init(_ repository: StoreRepository) {
    self.repository = repository
    git = repository.git
    writer = CommitWriter(repository: repository)
    branches = RepositoryBranches(repository: repository)
  }

  /// Where the encrypted remote's branches are fetched to.
  static let encryptedRefs = "refs/docsh/encrypted/"

  /// The settings and the commit map.
  private var files: EncryptedRemoteFiles { EncryptedRemoteFiles(repository) }

  /// Makes the store's folder a docsh repository syncing with the encrypted remote
  /// `remote` (``StoreRepository/setUp(storePath:remote:runner:fileSystem:)``, then its
  /// encryption): an empty remote gets a new identity under a new passphrase (asked twice); a
  /// remote encrypted by docsh is joined with its passphrase. A repository encrypted already
  /// only syncs.
  /// - Throws: ``EncryptionError/syncsInPlainText(url:)`` for a store syncing with a plain
  ///   remote, ``EncryptionError/plainRemote(_:)`` for a remote holding plain commits,
  ///   ``EncryptionError/wrongPassphrase``; the store is then as it was.
  static func setUp(
    storePath: String, remote: String, runner: any GitRunner,
    passphrases: (any PassphraseProviding)?, fileSystem: any FileSystem
  ) throws(SyncError) -> StoreRepository {
    if let existing = try StoreRepository.locate(
      storePath: storePath, runner: runner, fileSystem: fileSystem),
      existing.prefix.isEmpty, try existing.isSetUp(),
      try EncryptedRemoteFiles(existing).encryptionSettings() == nil,
      try existing.hasOrigin()
    {
      let url = try existing.git.remoteURL("origin") ?? ""
      throw .encryption(.syncsInPlainText(url: url))
    }
    let repository = try StoreRepository.setUp(
      storePath: storePath, remote: remote, runner: runner, fileSystem: fileSystem)
    repository.passphrases = passphrases
    let encrypted = EncryptedRemote(repository)
    try repository.withRepositoryLock { () throws(SyncError) in
      guard try encrypted.files.encryptionSettings() == nil else { return }
      try encrypted.fetchEncryptedBranches()
      if let tip = try encrypted.encryptedTips().first?.tip {
        guard try encrypted.isEncryptedCommit(tip) else {
          throw .encryption(.plainRemote(remote))
        }
        try encrypted.join(tip: tip)
        return
      }
      try encrypted.makeIdentity()
    }
    return repository
  }

  /// A new identity under a new passphrase: its file written as a blob, the settings saved.
  private func makeIdentity() throws(SyncError) {
    let passphrase = try askPassphrase(
      "New passphrase for the encrypted remote: ", confirm: true)
    let identity = AgeIdentity.generate()
    let file: [UInt8]
    do {
      file = try Age.encrypt(identityText(identity), passphrase: passphrase)
    } catch {
      throw .encryption(.age(error))
    }
    let settings = EncryptionSettings(
      recipient: identity.recipient, names: OpaqueNames(identity: identity),
      identityBlob: try git.writeBlob(file))
    try files.writeEncryptionSettings(settings)
    repository.encryptionIdentity = identity
  }

  /// The text of an identity file, as `age-keygen` writes one.
  private func identityText(_ identity: AgeIdentity) -> [UInt8] {
    Array("# public key: \(identity.recipient.encoded)\n\(identity.encoded)\n".utf8)
  }

  /// Joins the encrypted remote whose branch is at `tip`: its identity opened with the
  /// passphrase, the settings saved (only then).
  private func join(tip: CommitID) throws(SyncError) {
    let (identity, blob) = try openIdentity(at: tip)
    try files.writeEncryptionSettings(
      EncryptionSettings(
        recipient: identity.recipient, names: OpaqueNames(identity: identity), identityBlob: blob)
    )
    repository.encryptionIdentity = identity
  }

  /// The identity the encrypted commit `commit` holds, opened with the passphrase.
  private func openIdentity(at commit: CommitID) throws(SyncError) -> (AgeIdentity, GitBlobID) {
    guard
      let marker = try git.blobs(
        [commit.hex + ":" + EncryptedLayout.markerPath], step: "read the repository"
      ).first ?? nil,
      let version = EncryptedLayout.markerVersion(marker)
    else { throw .encryption(.noIdentity(commit: commit.short)) }
    guard version <= EncryptedLayout.version else { throw .encryption(.newerLayout(version)) }
    guard let blob = try git.object(commit.hex + ":" + EncryptedLayout.identityPath),
      let file = try git.blobs([blob], step: "read the repository").first ?? nil
    else { throw .encryption(.noIdentity(commit: commit.short)) }
    let passphrase = try askPassphrase("Passphrase of the encrypted remote: ", confirm: false)
    return (try identity(in: file, passphrase: passphrase, commit: commit), GitBlobID(hex: blob))
  }

  /// The identity `file` holds, opened with `passphrase`.
  private func identity(in file: [UInt8], passphrase: [UInt8], commit: CommitID) throws(SyncError)
    -> AgeIdentity
  {
    let text: [UInt8]
    do {
      text = try Age.decrypt(file, passphrase: passphrase)
    } catch {
      if error == .wrongPassphrase { throw .encryption(.wrongPassphrase) }
      throw .encryption(.noIdentity(commit: commit.short))
    }
    do {
      return try AgeIdentity(parsing: String(decoding: text, as: UTF8.self))
    } catch {
      throw .encryption(.noIdentity(commit: commit.short))
    }
  }

  /// The passphrase, from the repository's ``StoreRepository/passphrases``.
  private func askPassphrase(_ prompt: String, confirm: Bool) throws(SyncError) -> [UInt8] {
    guard let passphrases = repository.passphrases else {
      throw .encryption(.noPassphrase("nothing to ask it with"))
    }
    do {
      return try passphrases.passphrase(prompt: prompt, confirm: confirm)
    } catch {
      throw .encryption(.noPassphrase("\(error)"))
    }
  }

  /// The identity, asked for once: from the remote's commit `tip`, checked against the
  /// recipient this repository encrypts to.
  private func sessionIdentity(_ tip: CommitID, settings: EncryptionSettings) throws(SyncError)
    -> AgeIdentity
  {
    if let encryptionIdentity = repository.encryptionIdentity { return encryptionIdentity }
    let (identity, _) = try openIdentity(at: tip)
    guard identity.recipient == settings.recipient else { throw .encryption(.otherIdentity) }
    repository.encryptionIdentity = identity
    return identity
  }

  // MARK: - Fetching

  /// Fetches the remote's branches to ``encryptedRefs``, with git's checks of every object.
  private func fetchEncryptedBranches() throws(SyncError) {
    try branches.fetchOrigin(refspecs: ["+refs/heads/*:" + EncryptedRemote.encryptedRefs + "*"])
  }

  /// The branches fetched from the encrypted remote, with their commits.
  private func encryptedTips() throws(SyncError) -> [(branch: String, tip: CommitID)] {
    try git.refs(under: EncryptedRemote.encryptedRefs).map { ref in
      (String(ref.name.dropFirst(EncryptedRemote.encryptedRefs.count)), ref.commit)
    }
  }

  /// Whether `commit` is a commit of an encrypted remote (it holds the marker).
  func isEncryptedCommit(_ commit: CommitID) throws(SyncError) -> Bool {
    try git.object(commit.hex + ":" + EncryptedLayout.markerPath) != nil
  }

  /// Fetches origin for a sync. A repository syncing in plain text fetches as always, unless
  /// the remote turns out to be encrypted (a second machine's first sync): it then joins it
  /// with the passphrase. An encrypted one fetches to ``encryptedRefs`` and translates each
  /// branch into `refs/remotes/origin/*`.
  /// - Returns: whether the remote is encrypted.
  func fetchRemote() throws(SyncError) -> Bool {
    guard let settings = try files.encryptionSettings() else {
      try branches.fetchOrigin()
      guard let tip = try plainTrackingTipIfEncrypted() else { return false }
      // Leaves the tracking refs as before (none) when the passphrase fails.
      try fetchEncryptedBranches()
      do {
        try join(tip: tip)
      } catch {
        try forgetTrackingRefs()
        throw error
      }
      try forgetTrackingRefs()
      guard let joined = try files.encryptionSettings() else { return false }
      try translateEncryptedBranches(settings: joined)
      return true
    }
    try fetchEncryptedBranches()
    try translateEncryptedBranches(settings: settings)
    return true
  }

  /// A branch of `refs/remotes/origin/` whose commit is an encrypted remote's, if any.
  private func plainTrackingTipIfEncrypted() throws(SyncError) -> CommitID? {
    let tips = try git.refs(under: "refs/remotes/origin/").map(\.commit)
    guard !tips.isEmpty else { return nil }
    let found = try git.objectSizes(
      tips.map { $0.hex + ":" + EncryptedLayout.markerPath }, step: "read the repository")
    return zip(tips, found).first { $0.1 != nil }?.0
  }

  /// Removes the tracking refs a plain fetch of an encrypted remote made.
  private func forgetTrackingRefs() throws(SyncError) {
    for ref in try git.refs(under: "refs/remotes/origin/") {
      try git.deleteRef(ref.name)
    }
  }

  /// Translates each fetched encrypted branch into `refs/remotes/origin/*`.
  private func translateEncryptedBranches(settings: EncryptionSettings) throws(SyncError) {
    var settings = settings
    let before = settings
    var map = try files.encryptedCommitMap()
    var translated: [(String, CommitID)] = []
    let incoming = EncryptedIncoming(repository)
    for (branch, tip) in try encryptedTips() {
      let local = try incoming.localCommit(
        for: tip, map: &map, settings: &settings,
        identity: { () throws(SyncError) in try self.sessionIdentity(tip, settings: before) })
      translated.append((branch, local))
    }
    try files.saveEncryptedCommitMap(map)
    if settings != before { try files.writeEncryptionSettings(settings) }
    for (branch, local) in translated
    where try repository.refCommit("refs/remotes/origin/" + branch) != local {
      try git.updateRef("refs/remotes/origin/" + branch, to: local)
    }
  }

  // MARK: - Pushing

  /// Pushes the encrypted commit standing for `head` (translated now, encrypted to the
  /// recipient) to origin's `upstream`.
  func pushEncrypted(_ head: CommitID, upstream: String) throws(SyncError)
    -> RepositoryBranches.PushResult
  {
    guard let settings = try files.encryptionSettings() else {
      throw .encryption(.notEncrypted(folder: repository.storeFolder))
    }
    var map = try files.encryptedCommitMap()
    let encrypted = try EncryptedOutgoing(repository).encryptedCommit(
      for: head, map: &map, settings: settings, identity: repository.encryptionIdentity)
    try files.saveEncryptedCommitMap(map)
    let remote = try repository.refCommit(EncryptedRemote.encryptedRefs + upstream)
    guard encrypted != remote else { return .upToDate }
    switch try branches.push(encrypted.hex, upstream: upstream) {
    case .remoteMoved: return .remoteMoved
    case .upToDate: return .upToDate
    case .pushed:
      // Both in one process: the remote's commit, and the local one it stands for as the
      // remote-tracking branch (which the push set to the remote's).
      try git.updateRefs([
        (EncryptedRemote.encryptedRefs + upstream, encrypted),
        ("refs/remotes/origin/" + upstream, head),
      ])
      return .pushed
    }
  }

  // MARK: - Changing the passphrase

  /// Puts the identity under a new passphrase: asks the current one (which must open the
  /// remote's identity) and the new one twice, then commits the new `.docsh/identity.age`
  /// alone on the remote's branch and pushes it. Run after a sync, so that HEAD stands for
  /// the remote's commit; a push that fails leaves the commit for the next sync to push.
  /// - Throws: ``EncryptionError`` (nothing changed) or a push's ``SyncError``.
  func changePassphrase() throws(SyncError) {
    try repository.withRepositoryLock { () throws(SyncError) in
      guard var settings = try files.encryptionSettings() else {
        throw .encryption(.notEncrypted(folder: repository.storeFolder))
      }
      let upstream = try branches.upstreamBranch()
      guard let head = try git.head(),
        let tip = try repository.refCommit(EncryptedRemote.encryptedRefs + upstream)
      else { throw .encryption(.notEncrypted(folder: repository.storeFolder)) }
      let (identity, _) = try openIdentity(at: tip)
      guard identity.recipient == settings.recipient else { throw .encryption(.otherIdentity) }
      repository.encryptionIdentity = identity
      let passphrase = try askPassphrase("New passphrase: ", confirm: true)
      let file: [UInt8]
      do throws(AgeError) {
        file = try Age.encrypt(identityText(identity), passphrase: passphrase)
      } catch {
        throw .encryption(.age(error))
      }
      var map = try files.encryptedCommitMap()
      let base = try EncryptedOutgoing(repository).encryptedCommit(
        for: head, map: &map, settings: settings, identity: identity)
      let blob = try git.writeBlob(file)
      let seconds = Int64(Timestamp.now().millisecondsSince1970 / 1000)
      let commit = try writer.makeBuildCommit(
        parent: base, changes: [.putBlob(EncryptedLayout.identityPath, blob)],
        message: "docsh: passphrase changed\n",
        committer: EncryptedLayout.committer(seconds))
      map.record(local: head, encrypted: commit)
      try files.saveEncryptedCommitMap(map)
      settings.identityBlob = blob
      try files.writeEncryptionSettings(settings)
      switch try branches.push(commit.hex, upstream: upstream) {
      case .pushed:
        try git.updateRef(EncryptedRemote.encryptedRefs + upstream, to: commit)
      case .remoteMoved, .upToDate:
        throw .pushKeptFailing(attempts: 1)
      }
    }
  }
}

// MARK: - The repository's entry points

extension StoreRepository {
  /// Makes the store's folder a docsh repository syncing with the encrypted remote
  /// `remote` (``StoreRepository/setUp(storePath:remote:runner:fileSystem:)``, then its
  /// encryption): an empty
  /// remote gets a new identity under a new passphrase (asked twice); a remote encrypted by
  /// docsh is joined with its passphrase. A repository encrypted already only syncs.
  /// - Throws: ``EncryptionError/syncsInPlainText(url:)`` for a store syncing with a plain
  ///   remote, ``EncryptionError/plainRemote(_:)`` for a remote holding plain commits,
  ///   ``EncryptionError/wrongPassphrase``; the store is then as it was.
  public static func setUpEncrypted(
    storePath: String, remote: String, runner: any GitRunner,
    passphrases: (any PassphraseProviding)?, fileSystem: any FileSystem = SystemFileSystem()
  ) throws(SyncError) -> StoreRepository {
    try EncryptedRemote.setUp(
      storePath: storePath, remote: remote, runner: runner, passphrases: passphrases,
      fileSystem: fileSystem)
  }

  /// Whether the repository syncs with an encrypted remote.
  /// - Throws: ``SyncError`` when its settings cannot be read.
  public func isEncrypted() throws(SyncError) -> Bool {
    try EncryptedRemoteFiles(self).encryptionSettings() != nil
  }

  /// Puts the encrypted remote's identity under a new passphrase
  /// (``EncryptedRemote/changePassphrase()``).
  /// - Throws: ``EncryptionError`` (nothing changed) or a push's ``SyncError``.
  public func changePassphrase() throws(SyncError) {
    try EncryptedRemote(self).changePassphrase()
  }
}
