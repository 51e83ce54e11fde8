// CLDR plural rules from ICU: the copy of ICU that Foundation already links
// (lib_FoundationICU, every symbol prefixed `swift_`), which ships no headers.
// These are ICU's stable C API (unicode/upluralrules.h), declared as ICU 76
// declares them. If a toolchain renames them, the build fails at link time.
#pragma once
#include <stdint.h>

typedef struct UPluralRules UPluralRules;
typedef uint16_t UChar;
/// U_ZERO_ERROR is 0; failures are positive, warnings negative.
typedef int UErrorCode;

typedef enum {
    UPLURAL_TYPE_CARDINAL = 0,
    UPLURAL_TYPE_ORDINAL = 1,
} UPluralType;

UPluralRules *swift_uplrules_openForType(const char *locale, UPluralType type, UErrorCode *status);
int32_t swift_uplrules_select(const UPluralRules *rules, double number, UChar *keyword, int32_t capacity, UErrorCode *status);
void swift_uplrules_close(UPluralRules *rules);
