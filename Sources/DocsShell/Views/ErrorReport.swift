import DocsKit

/// The exit statuses of docsh.
enum ExitStatus: Int32, Sendable {
  case success = 0
  /// A command failed.
  case commandFailed = 1
  /// The command line was wrong.
  case badInvocation = 2
  /// The store could not be read or written.
  case storeFailed = 3
  /// Ctrl-C stopped it: 128 + SIGINT, as shells report a command that SIGINT ended.
  case interrupted = 130
}

/// Any error as docsh shows it: one line of text and the exit status it stands for. The one
/// place that decides both, whoever caught the error (swift-argument-parser's `MessageInfo`).
struct ErrorReport: Sendable {
  /// The one line that says what went wrong, without any prefix.
  let message: String
  /// The status a run that ends with this error exits with.
  let exitStatus: ExitStatus

  /// The report of `error`: shell and model errors by their descriptions; a store that
  /// cannot be read or written exits 3, a bad command line 2, Ctrl-C 130, anything else 1.
  init(_ error: any Error) {
    switch error {
    case let error as ShellError:
      message = error.description
      exitStatus = ErrorReport.status(of: error)
    case let error as ContextError:
      message = error.description
      exitStatus = ErrorReport.status(of: error)
    case let error as StoreError:
      message = error.description
      exitStatus = .storeFailed
    case let error as SyncError:
      message = error.description
      exitStatus = ErrorReport.status(of: error)
    case let error as InvocationError:
      message = error.description
      exitStatus = .badInvocation
    default:
      message = "\(error)"
      exitStatus = .commandFailed
    }
  }

  private static func status(of error: ShellError) -> ExitStatus {
    switch error {
    case .context(let error): return status(of: error)
    case .failedInSourcedFile(_, _, let inner): return inner.exitStatus
    case .interrupted: return .interrupted
    default: return .commandFailed
    }
  }

  /// A store lost in its repository, or one that cannot be read or written, is exit 3;
  /// every other failure of git or of a sync is a command that failed.
  private static func status(of error: SyncError) -> ExitStatus {
    switch error {
    case .storeMissing, .storeDamaged, .storeMaybeLost, .store: return .storeFailed
    default: return .commandFailed
    }
  }

  private static func status(of error: ContextError) -> ExitStatus {
    switch error {
    case .store: return .storeFailed
    case .interrupted: return .interrupted
    default: return .commandFailed
    }
  }
}

/// Writes errors to standard error the one way docsh does: one line each, escaped when it
/// goes to a terminal, the label colored when colors are on.
struct ErrorReporter {
  /// Where errors go.
  let errors: TextOutput
  /// The colors of the label.
  let colors: Colors

  /// Reports `error` as `error: MESSAGE`, or `WHERE: error: MESSAGE` for a line of a script
  /// (`tour.docsh:3`) or docsh itself (`docsh`); returns the exit status it stands for.
  @discardableResult
  func report(_ error: any Error, at location: String? = nil) -> ExitStatus {
    let report = ErrorReport(error)
    let prefix = location.map { escaped($0) + ": " } ?? ""
    errors.writeLine(prefix + colors.styled("error:", .error) + " " + escaped(report.message))
    errors.flush()
    return report.exitStatus
  }

  /// Reports a command line docsh cannot run: `docsh: MESSAGE` and where to find help.
  func reportBadInvocation(_ error: InvocationError) {
    errors.writeLine("docsh: " + escaped(error.description))
    errors.writeLine("Try 'docsh --help' for more information.")
  }

  private func escaped(_ text: String) -> String {
    errors.isTerminal ? escapedForTerminal(text, allowingNewlinesAndTabs: false) : text
  }
}
