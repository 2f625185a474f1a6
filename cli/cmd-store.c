/* cmd-store.c - cix store: low-level store operations */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "cix.h"

int cmd_store(int argc, char **argv)
{
	return error("not implemented yet");
}
