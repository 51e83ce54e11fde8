#ifndef BIRTHDAYS_CDBUS_H
#define BIRTHDAYS_CDBUS_H

/*
 * The libdbus functions birthdays calls (desktop notifications, the wake
 * monitor's logind signals), as pointers filled in by `cdbus_load` the first
 * time a bus is opened, with dlopen("libdbus-1.so.3").
 *
 * Why dlopen: libdbus-1 brings libsystemd, and with it libcap, libgcrypt,
 * libgpg-error, liblzma, libzstd and liblz4: eight libraries that every
 * command mapped and relocated at start-up (about 0.8 ms of CPU each time)
 * while only the daemon's desktop channel, `notifications test` and
 * onboarding talk to a bus. Why our own declarations: the types and
 * functions below are libdbus's stable ABI (libdbus-1.so.3 since 1.0), and
 * declaring them here spares the build libdbus-1-dev's two include paths.
 * Nothing links the functions: every call goes through the table, so a call
 * that bypasses it fails to link.
 */

#include <stdint.h>

typedef uint32_t dbus_uint32_t;
typedef dbus_uint32_t dbus_bool_t;

typedef struct DBusConnection DBusConnection;
typedef struct DBusMessage DBusMessage;

/* Laid out as libdbus's dbus-errors.h and dbus-message.h lay them out (callers allocate them). */
typedef struct DBusError {
    const char *name;
    const char *message;
    unsigned int dummy1 : 1;
    unsigned int dummy2 : 1;
    unsigned int dummy3 : 1;
    unsigned int dummy4 : 1;
    unsigned int dummy5 : 1;
    void *padding1;
} DBusError;

typedef struct DBusMessageIter {
    void *dummy1;
    void *dummy2;
    dbus_uint32_t dummy3;
    int dummy4;
    int dummy5;
    int dummy6;
    int dummy7;
    int dummy8;
    int dummy9;
    int dummy10;
    int dummy11;
    int pad1;
    void *pad2;
    void *pad3;
} DBusMessageIter;

typedef enum { DBUS_BUS_SESSION, DBUS_BUS_SYSTEM, DBUS_BUS_STARTER } DBusBusType;
typedef enum { DBUS_DISPATCH_DATA_REMAINS, DBUS_DISPATCH_COMPLETE, DBUS_DISPATCH_NEED_MEMORY } DBusDispatchStatus;
typedef enum { DBUS_HANDLER_RESULT_HANDLED, DBUS_HANDLER_RESULT_NOT_YET_HANDLED, DBUS_HANDLER_RESULT_NEED_MEMORY } DBusHandlerResult;

typedef DBusHandlerResult (*DBusHandleMessageFunction)(DBusConnection *connection, DBusMessage *message, void *user_data);
typedef void (*DBusFreeFunction)(void *memory);

/* libdbus's type codes (dbus-protocol.h), as plain constants. */
static const int BDBUS_TYPE_INVALID = 0;
static const int BDBUS_TYPE_BYTE = 'y';
static const int BDBUS_TYPE_BOOLEAN = 'b';
static const int BDBUS_TYPE_INT16 = 'n';
static const int BDBUS_TYPE_UINT16 = 'q';
static const int BDBUS_TYPE_INT32 = 'i';
static const int BDBUS_TYPE_UINT32 = 'u';
static const int BDBUS_TYPE_INT64 = 'x';
static const int BDBUS_TYPE_UINT64 = 't';
static const int BDBUS_TYPE_DOUBLE = 'd';
static const int BDBUS_TYPE_STRING = 's';
static const int BDBUS_TYPE_OBJECT_PATH = 'o';
static const int BDBUS_TYPE_SIGNATURE = 'g';
static const int BDBUS_TYPE_ARRAY = 'a';
static const int BDBUS_TYPE_VARIANT = 'v';
static const int BDBUS_TYPE_STRUCT = 'r';
static const int BDBUS_TYPE_DICT_ENTRY = 'e';
static const int BDBUS_MESSAGE_TYPE_SIGNAL = 4;

void dbus_bus_add_match(DBusConnection *connection, const char *rule, DBusError *error);
DBusConnection *dbus_bus_get_private(DBusBusType type, DBusError *error);
dbus_bool_t dbus_bus_register(DBusConnection *connection, DBusError *error);
dbus_bool_t dbus_connection_add_filter(DBusConnection *connection, DBusHandleMessageFunction function, void *user_data,
                                       DBusFreeFunction free_data_function);
