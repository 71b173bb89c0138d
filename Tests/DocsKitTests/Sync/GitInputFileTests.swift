import Foundation
import Testing

@testable import DocsKit

/// The input of a git process written to a file as it is made: read back whole, from its
/// start, and never left in the temporary folder, even while it is being written.
@Suite struct GitInputFileTests {
  private static func leftOver() throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: SystemGitRunner.temporaryFolder())
      .filter { $0.hasPrefix(".docsh-git-input.") }
  }

  @Test func readsBackEverythingWrittenAndLeavesNoFileBehind() throws {
    let before = try Self.leftOver()
    let input = try GitInputFile(fileSystem: SystemFileSystem())
    var written: [UInt8] = []
    for round in 0..<300 {
      // Past the buffer's megabyte more than once.
      let chunk = [UInt8](repeating: UInt8(round % 251), count: 7_001)
      try input.append(chunk)
      written += chunk
    }
    #expect(Set(try Self.leftOver()).subtracting(before).isEmpty)
    let reader = try input.finish()
    defer { close(reader) }
    let read = try SystemFileSystem().readToEnd(reader)
    #expect(read == written)
  }

  @Test func keepsTheOrderOfChunksLargerThanItsBufferAmongSmallOnes() throws {
    let input = try GitInputFile(fileSystem: SystemFileSystem())
    var written: [UInt8] = []
    for (round, size) in [10, (1 << 20) + 3, 5, 2 << 20, 7].enumerated() {
      let chunk = [UInt8](repeating: UInt8(round + 1), count: size)
      try input.append(chunk)
      written += chunk
    }
    let reader = try input.finish()
    defer { close(reader) }
    #expect(try SystemFileSystem().readToEnd(reader) == written)
  }
}
