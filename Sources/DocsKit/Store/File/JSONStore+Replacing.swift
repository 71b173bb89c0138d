#if canImport(Glibc)
  import Glibc
#endif

// Replacing the whole store file by one written a category at a time, as a machine's first
// sync builds it from a commit: the new file's bytes go to a temporary file as they come,
// so that no more than one category is ever held in memory, and the file replaces the store
// only when the caller commits — with the same atomic, durable steps as a whole save
// (``JSONStore/install(_:generation:epoch:over:in:)``). Until then, and whatever fails, the
// store stays as it was.

/// A whole store file being written category by category (``StoreWriting/beginReplacement()``):
/// ``append(_:documents:)`` each category, then ``commit()``; or ``discard()`` (also what
/// happens when it is let go of uncommitted). The store's save lock is held from the start
/// to the end, so that no session saves in between.
public final class StoreReplacement {
  private let store: JSONStore
  private let directory: Int32
  private let temporary: (name: String, file: Int32)
  /// The store file as it was when the replacement began (`nil`: there was none).
  private let current: FileStatus?
  /// Whether the replacement took the save lock (and so lets go of it).
  private let ownsLock: Bool
  /// Told once the new file stands (the index no longer describes the store).
  private let committed: () -> Void
  private var buffer: [UInt8] = []
  private var categoryCount = 0
  private var isOver = false
  /// The generation of the new file: one past the store's as loaded.
  public let generation: Int
  private let epoch = StoreEpoch.random()

  private static let flushThreshold = 1 << 20

  init(
    store: JSONStore, directory: Int32, temporary: (name: String, file: Int32),
    current: FileStatus?, ownsLock: Bool, generation: Int, committed: @escaping () -> Void
  ) {
    self.store = store
    self.directory = directory
    self.temporary = temporary
    self.current = current
    self.ownsLock = ownsLock
    self.generation = generation
    self.committed = committed
    buffer.reserveCapacity(StoreReplacement.flushThreshold + 65_536)
    StoreEncoding.appendStatic("{\"format\":\"docsh-store\",\"version\":", to: &buffer)
    buffer.append(contentsOf: String(StoreReader.supportedVersion).utf8)
    StoreEncoding.appendStatic(",\"generation\":", to: &buffer)
    buffer.append(contentsOf: String(generation).utf8)
    StoreEncoding.appendStatic(",\"epoch\":\"", to: &buffer)
    buffer.append(contentsOf: epoch.text.utf8)
    StoreEncoding.appendStatic("\",\"categories\":[", to: &buffer)
  }

  deinit { discard() }

  /// Writes `category` with `documents` (each with its content, in file order) after the
  /// categories appended before. The caller vouches for the store's rules: ids unique, names
  /// unique in their scope (a file that breaks them is refused when it is next loaded).
  /// - Throws: ``StoreError`` when the temporary file cannot be written (the replacement is
  ///   then over: discarded).
  public func append(
    _ category: Category, documents: [(document: Document, content: String)]
  ) throws(StoreError) {
    guard !isOver else { throw .system(store.path, operation: "write", errno: EBADF) }
    buffer.append(contentsOf: (categoryCount == 0 ? "\n" : ",\n").utf8)
    categoryCount += 1
    StoreEncoding.appendObjectStart(
      id: category.id, name: category.name, then: ",\"documents\":[", to: &buffer)
    for (position, (document, content)) in documents.enumerated() {
      buffer.append(contentsOf: (position == 0 ? "\n" : ",\n").utf8)
      StoreEncoding.appendDocument(document, content: content, to: &buffer)
      if buffer.count >= StoreReplacement.flushThreshold { try flush() }
    }
    StoreEncoding.appendStatic(documents.isEmpty ? "]}" : "\n]}", to: &buffer)
    if buffer.count >= StoreReplacement.flushThreshold { try flush() }
  }

  /// Puts the file written in place of the store (atomically and durably, the old file
  /// kept as `.bak`), and lets go of the lock.
  /// - Returns: the generation of the new file.
  /// - Throws: ``StoreError``; the store file is then as it was, and the replacement over.
  @discardableResult
  public func commit() throws(StoreError) -> Int {
    guard !isOver else { throw .system(store.path, operation: "write", errno: EBADF) }
    StoreEncoding.appendStatic(categoryCount == 0 ? "]}\n" : "\n]}\n", to: &buffer)
    try flush()
    isOver = true
    defer { letGoOfLock() }
    try store.install(
      temporary, generation: generation, epoch: epoch, over: current, in: directory)
    committed()
    return generation
  }

  /// Abandons the file written: removed, the store left as it was, the lock let go of.
  public func discard() {
    guard !isOver else { return }
    isOver = true
    // The temporary file's bytes are not wanted: closing or removing it cannot lose any.
    try? store.fileSystem.close(temporary.file)
    try? store.fileSystem.unlink(at: directory, temporary.name)
    letGoOfLock()
  }

  private func flush() throws(StoreError) {
    do {
      try store.fileSystem.writeFully(temporary.file, buffer)
    } catch {
      discard()
      throw store.storeError(error)
    }
    buffer.removeAll(keepingCapacity: true)
  }

  private func letGoOfLock() {
    guard ownsLock, let held = store.heldLock else { return }
    store.fileSystem.unlockAndClose(held.lock)
    try? store.fileSystem.close(held.directory)  // a folder opened to read: nothing to lose
    store.heldLock = nil
  }
}

extension JSONStore {
  /// Begins replacing the whole store file by one written a category at a time
  /// (``StoreReplacement``), unless another session saved since this store loaded. The save
  /// lock is taken (unless held) and held until the replacement is committed or discarded.
  /// - Throws: ``StoreError``: the store is damaged, locked, saved by another session, or
  ///   the temporary file cannot be made.
  public func beginReplacement() throws(StoreError) -> StoreReplacement {
    try beginReplacement(committed: {})
  }

  /// ``beginReplacement()``, telling `committed` once the new file stands.
  func beginReplacement(
    committed: @escaping () -> Void
  ) throws(StoreError) -> StoreReplacement {
    guard hasLoaded, !loadFailed else { throw .refusedToOverwriteDamagedStore(path) }
    let ownsLock = heldLock == nil
    if ownsLock { heldLock = try takeLock() }
    guard let held = heldLock else { throw .locked(path) }
    do throws(StoreError) {
      let current = try checkNobodySaved(in: held.directory)
      // What a whole write killed midway left (as large as the store) goes before the next.
      let temporary = try systemCalls { () throws(SystemCallError) in
        try removeLeftovers(in: held.directory)
        return try AtomicFile.createTemporaryFile(
          for: fileName, in: held.directory, fileSystem: fileSystem)
      }
      return StoreReplacement(
        store: self, directory: held.directory, temporary: temporary, current: current,
        ownsLock: ownsLock, generation: loadedGeneration + 1, committed: committed)
    } catch {
      if ownsLock {
        fileSystem.unlockAndClose(held.lock)
        try? fileSystem.close(held.directory)  // a folder opened to read: nothing to lose
        heldLock = nil
      }
      throw error
    }
  }
}
