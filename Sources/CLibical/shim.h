#ifndef BIRTHDAYS_CLIBICAL_SHIM_H
#define BIRTHDAYS_CLIBICAL_SHIM_H
#include <libical/ical.h>
#endif
