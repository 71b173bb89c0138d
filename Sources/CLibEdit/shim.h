#include <editline/readline.h>
