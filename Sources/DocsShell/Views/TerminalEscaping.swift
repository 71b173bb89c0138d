import DocsKit

/// `text` made safe to print: control and format characters that could move the cursor,
/// recolor the terminal or reorder what is shown become visible escapes — the rules of
/// ``PrintableText``, which DocsKit applies to names from a remote too.
func escapedForTerminal(_ text: String, allowingNewlinesAndTabs: Bool) -> String {
  PrintableText.escaped(text, allowingNewlinesAndTabs: allowingNewlinesAndTabs)
}
