// Placeholder entry point; the real one arrives with the shell.
@main
enum DocshMain {
  static func main() {
    let arguments = CommandLine.arguments.dropFirst()
    if arguments.first == "--version" {
      print("docsh 0.1.0")
    } else {
      print("usage: docsh [OPTIONS] [SCRIPT.docsh]")
    }
  }
}
