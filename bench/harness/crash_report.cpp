#include "harness/crash_report.h"

#include "harness/errors.h"

#include <execinfo.h>
#include <signal.h>
#include <unistd.h>

#include <cstring>

namespace wb {
namespace {

char g_who[256] = "a wirebench process";  // written before the handlers go in; read only by them
std::function<void(const std::string&)> g_last_words;

void write_text(const char* text) {
  const ssize_t ignored = write(STDERR_FILENO, text, std::strlen(text));
  (void)ignored;
}

void handle_crash(int signal_number) {
  // Only async-signal-safe calls: write, backtrace_symbols_fd (backtrace was primed at install).
  write_text("error: ");
  write_text(g_who);
  write_text(": crashed with signal ");
  char number[16];
  int n = signal_number, i = 15;
  number[i] = '\0';
  do {
    number[--i] = static_cast<char>('0' + n % 10);
    n /= 10;
  } while (n > 0 && i > 0);
  write_text(number + i);
  write_text(" (");
  write_text(sigdescr_np(signal_number) ? sigdescr_np(signal_number) : "unknown");
  write_text("); where it was:\n");
  void* frames[48];
  const int depth = backtrace(frames, 48);
  backtrace_symbols_fd(frames, depth, STDERR_FILENO);
  if (g_last_words) {
    alarm(10);  // SIGALRM's default action ends the process if the unsafe part below deadlocks
    const char* what = sigdescr_np(signal_number);
    // Moved out first: what it calls may clear the hook (abort_job_after_message does).
    const auto last_words = std::move(g_last_words);
    last_words(std::string("crashed with signal ") + (number + i) + " (" + (what ? what : "unknown") + ")");
    _exit(kExitInfrastructure);  // reported and recorded: the run could not measure, as any failure
  }
  signal(signal_number, SIG_DFL);
  raise(signal_number);
}

}  // namespace

void on_crash(std::function<void(const std::string&)> last_words) { g_last_words = std::move(last_words); }

void report_crashes_as(const std::string& who) {
  std::strncpy(g_who, who.c_str(), sizeof g_who - 1);
  void* frames[1];
  backtrace(frames, 1);  // loads libgcc now: the first call may allocate, which a handler must not
  for (int s : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) {
    struct sigaction action {};
    action.sa_handler = handle_crash;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESETHAND | SA_NODEFER;
    sigaction(s, &action, nullptr);
  }
}

}  // namespace wb
