import Foundation
import Testing

@testable import DocsShell

@Suite struct PlainLineReaderTests {
  /// Everything a reader gives for `bytes` written into a pipe, up to the end of input.
  static func inputs(
    from bytes: [UInt8], maximumLineLength: Int = PlainLineReader.defaultMaximumLineLength,
    readSize: Int = 65_536
  ) throws -> [LineInput] {
    var descriptors: [Int32] = [0, 0]
    try #require(pipe(&descriptors) == 0)
    let (readEnd, writeEnd) = (descriptors[0], descriptors[1])
    defer { close(readEnd) }
    let writer = Thread {
      bytes.withUnsafeBufferPointer { buffer in
        var offset = 0
        while offset < buffer.count {
          let written = write(
            writeEnd, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
          if written <= 0 { break }
          offset += written
        }
      }
      close(writeEnd)
    }
    writer.start()
    var reader = PlainLineReader(
      fileDescriptor: readEnd, maximumLineLength: maximumLineLength, readSize: readSize)
    var inputs: [LineInput] = []
    while inputs.count < 100_000 {
      let input = reader.readLine(prompt: "ignored> ")
      if input == .endOfInput { break }
      inputs.append(input)
    }
    #expect(reader.readLine(prompt: "") == .endOfInput)
    return inputs
  }

  static func inputs(from text: String, readSize: Int = 65_536) throws -> [LineInput] {
    try inputs(from: Array(text.utf8), readSize: readSize)
  }

  @Test(arguments: [1, 2, 3, 65_536])
  func splitsLines(readSize: Int) throws {
    let inputs = try Self.inputs(from: "ls\ncd Work\r\n\n  spaced  \nlast", readSize: readSize)
    #expect(
      inputs == [.line("ls"), .line("cd Work"), .line(""), .line("  spaced  "), .line("last")])
  }

  @Test(arguments: ["", "\n", "a\n", "a"])
  func handlesTheEnd(_ text: String) throws {
    let expected: [LineInput] = text.isEmpty ? [] : [.line(text.hasPrefix("a") ? "a" : "")]
    #expect(try Self.inputs(from: text) == expected)
  }

  @Test func keepsALoneCarriageReturnInsideALine() throws {
    #expect(try Self.inputs(from: "a\rb\n\r\n") == [.line("a\rb"), .line("")])
  }

  @Test func skipsAByteOrderMarkOnTheFirstLineOnly() throws {
    let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
    let inputs = try Self.inputs(from: bom + Array("ls\n".utf8) + bom + Array("x\n".utf8))
    #expect(inputs == [.line("ls"), .line("\u{FEFF}x")])
  }

  @Test func keepsMultibyteCharactersSplitAcrossReads() throws {
    #expect(try Self.inputs(from: "Café 日本 🙂\n", readSize: 1) == [.line("Café 日本 🙂")])
  }

  @Test func reportsInvalidUTF8AndGoesOn() throws {
    let bytes: [UInt8] =
      Array("ok\n".utf8) + [0x61, 0xFF, 0x0A] + [0xC3, 0x0A] + Array("after\n".utf8)
    #expect(
      try Self.inputs(from: bytes) == [
        .line("ok"), .invalid(reason: "line 2 is not valid UTF-8"),
        .invalid(reason: "line 3 is not valid UTF-8"), .line("after"),
      ])
  }

  @Test func reportsANulByteAndGoesOn() throws {
    let bytes: [UInt8] = [0x61, 0x00, 0x62, 0x0A] + Array("next".utf8)
    #expect(
      try Self.inputs(from: bytes) == [
        .invalid(reason: "line 1 contains a NUL byte"), .line("next"),
      ])
  }

  @Test(arguments: [1, 7, 65_536])
  func discardsTheRestOfAnOverlongLine(readSize: Int) throws {
    let text =
      "short\n" + String(repeating: "x", count: 50) + "\nafter\n"
      + String(repeating: "y", count: 11)
    let inputs = try Self.inputs(from: Array(text.utf8), maximumLineLength: 10, readSize: readSize)
    #expect(
      inputs == [
        .line("short"), .invalid(reason: "line 2 is longer than 10 bytes"), .line("after"),
        .invalid(reason: "line 4 is longer than 10 bytes"),
      ])
  }

  @Test func acceptsALineOfExactlyTheLimit() throws {
    let text = String(repeating: "x", count: 10) + "\r\n" + String(repeating: "y", count: 10)
    let inputs = try Self.inputs(from: Array(text.utf8), maximumLineLength: 10, readSize: 3)
    #expect(
      inputs == [
        .line(String(repeating: "x", count: 10)), .line(String(repeating: "y", count: 10)),
      ])
  }

  @Test func readsAMegabyteLineAndManyLines() throws {
    let big = String(repeating: "z", count: 1 << 20)
    var text = big + "\n"
    for index in 0..<20_000 { text += "line \(index)\n" }
    let inputs = try Self.inputs(from: text)
    #expect(inputs.count == 20_001)
    #expect(inputs.first == .line(big))
    #expect(inputs.last == .line("line 19999"))
  }

  @Test func rejectsALineOverTheDefaultLimit() throws {
    let huge = String(repeating: "z", count: PlainLineReader.defaultMaximumLineLength + 1)
    let inputs = try Self.inputs(from: huge + "\nok\n")
    #expect(
      inputs == [
        .invalid(reason: "line 1 is longer than \(PlainLineReader.defaultMaximumLineLength) bytes"),
        .line("ok"),
      ])
  }

  @Test func countsLines() throws {
    var descriptors: [Int32] = [0, 0]
    try #require(pipe(&descriptors) == 0)
    defer { close(descriptors[0]) }
    _ = "a\nb\n".withCString { write(descriptors[1], $0, 4) }
    close(descriptors[1])
    var reader = PlainLineReader(fileDescriptor: descriptors[0])
    #expect(reader.lineNumber == 0)
    _ = reader.readLine(prompt: "")
    _ = reader.readLine(prompt: "")
    #expect(reader.lineNumber == 2)
  }

  @Test func reportsAReadError() throws {
    var reader = PlainLineReader(fileDescriptor: -1)
    let input = reader.readLine(prompt: "")
    guard case .invalid(let reason) = input else {
      Issue.record("expected .invalid, got \(input)")
      return
    }
    #expect(reason.hasPrefix("cannot read the input: "))
    #expect(reader.readLine(prompt: "") == .endOfInput)
  }
}
