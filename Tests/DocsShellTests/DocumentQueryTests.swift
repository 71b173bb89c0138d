import Testing

/// The commands that show one document's facts (`info`, `links`, `backlinks`) take their
/// arguments from one declaration: one NAME and `--json`, the same words when there are too
/// many.
@Suite struct DocumentQueryTests {
  @Test(arguments: ["info", "links", "backlinks"])
  func twoNamesAreRefusedAsOneTooMany(command: String) throws {
    let harness = try ShellHarness()
    harness.run("mkdir Work; new Work/Plan see [[List]]; new Work/List x")
    let result = harness.run("\(command) Work/Plan Work/List")
    #expect(result.output.isEmpty)
    #expect(
      result.errors
        == "error: \(command): name one document (usage: \(command) [--json] NAME)\n")
  }

  @Test(arguments: ["info", "links", "backlinks"])
  func jsonAndOneNameAreTaken(command: String) throws {
    let harness = try ShellHarness()
    harness.run("mkdir Work; new Work/Plan see [[List]]; new Work/List x")
    let result = harness.run("\(command) --json Work/List")
    #expect(result.errors.isEmpty)
    #expect(result.output.hasPrefix("[") || result.output.hasPrefix("{"))
  }
}
