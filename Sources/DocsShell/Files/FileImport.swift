import DocsKit

#if canImport(Glibc)
  import Glibc
#endif

/// A text file read for `import`: where it came from, the document name it gives, its text
/// and its modification date.
struct ImportedFile {
  /// The path as the user gave it (or `FOLDER/NAME` for a file found in a folder).
  var path: String
  /// The file's name: the document's name.
  var name: String
  /// The file's bytes, which are valid UTF-8.
  var content: String
  /// The file's modification time, to the millisecond.
  var modified: Timestamp
}

/// A folder read for `import` at the top level: it becomes a category of its files.
struct ImportedFolder {
  /// The path as the user gave it.
  var path: String
  /// The folder's name: the category's name.
  var name: String
  /// Its regular files, sorted by name.
  var files: [ImportedFile]
  /// What was left out (subfolders, symbolic links, devices), one line each.
  var skipped: [String]
}

/// Reads files and folders for `import`, refusing anything that cannot become a document
/// exactly: names that are not valid document names, contents that are not UTF-8.
///
/// A path the user names is followed if it is a symbolic link (as `cp` does: the user chose
/// it). Inside a folder nothing is followed: links, subfolders and special files are
/// skipped and reported. Files are opened with `O_NONBLOCK` and checked with `fstat` after
/// opening, so a FIFO or a file swapped in between cannot hang or fool the import.
enum FileImport {
  /// What a path names on disk.
  enum Kind {
    case file, folder
  }

  /// Whether `path` is a file or a folder (following a link the user named).
  /// - Throws: ``ImportError`` when it does not exist or is neither.
  static func kind(of path: String) throws(ImportError) -> Kind {
    var status = stat()
    guard stat(path, &status) == 0 else { throw failure(path, errno) }
    switch status.st_mode & S_IFMT {
    case S_IFDIR: return .folder
    case S_IFREG: return .file
    default: throw .notRegularFile(path: path)
    }
  }

  /// Reads the file at `path`, named by the user.
  /// - Throws: ``ImportError`` naming the path when it cannot be read, is not a
  ///   regular file, is not UTF-8 or its name cannot be a document's.
  static func readFile(at path: String) throws(ImportError) -> ImportedFile {
    let name = try documentName(ofPath: path)
    let file = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
    guard file >= 0 else { throw failure(path, errno) }
    defer { close(file) }
    return try read(file, path: path, name: name)
  }

