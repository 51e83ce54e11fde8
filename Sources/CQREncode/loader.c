#include "CQREncode.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

static pthread_once_t once = PTHREAD_ONCE_INIT;
static struct cqrencode_functions functions;
static const struct cqrencode_functions *loaded;
static char message[512];

static void load(void) {
    void *library = dlopen("libqrencode.so.4", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        snprintf(message, sizeof message, "%s", dlerror());
        return;
    }
    functions.QRcode_encodeString = (__typeof__(QRcode_encodeString) *)dlsym(library, "QRcode_encodeString");
    functions.QRcode_free = (__typeof__(QRcode_free) *)dlsym(library, "QRcode_free");
    if (functions.QRcode_encodeString == NULL || functions.QRcode_free == NULL) {
        snprintf(message, sizeof message, "libqrencode.so.4 lacks QRcode_encodeString or QRcode_free");
        return;
    }
    loaded = &functions;
}

const struct cqrencode_functions *cqrencode_load(const char **failure) {
    pthread_once(&once, load);
    *failure = loaded == NULL ? message : NULL;
    return loaded;
}
