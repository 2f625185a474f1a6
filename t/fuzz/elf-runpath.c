/* elf-runpath.c - libFuzzer target: gnu-build's ELF reader (builder/elf.c) */
/* SPDX-License-Identifier: GPL-3.0-or-later */
/* gnu-build is not part of libcix: its reader is compiled in here. */
#include "../../builder/elf.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct elf_dyninfo info;
	char err[200];
	size_t i;
	int r = elf_read_dyninfo(data, size, &info, err, sizeof(err));

	if (r < -1 || r > 1 || (r < 0 && (!err[0] || strchr(err, '\n'))))
		abort(); /* refusals carry a one-line reason */
	if (!r) {
		for (i = 0; i < info.nr_needed; i++)
			if (!info.needed[i][0])
				abort();
		for (i = 0; i < info.nr_runpath; i++)
			if (!info.runpath[i][0] || strchr(info.runpath[i], ':'))
				abort();
	}
	elf_dyninfo_free(&info);
	return 0;
}
