// The C edge of docsh: libedit's readline-compatible API, plus small accessors for the C
// globals Swift 6 refuses to touch, the SIGINT flag, the key reader that waits for it, what a
// running command reads of that flag, and what the journal of unsaved work needs
// (SIGHUP/SIGTERM, an idle timer).
//
// Declarations only. Every definition, and with them every piece of state that the signal
// handlers, the key reader and Swift share (the flags, the wake-up pipe, the idle timer), is
// in shim.c, compiled once: a `static` variable or a `static inline` function of a header
// gets one copy in every object file that uses it, and an optimized build inlines Swift
// across files, so the copy a caller reached was the optimizer's choice (the release
// binary's idle timer was armed in one copy and read in another, and its SIGTERM handler set
// a flag the key reader never saw).
// Only EditLineReader.swift imports it.
#ifndef DOCSH_CLIBEDIT_SHIM_H
#define DOCSH_CLIBEDIT_SHIM_H

#include <stdio.h>
#include <editline/readline.h>

// MARK: - Completion globals

void docsh_set_attempted_completion_function(rl_completion_func_t *function);
void docsh_set_attempted_completion_over(int over);
void docsh_set_completion_append_character(int character);
const char *docsh_line_buffer(void);
int docsh_point(void);
int docsh_history_length(void);
int docsh_history_base(void);

/// Names the program for `~/.editrc` sections (`docsh:bind ...`).
void docsh_set_readline_name(void);

// MARK: - Reading keys, SIGINT

/// Marks the calling thread as the one about to block in `readline()` and blocks SIGINT in
/// it: from then on SIGINT reaches it only inside the key reader's wait, which lets it
/// through atomically. `docsh_set_reading(0)` restores the mask (a SIGINT still pending is
/// delivered then and only sets the flag).
void docsh_set_reading(int reading);

/// Makes libedit read keys with docsh's key reader (see shim.c). Must come before libedit
/// initialises (the first `using_history()` or `readline()`), which is when it reads the
/// setting.
void docsh_install_key_reader(void);

/// Installs the flag-setting SIGINT handler, with SA_RESTART: interrupted system calls
/// resume, and the line being read ends through the key reader's wait, which no signal
/// restarts.
int docsh_install_sigint_handler(void);

/// Whether SIGINT arrived since the last call; clears the flag.
int docsh_take_sigint(void);

/// Whether SIGINT arrived since the flag was last taken; leaves it set, so that every check
/// of the command running now sees it.
int docsh_sigint_pending(void);

/// Blocks the calling thread until SIGINT arrives (at once when it already has), with no
/// window for a lost signal. For the test seam that holds long work at its first check
/// until Ctrl-C.
void docsh_wait_for_sigint(void);

// MARK: - SIGHUP, SIGTERM and the idle timer (the journal of unsaved work)

/// Installs the recording handler for SIGHUP and SIGTERM (with SA_RESTART, as SIGINT's):
/// it records the signal and wakes the key reader through a pipe.
int docsh_install_termination_handlers(void);

/// The signal (SIGHUP or SIGTERM) that asked the session to end; 0 while none did.
int docsh_pending_termination(void);

/// What the key reader runs after the terminal was idle for the armed time: a C function
/// and the context it is given.
void docsh_set_idle_handler(void (*handler)(void *), void *context);

/// Arms the idle timer: the handler runs once the terminal was idle for `idle_milliseconds`,
/// or `longest_milliseconds` from now at the latest. A negative `idle_milliseconds` disarms it.
void docsh_arm_idle_timer(int idle_milliseconds, int longest_milliseconds);

// MARK: - Output

/// Ends the line libedit left the cursor on.
void docsh_print_newline(void);

/// Whether `readline()` is reading a line now (between `docsh_set_reading(1)` and `(0)`).
int docsh_reading_now(void);

/// Draws the prompt and the line being typed again, from the start of the line the cursor
/// is on: after something was printed while `readline()` waited for a key.
void docsh_redraw_line(void);

#endif
