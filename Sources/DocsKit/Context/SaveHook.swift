/// What follows every successful save of a ``Context``: given at `init`, called once the
/// store is written. The one docsh uses, ``GitCommitOnSave``, commits the store.
public protocol SaveHook: AnyObject {
  /// Follows up a save of `context` that wrote its store.
  /// - Returns: a warning when the follow-up failed (the save itself stands), else `nil`.
  func contextDidSave(_ context: Context) -> String?
}
