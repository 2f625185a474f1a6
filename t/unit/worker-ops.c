/* worker-ops.c - client and daemon name the protocol's operations alike */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "tap.h"
#include "daemon.h"
#include "worker-ops.h"

/*
 * The numbers Nix 2.8's clients send (and Guix's 80), written out here
 * independently of lib/worker-ops.h: the enum must agree with them.
 */
static const struct { unsigned code; const char *name; } nix_ops[] = {
	{ 1, "IsValidPath" }, { 3, "HasSubstitutes" }, { 4, "QueryPathHash" },
	{ 5, "QueryReferences" }, { 6, "QueryReferrers" }, { 7, "AddToStore" },
	{ 8, "AddTextToStore" }, { 9, "BuildPaths" }, { 10, "EnsurePath" },
	{ 11, "AddTempRoot" }, { 12, "AddIndirectRoot" }, { 13, "SyncWithGC" },
	{ 14, "FindRoots" }, { 16, "ExportPath" }, { 18, "QueryDeriver" },
	{ 19, "SetOptions" }, { 20, "CollectGarbage" }, { 21, "QuerySubstitutablePathInfo" },
	{ 22, "QueryDerivationOutputs" }, { 23, "QueryAllValidPaths" },
	{ 24, "QueryFailedPaths" }, { 25, "ClearFailedPaths" }, { 26, "QueryPathInfo" },
	{ 27, "ImportPaths" }, { 28, "QueryDerivationOutputNames" },
	{ 29, "QueryPathFromHashPart" }, { 30, "QuerySubstitutablePathInfos" },
	{ 31, "QueryValidPaths" }, { 32, "QuerySubstitutablePaths" },
	{ 33, "QueryValidDerivers" }, { 34, "OptimiseStore" }, { 35, "VerifyStore" },
	{ 36, "BuildDerivation" }, { 37, "AddSignatures" }, { 38, "NarFromPath" },
	{ 39, "AddToStoreNar" }, { 40, "QueryMissing" }, { 41, "QueryDerivationOutputMap" },
	{ 42, "RegisterDrvOutput" }, { 43, "QueryRealisation" },
	{ 44, "AddMultipleToStore" }, { 45, "AddBuildLog" },
	{ 46, "BuildPathsWithResults" }, { 80, "BuiltinBuilders" },
};

static void check_names(void)
{
	unsigned named = 0;
	for (size_t i = 0; i < sizeof(nix_ops) / sizeof(nix_ops[0]); i++) {
		const char *n = cix_worker_op_name(nix_ops[i].code);
		if (!ok(n && !strcmp(n, nix_ops[i].name), "%u is %s", nix_ops[i].code,
			nix_ops[i].name))
			diag("the enum says %s", n ? n : "nothing");
	}
	for (unsigned code = 0; code < 256; code++)
		named += cix_worker_op_name(code) != NULL;
	is_int(named, sizeof(nix_ops) / sizeof(nix_ops[0]), "no other number is named");
	ok(!cix_worker_op_name(2) && !cix_worker_op_name(15) && !cix_worker_op_name(17),
	   "removed numbers stay unnamed");
}

/* Every operation the daemon serves is one the client names; none twice. */
static void check_daemon(void)
{
	const struct op *const tables[] = {
		daemon_read_ops, daemon_query_ops, daemon_add_ops, daemon_add_nar_ops,
		daemon_build_ops, daemon_gc_ops, daemon_log_ops, daemon_guix_ops,
	};
	unsigned char seen[256] = { 0 };
	int served = 0, unnamed = 0, twice = 0;
	for (size_t t = 0; t < sizeof(tables) / sizeof(tables[0]); t++)
		for (const struct op *o = tables[t]; o->fn; o++, served++) {
			if (!cix_worker_op_name(o->code)) {
				diag("the daemon serves %u, which has no name", (unsigned)o->code);
				unnamed++;
			}
			if (o->code < 256 && seen[o->code]++)
				twice++;
		}
	ok(served >= 40, "the daemon serves %d operations", served);
	is_int(unnamed, 0, "each has a name in the shared enum");
	is_int(twice, 0, "none is served twice");
	/* What the client sends and the daemon must answer. */
	static const enum cix_worker_op sent[] = {
		CIX_OP_IS_VALID_PATH, CIX_OP_QUERY_PATH_INFO, CIX_OP_QUERY_REFERRERS,
		CIX_OP_QUERY_VALID_DERIVERS, CIX_OP_QUERY_DERIVATION_OUTPUTS, CIX_OP_ADD_TO_STORE,
		CIX_OP_ADD_TO_STORE_NAR, CIX_OP_NAR_FROM_PATH, CIX_OP_SET_OPTIONS,
		CIX_OP_QUERY_MISSING, CIX_OP_BUILD_PATHS, CIX_OP_BUILD_PATHS_WITH_RESULTS,
		CIX_OP_VERIFY_STORE, CIX_OP_OPTIMISE_STORE, CIX_OP_COLLECT_GARBAGE,
		CIX_OP_ADD_TEMP_ROOT, CIX_OP_ADD_INDIRECT_ROOT, CIX_OP_ENSURE_PATH,
		CIX_OP_FIND_ROOTS,
	};
	int missing = 0;
	for (size_t i = 0; i < sizeof(sent) / sizeof(sent[0]); i++)
		if (!seen[sent[i]]) {
			diag("the client sends %s; the daemon does not serve it",
			     cix_worker_op_name(sent[i]));
			missing++;
		}
	is_int(missing, 0, "the daemon serves every operation the client sends");
}

int main(void)
{
	check_names();
	check_daemon();
	return done_testing();
}
