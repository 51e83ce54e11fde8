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
enum { PARSER_OPTIONS = (1 << 5) | (1 << 6) | (1 << 11) | (1 << 14) };

/* libxml2's xmlSAXHandler (parser.h), as it has been laid out since 2.6:
 * the SAX1 callbacks, then `initialized`, then the SAX2 ones. Only the
 * callbacks set below are used; a NULL one is skipped by libxml2. */
struct sax_handler {
    void *sax1_before_characters[17];
    void (*characters)(void *, const clibxml2_char *, int);
    void (*ignorable_whitespace)(void *, const clibxml2_char *, int);
    void *sax1_after_characters[6];
    void (*cdata_block)(void *, const clibxml2_char *, int);
    void *external_subset;
    unsigned int initialized;
    void *private_data;
    void (*start_element_ns)(void *, const clibxml2_char *, const clibxml2_char *, const clibxml2_char *, int, const clibxml2_char **, int,
                             int, const clibxml2_char **);
    void (*end_element_ns)(void *, const clibxml2_char *, const clibxml2_char *, const clibxml2_char *);
    void (*structured_error)(void *, void *);
};

/* XML_SAX2_MAGIC: the handler has the SAX2 callbacks above. */
enum { SAX2_MAGIC = 0xDEEDBEAF };

static void push_start(void *user, const clibxml2_char *name, const clibxml2_char *prefix, const clibxml2_char *uri, int namespaces,
                       const clibxml2_char **declared, int attributes, int defaulted, const clibxml2_char **values) {
    (void)prefix;
    (void)namespaces;
    (void)declared;
    (void)attributes;
    (void)defaulted;
    (void)values;
    const struct clibxml2_push_events *events = user;
    events->start(events->context, name, uri);
}

static void push_end(void *user, const clibxml2_char *name, const clibxml2_char *prefix, const clibxml2_char *uri) {
    (void)prefix;
    const struct clibxml2_push_events *events = user;
    events->end(events->context, name, uri);
}

static void push_text(void *user, const clibxml2_char *bytes, int size) {
    const struct clibxml2_push_events *events = user;
    events->text(events->context, bytes, size);
}

static void push_quiet(void *user, void *error) {
    (void)user;
    (void)error;
}

static const struct sax_handler push_handler = {
    .characters = push_text,
    .ignorable_whitespace = push_text,
    .cdata_block = push_text,
    .initialized = SAX2_MAGIC,
    .start_element_ns = push_start,
    .end_element_ns = push_end,
    .structured_error = push_quiet,
};

clibxml2_parser *clibxml2_push_open(const struct clibxml2_functions *functions, const struct clibxml2_push_events *events) {
    /* libxml2 copies the handler; `events` is the parser's user data. */
    clibxml2_parser *parser = functions->xmlCreatePushParserCtxt((void *)&push_handler, (void *)events, NULL, 0, NULL);
    if (parser != NULL) functions->xmlCtxtUseOptions(parser, PARSER_OPTIONS);
    return parser;
}
