import Foundation
import Testing

/// What the real binary says when grep meets a content the store cannot decode: the store's
/// one-line error and the exit status of a damaged store; counting lines decodes none and
/// still answers.
@Suite struct GrepDamageProcessTests {
  @Test func grepOnAnUndecodableContentFailsWithTheStoresErrorAndStatus3() throws {
    let folder = try DocshProcess.Folder()
    let home = folder.path("home")
    let store = folder.path("store.json")
    let seed = try DocshProcess.run(
      ["-s", store, "-c", "mkdir Work; new Work/Plan needle one; new Work/List needle BAD; save"],
      home: home)
    #expect(seed.status == 0, "\(seed.errors)")
    var text = try String(contentsOfFile: store, encoding: .utf8)
    text = text.replacingOccurrences(of: "needle BAD", with: "needle \\x")
    try text.write(toFile: store, atomically: false, encoding: .utf8)

    let grep = try DocshProcess.run(["-s", store, "-c", "grep needle"], home: home)
    #expect(grep.status == 3)
    #expect(grep.output.isEmpty)
    #expect(
      grep.errors
        == "-c:1: error: \(store): not a valid docsh store: a content cannot be decoded: invalid escape \\x\n"
    )

    let count = try DocshProcess.run(["-s", store, "-c", "grep -c needle"], home: home)
    #expect(count.status == 0, "\(count.errors)")
    #expect(count.output == "Work/List:1\nWork/Plan:1\n")
  }
}
