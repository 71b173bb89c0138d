#if canImport(Glibc)
  import Glibc
#endif

// The files git keeps under `.git` that docsh reads or removes itself, without starting git:
// HEAD and loose refs (read while they are plain; anything else is asked of git), the lock
// files a killed git leaves, the index of a repository without a work tree, and where git
// reads its configuration from. The one place that knows their names and formats; ``Git``
// hands it out (`git.files`).
struct GitFiles {
  /// The repository's git folder (`.git`), absolute.
  let directory: String
  let fileSystem: any FileSystem

  /// The git folder a repository made in `folder` has: `folder`'s own `.git`.
  static func ownDirectory(of folder: String) -> String {
    (folder == "/" ? "" : folder) + "/.git"
  }

  /// The repository's own config file.
  var configPath: String { directory + "/config" }

  // MARK: - HEAD and refs

  /// HEAD's branch ref (`refs/heads/main`) and the commit it is at, read from the files
  /// git keeps them in when both are plain: HEAD `ref: refs/heads/NAME` and a loose ref.
  /// `nil` otherwise (detached, an unborn branch, a packed ref, anything odd): ask git.
  func headFromFiles() -> (branch: String, head: CommitID)? {
    guard let headFile = try? fileSystem.contents(ifPresentAt: directory + "/HEAD")
    else { return nil }  // unreadable: git is asked, which gives the real answer or error
    let text = String(decoding: headFile, as: UTF8.self)
    guard text.hasPrefix("ref: refs/heads/"), text.hasSuffix("\n") else { return nil }
    let branch = String(text.dropFirst("ref: ".count).dropLast())
    guard let head = looseRef(branch) else { return nil }
    return (branch, head)
  }

  /// The commit the loose ref `name` (`refs/remotes/origin/main`) holds, read from its
  /// file, when it is one: 40 hex digits and a newline. `nil` otherwise (packed, symbolic,
  /// missing, or a name that is not a plain ref's): ask git.
  func looseRef(_ name: String) -> CommitID? {
    guard name.hasPrefix("refs/"), !name.contains(".."),
      !name.contains(where: { $0 == " " || $0 == "\n" }),
      let bytes = try? fileSystem.contents(ifPresentAt: directory + "/" + name),
      bytes.count == 41, bytes.last == 0x0A,
      bytes.dropLast().allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
    else { return nil }  // unreadable: git is asked, which gives the real answer or error
    return CommitID(String(decoding: bytes.dropLast(), as: UTF8.self))
  }

  // MARK: - Configuration files

  /// The config files git reads a setting from, as `environment` places them: the
  /// system's, the user's (global, or XDG and `~/.gitconfig`), the repository's.
  func configFiles(environment: [String: String]) -> [String] {
    var files: [String] = []
    if environment["GIT_CONFIG_NOSYSTEM"] == nil {
      files.append(environment["GIT_CONFIG_SYSTEM"] ?? "/etc/gitconfig")
    }
    if let global = environment["GIT_CONFIG_GLOBAL"] {
      files.append(global)
    } else {
      let home = environment["HOME"] ?? ""
      files.append((environment["XDG_CONFIG_HOME"] ?? home + "/.config") + "/git/config")
      files.append(home + "/.gitconfig")
    }
    files.append(configPath)
    return files
  }

  // MARK: - The index

  /// Removes the index, for a repository without a work tree (nothing to do when there is
  /// none, as after `git init`).
  /// - Throws: ``SyncError/store(_:)`` when it is there and cannot be removed.
  func dropIndex() throws(SyncError) {
    let path = directory + "/index"
    do {
      try removeFile(path)
    } catch  where error.code == ENOENT {
      return
    } catch {
      throw .store(.system(path, operation: error.operation, errno: error.code))
    }
  }

  /// Removes the file at `path`.
  /// - Throws: the system call that failed.
  private func removeFile(_ path: String) throws(SystemCallError) {
    let (folder, name) = splitPath(path)
    let directory = try fileSystem.open(folder, flags: O_RDONLY | O_DIRECTORY | O_CLOEXEC, mode: 0)
    defer { try? fileSystem.close(directory) }  // read-only: closing cannot lose anything
    try fileSystem.unlink(at: directory, name)
  }

  // MARK: - Lock files

  /// How old (in milliseconds) a lock nobody holds must be before docsh removes it.
  static let staleLockAge: Int64 = 2_000

  /// The lock files git takes besides those of refs.
  static let lockFiles = [
    "index.lock", "HEAD.lock", "config.lock", "packed-refs.lock", "ORIG_HEAD.lock",
    "MERGE_HEAD.lock", "FETCH_HEAD.lock",
  ]

  /// Removes the lock files a git now gone left — git's own and those of `refs` — each
  /// older than ``staleLockAge`` and open in no process (a git killed half way leaves them
  /// and refuses to work after).
  /// - Returns: the paths removed.
  /// - Throws: ``SyncError/busy(lock:)`` when one may still be in use (nothing after it is
  ///   removed), ``SyncError/store(_:)`` when one cannot be removed.
  func removeStaleLocks(ofRefs refs: [String]) throws(SyncError) -> [String] {
    var removed: [String] = []
    for name in GitFiles.lockFiles + refs.map({ $0 + ".lock" }) {
      let path = directory + "/" + name
      guard let status = fileSystem.status(ofPath: path) else {
        continue
      }
      let age = Timestamp.now().millisecondsSince1970 - status.modificationNanoseconds / 1_000_000
      guard age >= GitFiles.staleLockAge, !ProcessTable.isOpen(path, fileSystem: fileSystem) else {
        throw .busy(lock: path)
      }
      do {
        try removeFile(path)
      } catch {
        throw .store(.system(path, operation: error.operation, errno: error.code))
      }
      removed.append(path)
    }
    return removed
  }
}
