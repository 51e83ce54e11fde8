#include "CDBus.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

static pthread_once_t once = PTHREAD_ONCE_INIT;
static struct cdbus_functions functions;
static const struct cdbus_functions *loaded;
static char message[512];

static void load(void) {
    void *library = dlopen("libdbus-1.so.3", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        snprintf(message, sizeof message, "%s", dlerror());
        return;
    }
#define CDBUS_RESOLVE(name)                                                            \
    if ((functions.name = (__typeof__(name) *)dlsym(library, #name)) == NULL) {        \
        snprintf(message, sizeof message, "libdbus-1.so.3 has no function %s", #name); \
        return;                                                                        \
    }
    CDBUS_FUNCTIONS(CDBUS_RESOLVE)
#undef CDBUS_RESOLVE
    loaded = &functions;
}

const struct cdbus_functions *cdbus_load(const char **failure) {
    pthread_once(&once, load);
    *failure = loaded == NULL ? message : NULL;
    return loaded;
}
