// The C edge of docsh: libedit's readline-compatible API, plus small accessors for the C
// globals Swift 6 refuses to touch and the SIGINT flag. Only EditLineReader.swift imports it.
#ifndef DOCSH_CLIBEDIT_SHIM_H
#define DOCSH_CLIBEDIT_SHIM_H

#include <errno.h>
#include <locale.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <editline/readline.h>

// MARK: - Completion globals

static inline void docsh_set_attempted_completion_function(rl_completion_func_t *function) {
  rl_attempted_completion_function = function;
}

static inline void docsh_set_attempted_completion_over(int over) {
  rl_attempted_completion_over = over;
}

static inline void docsh_set_completion_append_character(int character) {
  rl_completion_append_character = character;
}

static inline const char *docsh_line_buffer(void) { return rl_line_buffer; }

static inline int docsh_point(void) { return rl_point; }

static inline int docsh_history_length(void) { return history_length; }

static inline int docsh_history_base(void) { return history_base; }

/// Names the program for `~/.editrc` sections (`docsh:bind ...`).
static inline void docsh_set_readline_name(void) { rl_readline_name = "docsh"; }

// MARK: - SIGINT

// One copy per importing module: only DocsShell's EditLineReader.swift imports this header.
static volatile sig_atomic_t docsh_sigint_flag = 0;
static volatile sig_atomic_t docsh_is_reading = 0;

/// The thread blocked in `readline()`.
static inline pthread_t *docsh_reading_thread_slot(void) {
  static pthread_t thread;
  return &thread;
}

/// Sets the flag; when the signal lands on another thread than the one blocked in
/// `readline()`, forwards it there so that thread's `read()` fails with EINTR.
static inline void docsh_sigint_handler(int signal_number) {
  int saved_errno = errno;
  docsh_sigint_flag = 1;
  if (docsh_is_reading && !pthread_equal(pthread_self(), *docsh_reading_thread_slot())) {
    pthread_kill(*docsh_reading_thread_slot(), signal_number);
  }
  errno = saved_errno;
}

/// The signal mask of the reading thread before `docsh_set_reading(1)`.
static inline sigset_t *docsh_saved_signal_mask(void) {
  static sigset_t mask;
  return &mask;
}

/// Marks the calling thread as the one about to block in `readline()` and lets SIGINT reach
/// it (worker threads often block it); `docsh_set_reading(0)` undoes both.
static inline void docsh_set_reading(int reading) {
  if (reading) {
    sigset_t interrupt;
    sigemptyset(&interrupt);
    sigaddset(&interrupt, SIGINT);
    *docsh_reading_thread_slot() = pthread_self();
    pthread_sigmask(SIG_UNBLOCK, &interrupt, docsh_saved_signal_mask());
    docsh_is_reading = 1;
  } else {
    docsh_is_reading = 0;
    pthread_sigmask(SIG_SETMASK, docsh_saved_signal_mask(), NULL);
  }
}

/// Installs the flag-setting SIGINT handler. Without `restart`, a Ctrl-C makes a blocked
/// `read()` fail with EINTR, so `readline()` returns NULL; with it, system calls resume.
static inline int docsh_install_sigint_handler(int restart) {
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = docsh_sigint_handler;
  sigemptyset(&action.sa_mask);
  action.sa_flags = restart ? SA_RESTART : 0;
  return sigaction(SIGINT, &action, NULL);
}

/// Whether SIGINT arrived since the last call; clears the flag.
static inline int docsh_take_sigint(void) {
  int received = docsh_sigint_flag != 0;
  docsh_sigint_flag = 0;
  return received;
}

// MARK: - Output

/// Ends the line libedit left the cursor on.
static inline void docsh_print_newline(void) {
  FILE *out = rl_outstream != NULL ? rl_outstream : stdout;
  fputc('\n', out);
  fflush(out);
}

#endif
