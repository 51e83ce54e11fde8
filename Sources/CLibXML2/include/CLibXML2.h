#ifndef BIRTHDAYS_CLIBXML2_H
#define BIRTHDAYS_CLIBXML2_H

/*
 * libxml2's push parser (SAX2, fed an answer piece by piece as it
 * arrives), for the WebDAV answers of CardDAV and CalDAV servers, loaded
 * with dlopen("libxml2.so.2") at the first sync.
 *
 * Why dlopen: libxml2 pulls in the system ICU libraries (several MB), and
 * only a CardDAV sync needs it; linking it (directly or through
 * FoundationXML) would map it into every command and into the idle daemon.
 * Why our own declarations: the few functions below have kept these
 * signatures since libxml2 2.5 (ABI libxml2.so.2), and declaring them here
 * spares the build libxml2-dev's include path. Nothing links them: every
 * call goes through the table that clibxml2_load fills.
 */

#pragma clang assume_nonnull begin

typedef unsigned char clibxml2_char;
typedef struct clibxml2_parser clibxml2_parser;

#define CLIBXML2_FUNCTIONS(X) \
    X(void, xmlInitParser, (void)) \
    X(clibxml2_parser *_Nullable, xmlCreatePushParserCtxt, (void *_Nullable sax, void *_Nullable user, const char *_Nullable chunk, int size, const char *_Nullable filename)) \
    X(int, xmlCtxtUseOptions, (clibxml2_parser *parser, int options)) \
    X(int, xmlParseChunk, (clibxml2_parser *parser, const char *_Nullable chunk, int size, int terminate)) \
    X(void, xmlStopParser, (clibxml2_parser *parser)) \
    X(int, xmlSAX2GetLineNumber, (void *parser)) \
    X(void, xmlFreeParserCtxt, (clibxml2_parser *parser))

struct clibxml2_functions {
#define CLIBXML2_FIELD(result, name, parameters) result (*_Nonnull name) parameters;
    CLIBXML2_FUNCTIONS(CLIBXML2_FIELD)
#undef CLIBXML2_FIELD
};

/// Loads libxml2 once, thread-safely, resolves every function above and
/// initializes the parser. The table, or NULL with `*failure` saying why.
const struct clibxml2_functions *_Nullable clibxml2_load(const char *_Nullable *_Nonnull failure);

/// What a push parser reports, to `context`: an element's start and end
/// (its local name and namespace URI, NULL for none, both NUL-terminated), and
/// its text in pieces (`size` bytes, not terminated; CDATA included).
struct clibxml2_push_events {
    void *_Nullable context;
    void (*_Nonnull start)(void *_Nullable context, const clibxml2_char *name, const clibxml2_char *_Nullable uri);
    void (*_Nonnull end)(void *_Nullable context, const clibxml2_char *name, const clibxml2_char *_Nullable uri);
    void (*_Nonnull text)(void *_Nullable context, const clibxml2_char *bytes, int size);
};

/// A push parser that reports to `events`, with these options (no
/// network, no DTD loading, no entity substitution, errors kept quiet); feed
/// it with xmlParseChunk and free it with xmlFreeParserCtxt. `events` must
/// outlive it.
clibxml2_parser *_Nullable clibxml2_push_open(const struct clibxml2_functions *functions, const struct clibxml2_push_events *events);

#pragma clang assume_nonnull end

#endif
