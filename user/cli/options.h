/* SPDX-License-Identifier: GPL-2.0 */
/* cfctl's options: the table the parser walks and help prints (options.c). */
#ifndef CFCTL_OPTIONS_H
#define CFCTL_OPTIONS_H

#include <stdio.h>

#include "cli/verbs.h"
#include "verbs/verb.h"

/* Prints the help of the options a verb taking the OPT_* bits @opts takes. */
void options_help(FILE *out, unsigned int opts);

/*
 * Parses the verb's options and argument (argv[0] is the verb) into @o.
 * Returns -1 to run the verb, or the exit status to end with.
 */
int parse_verb(const struct verb *v, int argc, char *argv[],
	       struct cfctl_opts *o);

#endif /* CFCTL_OPTIONS_H */
