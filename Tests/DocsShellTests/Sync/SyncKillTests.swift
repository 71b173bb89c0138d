import DocsKit
import DocsTestSupport
import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// A real `docsh -c sync` killed with SIGKILL — docsh and every git it runs, as one process
/// group — at random moments, again and again; after every kill the store loads and holds
/// every saved change, and at the end one more sync on each side finishes the job.
/// `DOCSH_SYNC_KILLS` sets how many kills (24 by default), `DOCSH_SYNC_SEED` the seed.
@Suite struct SyncKillTests {
  @Test func aSyncKilledAtRandomMomentsLosesNothingAndTheNextSyncFinishesTheJob() throws {
    let kills = TwoMachines.setting("DOCSH_SYNC_KILLS", else: 24)
    let seed = TwoMachines.setting("DOCSH_SYNC_SEED", else: UInt64(0x4B1_11ED))
    var random = SeededGenerator(seed: seed)
    let machines = try TwoMachines("syncKill")
    let (sandbox, remote, laptop, desktop) = (
      machines.sandbox, machines.remote, machines.laptop, machines.desktop
    )
    let git = try WrappedGit(in: sandbox.folder.path("bin"))
    let remoteSide = try RemoteSide(in: sandbox.folder.path("bin"))

    try laptop.succeed(
      "mkdir Work Home; new Work/l0 start; new Work/l1 start; new Home/d0 start; "
        + "new Home/d1 start; sync '\(remote)'")
    try desktop.sync(remote)
    // The remote's side of a push runs on when the laptop is killed, as a server's would.
    try laptop.git(["config", "remote.origin.receivepack", remoteSide.command])
    /// What the laptop saved last in each of its documents; what the desktop ever saved in
    /// each of its.
    var laptopSaved = ["Work/l0": "start", "Work/l1": "start"]
    var desktopSaved: [String: Set<String>] = ["Home/d0": ["start"], "Home/d1": ["start"]]

    // How long a sync that merges takes here, to its first git call and to its end: the
    // kills are spread over that.
    try desktop.succeed("write Home/d0 'desktop 0'; sync")
    desktopSaved["Home/d0", default: []].insert("desktop 0")
    try laptop.succeed("write Work/l0 'laptop 0'")
    laptopSaved["Work/l0"] = "laptop 0"
    try git.reset()
    let (toFirstCall, toEnd) = try SyncKillTests.timeASync(of: laptop, with: git)

    var landed = 0
    // The span kills fall in: a sync timed on a loaded machine may run faster later, so a
    // kill that came after the sync ended narrows it (never below the first git call).
    var span = toEnd
    var callsAtKills: Set<Int> = []
    var round = 0
    while landed < kills && round < kills * 3 {
      round += 1
      // A change saved on each side; every other round the desktop pushes its changes, so
      // that the laptop's sync has something to merge.
      let laptopDocument = "Work/l\(round % 2)"
      try laptop.succeed("write \(laptopDocument) 'laptop \(round)'")
      laptopSaved[laptopDocument] = "laptop \(round)"
      let desktopDocument = "Home/d\(round % 2)"
      try desktop.succeed(
        "write \(desktopDocument) 'desktop \(round)'" + (round % 2 == 0 ? "; sync" : ""))
      desktopSaved[desktopDocument, default: []].insert("desktop \(round)")
      remoteSide.waitUntilIdle()
      // Time passes: what a killed git left is old by the next sync, as after a real crash.
      try SyncKillTests.ageLeftovers(of: laptop)

      try git.reset()
      let sync = try SyncKillTests.startSync(of: laptop, with: git)
      // Every other kill waits for the first git call, so that kills fall across the sync
      // however slowly the process starts on a loaded machine; the others land anywhere from
      // the start.
      if round % 2 == 1 {
        let deadline = DispatchTime.now().uptimeNanoseconds + 10_000_000_000
        while sync.isRunning, git.calls().isEmpty,
          DispatchTime.now().uptimeNanoseconds < deadline
        {
          usleep(500)
        }
        usleep(UInt32.random(in: 0..<max(1, span - toFirstCall), using: &random))
      } else {
        usleep(UInt32.random(in: 0..<max(1, span), using: &random))
      }
      let calls = git.calls()
      if sync.isRunning {
        landed += 1
        callsAtKills.insert(calls.count)
      } else {
        span = max(toFirstCall + 1, span * 3 / 4)
      }
      sync.killGroup()
      // Where the kills fell, for the message of a failure.
      let place =
        "seed \(seed), round \(round), killed after \(calls.count) git calls (the last: "
        + "\(calls.last ?? "none"))"

      let contents: [String: String]
      do {
        contents = try laptop.contents()
      } catch {
        Issue.record("\(place): the store does not load: \(error)")
        return
      }
      for (path, content) in laptopSaved {
        #expect(contents[path] == content, "\(place): \(path) lost what the laptop saved")
      }
      for (path, values) in desktopSaved {
        #expect(
          values.contains(contents[path] ?? ""), "\(place): \(path) holds what nobody saved")
      }
      #expect(
        Set(contents.keys) == Set(["Work/", "Home/"] + laptopSaved.keys + desktopSaved.keys),
        "\(place): \(contents.keys.sorted())")
      #expect(try laptop.git(["fsck", "--no-progress"]).succeeded, "\(place): git fsck")
    }
    #expect(landed >= kills, "only \(landed) kills landed during a sync")
    // The kills fell at different points of the sync.
    #expect(callsAtKills.count >= 3, "kills after these numbers of git calls: \(callsAtKills)")

    // One more sync on each side finishes the job.
    remoteSide.waitUntilIdle()
    try SyncKillTests.ageLeftovers(of: laptop)
    let finish = try laptop.run("sync")
    #expect(finish.status == 0, "the sync after the last kill: \(finish.errors)")
    try desktop.sync()
    try laptop.sync()
    let expected = try laptop.contents()
    #expect(try desktop.contents() == expected)
    for (path, content) in laptopSaved { #expect(expected[path] == content, "\(path)") }
    let lastOfDesktop = (1...round).reversed().reduce(into: [String: String]()) { last, round in
      let path = "Home/d\(round % 2)"
      if last[path] == nil { last[path] = "desktop \(round)" }
    }
    for (path, content) in lastOfDesktop { #expect(expected[path] == content, "\(path)") }
    #expect(try laptop.headHoldsTheStore())
    #expect(try desktop.headHoldsTheStore())
    #expect(try laptop.sync() == "Synced: 0 changes in, 0 out.\n")
  }

  /// Starts `docsh -c sync` on `machine`, in a process group of its own, with `git` on its
  /// `PATH`.
  static func startSync(of machine: SyncMachine, with git: WrappedGit) throws -> KillableProcess {
    try KillableProcess(
      DocshProcess.executable.path, ["--store", machine.storePath, "-c", "sync"],
      environment: machine.environment.merging(git.environment) { $1 }.merging([
        "HOME": machine.home, "TZ": "UTC", "LANG": "C.UTF-8", "NO_COLOR": "1",
        // A run folds the save log before it ends, so that a test reads the file at once
        // (the background fold has tests of its own).
        "DOCSH_FOLD": "foreground",
      ]) { $1 })
  }

  /// Runs `machine`'s sync once, not killed, with `git` on its `PATH`: how many
  /// microseconds it took to its first git call and to its end.
  static func timeASync(of machine: SyncMachine, with git: WrappedGit) throws -> (UInt32, UInt32) {
    let start = DispatchTime.now().uptimeNanoseconds
    let sync = try startSync(of: machine, with: git)
    var firstCall: UInt64?
    while sync.isRunning {
      if firstCall == nil, !git.calls().isEmpty { firstCall = DispatchTime.now().uptimeNanoseconds }
      usleep(500)
    }
    let end = DispatchTime.now().uptimeNanoseconds
    let microseconds = { (nanoseconds: UInt64) in UInt32(min(nanoseconds / 1000, 10_000_000)) }
    return (microseconds((firstCall ?? start) - start), microseconds(end - start))
  }

  /// Sets the modification time of what a killed git leaves in `machine`'s repository a
  /// minute back: every `*.lock` file of its git folder, and the temporary files of a merge
  /// driver (`.merge_file_XXXXXX`) at the top of its work tree.
  static func ageLeftovers(of machine: SyncMachine) throws {
    let then = Date(timeIntervalSinceNow: -60)
    let gitFolder = machine.folder + "/.git"
    var paths: [String] = []
    if let walker = FileManager.default.enumerator(atPath: gitFolder) {
      for case let path as String in walker where path.hasSuffix(".lock") {
        paths.append(gitFolder + "/" + path)
      }
    }
    for name in try FileManager.default.contentsOfDirectory(atPath: machine.folder)
    where name.hasPrefix(".merge_file_") {
      paths.append(machine.folder + "/" + name)
    }
    for path in paths {
      try FileManager.default.setAttributes([.modificationDate: then], ofItemAtPath: path)
    }
  }
}

