// The C edge of docsh's age files: libsodium (Debian's libsodium-dev, 1.0.18). Only
// DocsKit/Crypto/Sodium.swift imports it.
#ifndef DOCSH_CSODIUM_SHIM_H
#define DOCSH_CSODIUM_SHIM_H

#include <sodium.h>

#endif
