/* Debian's libsqlite3 (libsqlite3-dev), for the command line's Apollo iOS import and export. */
#include <sqlite3.h>
