#if canImport(Glibc)
  import Glibc
#endif

/// The C library's allocator, as far as docsh asks anything of it.
enum Allocator {
  /// Gives the pages the allocator holds free back to the system, between two phases of a
  /// sync that each hold much of the store (glibc keeps them otherwise, and a resident set
  /// made of the first phase's free pages and the second's live ones is both at once).
  static func returnFreedMemory() {
    #if canImport(Glibc)
      // `malloc_trim` (malloc.h, which the Glibc module leaves out), found where the C
      // library is; a C library without it keeps the pages, which costs nothing but memory.
      typealias Trim = @convention(c) (Int) -> Int32
      if let trim = dlsym(nil, "malloc_trim") {
        _ = unsafeBitCast(trim, to: Trim.self)(0)
      }
    #endif
  }
}
