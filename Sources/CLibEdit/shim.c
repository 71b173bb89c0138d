// The definitions behind shim.h, and the one copy of the state that the signal handlers, the
// key reader and Swift share: compiled once, so every caller reaches the same flags, pipe and
// timer whatever the optimizer inlines (see shim.h).

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <locale.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <time.h>
#include <unistd.h>
#include <wchar.h>
#include <editline/readline.h>

#include "shim.h"

// MARK: - Completion globals

void docsh_set_attempted_completion_function(rl_completion_func_t *function) {
  rl_attempted_completion_function = function;
}

void docsh_set_attempted_completion_over(int over) {
  rl_attempted_completion_over = over;
}

void docsh_set_completion_append_character(int character) {
  rl_completion_append_character = character;
}

const char *docsh_line_buffer(void) { return rl_line_buffer; }

int docsh_point(void) { return rl_point; }

int docsh_history_length(void) { return history_length; }

int docsh_history_base(void) { return history_base; }

/// Names the program for `~/.editrc` sections (`docsh:bind ...`).
void docsh_set_readline_name(void) { rl_readline_name = "docsh"; }

// MARK: - SIGINT

// The one copy, here: the handler sets them, the key reader and Swift read them.
static volatile sig_atomic_t docsh_sigint_flag = 0;
static volatile sig_atomic_t docsh_is_reading = 0;

/// The thread blocked in `readline()`.
static pthread_t docsh_reading_thread;

/// Sets the flag; when the signal lands on another thread than the one blocked in
/// `readline()`, forwards it there so that thread's `read()` fails with EINTR.
static void docsh_sigint_handler(int signal_number) {
  int saved_errno = errno;
  docsh_sigint_flag = 1;
  if (docsh_is_reading && !pthread_equal(pthread_self(), docsh_reading_thread)) {
    pthread_kill(docsh_reading_thread, signal_number);
  }
  errno = saved_errno;
}

/// The signal mask of the reading thread before `docsh_set_reading(1)`.
static sigset_t docsh_saved_signal_mask;

/// The mask `docsh_read_key` waits with: the saved one, with SIGINT let through.
static sigset_t docsh_waiting_signal_mask;

/// Marks the calling thread as the one about to block in `readline()` and blocks SIGINT in
/// it: from then on SIGINT reaches it only inside `docsh_read_key`'s wait, which lets it
/// through atomically. `docsh_set_reading(0)` restores the mask (a SIGINT still pending is
/// delivered then and only sets the flag).
void docsh_set_reading(int reading) {
  if (reading) {
    sigset_t interrupt;
    sigemptyset(&interrupt);
    sigaddset(&interrupt, SIGINT);
    docsh_reading_thread = pthread_self();
    pthread_sigmask(SIG_BLOCK, &interrupt, &docsh_saved_signal_mask);
    docsh_waiting_signal_mask = docsh_saved_signal_mask;
    sigdelset(&docsh_waiting_signal_mask, SIGINT);
    docsh_is_reading = 1;
  } else {
    docsh_is_reading = 0;
    pthread_sigmask(SIG_SETMASK, &docsh_saved_signal_mask, NULL);
  }
}

// MARK: - SIGHUP, SIGTERM and the idle timer (the journal of unsaved work)

// A closed terminal (SIGHUP) or a `kill` (SIGTERM) ends the session only after it wrote its
// unsaved changes to its recovery journal: the handler only records the signal and wakes
// the key reader through a pipe (a byte stays there until read, so a signal that lands
// just before the wait still ends it); the session notices, writes, and re-raises.
static volatile sig_atomic_t docsh_termination_signal = 0;

/// The pipe the termination handler writes a byte to: [0] read (non-blocking), [1] write.
static int docsh_termination_pipe[2] = {-1, -1};

static void docsh_termination_handler(int signal_number) {
  int saved_errno = errno;
  if (docsh_termination_signal == 0) docsh_termination_signal = signal_number;
  if (docsh_termination_pipe[1] >= 0) {
    ssize_t ignored = write(docsh_termination_pipe[1], "", 1);
    (void)ignored;
  }
  errno = saved_errno;
}

