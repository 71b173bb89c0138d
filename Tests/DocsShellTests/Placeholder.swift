import Testing

@testable import DocsShell

@Suite struct ShellModuleTests {
  @Test func theShellModuleIsTestable() {
    #expect(DocshMain.self == DocshMain.self)
  }
}
