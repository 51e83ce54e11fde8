#include "CLibXML2.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

static pthread_once_t once = PTHREAD_ONCE_INIT;
static struct clibxml2_functions functions;
static const struct clibxml2_functions *loaded;
static char message[512];

static void load(void) {
    void *library = dlopen("libxml2.so.2", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        snprintf(message, sizeof message, "%s", dlerror());
        return;
    }
#define CLIBXML2_RESOLVE(result, name, parameters)                                       \
    if ((*(void **)&functions.name = dlsym(library, #name)) == NULL) {                   \
        snprintf(message, sizeof message, "libxml2.so.2 has no function %s", #name);    \
        return;                                                                          \
    }
    CLIBXML2_FUNCTIONS(CLIBXML2_RESOLVE)
#undef CLIBXML2_RESOLVE
    functions.xmlInitParser();
    loaded = &functions;
}

const struct clibxml2_functions *clibxml2_load(const char **failure) {
    pthread_once(&once, load);
    *failure = loaded == NULL ? message : NULL;
    return loaded;
}

/* XML_PARSE_NOERROR | XML_PARSE_NOWARNING | XML_PARSE_NONET | XML_PARSE_NOCDATA
 * (parser.h, xmlParserOption). Not XML_PARSE_NOENT (entity substitution) nor
 * XML_PARSE_DTDLOAD: an answer never makes libxml2 read a file or the network. */
enum { READER_OPTIONS = (1 << 5) | (1 << 6) | (1 << 11) | (1 << 14) };

static void quiet(void *argument, const char *text, int severity, void *locator) {
    (void)argument;
    (void)text;
    (void)severity;
    (void)locator;
}

clibxml2_reader *clibxml2_reader_open(const struct clibxml2_functions *functions, const char *buffer, int size) {
    clibxml2_reader *reader = functions->xmlReaderForMemory(buffer, size, NULL, NULL, READER_OPTIONS);
    if (reader != NULL) functions->xmlTextReaderSetErrorHandler(reader, quiet, NULL);
    return reader;
}
