// A rank that crashes says so in wirebench's words before it goes: which rank on which node, the
// signal, and a backtrace, on stderr (which the launcher forwards), instead of only the launcher's
// "task 0: Segmentation fault".
#pragma once

#include <functional>
#include <string>

namespace wb {

// Installs the handlers (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT) with `who` ("rank 0 on node0")
// as the name they print; outside a run (see on_crash) the signal is then raised again.
void report_crashes_as(const std::string& who);

// What a crash does after its safe report, while set: `last_words` gets "crashed with signal 11
// (Segmentation fault)" to add the peer at fault and record the interrupted case, and the process
// ends with exit code 2 (could not measure), as any other failure of a run. That work is not
// async-signal-safe (a crash inside malloc could deadlock it), so an alarm ends the process after
// 10 seconds whatever happens: nothing hangs. Empty to clear: the signal is raised again.
void on_crash(std::function<void(const std::string&)> last_words);

}  // namespace wb
