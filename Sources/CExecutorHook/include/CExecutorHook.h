#ifndef CEXECUTORHOOK_H
#define CEXECUTORHOOK_H

#include <stdbool.h>

/// Receives each job Swift concurrency would put on its global executor.
typedef void (*birthdays_enqueue_fn)(void *_Nonnull job);

/// Routes Swift concurrency's global executor to `enqueue` through the
/// runtime's `swift_task_enqueueGlobal_hook`. The symbol is referenced
/// directly rather than looked up with dlsym, so this works whether the Swift
/// runtime is a shared library or linked into the executable. Call it before
/// the first job is enqueued; false if a hook was already installed.
bool birthdays_install_global_executor(birthdays_enqueue_fn _Nonnull enqueue);

/// Whether Swift concurrency's jobs go to the function installed above.
bool birthdays_global_executor_installed(void);

#endif
