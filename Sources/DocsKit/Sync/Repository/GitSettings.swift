// The configuration every git process of docsh runs with: its hardening and its memory bounds.
// ``Git`` gives it to each process it starts.
enum GitSettings {
  /// git's empty tree.
  static let emptyTree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"

  /// The configuration every git process of docsh runs with, given the way git passes
  /// configuration to a process and its children (`GIT_CONFIG_COUNT`), over any other:
  /// - `core.hooksPath=/dev/null`: no hook (not even `reference-transaction`, which
  ///   `update-ref` runs) — nothing can be made below `/dev/null`, unlike an empty folder;
  /// - `fetch.fsckObjects` and `transfer.fsckObjects`: a fetch checks every object it brings
  ///   and refuses the pack when one is malformed (git's own defence against CVE-2014-9390,
  ///   CVE-2018-11235 and their kin);
  /// - `core.attributesFile=/dev/null` and `attr.tree` the empty tree: no attributes from the
  ///   user's file or (git 2.42 on, in a bare repository) from HEAD's tree, so nothing a
  ///   remote commits selects a filter, textconv or merge driver;
  /// - `core.fsmonitor=false`: no monitor program started;
  /// - `core.bigFileThreshold` at the largest document a remote may bring
  ///   (``RemoteRefusal/maximumDocumentSize``): git streams a larger blob as a fetch unpacks
  ///   it instead of holding it whole (512 MiB at git's default), so that a blob of 200 MiB
  ///   that packs small costs its size in memory nowhere.
  ///
  /// `protocol.file.allow` and `safe.directory` stay at git's defaults.
  static let hardening: [(key: String, value: String)] = [
    ("core.hooksPath", "/dev/null"),
    ("fetch.fsckObjects", "true"),
    ("transfer.fsckObjects", "true"),
    ("core.attributesFile", "/dev/null"),
    ("attr.tree", GitSettings.emptyTree),
    ("core.fsmonitor", "false"),
    ("core.bigFileThreshold", String(RemoteRefusal.maximumDocumentSize)),
  ]

  /// The bounds on the memory of every git process docsh starts, so that a sync's git holds
  /// a few tens of megabytes whatever the size of the store or of its history (git's
  /// defaults let one process map a whole pack and cache hundreds of megabytes):
  /// - `core.packedGitWindowSize` and `core.packedGitLimit`: a pack is mapped a megabyte at a
  ///   time, 16 MiB at most at once (defaults: 1 GiB windows, 32 TiB in all), where
  ///   `pack-objects` sending a first push, or `fast-import` reading a fetched pack, had the
  ///   whole pack resident (136 MB of a 129 MB pack);
  /// - `core.deltaBaseCacheLimit`: 16 MiB of inflated delta bases (default 96 MiB) for
  ///   `index-pack`, `fast-import` and every reader of a history's packs;
  /// - `pack.windowMemory`: 16 MiB per thread for `pack-objects`' delta search (default
  ///   unlimited: ten documents of 32 MiB would be held at once), a large document then
  ///   compared with fewer others;
  /// - `pack.deltaCacheSize`: 16 MiB of deltas kept between the search and the writing
  ///   (default 256 MiB); a delta not kept is computed again as it is written.
  ///
  /// They cost no pack's validity, only a little time where git maps or inflates again.
  static let memoryBounds: [(key: String, value: String)] = [
    ("core.packedGitWindowSize", "1m"),
    ("core.packedGitLimit", "16m"),
    ("core.deltaBaseCacheLimit", "16m"),
    ("pack.windowMemory", "16m"),
    ("pack.deltaCacheSize", "16m"),
  ]

  /// `environment` with ``hardening`` and ``memoryBounds`` added after the configuration the
  /// process's or the runner's environment already gives that way (kept: it comes first,
  /// ours wins).
  static func hardened(_ environment: [String: String], runner: any GitRunner) -> [String: String] {
    let given =
      environment["GIT_CONFIG_COUNT"] ?? runner.environment["GIT_CONFIG_COUNT"]
      ?? SystemGitRunner.currentEnvironment()["GIT_CONFIG_COUNT"]
    let first = given.flatMap { Int($0) }.map { max(0, $0) } ?? 0
    let settings = GitSettings.hardening + GitSettings.memoryBounds
    var result = environment
    for (offset, setting) in settings.enumerated() {
      result["GIT_CONFIG_KEY_\(first + offset)"] = setting.key
      result["GIT_CONFIG_VALUE_\(first + offset)"] = setting.value
    }
    result["GIT_CONFIG_COUNT"] = String(first + settings.count)
    return result
  }

  /// Whether git reaches `url` as a repository on local disk, by git's own rule
  /// (`url_is_local_not_ssh`): a `file://` URL, or no colon before the first slash (a colon
  /// first is `host:path` for ssh, or `scheme://`).
  static func isOnThisMachine(url: String) -> Bool {
    if url.hasPrefix("file://") { return true }
    guard let colon = url.firstIndex(of: ":") else { return true }
    guard let slash = url.firstIndex(of: "/") else { return false }
    return slash < colon
  }
}