/// Installs the recording handler for SIGHUP and SIGTERM (with SA_RESTART, as SIGINT's).
int docsh_install_termination_handlers(void) {
  if (docsh_termination_pipe[0] < 0) {
    int ends[2];
    if (pipe(ends) != 0) return -1;
    for (int index = 0; index < 2; index++) {
      fcntl(ends[index], F_SETFD, FD_CLOEXEC);
      fcntl(ends[index], F_SETFL, fcntl(ends[index], F_GETFL) | O_NONBLOCK);
      docsh_termination_pipe[index] = ends[index];
    }
  }
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = docsh_termination_handler;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  if (sigaction(SIGHUP, &action, NULL) != 0) return -1;
  return sigaction(SIGTERM, &action, NULL);
}

/// The signal (SIGHUP or SIGTERM) that asked the session to end; 0 while none did.
int docsh_pending_termination(void) { return docsh_termination_signal; }

/// What the key reader runs after the terminal was idle for the armed time: a C function
/// and the context it is given, set from Swift.
static void (*docsh_idle_handler)(void *) = NULL;
static void *docsh_idle_context = NULL;

/// When the idle timer is armed: how long the terminal must stay idle, and the moment
/// (CLOCK_MONOTONIC, in milliseconds) by which it fires even while keys keep coming;
/// idle < 0 when it is not armed.
static long long docsh_idle_timer[2] = {-1, 0};

static long long docsh_monotonic_milliseconds(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (long long)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

void docsh_set_idle_handler(void (*handler)(void *), void *context) {
  docsh_idle_handler = handler;
  docsh_idle_context = context;
}

/// Arms the idle timer: the handler runs once the terminal was idle for `idle_milliseconds`,
/// or `longest_milliseconds` from now at the latest. A negative `idle_milliseconds` disarms it.
void docsh_arm_idle_timer(int idle_milliseconds, int longest_milliseconds) {
  docsh_idle_timer[0] = idle_milliseconds;
  docsh_idle_timer[1] = docsh_monotonic_milliseconds() + longest_milliseconds;
}

/// The wait of the key reader: `pselect` on the terminal and the termination pipe, with the
/// idle timeout when armed. Returns what `pselect` returns; on a timeout (0) it has run the
/// idle handler (disarming the timer first).
static int docsh_wait_for_key(int descriptor, fd_set *readable, const sigset_t *mask) {
  int wake = docsh_termination_pipe[0];
  if (wake >= 0) FD_SET(wake, readable);
  int highest = wake > descriptor ? wake : descriptor;
  long long idle = docsh_idle_timer[0];
  long long wait = idle;
  if (idle >= 0) {
    long long left = docsh_idle_timer[1] - docsh_monotonic_milliseconds();
    if (left < wait) wait = left < 0 ? 0 : left;
  }
  struct timespec timeout = {(time_t)(wait / 1000), (long)(wait % 1000) * 1000000L};
  int result = pselect(highest + 1, readable, NULL, NULL, idle >= 0 ? &timeout : NULL, mask);
  if (result == 0 && idle >= 0) {
    docsh_idle_timer[0] = -1;
    if (docsh_idle_handler != NULL) docsh_idle_handler(docsh_idle_context);
  }
  return result;
}

// MARK: - Reading keys

/// A descriptor of the terminal at `descriptor` of its own, opened non-blocking, so that
/// O_NONBLOCK does not change the descriptor docsh shares with its parent and its pager;
/// -1 when it cannot be opened. Opened once, kept for the life of the process.
static int docsh_private_terminal(int descriptor) {
  static int terminal = -2;  // not opened yet
  if (terminal == -2) {
    const char *name = ttyname(descriptor);
    terminal = name != NULL ? open(name, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC) : -1;
  }
  return terminal;
}

/// libedit's key reader (`rl_getc_function`): one character of `stream`, decoded with the
/// locale (`mbrtowc`, as libedit's own reader does), as its code point; -1 at the end of
/// input, on a read error, or when SIGINT arrived.
///
/// libedit's own reader blocks in `read()`, so a SIGINT that lands while libedit handles a
/// key or redraws (not blocked in `read()`) only sets the flag, and the next `read()` waits
/// for a key with the half-typed line still there. Here SIGINT is blocked (see
/// `docsh_set_reading`) except inside a `pselect` whose mask lets it through only while it
/// waits: a SIGINT that arrived before is delivered as the wait starts and ends it, and the
/// flag is tested before every wait. The read after the wait does not block: Ctrl-C makes
/// the terminal discard its unread input, so a key the wait saw may be gone by the read.
/// No window is left, whoever runs the handler first (libedit's own re-raises the signal to
/// ours). libedit turns -1 into the end of the line: `readline()` returns NULL and drops the
/// line, and the flag tells an interrupt from Ctrl-D.
static int docsh_read_key(FILE *stream) {
  int shared = stream != NULL ? fileno(stream) : STDIN_FILENO;
  int terminal = docsh_private_terminal(shared);
  // Without a descriptor of its own (no terminal name), reads block: the window after the
  // wait stays open there, as narrow as it is.
  int descriptor = terminal >= 0 ? terminal : shared;
  char bytes[MB_LEN_MAX];
  size_t count = 0;
  for (;;) {
    if (docsh_sigint_flag || docsh_termination_signal) {
      errno = EINTR;
      return -1;
    }
    fd_set readable;
    FD_ZERO(&readable);
    FD_SET(descriptor, &readable);
    int waited = docsh_wait_for_key(descriptor, &readable, &docsh_waiting_signal_mask);
    if (waited < 0) {
      if (errno == EINTR) continue;  // SIGINT is seen at the top; SIGWINCH and others resume
      return -1;
    }
    if (waited == 0 || !FD_ISSET(descriptor, &readable)) continue;  // idle, or a signal
    ssize_t got = read(descriptor, bytes + count, 1);
    if (got < 0) {
      if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) continue;
      return -1;
    }
    if (got == 0) return -1;
    count += 1;
    for (;;) {
      wchar_t character;
      mbstate_t state;
      memset(&state, 0, sizeof state);
      size_t used = mbrtowc(&character, bytes, count, &state);
      if (used == (size_t)-2) {
        if (count >= sizeof bytes) count = 0;  // longer than any character: drop it
        break;                                 // incomplete: read another byte
      }
      if (used == (size_t)-1) {
        // Not a character: drop it, keeping the last byte if it may start the next one.
        if (count > 1) {
          bytes[0] = bytes[count - 1];
          count = 1;
          continue;
        }
        count = 0;
        break;
      }
      return (int)character;
    }
  }
}

