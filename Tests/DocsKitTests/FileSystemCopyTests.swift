import DocsTestSupport
import Foundation
import Testing

@testable import DocsKit

#if canImport(Glibc)
  import Glibc
#endif

/// `SystemFileSystem.copy`, which saves use for the bytes of unchanged documents: the bytes
/// at the offset land at the destination's end, within one file system and across two
/// (where copy_file_range refuses and sendfile takes over).
@Suite struct FileSystemCopyTests {
  private let fileSystem = SystemFileSystem()

  /// Copies `range` of the file at `source` to the end of the file at `destination`, in
  /// pieces as a save does, and returns what the destination then holds.
  private func copy(_ range: Range<Int>, of source: String, to destination: String) throws
    -> [UInt8]
  {
    let input = open(source, O_RDONLY | O_CLOEXEC)
    let output = open(destination, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    defer {
      close(input)
      close(output)
    }
    try #require(input >= 0 && output >= 0)
    #expect(write(output, "head:", 5) == 5)
    var offset = range.lowerBound
    while offset < range.upperBound {
      let copied = try fileSystem.copy(
        from: input, at: offset, to: output, count: min(4_096, range.upperBound - offset))
      try #require(copied > 0)
      offset += copied
    }
    return Array(try Data(contentsOf: URL(fileURLWithPath: destination)))
  }

  private func device(of path: String) -> UInt? {
    var raw = stat()
    return stat(path, &raw) == 0 ? UInt(raw.st_dev) : nil
  }

  @Test func copiesTheBytesAtTheOffsetToTheEndWithinAndAcrossFileSystems() throws {
    let folder = try TemporaryFolder()
    var generator = SystemRandomNumberGenerator()
    let bytes = (0..<50_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
    let source = folder.path("source")
    try Data(bytes).write(to: URL(fileURLWithPath: source))
    let expected = Array("head:".utf8) + bytes[1_234..<45_678]
    #expect(try copy(1_234..<45_678, of: source, to: folder.path("same")) == expected)
    // Another file system for the source, when this machine has one (tmpfs usually).
    let here = device(of: folder.url.path)
    guard
      let elsewhere = ["/dev/shm", "/run/user/\(getuid())", "/run"].first(where: {
        device(of: $0) != nil && device(of: $0) != here && access($0, W_OK) == 0
      })
    else { return }
    let foreign = elsewhere + "/docsh-copy-test-\(getpid())"
    try Data(bytes).write(to: URL(fileURLWithPath: foreign))
    defer { unlink(foreign) }
    #expect(try copy(1_234..<45_678, of: foreign, to: folder.path("across")) == expected)
  }
}
