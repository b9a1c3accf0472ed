// SPDX-License-Identifier: GPL-2.0
/*
 * An object file with the .BTF_ids layout of include/linux/btf_ids.h, for
 * tests/host/test_btf.sh: a set8 whose functions are listed against their
 * BTF id order, each with its own flags, and single ids outside the set (one
 * function twice). Built with -g and given BTF by pahole -J, then resolved by
 * the kernel's resolve_btfids and by btf/resolve_btfids.
 *
 * -DUNKNOWN_FUNC adds an id of a function the BTF lacks; -DSTRUCT_ID an id
 * of a struct, a kind btf/resolve_btfids refuses.
 */

#define STR(x) #x
#define XSTR(x) STR(x)

#define SET8_START(name)						\
	asm(".pushsection .BTF_ids,\"a\"\n"				\
	    ".local __BTF_ID__set8__" #name "\n"			\
	    "__BTF_ID__set8__" #name ":\n"				\
	    ".zero 4\n"							\
	    ".long 1\n"							\
	    ".popsection\n")

#define SET8_END(name)							\
	asm(".pushsection .BTF_ids,\"a\"\n"				\
	    ".size __BTF_ID__set8__" #name ", .-__BTF_ID__set8__" #name "\n" \
	    ".popsection\n")

#define ID_SYM(kind, name, n) "__BTF_ID__" #kind "__" #name "__" XSTR(n)

#define ID(kind, name, n, tail)						\
	asm(".pushsection .BTF_ids,\"a\"\n"				\
	    ".local " ID_SYM(kind, name, n) "\n"			\
	    ".type " ID_SYM(kind, name, n) ", STT_OBJECT\n"		\
	    ".size " ID_SYM(kind, name, n) ", 4\n"			\
	    ID_SYM(kind, name, n) ":\n"					\
	    ".zero 4\n"							\
	    tail							\
	    ".popsection\n")

#define ID_FLAGS(name, flags) ID(func, name, __LINE__, ".long " #flags "\n")

struct fixture_state {
	int calls;
};

struct fixture_state fixture_state;

/* The set below lists them in neither this order nor pahole's. */
__attribute__((noinline)) int fixture_first(int x)
{
	return x + fixture_state.calls++;
}

__attribute__((noinline)) int fixture_second(int x)
{
	return x * 2 + fixture_state.calls++;
}

__attribute__((noinline)) int fixture_with__in_name(int x)
{
	return x * 3 + fixture_state.calls++;
}

__attribute__((noinline)) int fixture_last(int x)
{
	return x * 4 + fixture_state.calls++;
}

SET8_START(fixture_set);
ID_FLAGS(fixture_last, 0x11);
ID_FLAGS(fixture_first, 0x22);
ID_FLAGS(fixture_with__in_name, 0x33);
ID_FLAGS(fixture_second, 0x44);
SET8_END(fixture_set);

ID(func, fixture_second, 100, "");
ID(func, fixture_second, 101, "");

#ifdef UNKNOWN_FUNC
ID(func, fixture_missing, 102, "");
#endif
#ifdef STRUCT_ID
ID(struct, fixture_state, 103, "");
#endif
