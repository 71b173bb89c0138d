import Testing

/// The commands that show one document's facts (`info`, `links`, `backlinks`) take their
/// arguments from one declaration: one NAME and `--json`, the same words when there are too
/// many.
@Suite struct DocumentQueryTests {
  /// A session holding Work/Plan, which links to Work/List.
  private func linkedPair() throws -> ShellHarness {
    let harness = try ShellHarness()
    harness.run("mkdir Work; new Work/Plan see [[List]]; new Work/List x")
    return harness
  }

  @Test(arguments: ["info", "links", "backlinks"])
  func twoNamesAreRefusedAsOneTooMany(command: String) throws {
    let result = try linkedPair().run("\(command) Work/Plan Work/List")
    #expect(result.output.isEmpty)
    #expect(
      result.errors
        == "error: \(command): name one document (usage: \(command) [--json] NAME)\n")
  }

  @Test(arguments: ["info", "links", "backlinks"])
  func jsonAndOneNameAreTaken(command: String) throws {
    let result = try linkedPair().run("\(command) --json Work/List")
    #expect(result.errors.isEmpty)
    #expect(result.output.hasPrefix("[") || result.output.hasPrefix("{"))
  }
}
