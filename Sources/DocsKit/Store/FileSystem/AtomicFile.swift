#if canImport(Glibc)
  import Glibc
#endif

/// The pieces of the atomic, durable save (`../shared/notes/atomic-save.md`) that more
/// than one writer needs: a temporary file beside the target, the `NAME.bak` backup, and the
/// whole replacement of a file by bytes in memory (the merged store of a sync or of the
/// merge driver).
enum AtomicFile {
  /// Creates `.NAME.XXXXXX` in `directory` (`O_EXCL|O_NOFOLLOW`, 0600), drawing another
  /// random name a few times when one exists.
  /// - Throws: the failing `openat(2)`.
  static func createTemporaryFile(
    for name: String, in directory: Int32, fileSystem: any FileSystem
  ) throws(SystemCallError) -> (name: String, file: Int32) {
    try createUniqueFile(
      prefix: "." + name + ".", in: directory, access: O_WRONLY, fileSystem: fileSystem)
  }

  /// Creates `PREFIXXXXXXX` in `directory` (`O_CREAT|O_EXCL|O_NOFOLLOW|O_CLOEXEC`, 0600,
  /// opened with `access`), drawing another random name a few times when one exists.
  /// - Throws: the failing `openat(2)`.
  static func createUniqueFile(
    prefix: String, in directory: Int32, access: Int32, fileSystem: any FileSystem
  ) throws(SystemCallError) -> (name: String, file: Int32) {
    var attempt = 0
    while true {
      let uniqueName = prefix + randomSuffix()
      do {
        let file = try fileSystem.open(
          at: directory, uniqueName,
          flags: access | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode: 0o600)
        return (uniqueName, file)
      } catch {
        // A random name that exists already: draw another, a few times.
        attempt += 1
        if error.code != EEXIST || attempt >= 10 { throw error }
      }
    }
  }

  /// Links the file `name` as `NAME.bak`, atomically (a link under a temporary name, then a
  /// rename), before it is replaced.
  /// - Throws: the failing `linkat(2)` or `renameat(2)`.
  static func keepBackup(
    of name: String, in directory: Int32, fileSystem: any FileSystem
  ) throws(SystemCallError) {
    let linkName = "." + name + ".bak." + randomSuffix()
    try fileSystem.link(at: directory, name, to: linkName)
    defer {
      // rename(2) does nothing when both names are links to one file, which they are when
      // the backup already is the current file (after a save failed at its rename): the
      // temporary name would stay behind. Gone after a real rename, so ENOENT is expected.
      try? fileSystem.unlink(at: directory, linkName)
    }
    try fileSystem.rename(at: directory, linkName, to: name + ".bak")
  }

  /// Replaces the file `name` in `directory` by `bytes`: a temporary file written, given the
  /// old file's permissions (0600 for a new one), synced and closed, renamed over the file,
  /// and the folder synced. When syncing the folder fails, the old file is put back.
  /// Any failure leaves the file as it was and no temporary file behind.
  /// - Parameter keepingBackup: whether the old file stays as `NAME.bak`.
  /// - Throws: the failing system call.
  static func replace(
    _ name: String, in directory: Int32, with bytes: [UInt8], keepingBackup: Bool,
    fileSystem: any FileSystem
  ) throws(SystemCallError) {
    let current = try fileSystem.status(at: directory, name)
    let (temporaryName, temporary) = try createTemporaryFile(
      for: name, in: directory, fileSystem: fileSystem)
    var temporaryIsOpen = true
    var renamed = false
    var heldOldName: String?
    defer {
      if temporaryIsOpen { try? fileSystem.close(temporary) }
      if !renamed { try? fileSystem.unlink(at: directory, temporaryName) }
      if let heldOldName { try? fileSystem.unlink(at: directory, heldOldName) }
    }
    try fileSystem.writeFully(temporary, bytes)
    try fileSystem.setPermissions(temporary, current.map { $0.mode & 0o7777 } ?? 0o600)
    try fileSystem.synchronize(temporary)
    temporaryIsOpen = false  // on Linux the descriptor is gone even when close fails
    try fileSystem.close(temporary)
    // The old file under a second name, so that it can come back if the rename does not hold.
    var oldName: String?
    if current != nil {
      if keepingBackup {
        try keepBackup(of: name, in: directory, fileSystem: fileSystem)
        oldName = name + ".bak"
      } else {
        let held = "." + name + ".old." + randomSuffix()
        try fileSystem.link(at: directory, name, to: held)
        heldOldName = held
        oldName = held
      }
    }
    try fileSystem.rename(at: directory, temporaryName, to: name)
    renamed = true
    do {
      try fileSystem.synchronize(directory)
    } catch {
      if let oldName {
        try? fileSystem.rename(at: directory, oldName, to: name)
        if oldName == heldOldName { heldOldName = nil }
      } else {
        try? fileSystem.unlink(at: directory, name)
      }
      try? fileSystem.synchronize(directory)
      throw error
    }
  }

  /// Replaces the file at `path` by `bytes`, as ``replace(_:in:with:keepingBackup:fileSystem:)``.
  /// - Throws: the failing system call.
  static func replace(
    path: String, with bytes: [UInt8], keepingBackup: Bool, fileSystem: any FileSystem
  ) throws(SystemCallError) {
    let (folder, name) = splitPath(path)
    let directory = try fileSystem.open(
      folder, flags: O_RDONLY | O_DIRECTORY | O_CLOEXEC, mode: 0)
    defer { try? fileSystem.close(directory) }
    try replace(
      name, in: directory, with: bytes, keepingBackup: keepingBackup, fileSystem: fileSystem)
  }

  /// A random suffix for temporary names.
  static func randomSuffix() -> String {
    var generator = SystemRandomNumberGenerator()
    let value = generator.next() as UInt64
    return String(value, radix: 36)
  }
}
