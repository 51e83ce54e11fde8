#include "CLibical.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

static pthread_once_t once = PTHREAD_ONCE_INIT;
static struct clibical_functions functions;
static const struct clibical_functions *loaded;
static char message[512];

static void load(void) {
    void *library = dlopen("libical.so.3", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        snprintf(message, sizeof message, "%s", dlerror());
        return;
    }
#define CLIBICAL_RESOLVE(name)                                                        \
    if ((functions.name = (__typeof__(name) *)dlsym(library, #name)) == NULL) {       \
        snprintf(message, sizeof message, "libical.so.3 has no function %s", #name); \
        return;                                                                       \
    }
    CLIBICAL_FUNCTIONS(CLIBICAL_RESOLVE)
#undef CLIBICAL_RESOLVE
    loaded = &functions;
}

const struct clibical_functions *clibical_load(const char **failure) {
    pthread_once(&once, load);
    *failure = loaded == NULL ? message : NULL;
    return loaded;
}