void dbus_connection_close(DBusConnection *connection);
DBusDispatchStatus dbus_connection_dispatch(DBusConnection *connection);
void dbus_connection_flush(DBusConnection *connection);
dbus_bool_t dbus_connection_get_is_connected(DBusConnection *connection);
dbus_bool_t dbus_connection_get_unix_fd(DBusConnection *connection, int *fd);
dbus_bool_t dbus_connection_has_messages_to_send(DBusConnection *connection);
DBusConnection *dbus_connection_open_private(const char *address, DBusError *error);
dbus_bool_t dbus_connection_read_write(DBusConnection *connection, int timeout_milliseconds);
void dbus_connection_remove_filter(DBusConnection *connection, DBusHandleMessageFunction function, void *user_data);
dbus_bool_t dbus_connection_send(DBusConnection *connection, DBusMessage *message, dbus_uint32_t *client_serial);
DBusMessage *dbus_connection_send_with_reply_and_block(DBusConnection *connection, DBusMessage *message, int timeout_milliseconds,
                                                       DBusError *error);
void dbus_connection_set_exit_on_disconnect(DBusConnection *connection, dbus_bool_t exit_on_disconnect);
void dbus_connection_unref(DBusConnection *connection);
void dbus_error_free(DBusError *error);
void dbus_error_init(DBusError *error);
dbus_bool_t dbus_error_is_set(const DBusError *error);
void dbus_free(void *memory);
const char *dbus_message_get_interface(DBusMessage *message);
const char *dbus_message_get_member(DBusMessage *message);
const char *dbus_message_get_path(DBusMessage *message);
const char *dbus_message_get_sender(DBusMessage *message);
int dbus_message_get_type(DBusMessage *message);
void dbus_message_iter_abandon_container(DBusMessageIter *iter, DBusMessageIter *sub);
dbus_bool_t dbus_message_iter_append_basic(DBusMessageIter *iter, int type, const void *value);
dbus_bool_t dbus_message_iter_close_container(DBusMessageIter *iter, DBusMessageIter *sub);
int dbus_message_iter_get_arg_type(DBusMessageIter *iter);
void dbus_message_iter_get_basic(DBusMessageIter *iter, void *value);
char *dbus_message_iter_get_signature(DBusMessageIter *iter);
dbus_bool_t dbus_message_iter_init(DBusMessage *message, DBusMessageIter *iter);
void dbus_message_iter_init_append(DBusMessage *message, DBusMessageIter *iter);
dbus_bool_t dbus_message_iter_next(DBusMessageIter *iter);
dbus_bool_t dbus_message_iter_open_container(DBusMessageIter *iter, int type, const char *contained_signature, DBusMessageIter *sub);
void dbus_message_iter_recurse(DBusMessageIter *iter, DBusMessageIter *sub);
DBusMessage *dbus_message_new_method_call(const char *bus_name, const char *path, const char *iface, const char *method);
void dbus_message_set_no_reply(DBusMessage *message, dbus_bool_t no_reply);
void dbus_message_unref(DBusMessage *message);

#define CDBUS_FUNCTIONS(X) \
    X(dbus_bus_add_match) \
    X(dbus_bus_get_private) \
    X(dbus_bus_register) \
    X(dbus_connection_add_filter) \
    X(dbus_connection_close) \
    X(dbus_connection_dispatch) \
    X(dbus_connection_flush) \
    X(dbus_connection_get_is_connected) \
    X(dbus_connection_get_unix_fd) \
    X(dbus_connection_has_messages_to_send) \
    X(dbus_connection_open_private) \
    X(dbus_connection_read_write) \
    X(dbus_connection_remove_filter) \
    X(dbus_connection_send) \
    X(dbus_connection_send_with_reply_and_block) \
    X(dbus_connection_set_exit_on_disconnect) \
    X(dbus_connection_unref) \
    X(dbus_error_free) \
    X(dbus_error_init) \
    X(dbus_error_is_set) \
    X(dbus_free) \
    X(dbus_message_get_interface) \
    X(dbus_message_get_member) \
    X(dbus_message_get_path) \
    X(dbus_message_get_sender) \
    X(dbus_message_get_type) \
    X(dbus_message_iter_abandon_container) \
    X(dbus_message_iter_append_basic) \
    X(dbus_message_iter_close_container) \
    X(dbus_message_iter_get_arg_type) \
    X(dbus_message_iter_get_basic) \
    X(dbus_message_iter_get_signature) \
    X(dbus_message_iter_init) \
    X(dbus_message_iter_init_append) \
    X(dbus_message_iter_next) \
    X(dbus_message_iter_open_container) \
    X(dbus_message_iter_recurse) \
    X(dbus_message_new_method_call) \
    X(dbus_message_set_no_reply) \
    X(dbus_message_unref)

struct cdbus_functions {
#define CDBUS_FIELD(name) __typeof__(name) *name;
    CDBUS_FUNCTIONS(CDBUS_FIELD)
#undef CDBUS_FIELD
};

/// Loads libdbus (libdbus-1.so.3) once, thread-safely, and resolves every
/// function above. The table, or NULL with `*failure` saying what is missing.
const struct cdbus_functions *cdbus_load(const char **failure);

#endif
