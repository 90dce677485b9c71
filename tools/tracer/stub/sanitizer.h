/* STAND-IN, NOT THE REAL API (see README.md here): the real sanitizer.h includes all of the
 * Compute Sanitizer API headers. */
#pragma once
#include "sanitizer_stub_decls.h"
