/* STAND-IN, NOT THE REAL API (see README.md here): the patching declarations only. */
#pragma once
#include "sanitizer_stub_decls.h"