/// The remote's end of a push (`git-receive-pack`) run in a session of its own, so that a
/// kill of the pushing docsh does not reach it, holding a lock file while it runs.
struct RemoteSide {
  let lock: String
  let script: String

  init(in folder: String) throws {
    lock = folder + "/receive-pack.lock"
    script = folder + "/receive-pack"
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    try Data("#!/bin/sh\nexec setsid flock '\(lock)' git-receive-pack \"$@\"\n".utf8).write(
      to: URL(fileURLWithPath: script))
    try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script)
  }

  /// What `remote.origin.receivepack` says.
  var command: String { "'" + script + "'" }

  /// Waits until no receive-pack started this way runs. Two minutes of it is a hang, and
  /// fails the test; ten seconds, as before, went on with a push still running on a loaded
  /// machine.
  func waitUntilIdle() {
    let file = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
    guard file >= 0 else { return }
    defer { close(file) }
    for _ in 0..<120_000 {
      if flock(file, LOCK_EX | LOCK_NB) == 0 { return }
      usleep(1_000)
    }
    Issue.record("a receive-pack still ran after two minutes")
  }
}

/// A program started in a process group of its own, so that one kill reaches everything it
/// started.
final class KillableProcess {
  let pid: pid_t
  private var status: Int32?

  /// Starts `path` with `arguments` and exactly `environment`; output goes nowhere.
  init(_ path: String, _ arguments: [String], environment: [String: String]) throws {
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var all = sigset_t()
    sigfillset(&all)
    posix_spawnattr_setsigdefault(&attributes, &all)
    var none = sigset_t()
    sigemptyset(&none)
    posix_spawnattr_setsigmask(&attributes, &none)
    posix_spawnattr_setpgroup(&attributes, 0)
    posix_spawnattr_setflags(
      &attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    for descriptor: Int32 in [0, 1, 2] {
      posix_spawn_file_actions_addopen(
        &actions, descriptor, "/dev/null", descriptor == 0 ? O_RDONLY : O_WRONLY, 0)
    }
    let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
    let envp: [UnsafeMutablePointer<CChar>?] =
      environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer { (argv + envp).forEach { free($0) } }
    var pid = pid_t()
    let result = posix_spawn(&pid, path, &actions, &attributes, argv, envp)
    guard result == 0 else { throw SandboxError("posix_spawn \(path): \(result)") }
    self.pid = pid
  }

  /// Whether it has not ended yet.
  var isRunning: Bool {
    guard status == nil else { return false }
    var raw: Int32 = 0
    guard waitpid(pid, &raw, WNOHANG) == pid else { return true }
    status = raw
    return false
  }

  /// Kills the whole group with SIGKILL and waits until none of it runs any more.
  func killGroup() {
    kill(-pid, SIGKILL)
    if status == nil {
      var raw: Int32 = 0
      waitpid(pid, &raw, 0)
      status = raw
    }
    // Its other members are reaped by init; wait until none is left but zombies.
    var waited = 0
    while waited < 10_000, KillableProcess.groupHasLivingMembers(pid) {
      usleep(1_000)
      waited += 1
    }
  }

  /// Whether a process of group `group` is alive (not a zombie), as `/proc` shows.
  static func groupHasLivingMembers(_ group: pid_t) -> Bool {
    guard let processes = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else {
      return false
    }
    for name in processes where name.allSatisfy(\.isNumber) {
      guard let stat = try? String(contentsOfFile: "/proc/\(name)/stat", encoding: .utf8),
        let close = stat.lastIndex(of: ")")
      else { continue }
      // "PID (COMMAND) STATE PPID PGRP …"; the command may hold spaces and parentheses.
      let fields = stat[stat.index(after: close)...].split(separator: " ")
      guard fields.count > 2, fields[2] == "\(group)" else { continue }
      if fields[0] != "Z" { return true }
    }
    return false
  }
}
