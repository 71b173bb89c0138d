#if canImport(Glibc)
  import Glibc
#endif

/// The folder and the last component of the file-system path `path`, split at its last
/// slash byte as `dirname(1)` and `basename(1)` would: `("/a", "b")` for `/a/b`, `("/", "b")`
/// for `/b`, `(".", "b")` for a bare `b`. The one place docsh takes a path apart.
public func splitPath(_ path: String) -> (folder: String, name: String) {
  guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return (".", path) }
  let folder = String(path[..<slash])
  return (folder.isEmpty ? "/" : folder, String(path[path.index(after: slash)...]))
}

extension FileSystem {
  /// The real path of `path`, every link and `..` resolved (`realpath(3)`), also for a file
  /// not made yet: then its folder's real path and its name. The one place docsh resolves a
  /// store's path, so that every way of reaching one store names it alike.
  /// - Throws: ``SystemCallError`` when the folder cannot be resolved either, or the file
  ///   fails otherwise than by being absent.
  func resolvedPath(_ path: String) throws(SystemCallError) -> String {
    do {
      return try realPath(path)
    } catch  where error.code == ENOENT {
      let (folder, name) = splitPath(path)
      let real = try realPath(folder)
      return real == "/" ? "/" + name : real + "/" + name
    }
  }

  /// The bytes of the file at `path`, read whole; `nil` when there is none.
  /// - Throws: ``SystemCallError`` when it is there and cannot be read.
  func contents(ifPresentAt path: String) throws(SystemCallError) -> [UInt8]? {
    let file: Int32
    do {
      file = try open(path, flags: O_RDONLY | O_CLOEXEC, mode: 0)
    } catch {
      if error.code == ENOENT { return nil }
      throw error
    }
    defer { try? close(file) }  // read-only: closing cannot lose anything
    return try readToEnd(file)
  }

  /// The status of the file at `path`, `nil` when there is none (or its folder cannot be
  /// opened).
  func status(ofPath path: String) -> FileStatus? {
    let (folder, name) = splitPath(path)
    guard let directory = try? open(folder, flags: O_RDONLY | O_DIRECTORY | O_CLOEXEC, mode: 0)
    else { return nil }
    defer { try? close(directory) }  // read-only: closing cannot lose anything
    return (try? status(at: directory, name)) ?? nil
  }
}
