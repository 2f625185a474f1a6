/* cmd-derivation.c - cix derivation: inspect .drv files */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "cix.h"

int cmd_derivation(int argc, char **argv)
{
	return error("not implemented yet");
}
