/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CrowdSec decisions as crowdsec-custom-bouncer writes them with
 * feed_via_stdin: one JSON object per line, the decision's own fields and
 * "action" ("add" or "del").
 */
#ifndef CFCTL_DECISION_H
#define CFCTL_DECISION_H

#include <stdbool.h>
#include <stddef.h>

enum decision_action {
	DECISION_ADD,
	DECISION_DEL,
};

/* The longest "value" kept: an IPv6 prefix is at most 43 characters. */
#define DECISION_VALUE_MAX	64

/**
 * struct decision - the fields of a decision cfctl acts on
 * @action:    add or del
 * @value:     the address or range, as CrowdSec wrote it
 * @scope:     "Ip", "Range", or another scope (cfilter takes the first two)
 * @type:      "ban", or another remedy ("captcha"...)
 * @simulated: true for a decision of a scenario in simulation mode
 * @seconds:   its duration, rounded up to whole seconds; negative once
 *             expired (CrowdSec then sends it with action del)
 */
struct decision {
	enum decision_action	action;
	char			value[DECISION_VALUE_MAX];
	char			scope[16];
	char			type[16];
	bool			simulated;
	long long		seconds;
};

/*
 * Reads one line (without its newline). Returns 0, or -1 with *@why saying
 * what is wrong: not a JSON object, a required field missing or of the
 * wrong kind, a value too long, a duration that is not one.
 */
int decision_parse(const char *line, size_t len, struct decision *d,
		   const char **why);

/* The most types a --types list names. */
#define DECISION_TYPES_MAX	4

/**
 * struct decision_types - the remedies cfctl crowdsec bans for (--types)
 * @n:    how many
 * @name: each, as struct decision's @type holds it; compared without case
 */
struct decision_types {
	unsigned int	n;
	char		name[DECISION_TYPES_MAX][16];
};

/*
 * Reads a --types list: 1 to DECISION_TYPES_MAX names separated by commas
 * ("ban,captcha"), each 1 to 15 of [A-Za-z0-9_-], none twice. Returns 0,
 * or -1 with *@why saying what is wrong.
 */
int decision_types_parse(const char *list, struct decision_types *t,
			 const char **why);

/* Where @type is in @t, or -1 if it is not. */
int decision_type_index(const struct decision_types *t, const char *type);

/*
 * A Go duration ("3h59m58.5s", "-1.5s", "150ms") in whole seconds, rounded
 * away from zero. Returns 0, or -1 if @s is not one or overflows.
 */
int decision_duration(const char *s, long long *seconds);

#endif /* CFCTL_DECISION_H */
