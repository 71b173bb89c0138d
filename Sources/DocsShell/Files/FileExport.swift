import DocsKit

#if canImport(Glibc)
  import Glibc
#endif

/// Writes documents as files for `export`: `DEST/CATEGORY/NAME.md` (`.md` added to every name,
/// as the sync layout does, so that DEST opens as an Obsidian vault and `import` gives every
/// name back), content byte for byte after a header of its tags, the file's modification time
/// the document's.
///
/// Nothing is ever written outside DEST. DEST itself is the user's own path (created when
/// missing, followed if it is a link); everything inside it is reached with `openat` and
/// `mkdirat` relative to DEST's descriptor, folders opened `O_NOFOLLOW | O_DIRECTORY`,
/// files created `O_EXCL | O_NOFOLLOW`. Replacing (`--force`) writes a temporary file in the
/// same folder and renames it over the old one, which replaces a symbolic link rather than
/// following it. Every existing file is checked before the first byte is written; if
/// writing fails midway, the files and folders this export created are removed again.
struct FileExport {
  /// One folder to write: a category's name and its documents.
  struct Folder {
    var name: String
    var documents: [Document]
  }

  /// DEST as the user typed it.
  let destination: String
  /// Whether existing files are replaced (`--force`).
  let replacing: Bool

  /// Writes `folders` into DEST; `content` reads each document's text.
  /// - Throws: ``ExportError`` naming the path that stopped it; then nothing
  ///   outside what was already there is left behind.
  func write(
    _ folders: [Folder], content: (Document) throws -> String,
    progress: (_ written: Int) -> Void = { _ in }
  ) throws {
    for folder in folders {
      try checkSafe(folder.name)
      for document in folder.documents { try checkSafe(document.name.text) }
    }
    var status = stat()
    let existed = stat(destination, &status) == 0
    if existed {
      guard status.st_mode & S_IFMT == S_IFDIR else {
        throw ExportError.notAFolder(path: destination)
      }
    } else {
      guard errno == ENOENT else { throw failure(destination, errno) }
      guard mkdir(destination, 0o755) == 0 else { throw failure(destination, errno) }
    }
    let root = open(destination, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard root >= 0 else {
      let code = errno
      if !existed { rmdir(destination) }
      throw failure(destination, code)
    }
    defer { close(root) }
    var created = Created()
    do {
      if existed { try checkExisting(folders, in: root) }
      var written = 0
      for folder in folders {
        try write(folder, in: root, created: &created, content: content) {
          written += 1
          progress(written)
        }
      }
    } catch {
      created.remove(in: root)
      if !existed { rmdir(destination) }
      throw error
    }
  }

  // MARK: - Checks

  /// Refuses a name that could reach outside its folder. Names never hold `/` (the model
  /// refuses them), but a file system must not depend on that.
  private func checkSafe(_ name: String) throws(ExportError) {
    guard !name.isEmpty, name != ".", name != "..", !name.utf8.contains(UInt8(ascii: "/")),
      !name.utf8.contains(0)
    else { throw .unsafeName(name) }
  }

  /// Finds, before writing anything, what would stop the export: an existing file (unless
  /// replacing), a category's place taken by a file or a link, a document's by a folder.
  private func checkExisting(_ folders: [Folder], in root: Int32) throws(ExportError) {
    for folder in folders {
      let folderPath = shown(folder.name)
      var status = stat()
      guard fstatat(root, folder.name, &status, AT_SYMLINK_NOFOLLOW) == 0 else {
        guard errno == ENOENT else { throw failure(folderPath, errno) }
        continue
      }
      switch status.st_mode & S_IFMT {
      case S_IFDIR: break
      case S_IFLNK:
        throw .linkInside(path: folderPath, destination: destination)
      default:
        throw .notAFolder(path: folderPath)
      }
      let directory = openat(root, folder.name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
      guard directory >= 0 else { throw failure(folderPath, errno) }
      defer { close(directory) }
      for document in folder.documents {
        let path = shown(folder.name, Self.fileName(of: document))
        guard fstatat(directory, Self.fileName(of: document), &status, AT_SYMLINK_NOFOLLOW) == 0
        else {
          guard errno == ENOENT else { throw failure(path, errno) }
          continue
        }
        guard replacing else { throw .exists(path: path) }
        if status.st_mode & S_IFMT == S_IFDIR {
          throw .folderInPlace(path: path)
        }
      }
    }
  }

  // MARK: - Writing

  /// What this export made, to take away again if it fails.
  private struct Created {
    var folders: [String] = []
    var files: [(folder: String, name: String)] = []

    func remove(in root: Int32) {
      for (folder, name) in files.reversed() {
        let directory = openat(root, folder, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard directory >= 0 else { continue }
        unlinkat(directory, name, 0)
        close(directory)
      }
      for folder in folders.reversed() { unlinkat(root, folder, AT_REMOVEDIR) }
    }
  }

  private func write(
    _ folder: Folder, in root: Int32, created: inout Created,
    content: (Document) throws -> String, wrote: () -> Void
  ) throws {
    let folderPath = shown(folder.name)
    if mkdirat(root, folder.name, 0o755) == 0 {
      created.folders.append(folder.name)
    } else if errno != EEXIST {
      throw failure(folderPath, errno)
    }
    let directory = openat(root, folder.name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
    guard directory >= 0 else {
      if errno == ELOOP || errno == ENOTDIR {
        throw ExportError.notAFolderInside(path: folderPath, destination: destination)
      }
      throw failure(folderPath, errno)
    }
    defer { close(directory) }
    for document in folder.documents {
      // Tags travel in a header before the content (TagsHeader), only when there are any.
      let bytes = Array(TagsHeader.wrapping(try content(document), tags: document.tags).utf8)
      let fileName = Self.fileName(of: document)
      let path = shown(folder.name, fileName)
      if replacing {
        try replace(fileName, in: directory, with: bytes, modified: document.modified, path: path)
      } else {
        let file = openat(
          directory, fileName, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o666)
        guard file >= 0 else {
          if errno == EEXIST { throw ExportError.exists(path: path) }
          throw failure(path, errno)
        }
        created.files.append((folder.name, fileName))
        try finish(file, bytes: bytes, modified: document.modified, path: path)
      }
      wrote()
    }
  }

  /// The file name of a document: its name with `.md` added.
  static func fileName(of document: Document) -> String { document.name.text + ".md" }

  /// Writes a temporary file beside `name` and renames it over `name`.
  private func replace(
    _ name: String, in directory: Int32, with bytes: [UInt8], modified: Timestamp, path: String
  ) throws(ExportError) {
    var generator = SystemRandomNumberGenerator()
    var temporary = ""
    var file: Int32 = -1
    for _ in 0..<16 {
      temporary = ".docsh-export-" + String(generator.next() as UInt64, radix: 36)
      file = openat(
        directory, temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o666)
      if file >= 0 || errno != EEXIST { break }
    }
    guard file >= 0 else { throw failure(path, errno) }
    do throws(ExportError) {
      try finish(file, bytes: bytes, modified: modified, path: path)
      guard renameat(directory, temporary, directory, name) == 0 else { throw failure(path, errno) }
    } catch {
      unlinkat(directory, temporary, 0)
      throw error
    }
  }

  /// Writes `bytes` to `file`, sets its modification time and closes it.
  private func finish(_ file: Int32, bytes: [UInt8], modified: Timestamp, path: String)
    throws(ExportError)
  {
    var code: Int32 = 0
    do {
      try SystemFileSystem().writeFully(file, bytes)
    } catch {
      code = error.code
    }
    if code == 0 {
      let milliseconds = modified.millisecondsSince1970
      let seconds = modified.secondsSince1970
      let times = [
        timespec(tv_sec: 0, tv_nsec: FileExport.setToNow),
        timespec(tv_sec: Int(seconds), tv_nsec: Int(milliseconds - seconds * 1000) * 1_000_000),
      ]
      if futimens(file, times) != 0 { code = errno }
    }
    if close(file) != 0 && code == 0 { code = errno }
    if code != 0 { throw failure(path, code) }
  }

  /// `UTIME_NOW`, which Swift does not import.
  private static let setToNow = (1 << 30) - 1

  // MARK: - Messages

  private func shown(_ parts: String...) -> String {
    ([destination.hasSuffix("/") ? String(destination.dropLast()) : destination] + parts)
      .joined(separator: "/")
  }

  private func failure(_ path: String, _ code: Int32) -> ExportError {
    .system(path: path, errno: code)
  }
}
