#include "CExecutorHook.h"

#include <stddef.h>

// The runtime's hook, as declared in swift/Runtime/Concurrency.h:
//   SWIFT_CC(swift) void (*swift_task_enqueueGlobal_hook)(Job *job, swift_task_enqueueGlobal_original original);
typedef void (__attribute__((swiftcall)) *enqueue_original)(void *job);
typedef void (__attribute__((swiftcall)) *enqueue_hook)(void *job, enqueue_original original);
extern enqueue_hook swift_task_enqueueGlobal_hook;

static birthdays_enqueue_fn target;

static void __attribute__((swiftcall)) enqueue_on_target(void *job, enqueue_original original) {
    (void)original;
    __atomic_load_n(&target, __ATOMIC_ACQUIRE)(job);
}

bool birthdays_install_global_executor(birthdays_enqueue_fn enqueue) {
    enqueue_hook expected = NULL;
    // Set before the hook is published (the exchange orders it); when the
    // exchange fails the hook is someone else's and `target` is never read.
    __atomic_store_n(&target, enqueue, __ATOMIC_RELEASE);
    return __atomic_compare_exchange_n(&swift_task_enqueueGlobal_hook, &expected, enqueue_on_target, false,
                                       __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}

bool birthdays_global_executor_installed(void) {
    return __atomic_load_n(&swift_task_enqueueGlobal_hook, __ATOMIC_ACQUIRE) == enqueue_on_target;
}
