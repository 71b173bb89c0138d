import Foundation
import Testing

/// A run whose index describes the store opens without reading its category list: `cd`,
/// `ls`, `pwd` and `tags` answer as a run that read the whole list (the first open, which
/// builds the index), and so do the commands that read the list when they start.
@Suite struct DeferredCategoryListProcessTests {
  static let commands = [
    "cd Alpha; ls; pwd; tags; ls /Beta; ls /beta; cd /Beta; pwd; ls; ls /",
    "ls /Nope",
    "cd Nope",
    "ls /Beta; find t",
    "cd Alpha; new four more; ls; undo; ls",
  ]

  @Test(arguments: commands)
  func aRunFromTheIndexAnswersAsARunThatBuiltIt(commands: String) throws {
    let folder = try DocshProcess.Folder()
    let store = folder.path("store.json")
    let home = folder.path("home")
    let environment = ["DOCSH_TEST_NOW": "1700000000"]
    let seed = try DocshProcess.run(
      [
        "-s", store, "-c",
        "mkdir Alpha; mkdir Beta; new Alpha/one hello; new Alpha/two hi there; tag Alpha/one x; new Beta/three b",
      ], environment: environment.merging(["XDG_CACHE_HOME": folder.path("seed")]) { $1 },
      home: home)
    #expect(seed.status == 0, "\(seed.errors)")
    let cache = ["XDG_CACHE_HOME": folder.path("cache")].merging(environment) { $1 }
    // The first run builds the index and reads every category; the second finds it.
    let building = try DocshProcess.run(
      ["--no-save", "-s", store, "-c", commands], environment: cache, home: home)
    let deferred = try DocshProcess.run(
      ["--no-save", "-s", store, "-c", commands], environment: cache, home: home)
    #expect(deferred.output == building.output)
    #expect(deferred.errors == building.errors)
    #expect(deferred.status == building.status)
    if commands.hasPrefix("cd Alpha; ls") {
      #expect(building.output.contains("/Alpha\nx  1\nthree"))
    } else if commands.hasPrefix("ls /Nope") {
      #expect(building.errors.contains("no category named \"Nope\""))
      #expect(building.status != 0)
    }
  }
}
