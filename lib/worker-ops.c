/* worker-ops.c - the worker protocol's operation names */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "worker-ops.h"

const char *cix_worker_op_name(uint64_t op)
{
	switch (op) {
#define CIX_WORKER_OP_NAME(name, code, wire) case code: return wire;
	CIX_WORKER_OPS(CIX_WORKER_OP_NAME)
#undef CIX_WORKER_OP_NAME
	}
	return 0;
}
