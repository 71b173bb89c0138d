import Foundation
import Testing

/// Bad input of every kind gets a one-line error, and the store stays byte for byte as it was.
@Suite struct HostileInputTests {
  static let cases: [(name: String, input: [UInt8])] = [
    ("unknown command", Array("frobnicate now\n".utf8)),
    ("unbalanced double quote", Array("mkdir \"Open\n".utf8)),
    ("unbalanced single quote", Array("mkdir 'Open\n".utf8)),
    ("unterminated here-document", Array("new Work/x <<END\nline\nmore\n".utf8)),
    (
      "line over the limit",
      Array(("new Work/huge " + String(repeating: "a", count: 2_000_000) + "\n").utf8)
    ),
    ("invalid UTF-8", [0x6D, 0x6B, 0x64, 0x69, 0x72, 0x20, 0xC3, 0x28, 0x0A]),
    ("NUL byte", Array("mkdir a".utf8) + [0] + Array("b\n".utf8)),
    ("deep path", Array(("ls " + String(repeating: "a/", count: 10_000) + "\n").utf8)),
    ("control characters in a name", Array("mkdir \"bad\u{1b}[2Jname\"\n".utf8)),
    ("option soup", Array("ls -lrs\n".utf8)),
    ("empty quoted name", Array("rm ''\n".utf8)),
  ]

  @Test(arguments: cases.map(\.name))
  func badInputGetsOneLineAndLeavesTheStoreAlone(name: String) throws {
    let input = try #require(HostileInputTests.cases.first { $0.name == name }).input
    let folder = try DocshProcess.Folder()
    let store = folder.path("store.json")
    let seeded = try DocshProcess.run(
      ["-s", store, "-c", "mkdir Work; new Work/keep safe"], home: folder.path("home"))
    #expect(seeded.status == 0)
    let before = try Data(contentsOf: URL(fileURLWithPath: store))
    let script = folder.path("hostile.docsh")
    try Data(input).write(to: URL(fileURLWithPath: script))
    let result = try DocshProcess.run(["-s", store, script], home: folder.path("home"))
    #expect(result.status == 1)
    #expect(result.output.isEmpty)
    let lines = result.errors.split(separator: "\n", omittingEmptySubsequences: false)
    #expect(lines.count == 2 && lines[1].isEmpty, "not one line: \(result.errors.prefix(300))")
    #expect(result.errors.hasPrefix("\(script):"))
    #expect(result.errors.utf8.count < 400)
    #expect(try Data(contentsOf: URL(fileURLWithPath: store)) == before)
  }

  @Test func aOneMegabyteLineIsAccepted() throws {
    let folder = try DocshProcess.Folder()
    let store = folder.path("store.json")
    let text = String(repeating: "é", count: 512 * 1024)
    let result = try DocshProcess.run(
      ["-s", store], input: "mkdir Work\nnew Work/big \(text)\ninfo --json Work/big\n",
      home: folder.path("home"))
    #expect(result.status == 0)
    #expect(result.output.contains("\"size\":1048576"))
  }

  @Test func tenThousandDotDotsStayAtTheTop() throws {
    let folder = try DocshProcess.Folder()
    let path = Array(repeating: "..", count: 10_000).joined(separator: "/")
    let result = try DocshProcess.run(
      ["-s", folder.path("store.json"), "-c", "mkdir Work; cd Work; cd \(path); pwd"],
      home: folder.path("home"))
    #expect(result.status == 0)
    #expect(result.output == "/\n")
  }
}
