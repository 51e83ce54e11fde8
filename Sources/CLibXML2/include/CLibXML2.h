#ifndef BIRTHDAYS_CLIBXML2_H
#define BIRTHDAYS_CLIBXML2_H

/*
 * libxml2's streaming reader (xmlTextReader), for the WebDAV answers of
 * CardDAV servers, loaded with dlopen("libxml2.so.2") at the first sync.
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
typedef struct clibxml2_reader clibxml2_reader;

/* xmlReaderTypes values the parser looks at. */
enum {
    CLIBXML2_ELEMENT = 1,
    CLIBXML2_TEXT = 3,
    CLIBXML2_CDATA = 4,
    CLIBXML2_SIGNIFICANT_WHITESPACE = 14,
    CLIBXML2_END_ELEMENT = 15
};

#define CLIBXML2_FUNCTIONS(X) \
    X(void, xmlInitParser, (void)) \
    X(clibxml2_reader *_Nullable, xmlReaderForMemory, (const char *buffer, int size, const char *_Nullable url, const char *_Nullable encoding, int options)) \
    X(void, xmlTextReaderSetErrorHandler, (clibxml2_reader *reader, void (*_Nullable handler)(void *_Nullable, const char *_Nullable, int, void *_Nullable), void *_Nullable argument)) \
    X(int, xmlTextReaderRead, (clibxml2_reader *reader)) \
    X(int, xmlTextReaderNodeType, (clibxml2_reader *reader)) \
    X(int, xmlTextReaderIsEmptyElement, (clibxml2_reader *reader)) \
    X(int, xmlTextReaderDepth, (clibxml2_reader *reader)) \
    X(const clibxml2_char *_Nullable, xmlTextReaderConstLocalName, (clibxml2_reader *reader)) \
    X(const clibxml2_char *_Nullable, xmlTextReaderConstNamespaceUri, (clibxml2_reader *reader)) \
    X(const clibxml2_char *_Nullable, xmlTextReaderConstValue, (clibxml2_reader *reader)) \
    X(int, xmlTextReaderGetParserLineNumber, (clibxml2_reader *reader)) \
    X(void, xmlFreeTextReader, (clibxml2_reader *reader))

struct clibxml2_functions {
#define CLIBXML2_FIELD(result, name, parameters) result (*_Nonnull name) parameters;
    CLIBXML2_FUNCTIONS(CLIBXML2_FIELD)
#undef CLIBXML2_FIELD
};

/// Loads libxml2 once, thread-safely, resolves every function above and
/// initializes the parser. The table, or NULL with `*failure` saying why.
const struct clibxml2_functions *_Nullable clibxml2_load(const char *_Nullable *_Nonnull failure);

/// A reader over `size` bytes at `buffer` (which must outlive it), with the
/// options the WebDAV parser wants: no network access, no DTD loading, no
/// entity substitution, CDATA as text, and errors kept quiet (the caller
/// reports them; libxml2 would print them on standard error otherwise).
clibxml2_reader *_Nullable clibxml2_reader_open(const struct clibxml2_functions *functions, const char *buffer, int size);

#pragma clang assume_nonnull end

#endif
