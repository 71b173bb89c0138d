// The names the plain half of the repository (committing, syncing, recovery) calls the
// encrypted remote by, until that half is split into its own types: each forwards to the
// type of the job. Removed when the plain half calls those types itself.
extension StoreRepository {
  /// ``EncryptedFirstCommit/buildRef``.
  static let encryptedBuildRef = EncryptedFirstCommit.buildRef

  /// ``EncryptedFirstCommit/make(for:)``.
  func makeEncryptedFirstCommit() throws(SyncError) -> EncryptedFirstCommit? {
    try EncryptedFirstCommit.make(for: self)
  }

  /// ``EncryptedFirstCommit/commit(in:plain:)``.
  func makeFirstCommit(
    encrypting first: EncryptedFirstCommit,
    plain makePlain: (String) throws(SyncError) -> CommitID
  ) throws(SyncError) -> CommitID {
    try first.commit(in: self, plain: makePlain)
  }

  /// ``EncryptedRemote/fetchRemote()``.
  func fetchRemote() throws(SyncError) -> Bool {
    try EncryptedRemote(self).fetchRemote()
  }

  /// ``EncryptedRemote/pushEncrypted(_:upstream:)``.
  func pushEncrypted(_ head: CommitID, upstream: String) throws(SyncError) -> PushResult {
    try EncryptedRemote(self).pushEncrypted(head, upstream: upstream)
  }
}
