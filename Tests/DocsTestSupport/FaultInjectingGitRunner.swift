import DocsKit
import Synchronization

/// A ``GitRunner`` that runs the real git, except that the call a rule picks fails: before
/// git runs (as if the step failed), after it ran (as if docsh were killed right after the
/// step did its work), or git cannot even be started. It can also run another git command
/// just before a call (another machine pushing between a fetch and a push). Every call is
/// recorded.
public final class FaultInjectingGitRunner: GitRunner {
  /// Which call a fault hits.
  public enum Rule: Sendable, CustomStringConvertible {
    /// The nth call (from 1) since arming.
    case call(Int)
    /// The nth call (from 1) of one git command (`push`, `update-ref` …) since arming.
    case command(String, occurrence: Int)

    public var description: String {
      switch self {
      case .call(let number): return "call \(number)"
      case .command(let name, let occurrence): return "\(name) #\(occurrence)"
      }
    }
  }

  /// What happens to that call.
  public enum Fault: Sendable {
    /// git is not run; the call reports status 128 and `fatal: injected failure`.
    case failBefore
    /// git runs, then the call reports status 128 as if its result were lost.
    case failAfter
    /// git cannot be started.
    case cannotLaunch
    /// git runs `arguments` in `folder` first, then the call as asked.
    case runFirst(arguments: [String], folder: String)
  }

  private struct State {
    var rule: Rule?
    var fault: Fault = .failBefore
    var calls: [[String]] = []
    var counts: [String: Int] = [:]
    var injected: [String]?
  }

  private let real: any GitRunner
  private let state = Mutex(State())

  /// The variables `real` sets for every run.
  public var environment: [String: String] { real.environment }

  /// A runner that runs `real` unless a fault is armed.
  public init(wrapping real: any GitRunner) {
    self.real = real
  }

  /// Starts counting calls again; the one `rule` picks gets `fault`.
  public func arm(_ rule: Rule, _ fault: Fault = .failBefore) {
    state.withLock {
      $0.rule = rule
      $0.fault = fault
      $0.calls = []
      $0.counts = [:]
      $0.injected = nil
    }
  }

  /// No more faults; calls are still recorded.
  public func disarm() {
    state.withLock { $0.rule = nil }
  }

  /// The arguments of every call since arming.
  public var calls: [[String]] { state.withLock { $0.calls } }

  /// The arguments of the call the fault hit, if it was reached.
  public var injected: [String]? { state.withLock { $0.injected } }

  /// The git command of `arguments`: the first word that is not an option before it.
  public static func command(of arguments: [String]) -> String {
    var index = 0
    while index < arguments.count {
      let word = arguments[index]
      if word == "-c" || word == "-C" {
        index += 2
      } else if word.hasPrefix("-") {
        index += 1
      } else {
        return word
      }
    }
    return ""
  }

  public func run(
    _ arguments: [String], in folder: String, environment: [String: String], input: [UInt8]?
  ) throws(GitLaunchError) -> GitOutput {
    let fault = state.withLock { state -> Fault? in
      state.calls.append(arguments)
      let command = FaultInjectingGitRunner.command(of: arguments)
      state.counts[command, default: 0] += 1
      guard let rule = state.rule, state.injected == nil else { return nil }
      let hit: Bool
      switch rule {
      case .call(let number): hit = state.calls.count == number
      case .command(let name, let occurrence):
        hit = name == command && state.counts[command] == occurrence
      }
      guard hit else { return nil }
      state.injected = arguments
      return state.fault
    }
    let failure = GitOutput(status: 128, errorOutput: Array("fatal: injected failure\n".utf8))
    switch fault {
    case nil:
      return try real.run(arguments, in: folder, environment: environment, input: input)
    case .failBefore?:
      return failure
    case .failAfter?:
      _ = try real.run(arguments, in: folder, environment: environment, input: input)
      return failure
    case .cannotLaunch?:
      throw .failed("git", errno: 12)
    case .runFirst(let first, let otherFolder)?:
      _ = try real.run(first, in: otherFolder, environment: environment, input: nil)
      return try real.run(arguments, in: folder, environment: environment, input: input)
    }
  }
}
