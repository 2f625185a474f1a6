/* worker-ops.h - the worker protocol's operations, named once for client and daemon */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_WORKER_OPS_H
#define CIX_WORKER_OPS_H

#include <stdint.h>

/*
 * Every operation code of the protocol (1.34, Nix 2.8's; 80 is Guix's),
 * as X(NAME, CODE, "WireName"). Numbers that earlier versions used and
 * then removed are kept as comments, so that none is given out again.
 */
#define CIX_WORKER_OPS(X) \
	X(IS_VALID_PATH, 1, "IsValidPath") \
	/* 2: the first HasSubstitutes, removed */ \
	X(HAS_SUBSTITUTES, 3, "HasSubstitutes") \
	X(QUERY_PATH_HASH, 4, "QueryPathHash") \
	X(QUERY_REFERENCES, 5, "QueryReferences") \
	X(QUERY_REFERRERS, 6, "QueryReferrers") \
	X(ADD_TO_STORE, 7, "AddToStore") \
	X(ADD_TEXT_TO_STORE, 8, "AddTextToStore") \
	X(BUILD_PATHS, 9, "BuildPaths") \
	X(ENSURE_PATH, 10, "EnsurePath") \
	X(ADD_TEMP_ROOT, 11, "AddTempRoot") \
	X(ADD_INDIRECT_ROOT, 12, "AddIndirectRoot") \
	X(SYNC_WITH_GC, 13, "SyncWithGC") \
	X(FIND_ROOTS, 14, "FindRoots") \
	/* 15: the first CollectGarbage, removed */ \
	X(EXPORT_PATH, 16, "ExportPath") \
	/* 17: ImportPath (one path), removed for ImportPaths */ \
	X(QUERY_DERIVER, 18, "QueryDeriver") \
	X(SET_OPTIONS, 19, "SetOptions") \
	X(COLLECT_GARBAGE, 20, "CollectGarbage") \
	X(QUERY_SUBSTITUTABLE_PATH_INFO, 21, "QuerySubstitutablePathInfo") \
	X(QUERY_DERIVATION_OUTPUTS, 22, "QueryDerivationOutputs") \
	X(QUERY_ALL_VALID_PATHS, 23, "QueryAllValidPaths") \
	X(QUERY_FAILED_PATHS, 24, "QueryFailedPaths") \
	X(CLEAR_FAILED_PATHS, 25, "ClearFailedPaths") \
	X(QUERY_PATH_INFO, 26, "QueryPathInfo") \
	X(IMPORT_PATHS, 27, "ImportPaths") \
	X(QUERY_DERIVATION_OUTPUT_NAMES, 28, "QueryDerivationOutputNames") \
	X(QUERY_PATH_FROM_HASH_PART, 29, "QueryPathFromHashPart") \
	X(QUERY_SUBSTITUTABLE_PATH_INFOS, 30, "QuerySubstitutablePathInfos") \
	X(QUERY_VALID_PATHS, 31, "QueryValidPaths") \
	X(QUERY_SUBSTITUTABLE_PATHS, 32, "QuerySubstitutablePaths") \
	X(QUERY_VALID_DERIVERS, 33, "QueryValidDerivers") \
	X(OPTIMISE_STORE, 34, "OptimiseStore") \
	X(VERIFY_STORE, 35, "VerifyStore") \
	X(BUILD_DERIVATION, 36, "BuildDerivation") \
	X(ADD_SIGNATURES, 37, "AddSignatures") \
	X(NAR_FROM_PATH, 38, "NarFromPath") \
	X(ADD_TO_STORE_NAR, 39, "AddToStoreNar") \
	X(QUERY_MISSING, 40, "QueryMissing") \
	X(QUERY_DERIVATION_OUTPUT_MAP, 41, "QueryDerivationOutputMap") \
	X(REGISTER_DRV_OUTPUT, 42, "RegisterDrvOutput") \
	X(QUERY_REALISATION, 43, "QueryRealisation") \
	X(ADD_MULTIPLE_TO_STORE, 44, "AddMultipleToStore") \
	X(ADD_BUILD_LOG, 45, "AddBuildLog") \
	X(BUILD_PATHS_WITH_RESULTS, 46, "BuildPathsWithResults") \
	X(BUILTIN_BUILDERS, 80, "BuiltinBuilders")

enum cix_worker_op {
#define CIX_WORKER_OP_ENUM(name, code, wire) CIX_OP_##name = code,
	CIX_WORKER_OPS(CIX_WORKER_OP_ENUM)
#undef CIX_WORKER_OP_ENUM
};

/* The operation's name in the protocol's own spelling; NULL if unknown. */
const char *cix_worker_op_name(uint64_t op);

#endif