/// Makes libedit read keys with `docsh_read_key`. Must come before libedit initialises
/// (the first `using_history()` or `readline()`), which is when it reads the setting.
void docsh_install_key_reader(void) { rl_getc_function = docsh_read_key; }

/// Installs the flag-setting SIGINT handler, with SA_RESTART: interrupted system calls
/// resume, and the line being read ends through `docsh_read_key`'s wait, which no signal
/// restarts.
int docsh_install_sigint_handler(void) {
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = docsh_sigint_handler;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  return sigaction(SIGINT, &action, NULL);
}

/// Whether SIGINT arrived since the last call; clears the flag.
int docsh_take_sigint(void) {
  int received = docsh_sigint_flag != 0;
  docsh_sigint_flag = 0;
  return received;
}

// MARK: - SIGINT while a command runs

// Outside `readline()` the handler above only sets the flag: long work polls it (through
// EditLineReader's `CtrlC`) and stops; `docsh_take_sigint` clears it before the next line.

/// Whether SIGINT arrived since the flag was last taken; leaves it set, so that every check
/// of the command running now sees it.
int docsh_sigint_pending(void) { return docsh_sigint_flag != 0; }

/// Blocks the calling thread until SIGINT arrives (at once when it already has), with no
/// window for a lost signal: SIGINT is let through only inside `sigsuspend`, and the
/// handler forwards one landing on another thread, as for `readline()`. For the test seam
/// that holds long work at its first check until Ctrl-C.
void docsh_wait_for_sigint(void) {
  docsh_set_reading(1);
  while (!docsh_sigint_flag) sigsuspend(&docsh_waiting_signal_mask);
  docsh_set_reading(0);
}

// MARK: - Output

int docsh_reading_now(void) { return docsh_is_reading != 0; }

/// libedit's `EL_REFRESH`: it forgets what it drew (the cursor taken to be at the start of
/// a line) and draws the prompt and the buffer again.
void docsh_redraw_line(void) { rl_forced_update_display(); }

/// Ends the line libedit left the cursor on.
void docsh_print_newline(void) {
  FILE *out = rl_outstream != NULL ? rl_outstream : stdout;
  fputc('\n', out);
  fflush(out);
}

