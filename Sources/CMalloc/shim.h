#ifndef ARCHIVE_SERVICE_CMALLOC_SHIM_H
#define ARCHIVE_SERVICE_CMALLOC_SHIM_H

/* glibc's malloc.h, which Swift's Glibc module leaves out: malloc_trim hands the pages that
 * large conversions freed back to the system (MemoryTrim). */
#include <malloc.h>

#endif