  /// Reads the folder at `path` and its regular files.
  /// - Throws: ``ImportError`` naming the folder or the first file that cannot be
  ///   imported, or what `progress` throws (Ctrl-C).
  /// `progress` hears how many of the folder's entries were read, of how many, before each.
  static func readFolder(
    at path: String, progress: (_ done: Int, _ total: Int) throws -> Void = { _, _ in }
  ) throws -> ImportedFolder {
    let name = try categoryName(ofPath: path)
    let folder = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard folder >= 0 else { throw failure(path, errno) }
    defer { close(folder) }
    let shownFolder = path.hasSuffix("/") ? String(path.dropLast()) : path
    var files: [ImportedFile] = []
    var skipped: [String] = []
    let names = try entries(of: folder, path: path)
    for (position, entry) in names.enumerated() {
      try progress(position, names.count)
      guard let entryName = String(validating: entry, as: UTF8.self) else {
        let shown = String(decoding: entry, as: UTF8.self)
        throw ImportError.nameNotUTF8(path: "\(shownFolder)/\(shown)")
      }
      let entryPath = shownFolder + "/" + entryName
      var status = stat()
      guard fstatat(folder, entryName, &status, AT_SYMLINK_NOFOLLOW) == 0 else {
        throw failure(entryPath, errno)
      }
      switch status.st_mode & S_IFMT {
      case S_IFREG:
        let documentName = documentName(ofFile: entryName)
        try checkDocumentName(documentName, path: entryPath)
        let file = openat(
          folder, entryName, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        guard file >= 0 else { throw failure(entryPath, errno) }
        defer { close(file) }
        files.append(try read(file, path: entryPath, name: documentName))
      case S_IFDIR:
        skipped.append(
          "import: skipped \(entryPath)/: a subfolder (only a folder's files are imported)")
      case S_IFLNK:
        skipped.append(
          "import: skipped \(entryPath): a symbolic link (links inside a folder are not followed)")
      default:
        skipped.append("import: skipped \(entryPath): not a regular file")
      }
    }
    return ImportedFolder(path: path, name: name, files: files, skipped: skipped)
  }

  // MARK: - Names

  /// The last component of `path`, without trailing slashes.
  static func lastComponent(of path: String) -> String {
    var trimmed = Substring(path)
    while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
    return String(trimmed.split(separator: "/", omittingEmptySubsequences: true).last ?? trimmed)
  }

  private static func documentName(ofPath path: String) throws(ImportError) -> String {
    let name = documentName(ofFile: lastComponent(of: path))
    try checkDocumentName(name, path: path)
    return name
  }

  /// The document name a file name gives: without one `.md` at its end, as `export` and the
  /// sync layout add it (`Plan.md` is Plan, `notes.txt.md` is notes.txt, `Plan.md.md` is
  /// Plan.md); any other name as it is.
  static func documentName(ofFile name: String) -> String {
    let bytes = Array(name.utf8)
    guard bytes.count > 3, bytes.suffix(3).elementsEqual(".md".utf8) else { return name }
    return String(decoding: bytes.dropLast(3), as: UTF8.self)
  }

  private static func categoryName(ofPath path: String) throws(ImportError) -> String {
    let name = lastComponent(of: path)
    guard name != ".", name != "..", name != "/" else {
      throw .folderWithoutName(path: path)
    }
    let valid: Name
    do {
      valid = try Name(name)
    } catch {
      throw .invalidCategoryName(path: path, error)
    }
    guard valid.text == name else {
      throw .nameWithBlanks(path: path, kind: "category")
    }
    return name
  }

  /// Refuses a file name that is not exactly a valid document name: trimming it would
  /// change it, so the round trip through export would not give it back.
  private static func checkDocumentName(_ name: String, path: String) throws(ImportError) {
    let valid: Name
    do {
      valid = try Name(name)
    } catch {
      throw .invalidDocumentName(path: path, error)
    }
    guard valid.text == name else {
      throw .nameWithBlanks(path: path, kind: "document")
    }
  }

  // MARK: - Reading

  private static func read(_ file: Int32, path: String, name: String) throws(ImportError)
    -> ImportedFile
  {
    var status = stat()
    guard fstat(file, &status) == 0 else { throw failure(path, errno) }
    guard status.st_mode & S_IFMT == S_IFREG else {
      throw .notRegularFile(path: path)
    }
    let bytes: [UInt8]
    do {
      bytes = try SystemFileSystem().readToEnd(file)
    } catch {
      throw failure(path, error.code)
    }
    guard let content = String(validating: bytes, as: UTF8.self) else {
      throw .notUTF8(path: path)
    }
    let modified =
      Int64(status.st_mtim.tv_sec) * 1000 + Int64(status.st_mtim.tv_nsec) / 1_000_000
    return ImportedFile(
      path: path, name: name, content: content,
      modified: Timestamp(millisecondsSince1970: modified))
  }

  /// The names in the folder `folder` (not `.` and `..`), as bytes, sorted.
  private static func entries(of folder: Int32, path: String) throws(ImportError) -> [[UInt8]] {
    // fdopendir takes the descriptor over; give it its own (close-on-exec, as every other).
    let copy = fcntl(folder, F_DUPFD_CLOEXEC, 0)
    guard copy >= 0 else { throw failure(path, errno) }
    guard let directory = fdopendir(copy) else {
      let code = errno
      close(copy)
      throw failure(path, code)
    }
    defer { closedir(directory) }
    var names: [[UInt8]] = []
    while true {
      errno = 0
      guard let entry = readdir(directory) else {
        if errno != 0 { throw failure(path, errno) }
        break
      }
      let name = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
      if name == [0x2E] || name == [0x2E, 0x2E] { continue }
      names.append(name)
    }
    return names.sorted { $0.lexicographicallyPrecedes($1) }
  }

  private static func failure(_ path: String, _ code: Int32) -> ImportError {
    .system(path: path, errno: code)
  }
}
