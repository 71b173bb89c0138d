extension StoreRepository {
  /// The note of a move of HEAD around a sync's write of the store (``HeadMoveNote``).
  var headMoveNote: HeadMoveNote { HeadMoveNote(repository: self) }
}

/// The note of a move of HEAD a sync makes around writing the store, in the ledger: written
/// just before the store, forgotten once HEAD has moved. A sync killed between the two
/// leaves it, and the next commit or sync finishes the move first
/// (``finishInterruptedMove(_:)``), so that what came from the remote is never committed as
/// a change made here.
///
/// It holds the repository for its ledger and store file, and moves HEAD with
/// ``CommitWriter``.
struct HeadMoveNote {
  /// The repository.
  let repository: StoreRepository
  /// Its git.
  let git: Git

  /// The note of `repository`.
  init(repository: StoreRepository) {
    self.repository = repository
    git = repository.git
  }

  /// Notes in the ledger, just before a sync writes the store, that HEAD moves from `old`
  /// to `new` once the store, now at `generation`, is written with what `witness` marks
  /// (``StoreIncoming/witness``); removed once HEAD has moved.
  /// - Throws: ``SyncError/store(_:)`` when the note cannot be written (the sync then writes
  ///   nothing).
  func noteMove(
    from old: CommitID?, to new: CommitID, generation: Int, witness: String?
  ) throws(SyncError) {
    do {
      try repository.updateLedger {
        $0.move = RepositoryLedger.Move(
          old: old, new: new, generation: generation, witness: witness)
      }
    } catch {
      throw .store(.system(repository.ledgerPath, operation: error.operation, errno: error.code))
    }
  }

  /// Forgets the note of a move: HEAD has moved, or it was never to. A note that cannot be
  /// removed is found by the next sync, which sees that HEAD has moved (or that the store
  /// was not written) and forgets it then: so the failure ends here.
  func forgetMove() {
    do {
      try repository.updateLedger { $0.move = nil }
    } catch {
      // As said above: the next sync forgets it.
    }
  }

  /// The note of a move a sync began: the ledger's, or one an older docsh left in
  /// `.git/docsh-moving` (taken into the ledger).
  private func notedMove() throws(SyncError) -> RepositoryLedger.Move? {
    if let move = repository.ledger().move { return move }
    let legacy = repository.gitDirectory + "/docsh-moving"
    guard let note = try repository.fileBytes(at: legacy) else { return nil }
    let fields = String(decoding: note, as: UTF8.self).split(whereSeparator: \.isWhitespace)
    guard fields.count == 4, let before = Int(fields[2]) else {
      // No move can be read from it: there is none to finish.
      try? repository.removeFile(atPath: legacy)
      return nil
    }
    let move = RepositoryLedger.Move(
      old: fields[0] == "-" ? nil : CommitID(fields[0]), new: CommitID(fields[1]),
      generation: before, witness: fields[3] == "-" ? nil : String(fields[3]))
    do {
      try repository.updateLedger { $0.move = move }
    } catch {
      throw .store(.system(repository.ledgerPath, operation: error.operation, errno: error.code))
    }
    try repository.removeFile(atPath: legacy)
    return move
  }

  /// Finishes a move of HEAD that a sync began and did not finish (killed, or a git step
  /// failing) once it had written the store: HEAD moves to the commit whose store the file
  /// holds, so that what came from the remote stays the remote's and is never committed as a
  /// change made on this side. The store was written when its generation passed the one
  /// noted and it (or, after one save since, the backup that save kept) holds the witness.
  /// When HEAD moved since, or the store was not written, the note is forgotten. The caller
  /// holds the repository lock; `store` is the store's, asked its generation and read.
  /// - Throws: ``SyncError`` when git fails or the store cannot be read; the note stays.
  func finishInterruptedMove(_ store: any StoreWriting) throws(SyncError) {
    guard let move = try notedMove() else { return }
    let old = move.old
    let new = move.new
    guard try git.head() == old, try git.commit(new.hex) == new,
      let now = try repository.storeGeneration(store), now > move.generation
    else { return forgetMove() }
    if let witness = move.witness {
      // The store as it is (its save log included), or the backup a whole write kept.
      var seen = StoreIncoming.isWitnessed(witness, inStore: store.makeReader())
      if !seen, let bytes = try repository.fileBytes(at: repository.storePath + ".bak"),
        let store = try? ParsedStore(bytes: bytes, name: repository.storePath + ".bak")
      {
        // A copy that does not parse witnesses nothing.
        seen = StoreIncoming.isWitnessed(witness, in: store)
      }
      guard seen else { return forgetMove() }
    }
    try repository.commitWriter.moveHead(
      to: new, from: old, reason: "sync: finish an interrupted sync")
    // Saves may have followed the sync's: the next commit compares the whole store.
    repository.recordCommitted(new, generation: .unknown, layoutVersion: 1)
    forgetMove()
  }
}
